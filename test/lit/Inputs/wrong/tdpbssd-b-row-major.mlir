// DELIBERATELY WRONG: tdpbssd with B not in the VNNI [K/4][N][4] layout.
// TDPBSSD: AMX int8 tile multiply, signed A x signed B into 32-bit accumulators that wrap:
//   C[m,n] += sum_k sext(A[m,k]) * sext(B[k,n]),  m < 16, n < 16, k < 64
// The semantics state the largest shape palette 1 allows (16 rows x 64 bytes per tile). A is held
// row-major; B in the VNNI layout [K/4][N][4]: tile row k/4, byte 4n + k%4; C row-major.
func.func @tdpbssd(%a: tensor<16x64xi8>, %b: tensor<64x16xi8>, %acc: tensor<16x16xi32>) -> tensor<16x16xi32>
    attributes {tisa.instruction = {
      name = "wrong.tdpbssd",
      target = "x86_64",
      features = ["+amx-tile", "+amx-int8"],
      extension = "AMX-INT8",
      mnemonic = "tdpbssd",
      registers = [
        {class = "amx.tile", type = vector<16x64xi8>, layout = affine_map<(m, k) -> (m, k)>},
        {class = "amx.tile", type = vector<16x64xi8>, layout = affine_map<(k, n) -> (k floordiv 4, (k mod 4) * 16 + n)>},
        {class = "amx.tile", type = vector<16x16xi32>, layout = affine_map<(m, n) -> (m, n)>}],
      saturation = "none",
      bounds = {rows = 16, bytes_per_row = 64},
      config = "amx-palette1",
      lowering = {intrinsic = "llvm.x86.tdpbssd.internal",
                  operands = [{rows = 2}, {colsb = 2}, {colsb = 0}, 2, 0, 1]},
      reference = "Intel SDM Vol. 2C, TDPBSSD/TDPBSUD/TDPBUSD/TDPBUUD (Dot Product of Signed/Unsigned Bytes with Dword Accumulation)"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (k, n)>,
                     affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x64xi8>, tensor<64x16xi8>) outs(%acc : tensor<16x16xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}
