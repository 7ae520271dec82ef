// NEON smmla through the tile generator (matrix segments in vector registers): a 2x2 block of C
// is one vector<4xi32>; two blocks side by side are loaded and stored as two 16-byte rows, C's row
// stride apart; A is packed per call into smmla's image (two rows of 8 bytes per register, a block's
// registers side by side) and B once into its own (8 x 2, transposed, a register tile's panels
// side by side), so each register is one 16-byte load. The register tile (2x2 blocks here) is
// carried through the reduction. `isa` pins smmla: on so small a GEMM the cost model prefers
// sdot.
// RUN: tisa-opt %s "--tisa-split-pack=target=neoverse-v2 isa=neon.smmla" "--tisa-tensorize=target=neoverse-v2 isa=neon.smmla" --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @gemm
// The pack: B's 16 x 4 as 2 panels x 2 k steps of 16-byte registers.
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi8>
// A register inside B: its 8 rows of 2 bytes loaded, joined, and shuffled from (k, n) to the
// register's (n, k); a register past B's edges, element by element with zeros.
// CHECK:         scf.if
// CHECK-COUNT-8:   vector.load %arg1[%{{.*}}, %{{.*}}] : memref<16x4xi8>, vector<2xi8>
// CHECK:           vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15] : vector<16xi8>, vector<16xi8>
// CHECK:           vector.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<64xi8>, vector<16xi8>
// CHECK:         } else {
// CHECK:           memref.load %arg1
// CHECK:           arith.select
// CHECK:           memref.store %{{.*}}, %[[BUF]]
// A (4 x 16): [residue 0 of rows mod 2][1 group of the register tile's 2 row pairs][2 k steps]
// [2 row pairs][2 rows x 8 bytes] (a GEMM's block is one run of A through its steps), one 8-byte
// row at a time.
// CHECK:         %[[APK:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x2x2x16xi8>
// CHECK:         vector.transfer_read %arg0[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<4x16xi8>, vector<8xi8>
// CHECK:         vector.store %{{.*}}, %[[APK]][%c0, %c0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1x2x2x16xi8>, vector<8xi8>
// C's first two blocks side by side: rows 0 and 1 of columns 0-3, one 16-byte load each (C's
// row stride apart, from the block's one address), each block's two rows picked by one shuffle
// (zip1/zip2 on the target).
// CHECK:         %[[ROW0:.*]] = llvm.load %[[P0:.*]] {alignment = 1 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK:         %[[CROW:.*]] = llvm.mul %c16_i64
// CHECK:         %[[P1:.*]] = llvm.getelementptr %[[P0]][%[[CROW]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[ROW1:.*]] = llvm.load %[[P1]] {alignment = 1 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK:         %[[ACC0:.*]] = llvm.shufflevector %[[ROW0]], %[[ROW1]] [0, 1, 4, 5] : vector<4xi32>
// CHECK:         %[[ACC1:.*]] = llvm.shufflevector %[[ROW0]], %[[ROW1]] [2, 3, 6, 7] : vector<4xi32>
// The reduction's 2 k steps (neoverse-v2 runs two per iteration, kunroll=2: one iteration here,
// so no loop is left): per step B's two registers, then A's pair from one address (16 bytes
// apart: one ldp on the target), each B register multiplied by both A rows.
// CHECK-NOT:     scf.for
// CHECK:         %[[BV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK:         %[[BV1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK:         %[[AV:.*]] = llvm.load %[[AP:.*]] {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK:         %[[AP1:.*]] = llvm.getelementptr %[[AP]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:         %[[AV1:.*]] = llvm.load %[[AP1]] {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK:         %[[S0:.*]] = tisa.apply "neon.smmla"(%[[AV]], %[[BV]], %[[ACC0]]) {accumulator = 2 : i64, intrinsic = "llvm.aarch64.neon.smmla.v4i32.v16i8", order = array<i64: 2, 0, 1>
// CHECK:         tisa.apply "neon.smmla"(%[[AV1]], %[[BV]],
// CHECK:         tisa.apply "neon.smmla"(%[[AV]], %[[BV1]], %[[ACC1]])
// CHECK:         tisa.apply "neon.smmla"(%[[AV1]], %[[BV1]],
// CHECK:         %[[T0:.*]] = tisa.apply "neon.smmla"(%{{.*}}, %{{.*}}, %[[S0]])
// CHECK:         tisa.apply "neon.smmla"
// CHECK:         %[[T1:.*]] = tisa.apply "neon.smmla"
// CHECK:         tisa.apply "neon.smmla"
// C's rows back, two blocks per store: row 1 of both, then row 0 (the last row first: LLVM's
// lane insert for row 0 then needs no copy of its input).
// CHECK:         %[[HI:.*]] = llvm.shufflevector %[[T0]], %[[T1]] [2, 3, 6, 7] : vector<4xi32>
// CHECK:         llvm.store %[[HI]], %[[P1]]
// CHECK:         %[[LO:.*]] = llvm.shufflevector %[[T0]], %[[T1]] [0, 1, 4, 5] : vector<4xi32>
// CHECK:         llvm.store %[[LO]], %[[P0]]
// CHECK:         memref.dealloc %[[APK]]
// CHECK:         memref.dealloc %[[BUF]]
func.func @gemm(%a: memref<4x16xi8>, %b: memref<16x4xi8>, %c: memref<4x4xi32>) {
  linalg.matmul ins(%a, %b : memref<4x16xi8>, memref<16x4xi8>) outs(%c : memref<4x4xi32>)
  return
}
