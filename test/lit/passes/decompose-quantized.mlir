// RUN: tisa-opt %s --tisa-decompose-quantized --split-input-file -verify-diagnostics | FileCheck %s

// Both zero points at run time: the matmul as a generic without zero points,
// the row sums of A (for zb), the column sums of B (for za), and
// C += K za zb - zb rows - za columns.
// CHECK-LABEL: func.func @both
// CHECK-SAME:    (%[[A:.*]]: memref<4x8xi8>, %[[B:.*]]: memref<8x16xi8>, %[[ZA:.*]]: i32, %[[ZB:.*]]: i32, %[[C:.*]]: memref<4x16xi32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : memref<4x8xi8>, memref<8x16xi8>) outs(%[[C]] : memref<4x16xi32>)
// CHECK:           %[[X:.*]] = arith.extsi {{.*}} : i8 to i32
// CHECK:           %[[Y:.*]] = arith.extsi {{.*}} : i8 to i32
// CHECK:           %[[P:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK:           arith.addi %{{.*}}, %[[P]] : i32
// CHECK:         %[[ROWS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xi32>
// CHECK:         linalg.fill {{.*}} outs(%[[ROWS]] : memref<4xi32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[A]] : memref<4x8xi8>) outs(%[[ROWS]] : memref<4xi32>)
// CHECK:           arith.extsi {{.*}} : i8 to i32
// CHECK:         %[[COLS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16xi32>
// CHECK:         linalg.generic {{.*}} ins(%[[B]] : memref<8x16xi8>) outs(%[[COLS]] : memref<16xi32>)
// CHECK:         %[[K:.*]] = arith.constant 8 : i32
// CHECK:         %[[ZAZB:.*]] = arith.muli %[[ZA]], %[[ZB]] : i32
// CHECK:         %[[KZZ:.*]] = arith.muli %[[K]], %[[ZAZB]] : i32
// CHECK:         linalg.generic {{.*}} ins(%[[ROWS]], %[[COLS]] : memref<4xi32>, memref<16xi32>) outs(%[[C]] : memref<4x16xi32>)
// CHECK:         ^bb0(%[[R:.*]]: i32, %[[CL:.*]]: i32, %[[O:.*]]: i32):
// CHECK:           %[[S0:.*]] = arith.addi %[[O]], %[[KZZ]] : i32
// CHECK:           %[[T1:.*]] = arith.muli %[[ZB]], %[[R]] : i32
// CHECK:           %[[S1:.*]] = arith.subi %[[S0]], %[[T1]] : i32
// CHECK:           %[[T2:.*]] = arith.muli %[[ZA]], %[[CL]] : i32
// CHECK:           %[[S2:.*]] = arith.subi %[[S1]], %[[T2]] : i32
// CHECK:           linalg.yield %[[S2]] : i32
// CHECK:         memref.dealloc %[[ROWS]]
// CHECK:         memref.dealloc %[[COLS]]
// CHECK-NOT:     linalg.quantized_matmul
func.func @both(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %za: i32, %zb: i32, %c: memref<4x16xi32>) {
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<4x8xi8>, memref<8x16xi8>, i32, i32) outs(%c : memref<4x16xi32>)
  return
}

// -----

// A zero point of A that is the constant 0 drops the column sums of B.
// CHECK-LABEL: func.func @za_zero
// CHECK:         linalg.generic
// CHECK:         memref.alloc() {{.*}} : memref<4xi32>
// CHECK-NOT:     memref<16xi32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<4xi32>) outs(%{{.*}} : memref<4x16xi32>)
func.func @za_zero(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %zb: i32, %c: memref<4x16xi32>) {
  %za = arith.constant 0 : i32
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<4x8xi8>, memref<8x16xi8>, i32, i32) outs(%c : memref<4x16xi32>)
  return
}

// -----

// Both zero: the plain contraction alone.
// CHECK-LABEL: func.func @none
// CHECK:         linalg.generic
// CHECK-NOT:     memref.alloc
// CHECK:         return
func.func @none(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %c: memref<4x16xi32>) {
  %z = arith.constant 0 : i32
  linalg.quantized_matmul ins(%a, %b, %z, %z : memref<4x8xi8>, memref<8x16xi8>, i32, i32) outs(%c : memref<4x16xi32>)
  return
}

