func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>, %x: tensor<?x?xbf16>, %y: tensor<?x?xbf16>, %z: tensor<?x?xf32>) -> (tensor<8xf32>, tensor<?x?xf32>) {
  %r = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%c : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.matmul ins(%x, %y : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r, %m : tensor<8xf32>, tensor<?x?xf32>
}
