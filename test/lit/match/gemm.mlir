// One BERT GEMM, u8 x s8 -> s32, against one description family per target.
// RUN: tisa match %s --target znver4 | FileCheck %s --check-prefix=VNNI
// RUN: tisa match %s --target sapphirerapids | FileCheck %s --check-prefix=AMX
// RUN: tisa match %s --target neoverse-v1 --all | FileCheck %s --check-prefix=ARM
// RUN: tisa match %s --target neoverse-n1 | FileCheck %s --check-prefix=DOT
// RUN: tisa match %s --target sm_80 | FileCheck %s --check-prefix=MMA
// RUN: tisa match %s --target sm_80 --all | FileCheck %s --check-prefix=MMA-ALL

// VNNI: target: znver4 (x86_64
// VNNI: gemm.mlir:[[@LINE+41]]:8: linalg.generic (m=128 n=768 k=768r; u8 x s8 -> s32)
// VNNI-NEXT: plan:
// VNNI-NEXT: instruction: vpdpbusd.zmm (AVX512_VNNI, vpdpbusd)
// VNNI-NEXT: loops: n(16) <- n(768); k(4) <- k(768);
// VNNI-NEXT: ins0 -> operand 0 (vector<64xi8>): broadcast 4 bytes to the 64-byte register
// VNNI-NEXT: ins1 -> operand 1 (vector<64xi8>): pack [K][N] -> [K/4][N][4] (589824 bytes written)
// VNNI-NEXT: outs0 -> operand 2 (vector<16xi32>): vector load of 64 bytes
// VNNI-NEXT: instruction tiles: m=1 n=16 k=4
// The register tile and its count are the code generator's (one cost model).
// VNNI-NEXT: schedule: unroll={{[0-9]+}}x{{[0-9]+}}x1,{{.*}} (the code generator's default)
// VNNI-NEXT: cost: 1179648 instructions, 100.0% of the lanes useful, 589824 bytes relaid out, ~{{.*}} cycles (counted for the schedule)

// AMX: instruction: tdpbusd (AMX-INT8, tdpbusd)
// AMX-NEXT: loops: m(16) <- m(128); n(16) <- n(768); k(64) <- k(768);
// AMX-NEXT: ins0 -> operand 0 (vector<16x64xi8>): tile load: 16 rows of 64 bytes, row stride 768 bytes
// AMX-NEXT: ins1 -> operand 1 (vector<16x64xi8>): pack [K][N] -> [K/4][N][4]
// AMX-NEXT: outs0 -> operand 2 (vector<16x16xi32>): tile load: 16 rows of 64 bytes, row stride 3072 bytes

// ARM: instruction: sve.usmmla
// ARM-NOT: repair:
// ARM: candidates (best first):
// ARM: sve.usmmla {{.*}} seg<-n(outer)(2)
// ARM: rejected:
// ARM-DAG: tdpbusd: targets x86_64; neoverse-v1 is aarch64
// ARM-DAG: mma.m16n8k32.s8s8s32: targets nvptx64; neoverse-v1 is aarch64
// ARM-DAG: sve.bfmmla: the program is integer (u8 x s8 -> s32), the instruction floating point (bf16 x bf16 -> f32)

// DOT: instruction: neon.udot
// DOT: ins1 -> operand 0 (vector<16xi8>): pack [K][N] -> [K/4][N][4]
// DOT: ins0 -> operand 1 (vector<16xi8>): broadcast 4 bytes to the 16-byte register, read by element

// u8 x s8 runs on the native mixed-signedness form; s8 x s8 would need a repair.
// MMA: instruction: mma.m16n8k32.u8s8s32
// MMA: ins0 -> operand 0 (vector<32x16xi8>): per-lane fragment loads, 4 bytes per access
// MMA-NOT: repair:
// MMA: candidate plans
// MMA-ALL: mma.m16n8k32.s8s8s32   m<-m(16) n<-n(8) k<-k(32) | {{.*}}, repair
#A = affine_map<(m, n, k) -> (m, k)>
#B = affine_map<(m, n, k) -> (k, n)>
#C = affine_map<(m, n, k) -> (m, n)>
func.func @bert(%a: tensor<128x768xi8>, %b: tensor<768x768xi8>, %c: tensor<128x768xi32>) -> tensor<128x768xi32> {
  %r = linalg.generic {indexing_maps = [#A, #B, #C], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<128x768xi8>, tensor<768x768xi8>) outs(%c : tensor<128x768xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<128x768xi32>
  return %r : tensor<128x768xi32>
}
