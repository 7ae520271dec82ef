// DELIBERATELY WRONG: neon.bfmmla keeping denormal results; the hardware flushes them to zero. It
// verified before: no case made a denormal result (products of the smallest normal and 2^-8 do).
// NEON BFMMLA Vd.4S, Vn.8H, Vm.8H: 2x4 bf16 matrix A (row-major in Vn) times 4x2 B (held transposed
// in Vm) added to the 2x2 fp32 matrix C. Per the Arm pseudocode (BFMatMulAdd / BFDotAdd without
// FEAT_EBF16), each pair of products is summed and then added to the accumulator, every step rounded
// to odd with denormal inputs and results flushed to zero and NaNs replaced by the default NaN:
//   C[i,j] = (C[i,j] + (A[i,0]B[0,j] + A[i,1]B[1,j])) + (A[i,2]B[2,j] + A[i,3]B[3,j])
func.func @neon_bfmmla(%a: tensor<2x4xbf16>, %b: tensor<4x2xbf16>, %acc: tensor<2x2xf32>) -> tensor<2x2xf32>
    attributes {tisa.instruction = {
      name = "wrong.neon.bfmmla.denormals",
      target = "aarch64",
      features = ["+neon", "+bf16"],
      extension = "BF16",
      mnemonic = "bfmmla",
      registers = [
        {type = vector<8xbf16>, layout = affine_map<(i, k) -> (i * 4 + k)>},
        {type = vector<8xbf16>, layout = affine_map<(k, j) -> (j * 4 + k)>},
        {type = vector<4xf32>, layout = affine_map<(i, j) -> (i * 2 + j)>}],
      fp = {accumulation = "pairwise", rounding = "odd", input_denormals = "zero",
            output_denormals = "keep", nan = "default"},
      lowering = {intrinsic = "llvm.aarch64.neon.bfmmla", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), A64 BFMMLA: BFloat16 floating-point matrix multiply-accumulate"}} {
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
