// NEON SDOT Vd.4S, Vn.16B, Vm.16B: each 32-bit lane adds the dot product of 4 signed bytes
// of a and b, wrapping:  acc[n] += sum_k sext(a[n,k]) * sext(b[n,k]),  n < 4, k < 4
// Register layout: byte 4n+k holds element (n, k).
func.func @neon_sdot(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "neon.sdot",
      target = "aarch64",
      features = ["+neon", "+dotprod"],
      extension = "DotProd",
      mnemonic = "sdot",
      registers = [
        {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<4xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 1], by_element = 1},
      reference = "Arm ARM (DDI 0487), A64 SDOT (vector): Dot Product signed arithmetic (vector)"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%acc : tensor<4xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
