// RUN: tisa-opt %s --tisa-tap-rows=target=znver4 --split-input-file | FileCheck %s
// A schedule for every contraction (tisa gen FILE.mlir --schedule) picks the
// form whose loops it has: seven, pixels; six, rows of taps.
// RUN: tisa-opt %s --tisa-tap-rows="target=znver4 schedule=unroll=1x6x1x4x1x1x1,block=0,order=lanes-inner" --split-input-file | FileCheck %s --check-prefix=SEVEN
// RUN: tisa-opt %s --tisa-tap-rows="target=znver4 schedule=unroll=1x6x1x4x1x1,block=0,order=lanes-inner" --split-input-file | FileCheck %s --check-prefix=SIX
// SEVEN-LABEL: func.func @stem
// SEVEN-NOT:     memref.reinterpret_cast
// SEVEN:         linalg.conv_2d_nhwc_hwcf
// SIX-LABEL:   func.func @stem
// SIX:           memref.reinterpret_cast
// SIX-LABEL:   func.func @wide
// SIX:           memref.reinterpret_cast

// ResNet-50's first layer (3 channels, 7x7, stride 2) on its padded input:
// the taps of a filter row, kw and c, are 21 contiguous bytes, 6 apart from
// one output column to the next. As one reduction of 21 they fill 6 groups
// of 4 (the last masked) where 7 pixels took a group of 4 each for 3
// channels: fewer cycles, so the convolution becomes a generic over
// (n, oh, ow, f, kh, t) reading a view of the input whose rows overlap and
// the filter with (kw, c) collapsed.
// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2, d5)>
// CHECK-DAG:   #[[FLT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5, d3)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @stem
// CHECK-SAME:    (%[[I:.*]]: memref<1x230x230x3xi8>, %[[F:.*]]: memref<7x7x3x64xi8>, %[[O:.*]]: memref<1x112x112x64xi32>)
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[I]] to offset: [0], sizes: [1, 230, 112, 21], strides: [158700, 690, 6, 1]
// CHECK:         %[[C:.*]] = memref.collapse_shape %[[F]] {{\[}}[0], [1, 2], [3]] : memref<7x7x3x64xi8> into memref<7x21x64xi8>
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[FLT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME:      ins(%[[V]], %[[C]] : memref<1x230x112x21xi8, strided<[158700, 690, 6, 1]>>, memref<7x21x64xi8>) outs(%[[O]] : memref<1x112x112x64xi32>)
// CHECK:           arith.extsi
// CHECK:           arith.muli
// CHECK:           arith.addi
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
func.func @stem(%in: memref<1x230x230x3xi8>, %w: memref<7x7x3x64xi8>, %out: memref<1x112x112x64xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : memref<1x230x230x3xi8>, memref<7x7x3x64xi8>) outs(%out : memref<1x112x112x64xi32>)
  return
}

// -----

// 64 channels: 3 taps of 16 groups or 48 groups in a row, the same cycles:
// the pixels stay.
// CHECK-LABEL: func.func @wide
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         linalg.conv_2d_nhwc_hwcf
func.func @wide(%in: memref<1x16x16x64xi8>, %w: memref<3x3x64x64xi8>, %out: memref<1x14x14x64xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : memref<1x16x16x64xi8>, memref<3x3x64x64xi8>) outs(%out : memref<1x14x14x64xi32>)
  return
}

// -----

// A schedule given by hand names the pixel form's seven loops: kept.
// CHECK-LABEL: func.func @scheduled
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}}tisa.schedule
func.func @scheduled(%in: memref<1x230x230x3xi8>, %w: memref<7x7x3x64xi8>, %out: memref<1x112x112x64xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tisa.schedule = #tisa.schedule<unroll = [1, 6, 1, 4, 1, 1, 1]>}
    ins(%in, %w : memref<1x230x230x3xi8>, memref<7x7x3x64xi8>) outs(%out : memref<1x112x112x64xi32>)
  return
}

// -----

// Dilation 2: kw steps two pixels, so a filter row's taps are not one run.
// CHECK-LABEL: func.func @dilated
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         linalg.conv_2d_nhwc_hwcf
func.func @dilated(%in: memref<1x40x40x3xi8>, %w: memref<7x7x3x64xi8>, %out: memref<1x28x28x64xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : memref<1x40x40x3xi8>, memref<7x7x3x64xi8>) outs(%out : memref<1x28x28x64xi32>)
  return
}

// -----

// The image's pixels are not dense (the first 3 of every 4 channels of a
// wider buffer): its rows of taps are not runs of memory.
// CHECK-LABEL: func.func @strided
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         linalg.conv_2d_nhwc_hwcf
func.func @strided(%in: memref<1x230x230x3xi8, strided<[211600, 920, 4, 1]>>, %w: memref<7x7x3x64xi8>, %out: memref<1x112x112x64xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : memref<1x230x230x3xi8, strided<[211600, 920, 4, 1]>>, memref<7x7x3x64xi8>) outs(%out : memref<1x112x112x64xi32>)
  return
}

// -----

// An HWFC filter: kw and c are not adjacent in it.
// CHECK-LABEL: func.func @hwfc
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         linalg.generic
#in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#hwfc = affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, f, c)>
#o = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
func.func @hwfc(%in: memref<1x230x230x3xi8>, %w: memref<7x7x64x3xi8>, %out: memref<1x112x112x64xi32>) {
  linalg.generic {indexing_maps = [#in, #hwfc, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
    ins(%in, %w : memref<1x230x230x3xi8>, memref<7x7x64x3xi8>) outs(%out : memref<1x112x112x64xi32>) {
  ^bb0(%a: i8, %b: i8, %c: i32):
    %x = arith.extui %a : i8 to i32
    %y = arith.extsi %b : i8 to i32
    %m = arith.muli %x, %y : i32
    %s = arith.addi %c, %m : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// A stride known only at run time: the view needs static ones.
// CHECK-LABEL: func.func @dynamic_stride
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         linalg.conv_2d_nhwc_hwcf
func.func @dynamic_stride(%in: memref<1x230x230x3xi8, strided<[?, 690, 3, 1]>>, %w: memref<7x7x3x64xi8>, %out: memref<1x112x112x64xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : memref<1x230x230x3xi8, strided<[?, 690, 3, 1]>>, memref<7x7x3x64xi8>) outs(%out : memref<1x112x112x64xi32>)
  return
}

// -----

// A filter whose layout is no strided one (channels in blocks of 16).
// CHECK-LABEL: func.func @blocked_filter
// CHECK-NOT:     memref.reinterpret_cast
// CHECK:         linalg.conv_2d_nhwc_hwcf
#blocked = affine_map<(a, b, c, d) -> (a, b, c, d floordiv 16, d mod 16)>
func.func @blocked_filter(%in: memref<1x230x230x3xi8>, %w: memref<7x7x3x64xi8, #blocked>, %out: memref<1x112x112x64xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : memref<1x230x230x3xi8>, memref<7x7x3x64xi8, #blocked>) outs(%out : memref<1x112x112x64xi32>)
  return
}
