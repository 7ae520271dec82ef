// -tisa-tensorize on this machine's model (znver4): the contraction becomes a
// pack of the planned operand, a loop nest with the instruction's lanes and
// group innermost, and the description's lowering.
// RUN: tisa-opt %s --tisa-split-pack=target=znver4 --tisa-tensorize=target=znver4 --split-input-file -verify-diagnostics | FileCheck %s

// u8 x s8 -> s32: B is packed to [N/P][K/4][P][4] with one panel of P=N (N=32 is two registers), A is
// broadcast 4 bytes at a time, C is accumulated with masked lanes.
// CHECK-LABEL: func.func @gemm_u8s8s32
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
// CHECK:         %[[PACKED:.*]] = memref.view %[[BUF]][{{.*}}][] : memref<2048xi8> to memref<1x16x128xi8>
// The pack reads 16 lanes of each of a group's 4 rows of B and interleaves them (lane i of row k to
// 4i + k): one 64-byte store per register of the packed layout.
// CHECK:         %[[R0:.*]] = vector.transfer_read %arg1[{{.*}}], {{.*}} : memref<64x32xi8>, vector<16xi8>
// CHECK:         %[[R1:.*]] = vector.transfer_read %arg1[{{.*}}], {{.*}} : memref<64x32xi8>, vector<16xi8>
// CHECK:         %[[R2:.*]] = vector.transfer_read %arg1[{{.*}}], {{.*}} : memref<64x32xi8>, vector<16xi8>
// CHECK:         %[[R3:.*]] = vector.transfer_read %arg1[{{.*}}], {{.*}} : memref<64x32xi8>, vector<16xi8>
// CHECK-NOT:     arith.xori
// CHECK:         %[[R01:.*]] = vector.shuffle %[[R0]], %[[R1]]
// CHECK:         %[[R23:.*]] = vector.shuffle %[[R2]], %[[R3]]
// CHECK:         %[[ALL:.*]] = vector.shuffle %[[R01]], %[[R23]]
// CHECK:         %[[IL:.*]] = vector.shuffle %[[ALL]], %[[ALL]] [0, 16, 32, 48, 1, 17, 33, 49,
// CHECK:         vector.store %[[IL]], %[[PACKED]][{{.*}}] : memref<1x16x128xi8>, vector<64xi8>
// Tile loops (8 rows, 32 lanes), then point loops for -tisa-register-tile to unroll and jam.
// CHECK:         scf.for %[[MT:.*]] = %{{.*}} to %c8{{.*}} step %c8
// CHECK:           scf.for %[[NT:.*]] = %{{.*}} to %c32{{.*}} step %c32
// CHECK:             scf.for %[[MP:.*]] = %{{.*}} to %c8{{.*}} step %c1
// CHECK:               %[[M:.*]] = arith.addi %[[MT]],
// CHECK:               scf.for %[[NP:.*]] = %{{.*}} to %c2{{(_[0-9]+)?}} step %c1
// CHECK:                 %[[N:.*]] = arith.addi %[[NT]],
// CHECK:                 %[[MASK:.*]] = vector.create_mask
// CHECK:                 %[[INIT:.*]] = vector.maskedload %arg2[%[[M]], %[[N]]], %[[MASK]]
// CHECK:                 %[[ACC:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (vector<16xi32>)
// The registers in the description's semantic order (a, b, acc): A's 4
// unsigned bytes broadcast to every lane, 64 signed bytes of the packed B,
// the accumulator; the lowering takes them as [2, 0, 1].
// CHECK:                   %[[AW:.*]] = vector.load %arg0[%[[M]], {{.*}}] : memref<8x64xi8>, vector<4xi8>
// CHECK:                   %[[AI:.*]] = vector.bitcast %[[AW]] : vector<4xi8> to vector<1xi32>
// CHECK:                   %[[AS:.*]] = vector.extract %[[AI]][0]
// CHECK:                   %[[AB:.*]] = vector.broadcast %[[AS]] : i32 to vector<16xi32>
// CHECK:                   %[[AV:.*]] = vector.bitcast %[[AB]] : vector<16xi32> to vector<64xi8>
// CHECK:                   %[[BV:.*]] = vector.load %{{.*}}[{{.*}}, %[[K]], {{.*}}] : memref<1x16x128xi8>, vector<64xi8>
// CHECK:                   tisa.apply "vpdpbusd.zmm"(%[[AV]], %[[BV]], %[[A]]) {accumulator = 2 : i64, intrinsic = "llvm.x86.avx512.vpdpbusd.512", order = array<i64: 2, 0, 1>, signature = (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>} : (vector<64xi8>, vector<64xi8>, vector<16xi32>) -> vector<16xi32>
// CHECK:                 } {tisa.loop = "reduction"}
// CHECK:                 vector.maskedstore %arg2[%[[M]], %[[N]]], %[[MASK]], %[[ACC]]
// CHECK:               } {tisa.loop = "lanes", tisa.unroll = 2 : i64}
// CHECK:             } {tisa.loop = "parallel", tisa.unroll = 8 : i64}
// CHECK:           } {tisa.loop = "lanes"}
// CHECK:         } {tisa.loop = "parallel"}
// CHECK:         memref.dealloc %[[BUF]]
// CHECK-NOT:     linalg.generic
func.func @gemm_u8s8s32(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%c : memref<8x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// s8 x s8 -> s32 on vpdpbusd (u8 x s8): B (the packed operand, the
// instruction's unsigned source) is biased by 128 (xor 0x80 on its way into
// the pack; its padding is read as -128 so that it packs to 0), and 128 x each
// row's sum of A is subtracted after the reduction. K = 6 is not a multiple
// of 4: after one full group, the last 2 elements of each row are read with a
// mask (the packed operand holds zeros past K).
// CHECK-LABEL: func.func @gemm_s8s8s32
// N = 40 is not a multiple of 16: the chunks inside the rows read whole
// registers, the one the rows end in reads masked (never past B's end).
// CHECK:         %[[PADB:.*]] = arith.constant -128 : i8
// CHECK:         %[[RB:.*]]:4 = scf.if
// CHECK:           vector.transfer_read %arg1[{{.*}}], %[[PADB]] {in_bounds = [true]} : memref<6x40xi8>, vector<16xi8>
// CHECK:         } else {
// CHECK:           vector.transfer_read %arg1[{{.*}}], %[[PADB]] : memref<6x40xi8>, vector<16xi8>
// CHECK:         %[[BIAS:.*]] = arith.constant dense<-128> : vector<16xi8>
// CHECK:         arith.xori %[[RB]]#0, %[[BIAS]] : vector<16xi8>
// The compensation: per row of A, 128 x its sum, kept in a temporary. The
// row is contiguous: read a vector at a time (here one, masked past K),
// widened, added, and reduced.
// CHECK:         %[[SUMS:.*]] = memref.alloc() {{.*}} : memref<5xi32>
// CHECK:         scf.for %[[SM:.*]] = %{{.*}} to %c5
// CHECK:           %[[Z:.*]] = arith.constant dense<0> : vector<8xi32>
// CHECK:           %[[K:.*]] = vector.create_mask %c6 : vector<8xi1>
// CHECK:           %[[X:.*]] = vector.maskedload %arg0[%[[SM]], %{{.*}}], %[[K]], %{{.*}} : memref<5x6xi8>, vector<8xi1>, vector<8xi8> into vector<8xi8>
// CHECK:           %[[XW:.*]] = arith.extsi %[[X]] : vector<8xi8> to vector<8xi32>
// CHECK:           %[[XS:.*]] = arith.addi %[[Z]], %[[XW]] : vector<8xi32>
// CHECK:           %[[SUM:.*]] = vector.reduction <add>, %[[XS]] : vector<8xi32> into i32
// CHECK:           %[[C128:.*]] = arith.constant 128 : i32
// CHECK:           %[[COMP:.*]] = arith.muli %[[SUM]], %[[C128]] : i32
// CHECK:           memref.store %[[COMP]], %[[SUMS]][%[[SM]]] : memref<5xi32>
// The registers in the description's semantic order: the packed (biased,
// unsigned) B in the unsigned register, the broadcast signed A, the
// accumulator.
// CHECK:         %[[ACC:.*]] = scf.for {{.*}} = %c0{{.*}} to %c1{{.*}} step %c1{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<16xi32>)
// CHECK:           %[[AW:.*]] = vector.load %arg0[%[[M:.*]], %{{.*}}] : memref<5x6xi8>, vector<4xi8>
// CHECK:           %[[AI:.*]] = vector.bitcast %[[AW]] : vector<4xi8> to vector<1xi32>
// CHECK:           %[[AS:.*]] = vector.extract %[[AI]][0]
// CHECK:           %[[AB:.*]] = vector.broadcast %[[AS]] : i32 to vector<16xi32>
// CHECK:           %[[AV:.*]] = vector.bitcast %[[AB]] : vector<16xi32> to vector<64xi8>
// CHECK:           %[[BV:.*]] = vector.load %{{.*}} : memref<1x2x192xi8>, vector<64xi8>
// CHECK:           tisa.apply "vpdpbusd.zmm"(%[[BV]], %[[AV]], %[[A]]) {accumulator = 2 : i64, intrinsic = "llvm.x86.avx512.vpdpbusd.512", order = array<i64: 2, 0, 1>, {{.*}}} : (vector<64xi8>, vector<64xi8>, vector<16xi32>) -> vector<16xi32>
// CHECK:         } {tisa.loop = "reduction"}
// CHECK:         %[[MASK:.*]] = vector.constant_mask [2] : vector<4xi1>
// CHECK:         vector.maskedload %arg0[{{.*}}], %[[MASK]], {{.*}} : memref<5x6xi8>, vector<4xi1>, vector<4xi8>
// CHECK:         %[[LAST:.*]] = tisa.apply "vpdpbusd.zmm"({{.*}}, %[[ACC]])
// CHECK:         %[[ROW:.*]] = memref.load %[[SUMS]][%[[M]]] : memref<5xi32>
// CHECK:         %[[ROWV:.*]] = vector.broadcast %[[ROW]] : i32 to vector<16xi32>
// CHECK:         %[[OUT:.*]] = arith.subi %[[LAST]], %[[ROWV]] : vector<16xi32>
// CHECK:         vector.maskedstore %arg2[%[[M]], %{{.*}}], %{{.*}}, %[[OUT]]
func.func @gemm_s8s8s32(%a: memref<5x6xi8>, %b: memref<6x40xi8>, %c: memref<5x40xi32>) {
  linalg.matmul ins(%a, %b : memref<5x6xi8>, memref<6x40xi8>) outs(%c : memref<5x40xi32>)
  return
}

// -----

// bf16 NHWC convolution: the filter is packed [KH][KW][C/2][F][2], the input
// is broadcast two channels at a time; the reduction runs kh, kw, then c.
// CHECK-LABEL: func.func @conv_bf16
// CHECK:         memref.view {{.*}} to memref<1x3x3x4x32xbf16>
// CHECK:         scf.for {{.*}} {
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for {{.*}} step %c16
// CHECK:                 scf.for {{.*}} -> (vector<16xf32>) {
// CHECK:                   scf.for {{.*}} -> (vector<16xf32>) {
// CHECK:                     scf.for {{.*}} -> (vector<16xf32>) {
// CHECK:                       tisa.apply "vdpbf16ps.zmm"({{.*}}) {{{.*}}intrinsic = "llvm.x86.avx512bf16.dpbf16ps.512"
func.func @conv_bf16(%i: memref<1x10x10x8xbf16>, %f: memref<3x3x8x16xbf16>, %o: memref<1x8x8x16xf32>) {
  linalg.conv_2d_nhwc_hwcf ins(%i, %f : memref<1x10x10x8xbf16>, memref<3x3x8x16xbf16>) outs(%o : memref<1x8x8x16xf32>)
  return
}

// -----

// Tensors are not tensorized: bufferize first.
func.func @on_tensors(%a: tensor<8x64xi8>, %b: tensor<64x32xi8>, %c: tensor<8x32xi32>) -> tensor<8x32xi32> {
  // expected-warning @+1 {{not tensorized: the operands are tensors; bufferize first}}
  %r = linalg.matmul ins(%a, %b : tensor<8x64xi8>, tensor<64x32xi8>) outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %r : tensor<8x32xi32>
}

// -----

// An f32 GEMM has no tensorized instruction on znver4: left alone, with why.
// CHECK-LABEL: func.func @negative_f32
// CHECK-NOT:     tisa.apply
// CHECK:         linalg.matmul
func.func @negative_f32(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // expected-warning @+1 {{not tensorized: no instruction applies}}
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// A run-time M is planned (and packed), but the computation is generated only in the static
// blocks -tisa-split-dynamic makes (test/lit/passes/split-dynamic.mlir).
func.func @negative_dynamic(%a: memref<?x64xi8>, %b: memref<64x32xi8>, %c: memref<?x32xi32>) {
  // expected-error @+1 {{'tisa.compute' op has operands of run-time extent: run -tisa-split-dynamic first}}
  linalg.matmul ins(%a, %b : memref<?x64xi8>, memref<64x32xi8>) outs(%c : memref<?x32xi32>)
  return
}
