// -tisa-split-pack: a planned contraction becomes a packed buffer, the tisa.pack of the operand its
// plan relays out, the tisa.compute on it, and the buffer's release; both ops carry a copy of the
// contraction with its plan and schedule. Splitting again changes nothing, the printed ops parse
// back, and -tisa-tensorize lowers what was parsed.
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 -verify-diagnostics | FileCheck %s
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 --tisa-split-pack=target=znver4 -verify-diagnostics | FileCheck %s --check-prefix=TWICE
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 -verify-diagnostics | tisa-opt --split-input-file --tisa-tensorize=target=znver4 | FileCheck %s --check-prefix=LOWERED

// linalg.matmul extends signed: s8 x s8, B packed for vpdpbusd (A repaired by the compute).
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    (%[[A:.*]]: memref<8x64xi8>, %[[B:.*]]: memref<64x32xi8>, %[[C:.*]]: memref<8x32xi32>)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
// CHECK-NEXT:    tisa.pack %[[B]] into %[[BUF]] : memref<64x32xi8>, memref<2048xi8> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: memref<8x64xi8>, %[[Y:.*]]: memref<64x32xi8>, %[[Z:.*]]: memref<8x32xi32>):
// CHECK-NEXT:      linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%[[X]], %[[Y]] : {{.*}}) outs(%[[Z]] : memref<8x32xi32>)
// CHECK-NEXT:    }
// CHECK-NEXT:    tisa.compute %[[A]], %[[BUF]] -> %[[C]] : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: memref<8x64xi8>, %{{.*}}: memref<64x32xi8>, %{{.*}}: memref<8x32xi32>):
// CHECK-NEXT:      linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>}
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[BUF]] : memref<2048xi8>
// CHECK-NOT:     linalg.matmul
// CHECK:         return

// TWICE-LABEL: func.func @gemm
// TWICE:         tisa.pack
// TWICE:         tisa.compute
// TWICE-NOT:     tisa.pack
// TWICE:         return

// LOWERED-LABEL: func.func @gemm
// LOWERED-NOT:   tisa.pack
// LOWERED-NOT:   tisa.compute
// LOWERED:       tisa.apply "vpdpbusd.zmm"
// LOWERED:       memref.dealloc
func.func @gemm(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  linalg.matmul ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

// A schedule given by hand is kept on both copies (the pack's layout follows its panel).
// CHECK-LABEL: func.func @given_schedule
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
// CHECK:         tisa.pack
// CHECK:           tisa.schedule = #tisa.schedule<unroll = [2, 1, 1], lanes_outer, panel = 16>
// CHECK:         tisa.compute
// CHECK:           tisa.schedule = #tisa.schedule<unroll = [2, 1, 1], lanes_outer, panel = 16>
func.func @given_schedule(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  linalg.matmul {tisa.schedule = #tisa.schedule<unroll = [2, 1, 1], lanes_outer, panel = 16>}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>)
  return
}

// -----

// negative: on tensors nothing is split.
// CHECK-LABEL: func.func @negative_tensors
// CHECK-NOT:     tisa.pack
// CHECK:         linalg.matmul
func.func @negative_tensors(%a: tensor<8x64xi8>, %b: tensor<64x32xi8>, %c: tensor<8x32xi32>) -> tensor<8x32xi32> {
  // expected-warning @+1 {{not tensorized: the operands are tensors; bufferize first}}
  %r = linalg.matmul ins(%a, %b : tensor<8x64xi8>, tensor<64x32xi8>) outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %r : tensor<8x32xi32>
}

// -----

// negative: f32 x f32 has no instruction on znver4.
// CHECK-LABEL: func.func @negative_no_instruction
// CHECK-NOT:     tisa.pack
// CHECK:         linalg.matmul
func.func @negative_no_instruction(%a: memref<8x64xf32>, %b: memref<64x32xf32>, %c: memref<8x32xf32>) {
  // expected-warning @+1 {{not tensorized: no instruction applies}}
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x32xf32>) outs(%c : memref<8x32xf32>)
  return
}
