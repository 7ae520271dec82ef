// DELIBERATELY WRONG: reads tf32 operands rounded to nearest even; the warp reference (the project's model of the hardware) truncates.
// PTX mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: warp-wide D = A x B + C with A 16x8 tf32, B 8x8 tf32, C/D 16x8 f32.
// tf32 operands are held in 32-bit registers with f32's layout; the instruction reads their top 19
// bits (sign, 8-bit exponent, 10-bit significand). PTX leaves the treatment of the low 13 bits to the
// implementation; this description (and tisa's warp reference) reads them as truncated toward zero:
// `arith.truncf ... toward_zero : f32 to tf32`. Kernels that want round-to-nearest convert first
// (cvt.rna.tf32.f32), as CUTLASS does.
// Fragments per the PTX ISA's "Matrix Fragments for mma.m16n8k8" (.tf32; groupID = lane / 4,
// threadID_in_group = lane % 4):
//   A: a_i at row groupID + 8*(i%2), column threadID_in_group + 4*(i/2)
//   B: b_i at row threadID_in_group + 4*i, column groupID
//   C: c_i at row groupID + 8*(i/2), column 2*threadID_in_group + i%2
// The layout maps below are the inverse: (row, column) -> (lane, element of the lane).
// PTX does not specify the order in which products are accumulated: 'unordered'.
// An f32 x f32 program matches it only with --allow-reduced-precision (the plan lists the relaxation).
func.func @mma_m16n8k8_tf32tf32f32(%a: tensor<16x8xf32>, %b: tensor<8x8xf32>, %acc: tensor<16x8xf32>) -> tensor<16x8xf32>
    attributes {tisa.instruction = {
      name = "wrong.mma.m16n8k8.tf32tf32f32",
      target = "nvptx64",
      features = ["+sm_80", "+ptx70"],
      extension = "Tensor Core (sm_80)",
      mnemonic = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
      registers = [
        {class = "warp.fragment", type = vector<32x4xf32>, layout = affine_map<(m, k) -> ((m mod 8) * 4 + k mod 4, m floordiv 8 + (k floordiv 4) * 2)>},
        {class = "warp.fragment", type = vector<32x2xf32>, layout = affine_map<(k, n) -> (n * 4 + k mod 4, k floordiv 4)>},
        {class = "warp.fragment", type = vector<32x4xf32>, layout = affine_map<(m, n) -> ((m mod 8) * 4 + n floordiv 2, n mod 2 + (m floordiv 8) * 2)>}],
      fp = {accumulation = "unordered", rounding = "nearest-even", input_denormals = "keep",
            output_denormals = "keep", nan = "propagate"},
      lowering = {intrinsic = "llvm.nvvm.mma.m16n8k8.row.col.tf32", operands = [0, 1, 2]},
      reference = "PTX ISA 8.x, Matrix Fragments for mma.m16n8k8 (.tf32); mma"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (k, n)>,
                     affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<16x8xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32):
      %xt = arith.truncf %x to_nearest_even : f32 to tf32
      %yt = arith.truncf %y to_nearest_even : f32 to tf32
      %xw = arith.extf %xt : tf32 to f32
      %yw = arith.extf %yt : tf32 to f32
      %p = arith.mulf %xw, %yw : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  } -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
