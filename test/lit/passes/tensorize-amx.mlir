// -tisa-tensorize with a tile plan (sapphirerapids, AMX): B packed once into
// tdpbusd's tile image. K = 64 is one k step, so the default holds B's three
// tiles (n = 40 in three panels, not padded to a register tile) while the m
// blocks run under them (order=lanes-outer): per block of 16 rows one A tile,
// three tdpbusd, three tile stores. Every block leaves C (40 of 48 columns),
// so C goes through a 16x48 scratch, in and out with masked row moves.
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=sapphirerapids --tisa-tensorize=target=sapphirerapids --canonicalize --cse -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @gemm_u8s8s32
// CHECK-SAME:    attributes {passthrough = ["no-builtins"]}
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<3072xi8>
// CHECK:         memref.store {{.*}}, %[[BUF]]
// CHECK:         %[[EDGE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x48xi32>
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"({{.*}}) : (i16, i16, !llvm.ptr, i64) -> !llvm.x86_amx
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK:           scf.for
// CHECK:             vector.maskedload %arg2[{{.*}}], {{.*}} : memref<32x40xi32>, vector<48xi1>, vector<48xi32>
// CHECK:             vector.maskedstore %[[EDGE]]
// CHECK-COUNT-3:   llvm.call_intrinsic "llvm.x86.tileloadd64.internal"({{.*}}, %c192_i64) : (i16, i16, !llvm.ptr, i64) -> !llvm.x86_amx
// CHECK:           %[[A:.*]] = llvm.call_intrinsic "llvm.x86.tileloadd64.internal"({{.*}}, %c64_i64)
// CHECK-NOT:       llvm.x86.tileloadd64.internal
// CHECK-COUNT-3:   tisa.apply "tdpbusd"(%[[A]], {{.*}}) {{.*}}intrinsic = "llvm.x86.tdpbusd.internal"
// CHECK-COUNT-3:   llvm.call_intrinsic "llvm.x86.tilestored64.internal"({{.*}}, %c192_i64, {{.*}})
// CHECK:           scf.for
// CHECK:             vector.maskedload %[[EDGE]]
// CHECK:             vector.maskedstore %arg2
// CHECK:         memref.dealloc %[[BUF]]
// CHECK-NOT:     linalg.generic
func.func @gemm_u8s8s32(%a: memref<32x64xi8>, %b: memref<64x40xi8>, %c: memref<32x40xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<32x64xi8>, memref<64x40xi8>) outs(%c : memref<32x40xi32>) {
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

// Whole tiles (64x64x64 bf16: two k steps of 32): no scratch, no edge
// copies. Each pair of B panels' four tiles (two per k step) is loaded once
// and held over the four m blocks; per block C is loaded in place, and two A
// tiles feed four tdpbf16ps.
// CHECK-LABEL: func.func @gemm_bf16
// CHECK-NOT:     passthrough
// CHECK-NOT:     memref.alloca
// CHECK-NOT:     vector.maskedload
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK-COUNT-4:   llvm.x86.tileloadd64.internal"({{.*}}) : (i16, i16, !llvm.ptr, i64)
// CHECK-NEXT:      scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK-COUNT-2:     llvm.x86.tileloadd64.internal"({{.*}}, %c256_i64)
// CHECK:             %[[A0:.*]] = llvm.call_intrinsic "llvm.x86.tileloadd64.internal"({{.*}}, %c128_i64)
// CHECK-COUNT-2:     tisa.apply "tdpbf16ps"(%[[A0]],
// CHECK:             %[[A1:.*]] = llvm.call_intrinsic "llvm.x86.tileloadd64.internal"({{.*}}, %c128_i64)
// CHECK-COUNT-2:     tisa.apply "tdpbf16ps"(%[[A1]],
// CHECK-NOT:         tisa.apply
// CHECK-COUNT-2:     llvm.x86.tilestored64.internal
// CHECK:         return
func.func @gemm_bf16(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xw = arith.extf %x : bf16 to f32
    %yw = arith.extf %y : bf16 to f32
    %p = arith.mulf %xw, %yw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A read k-major: the tile generator needs A's k elements contiguous in
// each row; the contraction stays plain code, with the reason at its place.
func.func @transposed_a(%a: memref<64x32xi8>, %b: memref<64x40xi8>, %c: memref<32x40xi32>) {
  // expected-warning @+1 {{not tensorized: no plan the code generator supports; the best: tdpbusd: the k loop does not index the contiguous last dimension of ins0 alone}}
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xi8>, memref<64x40xi8>) outs(%c : memref<32x40xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
