// -tisa-single-lane-stores: a masked store with one constant lane set is a scalar store of that
// lane (LLVM 22's X86 backend stores a truncated vector's untruncated element there:
// llvm/llvm-project#179489); other masks are left alone.
// RUN: tisa-opt %s --tisa-single-lane-stores | FileCheck %s

// CHECK-LABEL: func.func @one_lane
// CHECK-SAME:    (%[[M:.*]]: memref<15x33xi8>, %[[V:.*]]: vector<8xi8>, %[[I:.*]]: index)
// CHECK:         %[[E:.*]] = vector.extract %[[V]][0] : i8 from vector<8xi8>
// CHECK:         %[[J:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         memref.store %[[E]], %[[M]][%[[I]], %[[J]]] : memref<15x33xi8>
// CHECK-NOT:     vector.maskedstore
func.func @one_lane(%m: memref<15x33xi8>, %v: vector<8xi8>, %i: index) {
  %c32 = arith.constant 32 : index
  %mask = vector.constant_mask [1] : vector<8xi1>
  vector.maskedstore %m[%i, %c32], %mask, %v : memref<15x33xi8>, vector<8xi1>, vector<8xi8>
  return
}

// The one lane of a dense constant mask, at its index.
// CHECK-LABEL: func.func @third_lane
// CHECK:         %[[E:.*]] = vector.extract %{{.*}}[2] : i32 from vector<4xi32>
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         %[[J:.*]] = arith.addi %{{.*}}, %[[TWO]] : index
// CHECK:         memref.store %[[E]], %{{.*}}[%[[J]]] : memref<16xi32>
func.func @third_lane(%m: memref<16xi32>, %v: vector<4xi32>, %i: index) {
  %mask = arith.constant dense<[false, false, true, false]> : vector<4xi1>
  vector.maskedstore %m[%i], %mask, %v : memref<16xi32>, vector<4xi1>, vector<4xi32>
  return
}

// CHECK-LABEL: func.func @two_lanes
// CHECK:         vector.maskedstore
// CHECK-LABEL: func.func @run_time_mask
// CHECK:         vector.maskedstore
func.func @two_lanes(%m: memref<16xi8>, %v: vector<8xi8>, %i: index) {
  %mask = vector.constant_mask [2] : vector<8xi1>
  vector.maskedstore %m[%i], %mask, %v : memref<16xi8>, vector<8xi1>, vector<8xi8>
  return
}
func.func @run_time_mask(%m: memref<16xi8>, %v: vector<8xi8>, %i: index, %n: index) {
  %mask = vector.create_mask %n : vector<8xi1>
  vector.maskedstore %m[%i], %mask, %v : memref<16xi8>, vector<8xi1>, vector<8xi8>
  return
}

// A store into a rank-0 memref has no index to move to the lane: left alone (it crashed).
// CHECK-LABEL: func.func @rank0
// CHECK:         vector.maskedstore
func.func @rank0(%m: memref<i32>, %v: vector<4xi32>) {
  %mask = vector.constant_mask [1] : vector<4xi1>
  vector.maskedstore %m[], %mask, %v : memref<i32>, vector<4xi1>, vector<4xi32>
  return
}
