func.func @f(%a: tensor<4x4xi8>) -> tensor<4x4xi8> {
  %r = linalg.ma