// VPDPBUSD ymm, VEX-encoded (AVX-VNNI: Alder Lake and later, Sapphire Rapids, Zen 5): the
// computation of the AVX-512 VNNI form on a 256-bit register, for CPUs without AVX-512 (or code
// that must not use it). Each of the 8 32-bit lanes adds the dot product of 4 unsigned bytes
// of a with 4 signed bytes of b to the accumulator; the sum wraps modulo 2^32.
//   acc[n] = acc[n] + sum_k zext(a[n,k]) * sext(b[n,k]),  n < 8, k < 4
// Register layout: byte 4n+k of the 256-bit register holds element (n, k).
// LLVM has one intrinsic for both encodings and emits the VEX one when AVX512-VNNI or
// AVX512-VL is absent; the disassembly reads "{vex} vpdpbusd".
func.func @vpdpbusd_avxvnni_ymm(%a: tensor<8x4xi8>, %b: tensor<8x4xi8>, %acc: tensor<8xi32>) -> tensor<8xi32>
    attributes {tisa.instruction = {
      name = "vpdpbusd.avxvnni.ymm",
      target = "x86_64",
      features = ["+avx2", "+avxvnni"],
      extension = "AVX_VNNI",
      mnemonic = "vpdpbusd",
      registers = [
        {type = vector<32xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<32xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
        {type = vector<8xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.x86.avx512.vpdpbusd.256", operands = [2, 0, 1]},
      reference = "Intel SDM Vol. 2C, VPDPBUSD (Multiply and Add Unsigned and Signed Bytes), VEX.256 encoding"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xi8>, tensor<8x4xi8>) outs(%acc : tensor<8xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}
