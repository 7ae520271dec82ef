// A bad pass option is an error at the function it would have changed, not a
// silent no-op: -tisa-tap-rows's schedule (it kept the pixel form), and
// -tisa-tile-plain's vector width (a negative one meant "off").
// RUN: not tisa-opt %s --tisa-tap-rows="target=znver4 schedule=unroll=1xq" 2>&1 | FileCheck %s --check-prefix=TAPS
// RUN: not tisa-opt %s -tisa-tile-plain="vector-bits=-128" 2>&1 | FileCheck %s --check-prefix=PLAIN
// TAPS: pass-option-errors.mlir:[[@LINE+3]]:1: error: -tisa-tap-rows: schedule 'unroll=1xq':
// PLAIN: pass-option-errors.mlir:[[@LINE+2]]:1: error: -tisa-tile-plain: vector-bits is -128; it must be 0 (off) or the target's vector width

func.func @conv(%i: memref<1x10x10x3xi8>, %f: memref<3x3x3x16xi8>, %o: memref<1x8x8x16xi32>) {
  linalg.conv_2d_nhwc_hwcf ins(%i, %f : memref<1x10x10x3xi8>, memref<3x3x3x16xi8>) outs(%o : memref<1x8x8x16xi32>)
  return
}
