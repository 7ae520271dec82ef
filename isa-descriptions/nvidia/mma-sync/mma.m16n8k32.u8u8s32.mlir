// PTX mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32: warp-wide D = A x B + C with A 16x32 u8, B 32x8 u8, C/D 16x8 s32 (wrapping).
// Fragments per the PTX ISA's "Matrix Fragments for mma.m16n8k32" (groupID = lane / 4,
// threadID_in_group = lane % 4):
//   A: a_i at row groupID + 8*((i/4)%2), column 4*threadID_in_group + i%4 + 16*(i/8)
//   B: b_i at row 4*threadID_in_group + i%4 + 16*(i/4), column groupID
//   C: c_i at row groupID + 8*(i/2), column 2*threadID_in_group + i%2
// The layout maps below are the inverse: (row, column) -> (lane, element of the lane).
func.func @mma_m16n8k32_u8u8s32(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>, %acc: tensor<16x8xi32>) -> tensor<16x8xi32>
    attributes {tisa.instruction = {
      name = "mma.m16n8k32.u8u8s32",
      target = "nvptx64",
      features = ["+sm_80", "+ptx70"],
      extension = "Tensor Core (sm_80)",
      mnemonic = "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32",
      registers = [
        {class = "warp.fragment", type = vector<32x16xi8>, layout = affine_map<(m, k) -> ((m mod 8) * 4 + (k mod 16) floordiv 4, k mod 4 + (m floordiv 8) * 4 + (k floordiv 16) * 8)>},
        {class = "warp.fragment", type = vector<32x8xi8>, layout = affine_map<(k, n) -> (n * 4 + (k mod 16) floordiv 4, k mod 4 + (k floordiv 16) * 4)>},
        {class = "warp.fragment", type = vector<32x4xi32>, layout = affine_map<(m, n) -> ((m mod 8) * 4 + n floordiv 2, n mod 2 + (m floordiv 8) * 2)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.nvvm.mma.m16n8k32.row.col.u8", operands = [0, 1, 2]},
      reference = "PTX ISA 8.x, 9.7.14.5.10 Matrix Fragments for mma.m16n8k32; 9.7.14.5.14 mma"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (k, n)>,
                     affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x32xi8>, tensor<32x8xi8>) outs(%acc : tensor<16x8xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extui %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<16x8xi32>
  return %r : tensor<16x8xi32>
}
