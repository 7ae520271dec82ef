// SVE BFMMLA Zda.S, Zn.H, Zm.H: within each 128-bit segment, 2x4 bf16 A times 4x2 bf16 B (held
// transposed) added to the 2x2 fp32 C, with the BFDotAdd arithmetic of NEON BFMMLA (pairs summed,
// then accumulated; round to odd, denormals flushed, default NaN).
func.func @sve_bfmmla(%a: tensor<2x4xbf16>, %b: tensor<4x2xbf16>, %acc: tensor<2x2xf32>) -> tensor<2x2xf32>
    attributes {tisa.instruction = {
      name = "sve.bfmmla",
      target = "aarch64",
      features = ["+sve", "+bf16"],
      extension = "SVE BF16",
      mnemonic = "bfmmla",
      registers = [
        {type = vector<[8]xbf16>, layout = affine_map<(i, k) -> (i * 4 + k)>},
        {type = vector<[8]xbf16>, layout = affine_map<(k, j) -> (j * 4 + k)>},
        {type = vector<[4]xf32>, layout = affine_map<(i, j) -> (i * 2 + j)>}],
      fp = {accumulation = "pairwise", rounding = "odd", input_denormals = "zero",
            output_denormals = "flush", nan = "default"},
      lowering = {intrinsic = "llvm.aarch64.sve.bfmmla", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), SVE BFMMLA: BFloat16 floating-point matrix multiply-accumulate"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                     affine_map<(i, j, k) -> (k, j)>,
                     affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x4xbf16>, tensor<4x2xbf16>) outs(%acc : tensor<2x2xf32>) {
    ^bb0(%x: bf16, %y: bf16, %s: f32):
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %p = arith.mulf %xw, %yw : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  } -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