// -----

// Dynamic extents: the temporaries and K take them from the operands.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[M:.*]] = memref.dim %arg0, %c0
// CHECK:         %[[K:.*]] = memref.dim %arg0, %c1
// CHECK:         memref.alloc(%[[M]]) {{.*}} : memref<?xi32>
// CHECK:         arith.index_cast %{{.*}} : index to i32
func.func @dynamic(%a: memref<?x?xi8>, %b: memref<?x?xi8>, %za: i32, %zb: i32, %c: memref<?x?xi32>) {
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<?x?xi8>, memref<?x?xi8>, i32, i32) outs(%c : memref<?x?xi32>)
  return
}

// -----

// A quantized convolution: window sums of the input over (kh, kw, c) per
// (n, oh, ow), filter sums per f, and R = 3 * 3 * 5 = 45.
// The window sums read the input as the convolution does (stride 2).
// CHECK:       #[[WIN:[a-z0-9]+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-LABEL: func.func @conv
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : memref<1x9x9x5xi8>, memref<3x3x5x8xi8>) outs(%arg4 : memref<1x4x4x8xi32>)
// CHECK:         %[[W:.*]] = memref.alloc() {{.*}} : memref<1x4x4xi32>
// The input alone does not give kh and kw their extents: a window operand
// of the filter's shape does (never read), as for linalg's pooling ops.
// CHECK:         %[[WINDOW:.*]] = memref.alloc() : memref<3x3x5xi8>
// CHECK:         linalg.generic {indexing_maps = [#[[WIN]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %[[WINDOW]] : memref<1x9x9x5xi8>, memref<3x3x5xi8>) outs(%[[W]] : memref<1x4x4xi32>)
// CHECK:         %[[F:.*]] = memref.alloc() {{.*}} : memref<8xi32>
// CHECK:         linalg.generic {{.*}} ins(%arg1 : memref<3x3x5x8xi8>) outs(%[[F]] : memref<8xi32>)
// CHECK:         arith.constant 45 : i32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[W]], %[[F]] : memref<1x4x4xi32>, memref<8xi32>) outs(%arg4 : memref<1x4x4x8xi32>)
func.func @conv(%i: memref<1x9x9x5xi8>, %f: memref<3x3x5x8xi8>, %iz: i32, %fz: i32, %o: memref<1x4x4x8xi32>) {
  linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f, %iz, %fz : memref<1x9x9x5xi8>, memref<3x3x5x8xi8>, i32, i32) outs(%o : memref<1x4x4x8xi32>)
  return
}

// -----

// negative_: on tensors nothing changes; the op says why.
// CHECK-LABEL: func.func @negative_tensors
// CHECK:         linalg.quantized_matmul
func.func @negative_tensors(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %za: i32, %zb: i32, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  // expected-warning @+1 {{not tensorized: a quantized contraction on tensors: bufferize first (tisa gen FILE.mlir does)}}
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<4x8xi8>, tensor<8x16xi8>, i32, i32) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}

// -----

// negative_: zero points in 0-d memrefs, and float operands, are left alone
// with the reason (no crash).
func.func @negative_memref_zero_points(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %za: memref<i32>, %zb: memref<i32>, %c: memref<4x16xi32>) {
  // expected-warning @+1 {{not tensorized: a quantized contraction a zero point is not a scalar}}
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<4x8xi8>, memref<8x16xi8>, memref<i32>, memref<i32>) outs(%c : memref<4x16xi32>)
  return
}
func.func @negative_float(%a: memref<4x8xf16>, %b: memref<8x16xf16>, %za: f16, %zb: f16, %c: memref<4x16xi32>) {
  // expected-warning @+1 {{not tensorized: a quantized contraction its inputs, zero points and output are not all integers}}
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<4x8xf16>, memref<8x16xf16>, f16, f16) outs(%c : memref<4x16xi32>)
  return
}
