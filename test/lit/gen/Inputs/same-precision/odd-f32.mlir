func.func @gemm(%a: memref<17x67xf32>, %b: memref<67x33xf32>, %c: memref<17x33xf32>) {
  linalg.matmul ins(%a, %b : memref<17x67xf32>, memref<67x33xf32>) outs(%c : memref<17x33xf32>)
  return
}
