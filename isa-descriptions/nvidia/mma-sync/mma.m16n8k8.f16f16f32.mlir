// PTX mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32: warp-wide D = A x B + C with A 16x8 f16, B 8x8 f16, C/D 16x8 f32.
// Each operand is distributed over the 32 lanes as the PTX ISA's "Matrix Fragments for mma.m16n8k8 with floating point type"
// state (groupID = lane / 4, threadID_in_group = lane % 4):
//   A: a_i at row groupID + 8*(i/2), column 2*threadID_in_group + i%2
//   B: b_i at row 2*threadID_in_group + i, column groupID
//   C: c_i at row groupID + 8*(i/2), column 2*threadID_in_group + i%2
// The layout maps below are the inverse: (row, column) -> (lane, element of the lane).
// PTX does not specify the order in which products are accumulated: 'unordered'.
func.func @mma_m16n8k8_f16f16f32(%a: tensor<16x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<16x8xf32>) -> tensor<16x8xf32>
    attributes {tisa.instruction = {
      name = "mma.m16n8k8.f16f16f32",
      target = "nvptx64",
      features = ["+sm_80", "+ptx70"],
      extension = "Tensor Core (sm_80)",
      mnemonic = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
      registers = [
        {class = "warp.fragment", type = vector<32x4xf16>, layout = affine_map<(m, k) -> ((m mod 8) * 4 + k floordiv 2, k mod 2 + (m floordiv 8) * 2)>},
        {class = "warp.fragment", type = vector<32x2xf16>, layout = affine_map<(k, n) -> (n * 4 + k floordiv 2, k mod 2)>},
        {class = "warp.fragment", type = vector<32x4xf32>, layout = affine_map<(m, n) -> ((m mod 8) * 4 + n floordiv 2, n mod 2 + (m floordiv 8) * 2)>}],
      fp = {accumulation = "unordered", rounding = "nearest-even", input_denormals = "keep",
            output_denormals = "keep", nan = "propagate"},
      lowering = {intrinsic = "llvm.nvvm.mma.m16n8k8.row.col.f32.f32", operands = [0, 1, 2]},
      reference = "PTX ISA 8.x, Matrix Fragments for mma.m16n8k8 (floating point type); mma"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (k, n)>,
                     affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x8xf16>, tensor<8x8xf16>) outs(%acc : tensor<16x8xf32>) {
    ^bb0(%x: f16, %y: f16, %s: f32):
      %xw = arith.extf %x : f16 to f32
      %yw = arith.extf %y : f16 to f32
      %p = arith.mulf %xw, %yw : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  } -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
