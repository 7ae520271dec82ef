// TDPFP16PS: AMX fp16 tile multiply into fp32 accumulators (Granite Rapids). As TDPBF16PS, each
// (m, n) keeps two fp32 partial sums starting at +0, over the even and the odd element of every
// fp16 pair, each updated by an FMA in ascending k; then C += even + odd. Unlike TDPBF16PS the fp16
// inputs keep their denormals (each converts exactly to a normal fp32 value), while the fp32
// accumulator is read with denormals as zero; results are flushed, round to nearest even, MXCSR
// neither read nor written:
//   C[m,n] += A[m,k] * B[k,n],  m < 16, n < 16, k < 32
// A is row-major; B in the layout [K/2][N][2]: tile row k/2, element 2n + k%2; C row-major.
func.func @tdpfp16ps(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32>
    attributes {tisa.instruction = {
      name = "tdpfp16ps",
      target = "x86_64",
      features = ["+amx-tile", "+amx-fp16"],
      extension = "AMX-FP16",
      mnemonic = "tdpfp16ps",
      registers = [
        {class = "amx.tile", type = vector<16x32xf16>, layout = affine_map<(m, k) -> (m, k)>},
        {class = "amx.tile", type = vector<16x32xf16>, layout = affine_map<(k, n) -> (k floordiv 2, n * 2 + k mod 2)>},
        {class = "amx.tile", type = vector<16x16xf32>, layout = affine_map<(m, n) -> (m, n)>}],
      fp = {accumulation = "even-odd-fused", rounding = "nearest-even",
            input_denormals = ["keep", "keep", "zero"],
            output_denormals = "flush", nan = "propagate"},
      bounds = {rows = 16, bytes_per_row = 64},
      config = "amx-palette1",
      lowering = {intrinsic = "llvm.x86.tdpfp16ps.internal",
                  operands = [{rows = 2}, {colsb = 2}, {colsb = 0}, 2, 0, 1]},
      reference = "Intel SDM Vol. 2C, TDPFP16PS (Dot Product of FP16 Tiles Accumulated into Packed Single Precision Tile)"}} {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (k, n)>,
                     affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%acc : tensor<16x16xf32>) {
    ^bb0(%x: f16, %y: f16, %s: f32):
      %xw = arith.extf %x : f16 to f32
      %yw = arith.extf %y : f16 to f32
      %p = arith.mulf %xw, %yw : f32
      %t = arith.addf %s, %p : f32
      linalg.yield %t : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
