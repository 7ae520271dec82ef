// -tisa-register-tile: unroll-and-jam of the loops tagged tisa.unroll. The
// row loop (5 rows, unroll 2) becomes a main loop of step 2 and a remainder;
// the lane loop (3 registers, unroll 3) is jammed into one reduction loop
// with 2 x 3 accumulators, 2 broadcast loads and 3 packed loads per step
// (the instruction is a pure tisa.apply, so the loads merge).
// RUN: tisa-opt %s --tisa-register-tile --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @tile
// CHECK:         scf.for %[[M:.*]] = %c0 to %c4 step %c2 {
// CHECK-COUNT-6:   vector.load %arg2
// CHECK:           %[[R:.*]]:6 = scf.for %[[K:.*]] = %c0 to %c16 step %c1 iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>) {
// CHECK-COUNT-2:     vector.load %arg0[{{.*}}] : memref<5x64xi8>, vector<4xi8>
// CHECK-NOT:         vector.load %arg0
// CHECK-COUNT-3:     vector.load %arg1[%[[K]], {{.*}}] : memref<16x192xi8>, vector<64xi8>
// CHECK-NOT:         vector.load
// CHECK-COUNT-6:     tisa.apply "vpdpbusd.zmm"
// CHECK:           } {tisa.loop = "reduction"}
// CHECK-COUNT-6:   vector.store
// CHECK:         } {tisa.loop = "parallel"}
// The remainder row (one iteration, so canonicalization drops its loop): three
// registers with one broadcast.
// CHECK:         scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>) {
// CHECK-COUNT-1:   vector.load %arg0[%c4, {{.*}}]
// CHECK-NOT:       vector.load %arg0
// CHECK-COUNT-3:   tisa.apply
// CHECK-NOT:         tisa.unroll
func.func @tile(%a: memref<5x64xi8>, %b: memref<16x192xi8>, %c: memref<5x48xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c48 = arith.constant 48 : index
  scf.for %m = %c0 to %c5 step %c1 {
    scf.for %n = %c0 to %c48 step %c16 {
      %init = vector.load %c[%m, %n] : memref<5x48xi32>, vector<16xi32>
      %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%x = %init) -> (vector<16xi32>) {
        %kk = arith.muli %k, %c4 : index
        %g = vector.load %a[%m, %kk] : memref<5x64xi8>, vector<4xi8>
        %g32 = vector.bitcast %g : vector<4xi8> to vector<1xi32>
        %s = vector.extract %g32[0] : i32 from vector<1xi32>
        %bc = vector.broadcast %s : i32 to vector<16xi32>
        %av = vector.bitcast %bc : vector<16xi32> to vector<64xi8>
        %nn = arith.muli %n, %c4 : index
        %bv = vector.load %b[%k, %nn] : memref<16x192xi8>, vector<64xi8>
        %r = tisa.apply "vpdpbusd.zmm"(%av, %bv, %x) {accumulator = 2 : i64,
               intrinsic = "llvm.x86.avx512.vpdpbusd.512", order = array<i64: 2, 0, 1>,
               signature = (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>}
             : (vector<64xi8>, vector<64xi8>, vector<16xi32>) -> vector<16xi32>
        scf.yield %r : vector<16xi32>
      } {tisa.loop = "reduction"}
      vector.store %acc, %c[%m, %n] : memref<5x48xi32>, vector<16xi32>
    } {tisa.loop = "lanes", tisa.unroll = 3 : i64}
  } {tisa.loop = "parallel", tisa.unroll = 2 : i64}
  return
}

