// VPDPBUSD zmm described k-major: the reduction loop first, the operands'
// semantic shapes [k][n], the factors commuted. The registers hold the same
// bytes as in the shipped description (byte 4n+k holds element (k, n)), so
// the generated kernel must be the same.
func.func @vpdpbusd_kmajor_zmm(%a: tensor<4x16xi8>, %b: tensor<4x16xi8>, %acc: tensor<16xi32>) -> tensor<16xi32>
    attributes {tisa.instruction = {
      name = "kmajor.vpdpbusd.zmm",
      target = "x86_64",
      features = ["+avx512f", "+avx512vnni"],
      extension = "AVX512_VNNI",
      mnemonic = "vpdpbusd",
      registers = [
        {type = vector<64xi8>, layout = affine_map<(k, n) -> (n * 4 + k)>},
        {type = vector<64xi8>, layout = affine_map<(k, n) -> (n * 4 + k)>},
        {type = vector<16xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.x86.avx512.vpdpbusd.512", operands = [2, 0, 1]},
      reference = "Intel SDM Vol. 2C, VPDPBUSD (Multiply and Add Unsigned and Signed Bytes)"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(k, n) -> (k, n)>,
                       affine_map<(k, n) -> (k, n)>,
                       affine_map<(k, n) -> (n)>],
      iterator_types = ["reduction", "parallel"]}
      ins(%a, %b : tensor<4x16xi8>, tensor<4x16xi8>) outs(%acc : tensor<16xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %yw, %xw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<16xi32>
  return %r : tensor<16xi32>
}
