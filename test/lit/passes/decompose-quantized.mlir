// RUN: tisa-opt %s --tisa-decompose-quantized --split-input-file -verify-diagnostics | FileCheck %s

// Both zero points at run time: the matmul, the row sums of A (for zb), the
// column sums of B (for za), and C += K za zb - zb rows - za columns.
// CHECK-LABEL: func.func @both
// CHECK-SAME:    (%[[A:.*]]: memref<4x8xi8>, %[[B:.*]]: memref<8x16xi8>, %[[ZA:.*]]: i32, %[[ZB:.*]]: i32, %[[C:.*]]: memref<4x16xi32>)
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] : memref<4x8xi8>, memref<8x16xi8>) outs(%[[C]] : memref<4x16xi32>)
// CHECK:         %[[ROWS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xi32>
// CHECK:         linalg.fill {{.*}} outs(%[[ROWS]] : memref<4xi32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[A]] : memref<4x8xi8>) outs(%[[ROWS]] : memref<4xi32>)
// CHECK:           arith.extsi {{.*}} : i8 to i32
// CHECK:         %[[COLS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16xi32>
// CHECK:         linalg.generic {{.*}} ins(%[[B]] : memref<8x16xi8>) outs(%[[COLS]] : memref<16xi32>)
// CHECK:         %[[K:.*]] = arith.index_cast %{{.*}} : index to i32
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
// CHECK:         linalg.matmul
// CHECK:         memref.alloc() {{.*}} : memref<4xi32>
// CHECK-NOT:     memref<16xi32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<4xi32>) outs(%{{.*}} : memref<4x16xi32>)
func.func @za_zero(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %zb: i32, %c: memref<4x16xi32>) {
  %za = arith.constant 0 : i32
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<4x8xi8>, memref<8x16xi8>, i32, i32) outs(%c : memref<4x16xi32>)
  return
}

// -----

// Both zero: a plain matmul.
// CHECK-LABEL: func.func @none
// CHECK-NEXT:    arith.constant 0 : i32
// CHECK-NEXT:    linalg.matmul
// CHECK-NEXT:    return
func.func @none(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %c: memref<4x16xi32>) {
  %z = arith.constant 0 : i32
  linalg.quantized_matmul ins(%a, %b, %z, %z : memref<4x8xi8>, memref<8x16xi8>, i32, i32) outs(%c : memref<4x16xi32>)
  return
}

// -----

// Dynamic extents: the temporaries take them from the operands.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[M:.*]] = memref.dim %{{.*}}, %c0
// CHECK:         memref.alloc(%[[M]]) {{.*}} : memref<?xi32>
func.func @dynamic(%a: memref<?x?xi8>, %b: memref<?x?xi8>, %za: i32, %zb: i32, %c: memref<?x?xi32>) {
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<?x?xi8>, memref<?x?xi8>, i32, i32) outs(%c : memref<?x?xi32>)
  return
}

// -----

// negative_: on tensors nothing changes; the op says why.
// CHECK-LABEL: func.func @negative_tensors
// CHECK:         linalg.quantized_matmul
func.func @negative_tensors(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %za: i32, %zb: i32, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  // expected-warning @+1 {{not tensorized: a quantized matmul on tensors; bufferize first (tisa gen FILE.mlir does)}}
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<4x8xi8>, tensor<8x16xi8>, i32, i32) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}
