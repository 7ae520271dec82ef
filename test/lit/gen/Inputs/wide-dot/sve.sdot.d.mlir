// SVE SDOT Zda.D, Zn.H, Zm.H: each 64-bit element adds the dot product of 4 signed halfwords,
// wrapping. Written as a user would write a new instruction (16-bit inputs into a 64-bit
// accumulator): no code in tisa knows it. One 128-bit segment (2 lanes) per vscale.
//   acc[n] += sum_k sext(a[n,k]) * sext(b[n,k]),  n < 2 per segment, k < 4
func.func @sve_sdot_d(%a: tensor<2x4xi16>, %b: tensor<2x4xi16>, %acc: tensor<2xi64>) -> tensor<2xi64>
    attributes {tisa.instruction = {
      name = "sve.sdot.d",
      target = "aarch64",
      features = ["+sve"],
      extension = "SVE",
      mnemonic = "sdot",
      registers = [
        {type = vector<[8]xi16>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<[8]xi16>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<[2]xi64>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.sve.sdot.nxv2i64", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), SVE SDOT (vectors), 64-bit: Signed integer dot product"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<2x4xi16>, tensor<2x4xi16>) outs(%acc : tensor<2xi64>) {
    ^bb0(%x: i16, %y: i16, %s: i64):
      %xw = arith.extsi %x : i16 to i64
      %yw = arith.extsi %y : i16 to i64
      %p = arith.muli %xw, %yw : i64
      %t = arith.addi %s, %p : i64
      linalg.yield %t : i64
  } -> tensor<2xi64>
  return %r : tensor<2xi64>
}
