// A bf16 GEMM whose f32 result gets a bias per column, ReLU and is rounded
// to bf16: the elementwise consumer runs on the accumulators in registers.
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @gemm_bias_relu_bf16(%a: tensor<29x96xbf16>, %b: tensor<96x40xbf16>, %bias: tensor<40xf32>) -> tensor<29x40xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<29x40xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<29x40xf32>) -> tensor<29x40xf32>
  %c = linalg.matmul ins(%a, %b : tensor<29x96xbf16>, tensor<96x40xbf16>) outs(%c0 : tensor<29x40xf32>) -> tensor<29x40xf32>
  %e16 = tensor.empty() : tensor<29x40xbf16>
  %d = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %c : tensor<40xf32>, tensor<29x40xf32>) outs(%e16 : tensor<29x40xbf16>) {
  ^bb0(%bv: f32, %cv: f32, %o: bf16):
    %s = arith.addf %cv, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<29x40xbf16>
  return %d : tensor<29x40xbf16>
}
