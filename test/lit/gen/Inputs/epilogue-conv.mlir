// An NHWC u8 x s8 convolution (3x3, zero padding 1, 19 channels, 21 filters)
// followed by a bias per filter, a residual add and ReLU, all elementwise on
// its i32 result: fused, the result is stored once.
#id = affine_map<(n, h, w, f) -> (n, h, w, f)>
#ch = affine_map<(n, h, w, f) -> (f)>
func.func @conv_bias_residual_relu(%in: tensor<1x13x11x19xi8>, %filter: tensor<3x3x19x21xi8>, %bias: tensor<21xi32>, %residual: tensor<1x11x9x21xi32>) -> tensor<1x11x9x21xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x11x9x21xi32>
  %c0 = linalg.fill ins(%zero : i32) outs(%e : tensor<1x11x9x21xi32>) -> tensor<1x11x9x21xi32>
  %c = linalg.generic {
      indexing_maps = [affine_map<(n, h, w, f, r, s, c) -> (n, h + r, w + s, c)>,
                       affine_map<(n, h, w, f, r, s, c) -> (r, s, c, f)>,
                       affine_map<(n, h, w, f, r, s, c) -> (n, h, w, f)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %filter : tensor<1x13x11x19xi8>, tensor<3x3x19x21xi8>) outs(%c0 : tensor<1x11x9x21xi32>) {
  ^bb0(%x: i8, %y: i8, %z: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %z, %p : i32
    linalg.yield %s : i32
  } -> tensor<1x11x9x21xi32>
  %d = linalg.generic {indexing_maps = [#id, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias, %residual : tensor<1x11x9x21xi32>, tensor<21xi32>, tensor<1x11x9x21xi32>) outs(%e : tensor<1x11x9x21xi32>) {
  ^bb0(%cv: i32, %bv: i32, %rv: i32, %o: i32):
    %s = arith.addi %cv, %bv : i32
    %t = arith.addi %s, %rv : i32
    %r = arith.maxsi %t, %zero : i32
    linalg.yield %r : i32
  } -> tensor<1x11x9x21xi32>
  return %d : tensor<1x11x9x21xi32>
}
