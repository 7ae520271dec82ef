func.func @gemm(%a: memref<32x64xf32>, %b: memref<64x48xf32>, %c: memref<32x48xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x48xf32>) outs(%c : memref<32x48xf32>)
  return
}
