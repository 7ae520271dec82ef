func.func @mma_m8n8k16_s8s8s32(%a: tensor<8x16xi8>, %b: tensor<16x8xi8>, %acc: tensor<8x8xi32>) -> tensor<8x8xi32>
    attributes {tisa.instruction = {
      name = "mma.m8n8k16.s8s8s32",
      target = "nvptx64",
      features = ["+sm_75", "+ptx65"],
      extension = "Tensor Core (sm_75)",
      mnemonic = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32",
      registers = [
        {class = "warp.fragment", type = vector<32x4xi8>, layout = affine_map<(m, k) -> (m * 4 + k floordiv 4, k mod 4)>},
        {class = "warp.fragment", type = vector<32x4xi8>, layout = affine_map<(k, n) -> (n * 4 + k floordiv 4, k mod 4)>},
        {class = "warp.fragment", type = vector<32x2xi32>, layout = affine_map<(m, n) -> (m * 4 + n floordiv 2, n mod 2)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.nvvm.mma.m8n8k16.row.col.s8", operands = [0, 1, 2]},
      reference = "PTX ISA 8.x, Matrix Fragments for mma.m8n8k16"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (k, n)>,
                     affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x16xi8>, tensor<16x8xi8>) outs(%acc : tensor<8x8xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
}
