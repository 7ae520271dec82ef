// -tisa-tensorize with a scalable matrix-multiply plan (neoverse-v1,
// sve.smmla): each 128-bit segment multiplies 2 rows of 8 bytes of A by 2
// columns of B into a 2x2 block of C. B is packed as the scalable dot
// products pack it, in groups of 8 by column ([K/8][N rounded to 2][8]:
// 6 x 20 x 8 = 960 bytes at any vector length). A is packed per row block
// into a panel of 64-bit units ([row pair][step][2 rows]: 5 pairs x 6 steps
// x 2 = 60), each pair's two rows loaded in chunks of one vector (masked
// past k = 45 and past row 9), interleaved, and stored under a mask of the
// steps left. Each step loads a pair's 16 bytes replicated to every segment
// (arm_sve.dupq_lane: ld1rq); C's rows are interleaved into accumulators
// when it is read, and an accumulator pair de-interleaved into two rows
// when it is stored, each row under the mask of the columns left.
// RUN: tisa-opt %s --split-input-file "--tisa-split-pack=target=neoverse-v1 isa=sve.smmla" "--tisa-tensorize=target=neoverse-v1 isa=sve.smmla" --canonicalize --cse -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @gemm_s8
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<960xi8>
// CHECK:         memref.store {{.*}}, %[[BUF]]
// CHECK:         %[[VSCALE:.*]] = vector.vscale
// CHECK:         %[[PANEL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<60xi64>
// CHECK:         scf.for %[[PAIR:.*]] = %c0 to %c5 step %c1 {
// CHECK:           %[[CHUNK:.*]] = arith.muli %[[VSCALE]], %c16 : index
// CHECK:           scf.for %[[K:.*]] = %c0 to %c45 step %[[CHUNK]] {
// CHECK:             %[[R0:.*]] = vector.maskedload %arg0[{{.*}}, %[[K]]], {{.*}} : memref<9x45xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK:             %[[U0:.*]] = vector.bitcast %[[R0]] : vector<[16]xi8> to vector<[2]xi64>
// CHECK:             %[[R1:.*]] = vector.maskedload %arg0[{{.*}}, %[[K]]], {{.*}} : memref<9x45xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK:             %[[U1:.*]] = vector.bitcast %[[R1]] : vector<[16]xi8> to vector<[2]xi64>
// CHECK:             %[[Z:.*]] = vector.interleave %[[U0]], %[[U1]] : vector<[2]xi64> -> vector<[4]xi64>
// CHECK:             vector.scalable.extract %[[Z]][0]
// CHECK:             vector.maskedstore %[[PANEL]]
// CHECK:             vector.scalable.extract %[[Z]][2]
// CHECK:             vector.maskedstore %[[PANEL]]
// CHECK:         scf.for %[[COL:.*]] = %c0 to %c20 step
// CHECK:           scf.index_switch
// CHECK:           case 1 {
// C's rows 0 and 1 interleaved into the first pair's accumulator.
// CHECK:             %[[C0:.*]] = vector.maskedload %arg2[%c0, %[[COL]]]
// CHECK:             %[[C1:.*]] = vector.maskedload %arg2[%c1, %[[COL]]]
// CHECK:             vector.interleave
// CHECK:             scf.for %{{.*}} = %c0 to %c6 step %c2 iter_args(
// CHECK:               %[[B:.*]] = vector.maskedload %[[BUF]][{{.*}}], {{.*}} : memref<960xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK:               %[[SEG:.*]] = vector.load %[[PANEL]][{{.*}}] : memref<60xi64>, vector<2xi64>
// CHECK:               %[[INS:.*]] = vector.scalable.insert %[[SEG]], {{.*}}[0] : vector<2xi64> into vector<[2]xi64>
// CHECK:               %[[DUP:.*]] = arm_sve.dupq_lane %[[INS]][0] : vector<[2]xi64>
// CHECK:               %[[A:.*]] = vector.bitcast %[[DUP]] : vector<[2]xi64> to vector<[16]xi8>
// CHECK:               tisa.apply "sve.smmla"(%[[A]], %[[B]], {{.*}}) {{.*}}intrinsic = "llvm.aarch64.sve.smmla.nxv4i32"{{.*}} : (vector<[16]xi8>, vector<[16]xi8>, vector<[4]xi32>) -> vector<[4]xi32>
// CHECK:             = vector.deinterleave %{{.*}} : vector<[4]xi64> -> vector<[2]xi64>
// CHECK:             vector.maskedstore %arg2[%c0, %[[COL]]], {{.*}}, %{{.*}} : memref<9x20xi32>, vector<[4]xi1>, vector<[4]xi32>
// CHECK:             vector.maskedstore %arg2[%c1, %[[COL]]], {{.*}}, %{{.*}} : memref<9x20xi32>, vector<[4]xi1>, vector<[4]xi32>
// The fifth pair holds row 8 alone: no store of a row 9.
// CHECK:             vector.maskedstore %arg2[%c8, %[[COL]]]
// CHECK-NOT:         vector.maskedstore %arg2[%c9
// CHECK:           default {
// CHECK:         memref.dealloc %[[PANEL]]
// CHECK:         memref.dealloc %[[BUF]]
// CHECK-NOT:     linalg.matmul
func.func @gemm_s8(%a: memref<9x45xi8>, %b: memref<45x20xi8>, %c: memref<9x20xi32>) {
  linalg.matmul ins(%a, %b : memref<9x45xi8>, memref<45x20xi8>) outs(%c : memref<9x20xi32>)
  return
}

// -----

