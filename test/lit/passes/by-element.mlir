// -tisa-by-element: a reduction loop whose broadcast groups are tagged
// tisa.by_element = 4 (neon.sdot takes register 1 by element) runs 16 steps:
// it becomes 4 steps of 4, each loading one 16-byte register per broadcast
// row (2 rows here) and reading group u in step u (vector.extract [u]);
// the packed loads and instructions are those of the 4 steps.
// RUN: tisa-opt %s --split-input-file --tisa-by-element --canonicalize --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK:         scf.for %[[J:.*]] = %c0 to %c4 step %c1 iter_args({{.*}}) -> (vector<4xi32>, vector<4xi32>) {
// CHECK:           %[[AT:.*]] = arith.muli %[[J]], %c16 : index
// CHECK:           %[[W0:.*]] = vector.load %arg0[%c0, %[[AT]]] : memref<2x64xi8>, vector<16xi8>
// CHECK:           %[[R0:.*]] = vector.bitcast %[[W0]] : vector<16xi8> to vector<4xi32>
// CHECK:           %[[W1:.*]] = vector.load %arg0[%c1, %[[AT]]] : memref<2x64xi8>, vector<16xi8>
// CHECK:           %[[R1:.*]] = vector.bitcast %[[W1]] : vector<16xi8> to vector<4xi32>
// CHECK-NOT:       vector<4xi8>
// CHECK:           vector.extract %[[R0]][0] : i32 from vector<4xi32>
// CHECK:           vector.extract %[[R1]][0] : i32 from vector<4xi32>
// CHECK-COUNT-2:   tisa.apply "neon.sdot"
// CHECK:           vector.extract %[[R0]][1] : i32 from vector<4xi32>
// CHECK:           vector.extract %[[R1]][1] : i32 from vector<4xi32>
// CHECK-COUNT-2:   tisa.apply "neon.sdot"
// CHECK:           vector.extract %[[R0]][2] : i32 from vector<4xi32>
// CHECK:           vector.extract %[[R1]][2] : i32 from vector<4xi32>
// CHECK-COUNT-2:   tisa.apply "neon.sdot"
// CHECK:           vector.extract %[[R0]][3] : i32 from vector<4xi32>
// CHECK:           vector.extract %[[R1]][3] : i32 from vector<4xi32>
// CHECK-COUNT-2:   tisa.apply "neon.sdot"
// CHECK-NOT:       tisa.apply
// CHECK:         } {tisa.loop = "reduction"}
func.func @rows(%a: memref<2x64xi8>, %b: memref<16x16xi8>, %c: memref<2x4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %i0 = vector.load %c[%c0, %c0] : memref<2x4xi32>, vector<4xi32>
  %i1 = vector.load %c[%c1, %c0] : memref<2x4xi32>, vector<4xi32>
  %acc:2 = scf.for %k = %c0 to %c16 step %c1 iter_args(%x = %i0, %y = %i1) -> (vector<4xi32>, vector<4xi32>) {
    %kk = arith.muli %k, %c4 : index
    %g0 = vector.load %a[%c0, %kk] {tisa.by_element = 4 : i64} : memref<2x64xi8>, vector<4xi8>
    %h0 = vector.bitcast %g0 : vector<4xi8> to vector<1xi32>
    %s0 = vector.extract %h0[0] : i32 from vector<1xi32>
    %v0 = vector.broadcast %s0 : i32 to vector<4xi32>
    %a0 = vector.bitcast %v0 : vector<4xi32> to vector<16xi8>
    %g1 = vector.load %a[%c1, %kk] {tisa.by_element = 4 : i64} : memref<2x64xi8>, vector<4xi8>
    %h1 = vector.bitcast %g1 : vector<4xi8> to vector<1xi32>
    %s1 = vector.extract %h1[0] : i32 from vector<1xi32>
    %v1 = vector.broadcast %s1 : i32 to vector<4xi32>
    %a1 = vector.bitcast %v1 : vector<4xi32> to vector<16xi8>
    %bv = vector.load %b[%k, %c0] : memref<16x16xi8>, vector<16xi8>
    %r0 = tisa.apply "neon.sdot"(%bv, %a0, %x) {accumulator = 2 : i64,
           intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", order = array<i64: 2, 0, 1>,
           signature = (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>}
         : (vector<16xi8>, vector<16xi8>, vector<4xi32>) -> vector<4xi32>
    %r1 = tisa.apply "neon.sdot"(%bv, %a1, %y) {accumulator = 2 : i64,
           intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", order = array<i64: 2, 0, 1>,
           signature = (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>}
         : (vector<16xi8>, vector<16xi8>, vector<4xi32>) -> vector<4xi32>
    scf.yield %r0, %r1 : vector<4xi32>, vector<4xi32>
  } {tisa.loop = "reduction"}
  vector.store %acc#0, %c[%c0, %c0] : memref<2x4xi32>, vector<4xi32>
  vector.store %acc#1, %c[%c1, %c0] : memref<2x4xi32>, vector<4xi32>
  return
}

// -----

// 6 steps are not a multiple of 4 groups: the loop stays, with a remark.
// CHECK-LABEL: func.func @odd_trips
// CHECK:         scf.for %{{.*}} = %c0 to %c6 step %c1
// CHECK:           vector.load %arg0[%c0, %{{.*}}] {tisa.by_element = 4 : i64} : memref<1x24xi8>, vector<4xi8>
func.func @odd_trips(%a: memref<1x24xi8>, %b: memref<6x16xi8>, %c: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %i0 = vector.load %c[%c0] : memref<4xi32>, vector<4xi32>
  // expected-remark @below {{by-element loads not used: the trip count is not a known multiple of 4}}
  %acc = scf.for %k = %c0 to %c6 step %c1 iter_args(%x = %i0) -> (vector<4xi32>) {
    %kk = arith.muli %k, %c4 : index
    %g0 = vector.load %a[%c0, %kk] {tisa.by_element = 4 : i64} : memref<1x24xi8>, vector<4xi8>
    %h0 = vector.bitcast %g0 : vector<4xi8> to vector<1xi32>
    %s0 = vector.extract %h0[0] : i32 from vector<1xi32>
    %v0 = vector.broadcast %s0 : i32 to vector<4xi32>
    %a0 = vector.bitcast %v0 : vector<4xi32> to vector<16xi8>
    %bv = vector.load %b[%k, %c0] : memref<6x16xi8>, vector<16xi8>
    %r0 = tisa.apply "neon.sdot"(%bv, %a0, %x) {accumulator = 2 : i64,
           intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", order = array<i64: 2, 0, 1>,
           signature = (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>}
         : (vector<16xi8>, vector<16xi8>, vector<4xi32>) -> vector<4xi32>
    scf.yield %r0 : vector<4xi32>
  } {tisa.loop = "reduction"}
  vector.store %acc, %c[%c0] : memref<4xi32>, vector<4xi32>
  return
}

// -----

// A group index that is not iv * 4 (here iv * 8: every other group): not
// consecutive groups, the loop stays.
// CHECK-LABEL: func.func @strided
// CHECK:         scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:           vector<4xi8>
func.func @strided(%a: memref<1x32xi8>, %b: memref<4x16xi8>, %c: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %i0 = vector.load %c[%c0] : memref<4xi32>, vector<4xi32>
  // expected-remark @below {{by-element loads not used: a broadcast group is not read as iv * group from outside the loop}}
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %i0) -> (vector<4xi32>) {
    %kk = arith.muli %k, %c8 : index
    %g0 = vector.load %a[%c0, %kk] {tisa.by_element = 4 : i64} : memref<1x32xi8>, vector<4xi8>
    %h0 = vector.bitcast %g0 : vector<4xi8> to vector<1xi32>
    %s0 = vector.extract %h0[0] : i32 from vector<1xi32>
    %v0 = vector.broadcast %s0 : i32 to vector<4xi32>
    %a0 = vector.bitcast %v0 : vector<4xi32> to vector<16xi8>
    %bv = vector.load %b[%k, %c0] : memref<4x16xi8>, vector<16xi8>
    %r0 = tisa.apply "neon.sdot"(%bv, %a0, %x) {accumulator = 2 : i64,
           intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", order = array<i64: 2, 0, 1>,
           signature = (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>}
         : (vector<16xi8>, vector<16xi8>, vector<4xi32>) -> vector<4xi32>
    scf.yield %r0 : vector<4xi32>
  } {tisa.loop = "reduction"}
  vector.store %acc, %c[%c0] : memref<4xi32>, vector<4xi32>
  return
}

// -----

// A repair's sign flip of the broadcast group (u8 read as s8: xor 0x80 per
// byte) applies to the whole register once per 4 steps, not per step.
// CHECK-LABEL: func.func @flipped
// CHECK:         %[[FLIP:.*]] = arith.constant dense<-2139062144> : vector<4xi32>
// One iteration of 4 steps: canonicalization drops the loop.
// CHECK:           %[[W:.*]] = vector.load %arg0[%c0, %c0] : memref<1x16xi8>, vector<16xi8>
// CHECK:           %[[R:.*]] = vector.bitcast %[[W]] : vector<16xi8> to vector<4xi32>
// CHECK:           %[[X:.*]] = arith.xori %[[R]], %[[FLIP]] : vector<4xi32>
// CHECK-NOT:       arith.xori
// CHECK:           vector.extract %[[X]][0]
// CHECK:           vector.extract %[[X]][3]
func.func @flipped(%a: memref<1x16xi8>, %b: memref<4x16xi8>, %c: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %flip = arith.constant -2139062144 : i32
  %i0 = vector.load %c[%c0] : memref<4xi32>, vector<4xi32>
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %i0) -> (vector<4xi32>) {
    %kk = arith.muli %k, %c4 : index
    %g0 = vector.load %a[%c0, %kk] {tisa.by_element = 4 : i64} : memref<1x16xi8>, vector<4xi8>
    %h0 = vector.bitcast %g0 : vector<4xi8> to vector<1xi32>
    %s0 = vector.extract %h0[0] : i32 from vector<1xi32>
    %f0 = arith.xori %s0, %flip : i32
    %v0 = vector.broadcast %f0 : i32 to vector<4xi32>
    %a0 = vector.bitcast %v0 : vector<4xi32> to vector<16xi8>
    %bv = vector.load %b[%k, %c0] : memref<4x16xi8>, vector<16xi8>
    %r0 = tisa.apply "neon.sdot"(%bv, %a0, %x) {accumulator = 2 : i64,
           intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", order = array<i64: 2, 0, 1>,
           signature = (vector<4xi32>, vector<16xi8>, vector<16xi8>) -> vector<4xi32>}
         : (vector<16xi8>, vector<16xi8>, vector<4xi32>) -> vector<4xi32>
    scf.yield %r0 : vector<4xi32>
  } {tisa.loop = "reduction"}
  vector.store %acc, %c[%c0] : memref<4xi32>, vector<4xi32>
  return
}
