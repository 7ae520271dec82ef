// -tisa-tensorize on tisa.pack and tisa.compute written by hand, as a kernel library's entries
// are: a range computes only its tiles, overwrite starts from zero instead of the output, and
// everything the lowering cannot apply is an error on the op.
// RUN: tisa-opt %s --split-input-file --tisa-tensorize=target=znver4 -verify-diagnostics | FileCheck %s

// The range entry: the tile loop runs from begin to min(end, tiles) (one tile of 8 rows here);
// overwrite: the accumulators start at zero, C is not read.
// CHECK-LABEL: func.func @range_overwrite
// CHECK-SAME:    (%[[A:.*]]: memref<8x64xi8>, %[[BUF:.*]]: memref<2048xi8>, %[[C:.*]]: memref<8x32xi32>, %[[BEGIN:.*]]: index, %[[END:.*]]: index)
// CHECK:         %[[PACKED:.*]] = memref.view %[[BUF]]
// CHECK:         %[[LAST:.*]] = arith.minsi %[[END]], %c1{{.*}} : index
// CHECK:         scf.for %{{.*}} = %[[BEGIN]] to %[[LAST]]
// CHECK-NOT:     vector.maskedload %[[C]]
// CHECK:         tisa.apply "vpdpbusd.zmm"
// CHECK:         vector.maskedstore %[[C]]
// CHECK-NOT:     tisa.compute
func.func @range_overwrite(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>, %begin: index, %end: index) {
  tisa.compute %a, %buf -> %c range(%begin, %end) {overwrite} : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

// Accumulating (no overwrite): the accumulators start from C.
// CHECK-LABEL: func.func @accumulate
// CHECK:         %[[INIT:.*]] = vector.maskedload %arg2
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK:         tisa.apply "vpdpbusd.zmm"
func.func @accumulate(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>) {
  tisa.compute %a, %buf -> %c : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @negative_no_plan(%b: memref<64x32xi8>, %buf: memref<2048xi8>) {
  // expected-error @+1 {{'tisa.pack' op its contraction has no tisa.plan and tisa.schedule (run -tisa-select-plan or -tisa-split-pack first): the pack and the computation must agree on them}}
  tisa.pack %b into %buf : memref<64x32xi8>, memref<2048xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @negative_buffer_size(%b: memref<64x32xi8>, %buf: memref<1024xi8>) {
  // expected-error @+1 {{'tisa.pack' op buffer has type 'memref<1024xi8>' but the plan's packed layout [k/4=16][n=32][4] needs 'memref<2048xi8>'}}
  tisa.pack %b into %buf : memref<64x32xi8>, memref<1024xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

// A (8x64) is not the operand the plan packs.
func.func @negative_pack_source(%a: memref<8x64xi8>, %buf: memref<2048xi8>) {
  // expected-error @+1 {{'tisa.pack' op source has type 'memref<8x64xi8>' but the plan packs input 1, of type 'memref<64x32xi8>'}}
  tisa.pack %a into %buf : memref<8x64xi8>, memref<2048xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @negative_unknown_plan(%b: memref<64x32xi8>, %buf: memref<2048xi8>) {
  tisa.pack %b into %buf : memref<64x32xi8>, memref<2048xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    // expected-error @+1 {{tisa.plan #tisa.plan<"vpdpbusd.zmm", [n = [0]]>: vpdpbusd.zmm has 2 loops (n, k); the plan names 1}}
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [0]]>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

// The other input (B, 64x32) where the computation reads A.
func.func @negative_compute_input(%b: memref<64x32xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>) {
  // expected-error @+1 {{'tisa.compute' op input has type 'memref<64x32xi8>' but the plan reads the other input, of type 'memref<8x64xi8>'}}
  tisa.compute %b, %buf -> %c : memref<64x32xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

// With input_padding the input must fit inside the program's operand after its zero border.
func.func @negative_padded_input(%a: memref<8x60xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>) {
  // expected-error @+1 {{'tisa.compute' op input has type 'memref<8x60xi8>' but the plan reads the other input, of type 'memref<8x64xi8>', in its zero border}}
  tisa.compute %a, %buf -> %c {input_padding = array<i64: 0, 8>} : memref<8x60xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

// `active` (a padded last block of -tisa-split-dynamic): the tile loop over lanes stops at the
// tile that holds the last active lane, and the group loop after the last active group; both
// bounds are made once, above the register tile (so -tisa-register-tile still jams it).
// CHECK-LABEL: func.func @active
// CHECK-SAME:    (%[[A:.*]]: memref<8x64xi8>, %[[BUF:.*]]: memref<4096xi8>, %[[C:.*]]: memref<8x64xi32>, %[[N:.*]]: index, %[[K:.*]]: index)
// CHECK:         %[[KG:.*]] = arith.ceildivsi %[[K]], %c4 : index
// CHECK:         %[[GROUPS:.*]] = arith.minsi %[[KG]], %c16 : index
// CHECK:         %[[NT:.*]] = arith.ceildivsi %[[N]], %c32 : index
// CHECK:         %[[NL:.*]] = arith.muli %[[NT]], %c32{{.*}} : index
// CHECK:         %[[LANES:.*]] = arith.minsi %c64, %[[NL]] : index
// CHECK:         scf.for %{{.*}} = %c0{{.*}} to %[[LANES]] step %c32{{.*}}
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %[[GROUPS]] step %c1
// CHECK:             tisa.apply "vpdpbusd.zmm"
func.func @active(%a: memref<8x64xi8>, %buf: memref<4096xi8>, %c: memref<8x64xi32>, %n: index, %k: index) {
  tisa.compute %a, %buf -> %c active(%n, %k) {active_loops = array<i64: 1, 2>, overwrite} : memref<8x64xi8>, memref<4096xi8>, memref<8x64xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x64xi8>, %z: memref<8x64xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x64xi8>) outs(%z : memref<8x64xi32>)
  }
  return
}

// -----

// A computation reads what a pack of its plan and schedule wrote: these two schedules pack to
// one buffer type, and the computation would read the packed operand wrongly (wrong results,
// silently, before this check).
func.func @negative_pack_schedule(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>) {
  // expected-note @+1 {{packed here}}
  tisa.pack %b into %buf : memref<64x32xi8>, memref<2048xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [8, 2, 1]>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  // expected-error @+1 {{'tisa.compute' op reads a buffer packed with another tisa.schedule (#tisa.schedule<unroll = [8, 2, 1]>, not #tisa.schedule<unroll = [4, 2, 1], lanes_outer>)}}
  tisa.compute %a, %buf -> %c : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [4, 2, 1], lanes_outer>} ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}
