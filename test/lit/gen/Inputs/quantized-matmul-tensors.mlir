// The quantized GEMM of quantized-matmul.mlir on tensors, as torch-mlir gives it.
func.func @qmatmul(%a: tensor<33x70xi8>, %b: tensor<70x48xi8>, %za: i32, %zb: i32) -> tensor<33x48xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<33x48xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<33x48xi32>) -> tensor<33x48xi32>
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<33x70xi8>, tensor<70x48xi8>, i32, i32) outs(%c : tensor<33x48xi32>) -> tensor<33x48xi32>
  return %r : tensor<33x48xi32>
}
