func.func @f(%a: tensor<4x4xi8>) -> tensor<4x4xi8> {
  %r = linalg.matmul ins(%a : tensor<4x4xi8>) outs(%a : tensor<4x4xi8>) -> tensor<4x4xi8>
  return %r : tensor<4x4xi8>
}
