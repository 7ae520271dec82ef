// s8 x s8 with M, N and K known at run time only (-tisa-split-dynamic): M in
// blocks of 256 rows and the remainder's binary digits, N and K in whole
// blocks of 256, the last one on zero-padded copies, each (N, K) block with
// its own part of the packed buffer; K's blocks add up in C.
func.func @dyn(%a: memref<?x?xi8>, %b: memref<?x?xi8>, %c: memref<?x?xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<?x?xi32>)
  linalg.matmul ins(%a, %b : memref<?x?xi8>, memref<?x?xi8>) outs(%c : memref<?x?xi32>)
  return
}
