// -tisa-split-dynamic: a tisa.compute whose M (or batch, or a convolution's output rows and
// columns: @dynamic_image) only run time knows becomes static computations on views of its
// input, output and epilogue operands: a loop over blocks of 256,
// then the remainder's binary digits (128, ..., 1), each block's contraction marked with the
// loops that were dynamic (it is planned as the program was). The packed buffer is shared.
// N and K (the packed input's loops) run in whole blocks, the last one zero-padded (see
// @dynamic_nk), as do a convolution's filters when its image is given at run time and they
// outgrow L2 (@filter_blocks). Loops that cannot run in blocks are refused at planning with the reason;
// -tisa-tensorize refuses a computation still dynamic.
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 --tisa-fuse-epilogue --tisa-split-dynamic=target=znver4 -verify-diagnostics | FileCheck %s
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 --tisa-fuse-epilogue --tisa-split-dynamic=target=znver4 --tisa-tensorize=target=znver4 -verify-diagnostics | FileCheck %s --check-prefix=LOWERED
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=sapphirerapids --tisa-fuse-epilogue --tisa-split-dynamic=target=sapphirerapids --tisa-tensorize=target=sapphirerapids 2>/dev/null | FileCheck %s --check-prefix=AMX

// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    (%[[A:.*]]: memref<?x70xi8>, %[[B:.*]]: memref<70x48xi8>, %[[C:.*]]: memref<?x48xi32>)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<[[BYTES:[0-9]+]]xi8>
// CHECK:         tisa.pack %[[B]] into %[[BUF]]
// CHECK:         %[[M:.*]] = memref.dim %[[C]], %{{.*}} : memref<?x48xi32>
// CHECK:         %[[BLOCKS:.*]] = arith.divui %[[M]], %[[C256:.*]] : index
// CHECK:         %[[FULL:.*]] = arith.muli %[[BLOCKS]], %[[C256]] : index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[FULL]] step %[[C256]] {
// CHECK:           %[[VA:.*]] = memref.subview %[[A]][%[[I]], 0] [256, 70] [1, 1] : memref<?x70xi8> to memref<256x70xi8, strided<[70, 1], offset: ?>>
// CHECK:           %[[VC:.*]] = memref.subview %[[C]][%[[I]], 0] [256, 48] [1, 1] : memref<?x48xi32> to memref<256x48xi32, strided<[48, 1], offset: ?>>
// CHECK:           tisa.compute %[[VA]], %[[BUF]] -> %[[VC]] : memref<256x70xi8, strided<[70, 1], offset: ?>>, memref<[[BYTES]]xi8>, memref<256x48xi32, strided<[48, 1], offset: ?>> {
// CHECK-NEXT:      ^bb0(%{{.*}}: memref<256x70xi8, strided<[70, 1], offset: ?>>, %{{.*}}: memref<70x48xi8>, %{{.*}}: memref<256x48xi32>):
// CHECK-NEXT:        linalg.matmul {tisa.plan = #tisa.plan<{{.*}}>, tisa.run_time_loops = array<i64: 0>, tisa.schedule = #tisa.schedule<{{.*}}>}
// CHECK:         %[[REST:.*]] = arith.subi %[[M]], %[[FULL]] : index
// CHECK:         %[[D128:.*]] = arith.andi %[[REST]], %c128
// CHECK:         %[[HAS128:.*]] = arith.cmpi ne, %[[D128]]
// CHECK:         %[[ABOVE:.*]] = arith.andi %[[REST]], %c-256
// CHECK:         %[[AT:.*]] = arith.addi %[[FULL]], %[[ABOVE]]
// CHECK:         scf.if %[[HAS128]] {
// CHECK:           memref.subview %[[A]][%[[AT]], 0] [128, 70]
// CHECK:           tisa.compute {{.*}} : memref<128x70xi8, {{.*}}>, memref<[[BYTES]]xi8>, memref<128x48xi32, {{.*}}>
// CHECK-COUNT-6:   tisa.compute
// CHECK:         scf.if
// CHECK:           tisa.compute {{.*}} : memref<1x70xi8, {{.*}}>, memref<[[BYTES]]xi8>, memref<1x48xi32, {{.*}}>
// CHECK-NOT:     tisa.compute
// CHECK:         memref.dealloc %[[BUF]]

