// DELIBERATELY WRONG: vdpbf16ps keeping denormal bf16 inputs; the hardware reads them as zero. It
// verified before: the evaluator flushed every widened input with the output flush, so a denormal
// input read as zero whatever input_denormals said, and no case multiplied one by a large value.
// VDPBF16PS zmm: each of the 16 fp32 lanes adds two bf16 x bf16 products, odd element first:
//   acc[n] += a[n,1] * b[n,1];  acc[n] += a[n,0] * b[n,0]
// with denormal inputs read as zero, denormal results flushed, round to nearest even, MXCSR ignored.
// Register layout: bf16 element 2n+k of the register holds (n, k).
func.func @vdpbf16ps_zmm(%a: tensor<16x2xbf16>, %b: tensor<16x2xbf16>, %acc: tensor<16xf32>) -> tensor<16xf32>
    attributes {tisa.instruction = {
      name = "wrong.vdpbf16ps.zmm.denormals",
      target = "x86_64",
      features = ["+avx512f", "+avx512bf16"],
      extension = "AVX512_BF16",
      mnemonic = "vdpbf16ps",
      registers = [
        {type = vector<32xbf16>, layout = affine_map<(n, k) -> (n * 2 + k)>},
        {type = vector<32xbf16>, layout = affine_map<(n, k) -> (n * 2 + k)>},
        {type = vector<16xf32>, layout = affine_map<(n) -> (n)>}],
      fp = {accumulation = "reverse", rounding = "nearest-even", input_denormals = ["keep", "keep", "zero"],
            output_denormals = "flush", nan = "propagate"},
      lowering = {intrinsic = "llvm.x86.avx512bf16.dpbf16ps.512", operands = [2, 0, 1]},
      reference = "Intel SDM Vol. 2A, VDPBF16PS (Dot Product of BF16 Pairs Accumulated Into Packed Single Precision)"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n, k)>,
                     affine_map<(n, k) -> (n)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<16x2xbf16>, tensor<16x2xbf16>) outs(%acc : tensor<16xf32>) {
    ^bb0(%x: bf16, %y: bf16, %s: f32):
      %xw = arith.extf %x : bf16 to f32
      %yw = arith.extf %y : bf16 to f32
      %p = arith.mulf %xw, %yw : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
