// s8 x s8 with M known at run time only: vpdpbusd with the +128 bias and
// the compensation sums of A, in blocks of 256 rows and the remainder's
// binary digits (-tisa-split-dynamic).
func.func @dyn(%a: memref<?x70xi8>, %b: memref<70x40xi8>, %c: memref<?x40xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<?x40xi32>)
  linalg.matmul ins(%a, %b : memref<?x70xi8>, memref<70x40xi8>) outs(%c : memref<?x40xi32>)
  return
}
