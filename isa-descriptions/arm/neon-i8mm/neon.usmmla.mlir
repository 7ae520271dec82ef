// NEON USMMLA Vd.4S, Vn.16B, Vm.16B: 2x8 unsigned byte matrix A (row-major in Vn) times 8x2 signed byte B
// (held transposed in Vm), added to the 2x2 32-bit matrix C (row-major in Vd), wrapping:
//   C[i,j] += sum_k zext(A[i,k]) * sext(B[k,j]),  i, j < 2, k < 8
func.func @neon_usmmla(%a: tensor<2x8xi8>, %b: tensor<8x2xi8>, %acc: tensor<2x2xi32>) -> tensor<2x2xi32>
    attributes {tisa.instruction = {
      name = "neon.usmmla",
      target = "aarch64",
      features = ["+neon", "+i8mm"],
      extension = "I8MM",
      mnemonic = "usmmla",
      registers = [
        {type = vector<16xi8>, layout = affine_map<(i, k) -> (i * 8 + k)>},
        {type = vector<16xi8>, layout = affine_map<(k, j) -> (j * 8 + k)>},
        {type = vector<4xi32>, layout = affine_map<(i, j) -> (i * 2 + j)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.usmmla.v4i32.v16i8", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), A64 USMMLA (vector): Unsigned and signed 8-bit integer matrix multiply-accumulate"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                     affine_map<(i, j, k) -> (k, j)>,
                     affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x8xi8>, tensor<8x2xi8>) outs(%acc : tensor<2x2xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