// LOWERED-LABEL: func.func @gemm
// LOWERED-NOT:   tisa.compute
// LOWERED:       scf.for
// LOWERED:       tisa.apply "vpdpbusd.zmm"
// LOWERED:       scf.if
// LOWERED:       tisa.apply "vpdpbusd.zmm"

// AMX-LABEL: func.func @gemm
// AMX-NOT:   tisa.compute
// AMX:       scf.for
// AMX:       tisa.apply "tdpbssd"
// AMX:       scf.if
// AMX:       tisa.apply "tdpbssd"
func.func @gemm(%a: memref<?x70xi8>, %b: memref<70x48xi8>, %c: memref<?x48xi32>) {
  linalg.matmul ins(%a, %b : memref<?x70xi8>, memref<70x48xi8>) outs(%c : memref<?x48xi32>)
  return
}

// -----

// A fused epilogue: its operands along M (the residual) are viewed with the blocks, the bias
// per column is not.
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME:    (%{{.*}}: memref<?x64xi8>, %{{.*}}: memref<64x48xi8>, %[[BIAS:.*]]: memref<48xi32>, %[[RES:.*]]: memref<?x48xi32>, %[[D:.*]]: memref<?x48xi32>)
// CHECK:         scf.for %[[I:.*]] =
// CHECK-DAG:       %[[VR:.*]] = memref.subview %[[RES]][%[[I]], 0] [256, 48]
// CHECK-DAG:       %[[VD:.*]] = memref.subview %[[D]][%[[I]], 0] [256, 48]
// CHECK:           tisa.compute %{{.*}}, %{{.*}} -> %[[VD]] epilogue(%[[BIAS]], %[[VR]] : memref<48xi32>, memref<256x48xi32, strided<[48, 1], offset: ?>>) {overwrite}
// CHECK:           } epilogue {
// CHECK-NEXT:      ^bb0(%{{.*}}: memref<256x48xi32>, %{{.*}}: memref<48xi32>, %{{.*}}: memref<256x48xi32, strided<[48, 1], offset: ?>>, %{{.*}}: memref<256x48xi32, strided<[48, 1], offset: ?>>):
// LOWERED-LABEL: func.func @epilogue
// LOWERED-NOT:   memref.alloc(%
// LOWERED:       tisa.apply "vpdpbusd.zmm"
// LOWERED:       vector.maskedload %arg2{{.*}} : memref<48xi32>
// LOWERED:       vector.maskedload %subview{{.*}} : memref<256x48xi32, strided<[48, 1], offset: ?>>
// LOWERED:       vector.maskedstore %subview{{.*}} : memref<256x48xi32, strided<[48, 1], offset: ?>>
func.func @epilogue(%a: memref<?x64xi8>, %b: memref<64x48xi8>, %bias: memref<48xi32>,
                    %res: memref<?x48xi32>, %d: memref<?x48xi32>) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %a, %c0 : memref<?x64xi8>
  %acc = memref.alloc(%m) : memref<?x48xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<?x48xi32>)
  linalg.matmul ins(%a, %b : memref<?x64xi8>, memref<64x48xi8>) outs(%acc : memref<?x48xi32>)
  linalg.generic {indexing_maps = [#id, #col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias, %res : memref<?x48xi32>, memref<48xi32>, memref<?x48xi32>)
      outs(%d : memref<?x48xi32>) {
  ^bb0(%x: i32, %y: i32, %r: i32, %o: i32):
    %s = arith.addi %x, %y : i32
    %t = arith.addi %s, %r : i32
    linalg.yield %t : i32
  }
  memref.dealloc %acc : memref<?x48xi32>
  return
}

// -----

// Two dynamic loops (batch and M): the batch, an outer loop, in blocks of 1 (runTimeBlock: the
// plan is made for one), then each block's M in blocks of 256 and the remainder's digits.
// CHECK-LABEL: func.func @batched
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256 {
// CHECK:             tisa.compute {{.*}} : memref<1x256x64xi8, {{.*}}>, {{.*}}, memref<1x256x48xi32, {{.*}}> {
// CHECK:               linalg.generic {{{.*}}tisa.run_time_loops = array<i64: 0, 1>
// LOWERED-LABEL: func.func @batched
// LOWERED-NOT:   tisa.compute
// LOWERED:       tisa.apply "vpdpbusd.zmm"
func.func @batched(%a: memref<?x?x64xi8>, %b: memref<64x48xi8>, %c: memref<?x?x48xi32>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x?x64xi8>, memref<64x48xi8>) outs(%c : memref<?x?x48xi32>) {
  ^bb0(%x: i8, %y: i8, %o: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// N and K (loops the packed input depends on) run in whole blocks of 256, the last one on
// zero-padded copies; each block of the pack and of the computation has its own part of the
// packed buffer, block i at i times one static kernel's packed bytes (here 65536, so the buffer
// holds 65536 x ceil(N/256) x ceil(K/256) bytes). K's blocks accumulate (an overwriting
// computation zeroes its output first). A partial output block is copied back.
// CHECK-LABEL: func.func @dynamic_nk
// CHECK-SAME:    (%[[A:.*]]: memref<32x?xi8>, %[[B:.*]]: memref<?x?xi8>, %[[C:.*]]: memref<32x?xi32>)
// CHECK:         %[[BUF:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xi8>
// The pack: N blocks, each on its ceil(K/256) x 65536 bytes, then K blocks of 65536.
// CHECK:         scf.for %[[NB:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[NVIEW:.*]] = memref.view %[[BUF]][%{{.*}}][%{{.*}}] : memref<?xi8> to memref<?xi8>
// CHECK:           %[[BN:.*]] = scf.if %{{.*}} -> (memref<?x256xi8, strided<[?, 1], offset: ?>>) {
// CHECK:             memref.subview %[[B]][0, %{{.*}}] [%{{.*}}, 256] [1, 1]
// CHECK:           } else {
// Only the padding is zeroed: the copy writes the rest.
// CHECK:             %[[PADN:.*]] = memref.subview %{{.*}}[0, %[[NSIZE:.*]]] [%{{.*}}, %{{.*}}] [1, 1] : memref<?x256xi8> to memref<?x?xi8, strided<[256, 1], offset: ?>>
// CHECK:             linalg.fill ins(%c0_i8 : i8) outs(%[[PADN]] : memref<?x?xi8, strided<[256, 1], offset: ?>>)
// CHECK:             linalg.copy ins(%{{.*}} : memref<?x?xi8, strided<[?, 1], offset: ?>>) outs(%{{.*}} : memref<?x?xi8, strided<[256, 1]>>)
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[KVIEW:.*]] = memref.view %[[NVIEW]][%{{.*}}][] : memref<?xi8> to memref<65536xi8>
// CHECK:             %[[BNK:.*]] = scf.if %{{.*}} -> (memref<256x256xi8, strided<[?, 1], offset: ?>>) {
// CHECK:             tisa.pack %[[BNK]] into %[[KVIEW]] : memref<256x256xi8, strided<[?, 1], offset: ?>>, memref<65536xi8> {
// CHECK:               linalg.matmul {{{.*}}tisa.run_time_loops = array<i64: 1, 2>
// The computation: N blocks (C's partial block in a staging copy of what it holds: the program
// accumulates into C), then K blocks adding up.
// CHECK:         scf.for
// CHECK:           %[[CN:.*]] = scf.if %{{.*}} -> (memref<32x256xi32, strided<[?, 1], offset: ?>>) {
// CHECK:           } else {
// CHECK-NOT:         linalg.fill
// CHECK:             linalg.copy
// CHECK:           }
// CHECK:           scf.for
// CHECK:             %[[AK:.*]] = scf.if %{{.*}} -> (memref<32x256xi8, strided<[?, 1], offset: ?>>) {
// CHECK:             } else {
// CHECK:               linalg.fill ins(%c0_i8 : i8)
// CHECK:               linalg.copy
// CHECK:             }
// Each block's computation needs only its size of n and k (`active`): past them, padding.
// CHECK:             tisa.compute %[[AK]], %{{.*}} -> %[[CN]] active(%{{.*}}, %{{.*}}) {active_loops = array<i64: 1, 2>} : memref<32x256xi8, strided<[?, 1], offset: ?>>, memref<65536xi8>, memref<32x256xi32, strided<[?, 1], offset: ?>> {
// CHECK:               linalg.matmul {{{.*}}tisa.run_time_loops = array<i64: 1, 2>
// CHECK:           scf.if
// CHECK:             linalg.copy ins(%{{.*}} : memref<32x?xi32, strided<[256, 1]>>) outs(%{{.*}} : memref<32x?xi32, strided<[?, 1], offset: ?>>)
// CHECK:         memref.dealloc %[[BUF]]
// LOWERED-LABEL: func.func @dynamic_nk
// LOWERED-NOT:   tisa.compute
// LOWERED:       tisa.apply "vpdpbusd.zmm"
// AMX-LABEL: func.func @dynamic_nk
// AMX-NOT:   tisa.compute
// AMX:       tisa.apply "tdpbssd"
func.func @dynamic_nk(%a: memref<32x?xi8>, %b: memref<?x?xi8>, %c: memref<32x?xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<32x?xi32>)
  linalg.matmul ins(%a, %b : memref<32x?xi8>, memref<?x?xi8>) outs(%c : memref<32x?xi32>)
  return
}

// -----

// An overwriting computation (as the kernel library writes it) whose K runs in blocks zeroes its
// output before K's blocks add up, and in N's partial block only the columns that are copied
// back (`active`).
// CHECK-LABEL: func.func @overwrite_nk
// CHECK:         scf.for
// CHECK:           %[[CN:.*]] = scf.if %{{.*}} -> (memref<32x256xi32, strided<[?, 1], offset: ?>>) {
// CHECK:           } else {
// CHECK-NOT:         linalg.copy
// CHECK:           }
// CHECK:           %[[ACTIVE:.*]] = memref.subview %[[CN]][0, 0] [32, %{{.*}}] [1, 1] : memref<32x256xi32, strided<[?, 1], offset: ?>> to memref<32x?xi32, strided<[?, 1], offset: ?>>
// CHECK:           linalg.fill ins(%c0_i32 : i32) outs(%[[ACTIVE]] : memref<32x?xi32, strided<[?, 1], offset: ?>>)
// CHECK:           scf.for
// CHECK:             tisa.compute {{.*}} -> %[[CN]] active(%{{.*}}, %{{.*}}) {active_loops = array<i64: 1, 2>} :
// CHECK-NOT:           overwrite
// CHECK:           scf.if
// CHECK:             linalg.copy ins(%{{.*}} : memref<32x?xi32, strided<[256, 1]>>) outs(%{{.*}} : memref<32x?xi32, strided<[?, 1], offset: ?>>)
// LOWERED-LABEL: func.func @overwrite_nk
// LOWERED:       tisa.apply "vpdpbusd.zmm"
func.func @overwrite_nk(%a: memref<32x?xi8>, %buf: memref<?xi8>, %c: memref<32x?xi32>) {
  tisa.compute %a, %buf -> %c {overwrite} : memref<32x?xi8>, memref<?xi8>, memref<32x?xi32> {
  ^bb0(%x: memref<32x?xi8>, %y: memref<?x?xi8>, %z: memref<32x?xi32>):
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>,
                   tisa.schedule = #tisa.schedule<unroll = [6, 4, 1], panel = 64>}
        ins(%x, %y : memref<32x?xi8>, memref<?x?xi8>) outs(%z : memref<32x?xi32>)
  }
  return
}

// -----

// A fused epilogue with N at run time: the bias along N is padded with the blocks; with K at run
// time the epilogue is not fused (K's blocks accumulate in memory).
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
// CHECK-LABEL: func.func @epilogue_n
// CHECK:         scf.for
// CHECK:           tisa.compute {{.*}} epilogue(%{{.*}} : memref<256xi32, strided<[1], offset: ?>>) active(%{{.*}}) {active_loops = array<i64: 1>, overwrite}
func.func @epilogue_n(%a: memref<16x64xi8>, %b: memref<64x?xi8>, %bias: memref<?xi32>, %d: memref<16x?xi32>) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %b, %c1 : memref<64x?xi8>
  %acc = memref.alloc(%n) : memref<16x?xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<16x?xi32>)
  linalg.matmul ins(%a, %b : memref<16x64xi8>, memref<64x?xi8>) outs(%acc : memref<16x?xi32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<16x?xi32>, memref<?xi32>) outs(%d : memref<16x?xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %s = arith.addi %x, %y : i32
    linalg.yield %s : i32
  }
  memref.dealloc %acc : memref<16x?xi32>
  return
}
func.func @epilogue_k(%a: memref<16x?xi8>, %b: memref<?x48xi8>, %bias: memref<48xi32>, %d: memref<16x48xi32>) {
  %acc = memref.alloc() : memref<16x48xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%acc : memref<16x48xi32>)
  // expected-note @+1 {{the contraction}}
  linalg.matmul ins(%a, %b : memref<16x?xi8>, memref<?x48xi8>) outs(%acc : memref<16x48xi32>)
  // expected-warning @+1 {{elementwise consumer of a contraction not fused into it: the contraction's reduction has a run-time extent: it runs in blocks that accumulate in memory}}
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<16x48xi32>, memref<48xi32>) outs(%d : memref<16x48xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %s = arith.addi %x, %y : i32
    linalg.yield %s : i32
  }
  memref.dealloc %acc : memref<16x48xi32>
  return
}

