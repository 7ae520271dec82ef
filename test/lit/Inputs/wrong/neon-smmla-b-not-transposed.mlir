// DELIBERATELY WRONG: smmla with B held row-major; the instruction holds it transposed.
// NEON SMMLA Vd.4S, Vn.16B, Vm.16B: 2x8 signed byte matrix A (row-major in Vn) times 8x2 B
// (held transposed in Vm), added to the 2x2 32-bit matrix C (row-major in Vd), wrapping:
//   C[i,j] += sum_k A[i,k] * B[k,j],  i, j < 2, k < 8
func.func @neon_smmla(%a: tensor<2x8xi8>, %b: tensor<8x2xi8>, %acc: tensor<2x2xi32>) -> tensor<2x2xi32>
    attributes {tisa.instruction = {
      name = "wrong.neon.smmla",
      target = "aarch64",
      features = ["+neon", "+i8mm"],
      extension = "I8MM",
      mnemonic = "smmla",
      registers = [
        {type = vector<16xi8>, layout = affine_map<(i, k) -> (i * 8 + k)>},
        {type = vector<16xi8>, layout = affine_map<(k, j) -> (k * 2 + j)>},
        {type = vector<4xi32>, layout = affine_map<(i, j) -> (i * 2 + j)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.smmla.v4i32.v16i8", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), A64 SMMLA (vector): Signed 8-bit integer matrix multiply-accumulate"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                     affine_map<(i, j, k) -> (k, j)>,
                     affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x8xi8>, tensor<8x2xi8>) outs(%acc : tensor<2x2xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
