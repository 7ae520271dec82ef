// The passes after -tisa-select-plan take each contraction's plan and schedule as stated: given no
// target they load no target file and run no search (the matcher's ranking needs a target), and they
// write what they write for the target the plan was chosen on (the same IR for these plans on
// znver4, sapphirerapids, neoverse-v2 and neoverse-v1: compared when this test was written). One
// plan per register class: lane dot products (x86, NEON), AMX tiles, NEON matrix segments, SVE dot
// products over 128-bit segments (VL known to be 128 bits: no segment loop), SVE matrix segments.
// RUN: tisa-opt %s --split-input-file --tisa-split-pack --tisa-split-dynamic --tisa-tensorize -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @lanes
// CHECK: tisa.apply "vpdpbusd.zmm"{{.*}}intrinsic = "llvm.x86.avx512.vpdpbusd.512"
func.func @lanes(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>, tisa.schedule = #tisa.schedule<unroll = [7, 3, 1]>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// Run-time rows: -tisa-split-dynamic runs the stated plan in static blocks.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for
// CHECK: tisa.apply "vpdpbusd.zmm"
func.func @rows(%A: memref<?x64xi8>, %B: memref<64x48xi8>, %C: memref<?x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [7, 3, 1]>} ins(%A, %B : memref<?x64xi8>, memref<64x48xi8>) outs(%C : memref<?x48xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @neon_dot
// CHECK: tisa.apply "neon.sdot"{{.*}}intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8"
func.func @neon_dot(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"neon.sdot", [n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [6, 4, 1], panel = 16>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @amx
// CHECK: tisa.apply "tdpbssd"
func.func @amx(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"tdpbssd", [m = [0], n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [1, 3, 1], hold = 1>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @neon_mmla
// CHECK: tisa.apply "neon.smmla"{{.*}}intrinsic = "llvm.aarch64.neon.smmla.v4i32.v16i8"
func.func @neon_mmla(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"neon.smmla", [m = [0], n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [4, 6, 1], kunroll = 4>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @sve_dot
// CHECK: tisa.apply "sve.sdot"{{.*}}intrinsic = "llvm.aarch64.sve.sdot.nxv4i32"
func.func @sve_dot(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"sve.sdot", [n = [1], k = [2], seg = outer(0)]>, tisa.schedule = #tisa.schedule<unroll = [4, 6, 1], kunroll = 2>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// Planned where SVE's vectors are 128 bits (neoverse-v2): one segment, no segment loop.
// CHECK-LABEL: func.func @sve_dot_128
// CHECK: tisa.apply "sve.sdot"
func.func @sve_dot_128(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"sve.sdot", [n = [1], k = [2]]>, tisa.schedule = #tisa.schedule<unroll = [4, 6, 1], kunroll = 2>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @sve_mmla
// CHECK: tisa.apply "sve.smmla"{{.*}}intrinsic = "llvm.aarch64.sve.smmla.nxv4i32"
func.func @sve_mmla(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  linalg.matmul {tisa.plan = #tisa.plan<"sve.smmla", [m = [0], n = [1], k = [2], seg = outer(1)]>, tisa.schedule = #tisa.schedule<unroll = [8, 6, 1], kunroll = 2>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// Without a plan and without a target there is nothing to choose with: plain code, and why.
// CHECK-LABEL: func.func @unplanned
// CHECK: linalg.matmul
func.func @unplanned(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  // expected-warning @+1 {{not tensorized: it has no tisa.plan, and the pass has no target to choose one for (run -tisa-select-plan first, or give the pass target=)}}
  linalg.matmul ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}

// -----

// A plan without its schedule: the pass has no target to take a default schedule from.
func.func @no_schedule(%A: memref<32x64xi8>, %B: memref<64x48xi8>, %C: memref<32x48xi32>) {
  // expected-warning @+1 {{not tensorized: it has no tisa.schedule, and the pass has no schedule= and no target to choose one for}}
  linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>} ins(%A, %B : memref<32x64xi8>, memref<64x48xi8>) outs(%C : memref<32x48xi32>)
  return
}
