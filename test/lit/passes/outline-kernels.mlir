// -tisa-outline-kernels: a function that holds several tisa.compute ops (here the blocks
// -tisa-split-dynamic made of a GEMM whose M only run time knows: 256 rows, then 128, ..., 1)
// calls a private, local, noinline function per block instead, each holding that block's
// tisa.compute on its arguments. A second function with the same blocks (@same) calls the same
// functions: equivalent ones are made once. A function with one tisa.compute (@static) keeps
// it, and so do AMX blocks (their tile configuration is loaded once per function: one per call).
// RUN: tisa-opt %s --tisa-split-pack=target=znver4 --tisa-split-dynamic=target=znver4 --tisa-outline-kernels=target=znver4 | FileCheck %s
// RUN: tisa-opt %s --tisa-split-pack=target=znver4 --tisa-split-dynamic=target=znver4 --tisa-outline-kernels=target=znver4 --tisa-tensorize=target=znver4 | FileCheck %s --check-prefix=LOWERED
// RUN: tisa-opt %s --tisa-split-pack=target=sapphirerapids --tisa-split-dynamic=target=sapphirerapids --tisa-outline-kernels=target=sapphirerapids | FileCheck %s --check-prefix=AMX
// RUN: tisa-opt %s --tisa-outline-kernels=target=znver4 | FileCheck %s --check-prefix=COPIES

// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    (%[[A:.*]]: memref<?x70xi8>, %[[B:.*]]: memref<70x48xi8>, %[[C:.*]]: memref<?x48xi32>)
// CHECK:         %[[BUF:.*]] = memref.alloc()
// CHECK:         tisa.pack %[[B]] into %[[BUF]]
// CHECK:         scf.for
// CHECK:           %[[VA:.*]] = memref.subview %[[A]]
// CHECK:           %[[VC:.*]] = memref.subview %[[C]]
// CHECK:           func.call @[[FULL:gemm_compute]](%[[VA]], %[[BUF]], %[[VC]]) : (memref<256x70xi8, strided<[70, 1], offset: ?>>, memref<{{[0-9]+}}xi8>, memref<256x48xi32, strided<[48, 1], offset: ?>>) -> ()
// CHECK:         scf.if
// CHECK:           func.call @[[D128:gemm_compute_0]]({{.*}}) : (memref<128x70xi8
// CHECK-COUNT-6:   func.call @gemm_compute_
// CHECK:         scf.if
// CHECK:           func.call @[[D1:gemm_compute_7]]({{.*}}) : (memref<1x70xi8
// CHECK-NOT:     tisa.compute
// CHECK:         memref.dealloc %[[BUF]]
// CHECK:       func.func private @[[FULL]](%[[X:.*]]: memref<256x70xi8, strided<[70, 1], offset: ?>>, %[[Y:.*]]: memref<{{[0-9]+}}xi8>, %[[Z:.*]]: memref<256x48xi32, strided<[48, 1], offset: ?>>)
// CHECK-SAME:    llvm.linkage = #llvm.linkage<internal>
// CHECK-SAME:    passthrough = ["noinline"]
// CHECK-NEXT:    tisa.compute %[[X]], %[[Y]] -> %[[Z]]
// CHECK:         return
// CHECK:       func.func private @[[D128]](
// CHECK-COUNT-6: func.func private @gemm_compute_
// CHECK:       func.func private @[[D1]](
// CHECK-LABEL: func.func @same
// CHECK:         tisa.pack
// CHECK:         func.call @[[FULL]](
// CHECK:         func.call @[[D128]](
// CHECK-COUNT-6: func.call @gemm_compute_
// CHECK:         func.call @[[D1]](
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @static
// CHECK-NOT:     func.call
// CHECK:         tisa.compute
// CHECK-NOT:     func.func private
// CHECK-LABEL: func.func @copies

// LOWERED-LABEL: func.func @gemm
// LOWERED-NOT:   tisa.apply
// LOWERED:       func.call @gemm_compute
// LOWERED-LABEL: func.func private @gemm_compute
// LOWERED:       tisa.apply "vpdpbusd.zmm"

// AMX-LABEL: func.func @gemm
// AMX-NOT:   func.call
// AMX-NOT:   func.func private
// AMX:       scf.for
// AMX:       tisa.compute
// AMX:       scf.if
// AMX:       tisa.compute
func.func @gemm(%a: memref<?x70xi8>, %b: memref<70x48xi8>, %c: memref<?x48xi32>) {
  linalg.matmul ins(%a, %b : memref<?x70xi8>, memref<70x48xi8>) outs(%c : memref<?x48xi32>)
  return
}

func.func @same(%a: memref<?x70xi8>, %b: memref<70x48xi8>, %c: memref<?x48xi32>) {
  linalg.matmul ins(%a, %b : memref<?x70xi8>, memref<70x48xi8>) outs(%c : memref<?x48xi32>)
  return
}

func.func @static(%a: memref<33x70xi8>, %b: memref<70x48xi8>, %c: memref<33x48xi32>) {
  linalg.matmul ins(%a, %b : memref<33x70xi8>, memref<70x48xi8>) outs(%c : memref<33x48xi32>)
  return
}

// Copies and fills, as -tisa-split-dynamic makes them for the zero-padded partial blocks of A and
// B (one per block: 81 for a program of run-time m, n and k whose blocks are digits of both),
// are outlined the same way when a function holds several; the fill's constant is cloned in.
// COPIES-LABEL: func.func @copies
// COPIES:         scf.if
// COPIES-NEXT:      func.call @[[FILL:copies_fill]](%{{.*}}) : (memref<?xi8>) -> ()
// COPIES-NEXT:      func.call @[[COPY:copies_copy]](%{{.*}}, %{{.*}}) : (memref<?xi8>, memref<?xi8>) -> ()
// COPIES:         call @[[FILL]](
// COPIES-NEXT:    call @[[COPY]](
// COPIES-NOT:     linalg.
// COPIES:       func.func private @[[COPY]](
// COPIES-SAME:    passthrough = ["noinline"]
// COPIES-NEXT:    linalg.copy
// COPIES:       func.func private @[[FILL]](
// COPIES-NEXT:    arith.constant 0 : i8
// COPIES-NEXT:    linalg.fill
// COPIES-LABEL: func.func @one_copy
// COPIES-NOT:     func.call
// COPIES:         linalg.copy
func.func @copies(%x: memref<?xi8>, %y: memref<?xi8>, %z: memref<?xi8>, %p: i1) {
  %c0 = arith.constant 0 : i8
  scf.if %p {
    linalg.fill ins(%c0 : i8) outs(%y : memref<?xi8>)
    linalg.copy ins(%x : memref<?xi8>) outs(%y : memref<?xi8>)
  }
  linalg.fill ins(%c0 : i8) outs(%z : memref<?xi8>)
  linalg.copy ins(%x : memref<?xi8>) outs(%z : memref<?xi8>)
  return
}

func.func @one_copy(%x: memref<?xi8>, %y: memref<?xi8>) {
  linalg.copy ins(%x : memref<?xi8>) outs(%y : memref<?xi8>)
  return
}
