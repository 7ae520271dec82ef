// An int8 GEMM followed by what every quantized model does to its result:
// a bias per column, requantization with a scale per column (f32), rounding
// to nearest even, a zero point and saturation to s8.
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @gemm_requant(%a: tensor<33x70xi8>, %b: tensor<70x48xi8>, %bias: tensor<48xi32>, %scale: tensor<48xf32>, %zp: i32) -> tensor<33x48xi8> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<33x48xi32>
  %c0 = linalg.fill ins(%zero : i32) outs(%e : tensor<33x48xi32>) -> tensor<33x48xi32>
  %c = linalg.matmul ins(%a, %b : tensor<33x70xi8>, tensor<70x48xi8>) outs(%c0 : tensor<33x48xi32>) -> tensor<33x48xi32>
  %e8 = tensor.empty() : tensor<33x48xi8>
  %d = linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias, %scale : tensor<33x48xi32>, tensor<48xi32>, tensor<48xf32>) outs(%e8 : tensor<33x48xi8>) {
  ^bb0(%cv: i32, %bv: i32, %sv: f32, %o: i8):
    %s = arith.addi %cv, %bv : i32
    %f = arith.sitofp %s : i32 to f32
    %m = arith.mulf %f, %sv : f32
    %r = math.roundeven %m : f32
    %zf = arith.sitofp %zp : i32 to f32
    %q = arith.addf %r, %zf : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %c1 = arith.maximumf %q, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i32
    %t = arith.trunci %i : i32 to i8
    linalg.yield %t : i8
  } -> tensor<33x48xi8>
  return %d : tensor<33x48xi8>
}
