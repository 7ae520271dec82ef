// A quantized GEMM with run-time zero points, as TOSA-to-linalg and
// torch-mlir give it: C = (A - za)(B - zb) on sign-extended 8-bit inputs.
func.func @qmatmul(%a: memref<33x70xi8>, %b: memref<70x48xi8>, %za: i32, %zb: i32, %c: memref<33x48xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<33x48xi32>)
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<33x70xi8>, memref<70x48xi8>, i32, i32) outs(%c : memref<33x48xi32>)
  return
}
