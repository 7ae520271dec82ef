// DELIBERATELY WRONG: SVE sdot described with unsigned bytes.
// SVE SDOT Zda.S, Zn.B, Zm.B: each 32-bit element adds the dot product of 4 signed bytes, wrapping.
// Vector-length agnostic: the semantics describe one 128-bit segment (4 lanes) and the instruction
// applies them to each of the VL/128 segments.
//   acc[n] += sum_k sext(a[n,k]) * sext(b[n,k]),  n < 4 per segment, k < 4
func.func @sve_sdot(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "wrong.sve.sdot",
      target = "aarch64",
      features = ["+sve"],
      extension = "SVE",
      mnemonic = "sdot",
      registers = [
        {type = vector<[16]xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<[16]xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<[4]xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.sve.sdot.nxv4i32", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), SVE SDOT (vectors): Signed integer dot product"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%acc : tensor<4xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extui %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