// A convolution: its taps would make a panel the row block's im2col, so A
// is paired once per call instead: every input position with the one a row
// (an output column: stride 1) further, interleaved ([6][6][C/8 = 1][2][8]:
// 72 units). Each row of positions is a stream of the input row's bytes
// (the input viewed as [1][6][48]) where the pair lies inside the input
// (columns 0 to 4), and the rest one position at a time through the input
// with its bounds (column 5: its partner is past the end, zeros). The
// reduction is kh, then kw and the channel groups in one loop (3 x 1
// steps: kw moves the position next to the channels in both the pairing
// and the filter's packed steps, [KH][KW][C/8][F][8]); each step reads the
// pair at its tap from the paired input.
// CHECK-LABEL: func.func @conv_s8
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<1152xi8>
// CHECK:         %[[PAIRED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<72xi64>
// CHECK:         %[[ROWS:.*]] = memref.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : memref<1x6x6x8xi8> into memref<1x6x48xi8>
// CHECK:         scf.for %[[ROW:.*]] = %c0 to %c6 step %c1 {
// CHECK:           %[[END:.*]] = arith.select %{{.*}}, %c5, %c0 : index
// CHECK:           scf.for %{{.*}} = %c0 to %{{.*}} step %c16_vscale {
// CHECK:             vector.maskedload %[[ROWS]][%c0, %[[ROW]], {{.*}}], {{.*}} : memref<1x6x48xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK:             vector.maskedload %[[ROWS]][%c0, %[[ROW]], {{.*}}], {{.*}} : memref<1x6x48xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK:             vector.interleave
// CHECK:             vector.maskedstore %[[PAIRED]]
// CHECK:           scf.for %{{.*}} = %[[END]] to %c6 step %c1 {
// CHECK:             vector.maskedload %arg0[%c0, {{.*}}], {{.*}} : memref<1x6x6x8xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK:             vector.maskedload %arg0[%c0, {{.*}}], {{.*}} : memref<1x6x6x8xi8>, vector<[16]xi1>, vector<[16]xi8> into vector<[16]xi8>
// CHECK:             vector.interleave
// CHECK:             vector.maskedstore %[[PAIRED]]
// CHECK:         scf.for %{{.*}} iter_args(
// CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(
// CHECK:             vector.load %[[PAIRED]][%{{.*}}] : memref<72xi64>, vector<2xi64>
// CHECK:             arm_sve.dupq_lane
// CHECK:             tisa.apply "sve.smmla"
// CHECK:         memref.dealloc %[[PAIRED]]
func.func @conv_s8(%in: memref<1x6x6x8xi8>, %f: memref<3x3x8x16xi8>, %out: memref<1x4x4x16xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %f : memref<1x6x6x8xi8>, memref<3x3x8x16xi8>) outs(%out : memref<1x4x4x16xi32>)
  return
}

// -----

// u8 x s8 on smmla: the repair biases A. Its bytes are flipped in the panel
// (xor 0x80 on each row's chunk, the zeros past k and row 9 included), and
// 128 times each column's sum of B, taken when packing (after the 960 bytes
// of data, 20 i32), starts the accumulators: the column's sums in both rows
// of each 2x2 block (interleaved with themselves).
// CHECK-LABEL: func.func @gemm_u8s8
// CHECK:         %[[FLIP:.*]] = arith.constant dense<-128> : vector<[16]xi8>
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1040xi8>
// CHECK:         %[[SUMS:.*]] = memref.view %[[BUF]][%c960][] : memref<1040xi8> to memref<20xi32>
// CHECK:         linalg.fill ins(%c0_i32 : i32) outs(%[[SUMS]] : memref<20xi32>)
// The column sums 16 columns at a time (B's rows are contiguous), the last 4
// under a mask.
// CHECK:         vector.store {{.*}}, %[[SUMS]][%c0] : memref<20xi32>, vector<16xi32>
// CHECK:         vector.maskedstore %[[SUMS]][%c16], {{.*}} : memref<20xi32>, vector<16xi1>, vector<16xi32>
// CHECK:         vector.maskedload %arg0
// CHECK-NEXT:    arith.xori %{{.*}}, %[[FLIP]] : vector<[16]xi8>
// CHECK:         vector.maskedload %arg0
// CHECK-NEXT:    arith.xori %{{.*}}, %[[FLIP]] : vector<[16]xi8>
// CHECK:         case 1 {
// CHECK:           %[[START:.*]] = vector.maskedload %[[SUMS]][%{{.*}}], {{.*}} : memref<20xi32>, vector<[4]xi1>, vector<[4]xi32> into vector<[4]xi32>
// CHECK:           %[[S64:.*]] = vector.bitcast %[[START]] : vector<[4]xi32> to vector<[2]xi64>
// CHECK:           vector.interleave %[[S64]], %[[S64]] : vector<[2]xi64> -> vector<[4]xi64>
// CHECK:           tisa.apply "sve.smmla"
func.func @gemm_u8s8(%a: memref<9x45xi8>, %b: memref<45x20xi8>, %c: memref<9x20xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<9x45xi8>, memref<45x20xi8>) outs(%c : memref<9x20xi32>) {
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

// s8 x u8 on smmla would bias the packed input B, whose compensation needs
// A's sums per call: left in place, with the reason (ummla runs it with the
// repair on A).
func.func @gemm_s8u8(%a: memref<9x45xi8>, %b: memref<45x20xi8>, %c: memref<9x20xi32>) {
  // expected-warning @below {{not tensorized: no plan the code generator supports; the best: sve.smmla: the repair biases the packed input ins1: its compensation needs sums of the other input per call, not generated for scalable vectors}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<9x45xi8>, memref<45x20xi8>) outs(%c : memref<9x20xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extsi %x : i8 to i32
    %yw = arith.extui %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
