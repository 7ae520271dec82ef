// A tisa.compute whose input is the program's A inside a zero border (input_padding: a
// convolution's padded image read in place). NEON smmla packs A per call anyway: the pack reads
// the input itself, a row outside it as zeros (a select), instead of first copying the input into
// a zero-padded buffer (the copy ran byte by byte on neoverse-v2: about 400,000 of the 5,583,744
// instructions of ResNet-50's 56x56x64 layer).
// RUN: tisa-opt %s "--tisa-tensorize=target=neoverse-v2 isa=neon.smmla" --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @border
// CHECK-SAME:    (%[[A:.*]]: memref<2x16xi8>,
// No padded copy: the one allocation is the packed A.
// CHECK-NOT:     memref<4x16xi8>
// CHECK:         %[[APK:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x2x2x16xi8>
// CHECK-NOT:     memref<4x16xi8>
// The packed row p reads input row p - 1, clamped into [0, 1], zero when outside.
// CHECK:         %[[ROW:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK:         %[[LOW:.*]] = arith.cmpi slt, %[[ROW]], %c0 : index
// CHECK:         %[[HIGH:.*]] = arith.cmpi sge, %[[ROW]], %c2 : index
// CHECK:         %[[OUT:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i1
// CHECK:         %[[CLAMP:.*]] = arith.minsi %{{.*}}, %c1 : index
// CHECK:         %[[V:.*]] = vector.transfer_read %[[A]][%[[CLAMP]], %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<2x16xi8>, vector<8xi8>
// CHECK:         %[[ROWV:.*]] = arith.select %[[OUT]], %{{.*}}, %[[V]] : vector<8xi8>
// CHECK:         vector.store %[[ROWV]], %[[APK]]
// CHECK-NOT:     memref<4x16xi8>
// CHECK:         tisa.apply "neon.smmla"
func.func @border(%a: memref<2x16xi8>, %buf: memref<64xi8>, %c: memref<4x4xi32>) {
  tisa.compute %a, %buf -> %c {input_padding = array<i64: 1, 0>, overwrite} : memref<2x16xi8>, memref<64xi8>, memref<4x4xi32> {
  ^bb0(%x: memref<4x16xi8>, %y: memref<16x4xi8>, %z: memref<4x4xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"neon.smmla", [m = [0], n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [2, 2, 1], kunroll = 4>} ins(%x, %y : memref<4x16xi8>, memref<16x4xi8>) outs(%z : memref<4x4xi32>)
  }
  return
}
