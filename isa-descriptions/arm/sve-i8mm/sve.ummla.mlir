// SVE UMMLA Zda.S, Zn.B, Zm.B: within each 128-bit segment, the 2x8 unsigned byte matrix A (row-major)
// times the unsigned 8x2 B (held transposed) is added to the 2x2 32-bit matrix C, wrapping. The semantics
// describe one segment; the instruction applies them to each of the VL/128 segments.
//   C[i,j] += sum_k zext(A[i,k]) * zext(B[k,j]),  i, j < 2, k < 8
func.func @sve_ummla(%a: tensor<2x8xi8>, %b: tensor<8x2xi8>, %acc: tensor<2x2xi32>) -> tensor<2x2xi32>
    attributes {tisa.instruction = {
      name = "sve.ummla",
      target = "aarch64",
      features = ["+sve", "+i8mm"],
      extension = "SVE I8MM",
      mnemonic = "ummla",
      registers = [
        {type = vector<[16]xi8>, layout = affine_map<(i, k) -> (i * 8 + k)>},
        {type = vector<[16]xi8>, layout = affine_map<(k, j) -> (j * 8 + k)>},
        {type = vector<[4]xi32>, layout = affine_map<(i, j) -> (i * 2 + j)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.sve.ummla.nxv4i32", operands = [2, 0, 1]},
      reference = "Arm ARM (DDI 0487), SVE UMMLA: Unsigned integer matrix multiply-accumulate"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                     affine_map<(i, j, k) -> (k, j)>,
                     affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x8xi8>, tensor<8x2xi8>) outs(%acc : tensor<2x2xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extui %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