// -----

// A convolution's output rows and columns at run time: rows in blocks of 4 (then the
// remainder's digits), each on the window of input rows its taps read (stride 2: from 2 x oh,
// 2 x 3 + 3 = 9 rows); inside, the columns in blocks of 64 (a block keeps 256 outputs) and the
// remainder's digits, each on its window of input columns (2 x 63 + 3 = 129). Every block is a
// static convolution planned as the program was, with fused rows and columns (fuse=1: a small
// image's blocks still fill register tiles).
// CHECK-LABEL: func.func @dynamic_image
// CHECK-SAME:    (%[[I:.*]]: memref<1x?x?x16xi8>, %{{.*}}: memref<3x3x16x32xi8>, %[[O:.*]]: memref<1x?x?x32xi32>)
// CHECK:         %[[OH:.*]] = memref.dim %[[O]], %{{.*}} : memref<1x?x?x32xi32>
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %[[FOUR:.*]] {
// CHECK:           %[[IR:.*]] = arith.muli %[[R]], %[[TWO:.*]] : index
// CHECK:           %[[ROWS:.*]] = memref.subview %[[I]][0, %[[IR]], 0, 0] [1, 9, %{{.*}}, 16] [1, 1, 1, 1]
// CHECK:           %[[OROW:.*]] = memref.subview %[[O]][0, %[[R]], 0, 0] [1, 4, %{{.*}}, 32] [1, 1, 1, 1]
// CHECK:           scf.for %[[X:.*]] = %{{.*}} to %{{.*}} step %[[C64:.*]] {
// CHECK:             %[[IX:.*]] = arith.muli %[[X]], %{{.*}} : index
// CHECK:             %[[VI:.*]] = memref.subview %[[ROWS]][0, 0, %[[IX]], 0] [1, 9, 129, 16] [1, 1, 1, 1]
// CHECK:             %[[VO:.*]] = memref.subview %[[OROW]][0, 0, %[[X]], 0] [1, 4, 64, 32] [1, 1, 1, 1]
// CHECK:             tisa.compute %[[VI]], %{{.*}} -> %[[VO]] : memref<1x9x129x16xi8, {{.*}}>, memref<{{[0-9]+}}xi8>, memref<1x4x64x32xi32, {{.*}}> {
// CHECK:               linalg.conv_2d_nhwc_hwcf {{.*}}tisa.run_time_loops = array<i64: 1, 2>, tisa.schedule = #tisa.schedule<{{.*}}fuse
// CHECK:           scf.if
// CHECK:             memref.subview %[[ROWS]][0, 0, %{{.*}}, 0] [1, 9, 65, 16] [1, 1, 1, 1]
// CHECK:             tisa.compute {{.*}} : memref<1x9x65x16xi8, {{.*}}>, memref<{{[0-9]+}}xi8>, memref<1x4x32x32xi32, {{.*}}>
// CHECK:             memref.subview %[[ROWS]][0, 0, %{{.*}}, 0] [1, 9, 3, 16] [1, 1, 1, 1]
// CHECK:             tisa.compute {{.*}} : memref<1x9x3x16xi8, {{.*}}>, memref<{{[0-9]+}}xi8>, memref<1x4x1x32xi32, {{.*}}>
// CHECK:         scf.if
// CHECK:           memref.subview %[[I]][0, %{{.*}}, 0, 0] [1, 5, %{{.*}}, 16] [1, 1, 1, 1]
// CHECK:         scf.if
// CHECK:           memref.subview %[[I]][0, %{{.*}}, 0, 0] [1, 3, %{{.*}}, 16] [1, 1, 1, 1]
// LOWERED-LABEL: func.func @dynamic_image
// LOWERED-NOT:   tisa.compute
// LOWERED:       tisa.apply "vpdpbusd.zmm"
// AMX-LABEL: func.func @dynamic_image
// AMX-NOT:   tisa.compute
// AMX:       tisa.apply "tdpbssd"
func.func @dynamic_image(%i: memref<1x?x?x16xi8>, %f: memref<3x3x16x32xi8>, %o: memref<1x?x?x32xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<1x?x?x16xi8>, memref<3x3x16x32xi8>) outs(%o : memref<1x?x?x32xi32>)
  return
}

