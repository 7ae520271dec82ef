// A vector-matrix product: the lane loop (n) is the only parallel loop.
func.func @vecmat(%a: memref<70xi8>, %b: memref<70x37xi8>, %c: memref<37xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<37xi32>)
  linalg.vecmat ins(%a, %b : memref<70xi8>, memref<70x37xi8>) outs(%c : memref<37xi32>)
  return
}
