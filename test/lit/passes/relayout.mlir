// RUN: tisa-opt %s --tisa-relayout --split-input-file | FileCheck %s

// The input and the output go to NHWC copies, the convolution runs there as
// a generic with the op's body and its maps' results permuted (the stride
// kept), the filter stays FCHW, and the output comes back.
// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 * 2 + d5, d3 * 2 + d6, d4)>
// CHECK-DAG:   #[[FLT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @conv
// CHECK-SAME:    (%[[I:.*]]: memref<1x19x11x13xi8>, %[[F:.*]]: memref<21x19x3x3xi8>, %[[O:.*]]: memref<1x21x5x6xi32>)
// CHECK:         %[[IN_NHWC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x11x13x19xi8>
// CHECK:         linalg.transpose ins(%[[I]] : memref<1x19x11x13xi8>) outs(%[[IN_NHWC]] : memref<1x11x13x19xi8>) permutation = [0, 2, 3, 1]
// CHECK:         %[[OUT_NHWC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x5x6x21xi32>
// CHECK:         linalg.transpose ins(%[[O]] : memref<1x21x5x6xi32>) outs(%[[OUT_NHWC]] : memref<1x5x6x21xi32>) permutation = [0, 2, 3, 1]
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[FLT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[IN_NHWC]], %[[F]] : memref<1x11x13x19xi8>, memref<21x19x3x3xi8>) outs(%[[OUT_NHWC]] : memref<1x5x6x21xi32>)
// CHECK:           arith.extsi
// CHECK:           arith.muli
// CHECK:           arith.addi
// CHECK:         linalg.transpose ins(%[[OUT_NHWC]] : memref<1x5x6x21xi32>) outs(%[[O]] : memref<1x21x5x6xi32>) permutation = [0, 3, 1, 2]
// CHECK:         memref.dealloc %[[IN_NHWC]]
// CHECK:         memref.dealloc %[[OUT_NHWC]]
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
func.func @conv(%i: memref<1x19x11x13xi8>, %f: memref<21x19x3x3xi8>, %o: memref<1x21x5x6xi32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<1x19x11x13xi8>, memref<21x19x3x3xi8>) outs(%o : memref<1x21x5x6xi32>)
  return
}

// -----

// negative_: dynamic extents (no generator takes them yet) and f32 inputs
// (no instruction) get no copies.
// CHECK-LABEL: func.func @negative_f32
// CHECK-NEXT:    linalg.matmul
// CHECK-LABEL: func.func @negative_dynamic
// CHECK-NEXT:    linalg.conv_2d_nchw_fchw
func.func @negative_f32(%a: memref<70x33xf32>, %b: memref<70x48xf32>, %c: memref<33x48xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<70x33xf32>, memref<70x48xf32>) outs(%c : memref<33x48xf32>)
  return
}
func.func @negative_dynamic(%i: memref<?x8x?x?xi8>, %f: memref<16x8x3x3xi8>, %o: memref<?x16x?x?xi32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<?x8x?x?xi8>, memref<16x8x3x3xi8>) outs(%o : memref<?x16x?x?xi32>)
  return
}

// -----

// A^T B: A[k][m] is copied to [m][k]; B, which the plan packs, stays.
// CHECK-DAG:   #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @transposed_a
// CHECK:         %[[COPY:.*]] = memref.alloc() {alignment = 64 : i64} : memref<33x70xi8>
// CHECK:         linalg.transpose ins(%arg0 : memref<70x33xi8>) outs(%[[COPY]] : memref<33x70xi8>) permutation = [1, 0]
// CHECK:         linalg.generic {indexing_maps = [#[[AT]], #[[BT]], #{{.*}}], {{.*}}} ins(%[[COPY]], %arg1 : memref<33x70xi8>, memref<70x48xi8>)
// CHECK:         memref.dealloc %[[COPY]]
func.func @transposed_a(%a: memref<70x33xi8>, %b: memref<70x48xi8>, %c: memref<33x48xi32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<70x33xi8>, memref<70x48xi8>) outs(%c : memref<33x48xi32>)
  return
}

// -----