// -----

// The same with filters larger than znver4's L2 block budget (512 KiB: 120 filters of 3x3x512
// bytes are 540 KiB): planning blocks them (the plan's `blocks = [3 : 64]`: loop 3, f, in blocks of 64, the
// largest power of two within the budget), the pack and the computation split along f first,
// each block on its part of the packed buffer (295168 bytes), the last on zero-padded staging
// copies; inside each block of filters the rows and columns as above, so every block of output
// rows reads one block of filters, which stays in L2.
// CHECK-LABEL: func.func @filter_blocks
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<590336xi8>
// CHECK:         scf.for
// CHECK:           memref.view %[[BUF]][%{{.*}}][] : memref<590336xi8> to memref<295168xi8>
// CHECK:           memref.subview %{{.*}}[0, 0, 0, %{{.*}}] [3, 3, 512, 64] [1, 1, 1, 1] : memref<3x3x512x120xi8>
// CHECK:           tisa.pack %{{.*}} : memref<3x3x512x64xi8, {{.*}}>, memref<295168xi8>
// CHECK:             linalg.conv_2d_nhwc_hwcf {{.*}}tisa.plan = #tisa.plan<{{.*}}, blocks = [3 : 64]>
// CHECK:         scf.for %[[F:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           memref.view %[[BUF]]
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               tisa.compute {{.*}} : memref<1x6x66x512xi8, {{.*}}>, memref<295168xi8>, memref<1x4x64x64xi32, {{.*}}>
// CHECK:           scf.if
// CHECK:             linalg.copy {{.*}} memref<1x?x?x?xi32, strided<[?, ?, 120, 1], offset: ?>>)
// LOWERED-LABEL: func.func @filter_blocks
// LOWERED-NOT:   tisa.compute
// LOWERED:       tisa.apply "vpdpbusd.zmm"
// AMX-LABEL: func.func @filter_blocks
// AMX-NOT:   tisa.compute
// AMX:       tisa.apply "tdpbssd"
func.func @filter_blocks(%i: memref<1x?x?x512xi8>, %f: memref<3x3x512x120xi8>, %o: memref<1x?x?x120xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x?x?x512xi8>, memref<3x3x512x120xi8>) outs(%o : memref<1x?x?x120xi32>)
  return
}

// -----

// A window whose taps only run time knows cannot run in static blocks.
func.func @dynamic_taps(%i: memref<1x9x9x16xi8>, %f: memref<?x3x16x32xi8>, %o: memref<1x?x7x32xi32>) {
  // expected-warning @+1 {{loop oh has a dynamic extent and indexes input together with loops of run-time extent}}
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x9x9x16xi8>, memref<?x3x16x32xi8>) outs(%o : memref<1x?x7x32xi32>)
  return
}
