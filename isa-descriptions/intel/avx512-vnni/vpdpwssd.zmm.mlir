// VPDPWSSD zmm: each of the 16 32-bit lanes adds the dot product of 2 signed words
// of a with 2 signed words of b to the accumulator; the sum wraps modulo 2^32.
//   acc[n] = acc[n] + sum_k sext(a[n,k]) * sext(b[n,k]),  n < 16, k < 2
// Register layout: word 2n+k of the 512-bit register holds element (n, k).
func.func @vpdpwssd_zmm(%a: tensor<16x2xi16>, %b: tensor<16x2xi16>, %acc: tensor<16xi32>) -> tensor<16xi32>
    attributes {tisa.instruction = {
      name = "vpdpwssd.zmm",
      target = "x86_64",
      features = ["+avx512f", "+avx512vnni"],
      extension = "AVX512_VNNI",
      mnemonic = "vpdpwssd",
      registers = [
        {type = vector<32xi16>, layout = affine_map<(n, k) -> (n * 2 + k)>},
        {type = vector<32xi16>, layout = affine_map<(n, k) -> (n * 2 + k)>},
        {type = vector<16xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.x86.avx512.vpdpwssd.512", operands = [2, 0, 1]},
      reference = "Intel SDM Vol. 2C, VPDPWSSD (Multiply and Add Signed Word Integers)"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<16x2xi16>, tensor<16x2xi16>) outs(%acc : tensor<16xi32>) {
    ^bb0(%x: i16, %y: i16, %s: i32):
      %xw = arith.extsi %x : i16 to i32
      %yw = arith.extsi %y : i16 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<16xi32>
  return %r : tensor<16xi32>
}
