// As torch-mlir or StableHLO-to-linalg write a GEMM: linalg on tensors, the result returned.
func.func @matmul_tensors(%a: tensor<64x128xi8>, %b: tensor<128x96xi8>) -> tensor<64x96xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<64x96xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<64x96xi32>) -> tensor<64x96xi32>
  %r = linalg.matmul ins(%a, %b : tensor<64x128xi8>, tensor<128x96xi8>)
                     outs(%c : tensor<64x96xi32>) -> tensor<64x96xi32>
  return %r : tensor<64x96xi32>
}
