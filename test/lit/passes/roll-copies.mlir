// -tisa-roll-copies: a linalg.copy or linalg.fill that writes a static memref of rank 2 or more
// and at least min-bytes (8192 by default) becomes its scf.for loops, every one but the innermost
// marked not to be unrolled; smaller ones, rank-1 ones and dynamic ones stay for
// convert-linalg-to-loops.
// RUN: tisa-opt %s --split-input-file --allow-unregistered-dialect --tisa-roll-copies --canonicalize | FileCheck %s
// RUN: tisa-opt %s --split-input-file --allow-unregistered-dialect --tisa-roll-copies=min-bytes=1 | FileCheck %s --check-prefix=ALL

// An AMX block's A padded to whole tiles: 16 x 1024 bf16 zeros, then its 4 rows.
// CHECK-LABEL: func.func @padded_tile_rows
// CHECK:       scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:    scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:      memref.store %{{.*}}, %{{.*}}[%[[R]], %[[C]]] : memref<16x1024xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:  } {llvm.loop_annotation = #[[ROLLED:.*]]}
// CHECK:       scf.for %[[R2:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:    scf.for %[[C2:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:      %[[V:.*]] = memref.load %{{.*}}[%[[R2]], %[[C2]]] : memref<4x1024xbf16, strided<[?, 1]>>
// CHECK-NEXT:      memref.store %[[V]], %{{.*}}[%[[R2]], %[[C2]]]
// CHECK-NEXT:    }
// CHECK-NEXT:  } {llvm.loop_annotation = #[[ROLLED]]}
// CHECK-NOT:   linalg.
// CHECK:       return
func.func @padded_tile_rows(%a: memref<4x1024xbf16, strided<[?, 1]>>) {
  %zero = arith.constant 0.0 : bf16
  %buf = memref.alloc() {alignment = 64 : i64} : memref<16x1024xbf16>
  linalg.fill ins(%zero : bf16) outs(%buf : memref<16x1024xbf16>)
  %rows = memref.subview %buf[0, 0] [4, 1024] [1, 1] : memref<16x1024xbf16> to memref<4x1024xbf16, strided<[1024, 1]>>
  linalg.copy ins(%a : memref<4x1024xbf16, strided<[?, 1]>>) outs(%rows : memref<4x1024xbf16, strided<[1024, 1]>>)
  "test.use"(%buf) : (memref<16x1024xbf16>) -> ()
  memref.dealloc %buf : memref<16x1024xbf16>
  return
}

// -----

// Under 8192 bytes, of rank 1, or of run-time extent: left as they are (the
// small ones are cheap to unroll, a rank-1 one has no outer loop, LLVM cannot
// unroll a run-time one completely).
// CHECK-LABEL: func.func @left
// CHECK:       linalg.fill {{.*}} memref<4x64xbf16>
// CHECK:       linalg.copy {{.*}} memref<4x64xbf16>
// CHECK:       linalg.fill {{.*}} memref<65536xi8>
// CHECK:       linalg.fill {{.*}} memref<?x1024xbf16>
// CHECK-NOT:   scf.for
// ALL-LABEL:   func.func @left
// ALL-COUNT-2: llvm.loop_annotation
// ALL:         linalg.fill {{.*}} memref<65536xi8>
// ALL:         linalg.fill {{.*}} memref<?x1024xbf16>
func.func @left(%a: memref<4x64xbf16>, %b: memref<4x64xbf16>, %c: memref<65536xi8>, %d: memref<?x1024xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %z8 = arith.constant 0 : i8
  linalg.fill ins(%zero : bf16) outs(%a : memref<4x64xbf16>)
  linalg.copy ins(%a : memref<4x64xbf16>) outs(%b : memref<4x64xbf16>)
  linalg.fill ins(%z8 : i8) outs(%c : memref<65536xi8>)
  linalg.fill ins(%zero : bf16) outs(%d : memref<?x1024xbf16>)
  return
}
