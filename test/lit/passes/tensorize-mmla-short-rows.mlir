// NEON smmla's register tile of 4 row pairs over 12 rows of A (6 pairs): the first m block is
// whole, the last computes its 2 pairs alone (TileKernel::shortRows) instead of padding to 4,
// so no multiply works on padding rows and C needs no scratch (its rows are whole pairs).
// Before, the last block ran 4 pairs (ResNet-50's 56x56x64 layer on neoverse-v2: the 6x4 tile
// over 28 column pairs ran 30, 1.08x the minimum's smmla).
// RUN: tisa-opt %s "--tisa-tensorize=target=neoverse-v2 isa=neon.smmla" --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @short_rows
// CHECK-NOT:     memref.alloca
// The range's two m blocks; the packed A keeps two groups of 4 registers.
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<1x2x2x4x16xi8>
// CHECK:         scf.for %[[T:.*]] = %c0 to %c2 step %c1
// CHECK:           %[[BLOCK:.*]] = arith.remui %[[T]], %c2 : index
// CHECK:           %[[ROW:.*]] = affine.apply #{{.*}}(%[[BLOCK]])
// CHECK:           %[[LAST:.*]] = arith.cmpi eq, %[[ROW]], %c8 : index
// CHECK:           scf.if %[[LAST]] {
// The last block: 2 k steps of 2 pairs x 2 panels.
// CHECK-COUNT-8:     tisa.apply "neon.smmla"
// CHECK-NOT:         tisa.apply
// CHECK:           } else {
// A whole block: 2 k steps of 4 pairs x 2 panels.
// CHECK-COUNT-16:    tisa.apply "neon.smmla"
// CHECK-NOT:         tisa.apply
// CHECK:           }
func.func @short_rows(%a: memref<12x16xi8>, %buf: memref<64xi8>, %c: memref<12x4xi32>) {
  tisa.compute %a, %buf -> %c {overwrite} : memref<12x16xi8>, memref<64xi8>, memref<12x4xi32> {
  ^bb0(%x: memref<12x16xi8>, %y: memref<16x4xi8>, %z: memref<12x4xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"neon.smmla", [m = [0], n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [4, 2, 1], kunroll = 4>} ins(%x, %y : memref<12x16xi8>, memref<16x4xi8>) outs(%z : memref<12x4xi32>)
  }
  return
}
