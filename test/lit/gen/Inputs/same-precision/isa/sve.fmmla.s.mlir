// SVE FMMLA Zda.S, Zn.S, Zm.S (FEAT_F32MM): within each 128-bit segment, the 2x2 f32 matrix A
// (row-major) times the 2x2 B (held transposed) is added to the 2x2 f32 C. Each product is rounded
// to f32, the two products of a row and column are added, and their sum is added to C: a
// same-precision instruction (no widening anywhere). Written as a user would write a new
// instruction: no code in tisa knows it.
//   C[i,j] += A[i,0]*B[0,j] + A[i,1]*B[1,j],  i, j < 2
func.func @sve_fmmla_s(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %acc: tensor<2x2xf32>) -> tensor<2x2xf32>
    attributes {tisa.instruction = {
      name = "sve.fmmla.s",
      target = "aarch64",
      features = ["+sve", "+f32mm"],
      extension = "SVE F32MM",
      mnemonic = "fmmla",
      registers = [
        {type = vector<[4]xf32>, layout = affine_map<(i, k) -> (i * 2 + k)>},
        {type = vector<[4]xf32>, layout = affine_map<(k, j) -> (j * 2 + k)>},
        {type = vector<[4]xf32>, layout = affine_map<(i, j) -> (i * 2 + j)>}],
      fp = {accumulation = "pairwise", rounding = "nearest-even", input_denormals = "keep",
            output_denormals = "keep", nan = "propagate"},
      lowering = {intrinsic = "llvm.aarch64.sve.fmmla.nxv4f32.nxv4f32", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), SVE FMMLA: Floating-point matrix multiply-accumulate"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                     affine_map<(i, j, k) -> (k, j)>,
                     affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%acc : tensor<2x2xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32):
      %p = arith.mulf %x, %y : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  } -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
