func.func @f(%i: tensor<1x10x10x8xi8>, %w: tensor<3x3x8x20xi8>) -> tensor<1x5x5x20xi32> {
  %c0 = arith.constant 0 : i8
  %p = tensor.pad %i low[0, 1, 1, 0] high[0, 1, 1, 0] { ^bb0(%a: index, %b: index, %c: index, %d: index): tensor.yield %c0 : i8 } : tensor<1x10x10x8xi8> to tensor<1x12x12x8xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x5x5x20xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<1x5x5x20xi32>) -> tensor<1x5x5x20xi32>
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 2]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%p, %w : tensor<1x12x12x8xi8>, tensor<3x3x8x20xi8>) outs(%f : tensor<1x5x5x20xi32>) -> tensor<1x5x5x20xi32>
  return %r : tensor<1x5x5x20xi32>
}
