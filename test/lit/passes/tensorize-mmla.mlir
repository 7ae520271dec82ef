// NEON smmla through the tile generator (matrix segments in vector registers): a 2x2 block of C
// is one vector<4xi32> whose two rows are loaded and stored 8 bytes at a time, C's row stride
// apart; A is packed per call into smmla's image (two rows of 8 bytes per register, a block's
// registers side by side) and B once into its own (8 x 2, transposed, a register tile's panels
// side by side), so each register is one 16-byte load. The register tile (2x2 blocks here) is
// carried through the reduction. `isa` pins smmla: on so small a GEMM the cost model prefers
// sdot.
// RUN: tisa-opt %s "--tisa-split-pack=target=neoverse-v2 isa=neon.smmla" "--tisa-tensorize=target=neoverse-v2 isa=neon.smmla" --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @gemm
// The pack: B's 16 x 4 as 2 panels x 2 k steps of 16-byte registers.
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi8>
// A (4 x 16): [residue 0 of rows mod 2][2 k steps][2 row pairs][2 rows x 8 bytes], one 8-byte
// row at a time.
// CHECK:         %[[APK:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x2x16xi8>
// CHECK:         vector.transfer_read %arg0[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<4x16xi8>, vector<8xi8>
// CHECK:         vector.store %{{.*}}, %[[APK]][%c0, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x2x16xi8>, vector<8xi8>
// C's first block: rows 0 and 1 of columns 0-1, 16 bytes apart.
// CHECK:         %[[C00:.*]] = llvm.load %[[P0:.*]] {alignment = 1 : i64} : !llvm.ptr -> vector<2xi32>
// CHECK:         %[[CROW:.*]] = llvm.mul %c16_i64
// CHECK:         %[[P1:.*]] = llvm.getelementptr %[[P0]][%[[CROW]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[C10:.*]] = llvm.load %[[P1]] {alignment = 1 : i64} : !llvm.ptr -> vector<2xi32>
// CHECK:         %[[ACC0:.*]] = llvm.shufflevector %[[C00]], %[[C10]] [0, 1, 2, 3] : vector<2xi32>
// CHECK:         %[[R:.*]]:4 = scf.for %[[K:.*]] = %c0 to %c2 step %c1 iter_args(%[[A0:.*]] = %[[ACC0]], %[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}, %[[A3:.*]] = %{{.*}}) -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
// One load per register: A's two (adjacent), then B's two.
// CHECK:           %[[AV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK:           %[[AV1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK:           %[[BV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xi8>
// CHECK:           tisa.apply "neon.smmla"(%[[AV]], %[[BV]], %[[A0]]) {accumulator = 2 : i64, intrinsic = "llvm.aarch64.neon.smmla.v4i32.v16i8", order = array<i64: 2, 0, 1>
// CHECK-COUNT-3:   tisa.apply "neon.smmla"
// CHECK:           scf.yield
// C's rows back: elements 0-1 to row 0, 2-3 to row 1.
// CHECK:         %[[LO:.*]] = llvm.shufflevector %[[R]]#0, %[[R]]#0 [0, 1] : vector<4xi32>
// CHECK:         llvm.store %[[LO]], %[[P0]]
// CHECK:         %[[HI:.*]] = llvm.shufflevector %[[R]]#0, %[[R]]#0 [2, 3] : vector<4xi32>
// CHECK:         llvm.store %[[HI]], %[[P1]]
// CHECK:         memref.dealloc %[[APK]]
// CHECK:         memref.dealloc %[[BUF]]
func.func @gemm(%a: memref<4x16xi8>, %b: memref<16x4xi8>, %c: memref<4x4xi32>) {
  linalg.matmul ins(%a, %b : memref<4x16xi8>, memref<16x4xi8>) outs(%c : memref<4x4xi32>)
  return
}
