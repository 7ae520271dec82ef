// DELIBERATELY WRONG: vpdpbusd written as signed x signed; the hardware treats a as unsigned.
// VPDPBUSD zmm: each of the 16 32-bit lanes adds the dot product of 4 unsigned bytes
// of a with 4 signed bytes of b to the accumulator; the sum wraps modulo 2^32.
//   acc[n] = acc[n] + sum_k zext(a[n,k]) * sext(b[n,k]),  n < 16, k < 4
// Register layout: byte 4n+k of the 512-bit register holds element (n, k).
func.func @vpdpbusd_zmm(%a: tensor<16x4xi8>, %b: tensor<16x4xi8>, %acc: tensor<16xi32>) -> tensor<16xi32>
    attributes {tisa.instruction = {
      name = "wrong.vpdpbusd.zmm",
      target = "x86_64",
      features = ["+avx512f", "+avx512vnni"],
      extension = "AVX512_VNNI",
      mnemonic = "vpdpbusd",
      registers = [
        {type = vector<64xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<64xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<16xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.x86.avx512.vpdpbusd.512", operands = [2, 0, 1]},
      reference = "Intel SDM Vol. 2C, VPDPBUSD (Multiply and Add Unsigned and Signed Bytes)"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<16x4xi8>, tensor<16x4xi8>) outs(%acc : tensor<16xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<16xi32>
  return %r : tensor<16xi32>
}