// negative_: on tensors (bufferize first), NHWC convolutions, and GEMMs
// with an input along k (A B, A B^T, B^T-first operand orders) nothing
// changes.
// CHECK-LABEL: func.func @negative_tensors
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK-LABEL: func.func @negative_nhwc
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @negative_matmul
// CHECK-NEXT:    linalg.matmul ins
// CHECK-LABEL: func.func @negative_weights_first
// CHECK-NEXT:    linalg.generic
// CHECK-NOT:     linalg.transpose
func.func @negative_tensors(%i: tensor<1x8x6x6xi8>, %f: tensor<16x8x3x3xi8>, %o: tensor<1x16x4x4xi32>) -> tensor<1x16x4x4xi32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x8x6x6xi8>, tensor<16x8x3x3xi8>) outs(%o : tensor<1x16x4x4xi32>) -> tensor<1x16x4x4xi32>
  return %r : tensor<1x16x4x4xi32>
}
func.func @negative_nhwc(%i: memref<1x6x6x8xi8>, %f: memref<3x3x8x16xi8>, %o: memref<1x4x4x16xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x6x6x8xi8>, memref<3x3x8x16xi8>) outs(%o : memref<1x4x4x16xi32>)
  return
}
func.func @negative_matmul(%a: memref<33x70xi8>, %b: memref<70x48xi8>, %c: memref<33x48xi32>) {
  linalg.matmul ins(%a, %b : memref<33x70xi8>, memref<70x48xi8>) outs(%c : memref<33x48xi32>)
  return
}
func.func @negative_weights_first(%b: memref<70x48xi8>, %a: memref<33x70xi8>, %c: memref<33x48xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%b, %a : memref<70x48xi8>, memref<33x70xi8>) outs(%c : memref<33x48xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extsi %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// C stored transposed (C[n][m]): the lanes run along m, where the output is
// contiguous, so B, the input m does not index, is the one broadcast; it is
// copied with k innermost ([k][n] -> [n][k]) and A stays. With A^T too
// (A[k][m]) it is still B that is copied, not A.
// CHECK-DAG:   #[[BNK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[AMK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[AKM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @transposed_c
// CHECK:         %[[COPY:.*]] = memref.alloc() {alignment = 64 : i64} : memref<48x64xi8>
// CHECK:         linalg.transpose ins(%arg1 : memref<64x48xi8>) outs(%[[COPY]] : memref<48x64xi8>) permutation = [1, 0]
// CHECK:         linalg.generic {indexing_maps = [#[[AMK]], #[[BNK]], #{{.*}}], {{.*}}} ins(%arg0, %[[COPY]] : memref<40x64xi8>, memref<48x64xi8>)
// CHECK:         memref.dealloc %[[COPY]]
// CHECK-LABEL: func.func @transposed_a_and_c
// CHECK:         %[[COPY2:.*]] = memref.alloc() {alignment = 64 : i64} : memref<48x64xi8>
// CHECK:         linalg.transpose ins(%arg1 : memref<64x48xi8>) outs(%[[COPY2]] : memref<48x64xi8>) permutation = [1, 0]
// CHECK:         linalg.generic {indexing_maps = [#[[AKM]], #[[BNK]], #{{.*}}], {{.*}}} ins(%arg0, %[[COPY2]] : memref<64x40xi8>, memref<48x64xi8>)
func.func @transposed_c(%a: memref<40x64xi8>, %b: memref<64x48xi8>, %c: memref<48x40xi32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>]
    ins(%a, %b : memref<40x64xi8>, memref<64x48xi8>) outs(%c : memref<48x40xi32>)
  return
}
func.func @transposed_a_and_c(%a: memref<64x40xi8>, %b: memref<64x48xi8>, %c: memref<48x40xi32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>]
    ins(%a, %b : memref<64x40xi8>, memref<64x48xi8>) outs(%c : memref<48x40xi32>)
  return
}

// -----

// negative_: C[n][m] with B^T given (B[n][k], k innermost: broadcast as it
// is), and a B no output column depends on (C[m][n] += A[m][k] B[k]: both
// inputs lack n, the plan broadcasts both, and A runs along k) get no copy.
// CHECK-LABEL: func.func @negative_transposed_c_bt
// CHECK-NEXT:    linalg.matmul
// CHECK-LABEL: func.func @negative_broadcast_both
// CHECK-NEXT:    linalg.generic
// CHECK-NOT:     linalg.transpose
func.func @negative_transposed_c_bt(%a: memref<40x64xi8>, %b: memref<48x64xi8>, %c: memref<48x40xi32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (n, m)>]
    ins(%a, %b : memref<40x64xi8>, memref<48x64xi8>) outs(%c : memref<48x40xi32>)
  return
}
func.func @negative_broadcast_both(%a: memref<40x64xi8>, %b: memref<64xi8>, %c: memref<40x48xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<40x64xi8>, memref<64xi8>) outs(%c : memref<40x48xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
