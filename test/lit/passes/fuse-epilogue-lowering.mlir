// -tisa-tensorize on a tisa.compute with an epilogue: the lane-dot generator applies it to each
// register of accumulators before the one masked store (operands along the lanes loaded as vectors,
// the others broadcast); the tile generator (AMX) stores each block's tiles to a scratch and runs
// its rows through the epilogue; where a generator cannot (an operand across the lanes), the
// accumulators go to a buffer and the epilogue runs after them as loops, with a warning.
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=znver4 --tisa-fuse-epilogue --tisa-tensorize=target=znver4 -verify-diagnostics | FileCheck %s
// RUN: tisa-opt %s --split-input-file --tisa-split-pack=target=sapphirerapids --tisa-fuse-epilogue --tisa-tensorize=target=sapphirerapids -verify-diagnostics | FileCheck %s --check-prefix=AMX

#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
#row = affine_map<(m, n) -> (m)>

// CHECK-LABEL: func.func @bias_scale
// CHECK-SAME:    (%{{.*}}: memref<33x70xi8>, %{{.*}}: memref<70x48xi8>, %[[BIAS:.*]]: memref<48xi32>, %[[ROW:.*]]: memref<33xi32>, %[[D:.*]]: memref<33x48xi32>)
// CHECK-NOT:     memref<33x48xi32> = memref.alloc
// CHECK:         scf.for
// CHECK:           tisa.apply "vpdpbusd.zmm"
// CHECK:         %[[B:.*]] = vector.maskedload %[[BIAS]][%[[N:.*]]], %[[MASK:.*]], %{{.*}} : memref<48xi32>, vector<16xi1>, vector<16xi32> into vector<16xi32>
// CHECK:         %[[R:.*]] = memref.load %[[ROW]][%{{.*}}] : memref<33xi32>
// CHECK:         %[[RV:.*]] = vector.broadcast %[[R]] : i32 to vector<16xi32>
// CHECK:         %[[S:.*]] = arith.addi %{{.*}}, %[[B]] : vector<16xi32>
// CHECK:         %[[P:.*]] = arith.muli %[[S]], %[[RV]] : vector<16xi32>
// CHECK:         vector.maskedstore %[[D]][%{{.*}}, %[[N]]], %[[MASK]], %[[P]] : memref<33x48xi32>, vector<16xi1>, vector<16xi32>
// AMX-LABEL: func.func @bias_scale
// AMX-NOT:     memref<33x48xi32> = memref.alloc
// AMX:         %[[EDGE:.*]] = memref.alloca() {alignment = 64 : i64} : memref<{{[0-9]+}}x{{[0-9]+}}xi32>
// AMX:         tisa.apply "tdpbssd"
// AMX:         scf.for
// AMX:           vector.load %[[EDGE]]
// AMX:           arith.muli {{.*}} : vector<16xi32>
// AMX:           vector.maskedstore {{.*}} : memref<33x48xi32>, vector<16xi1>, vector<16xi32>
func.func @bias_scale(%a: memref<33x70xi8>, %b: memref<70x48xi8>, %bias: memref<48xi32>, %rows: memref<33xi32>, %d: memref<33x48xi32>) {
  %c = memref.alloc() : memref<33x48xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<33x48xi32>)
  linalg.matmul ins(%a, %b : memref<33x70xi8>, memref<70x48xi8>) outs(%c : memref<33x48xi32>)
  linalg.generic {indexing_maps = [#id, #col, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias, %rows : memref<33x48xi32>, memref<48xi32>, memref<33xi32>) outs(%d : memref<33x48xi32>) {
  ^bb0(%cv: i32, %bv: i32, %rv: i32, %o: i32):
    %s = arith.addi %cv, %bv : i32
    %p = arith.muli %s, %rv : i32
    linalg.yield %p : i32
  }
  memref.dealloc %c : memref<33x48xi32>
  return
}

// -----

// The residual is stored transposed: its elements along the lanes (and along a tile's rows) are a
// row apart: the same fallback on both targets.
// CHECK-LABEL: func.func @residual_across_lanes
// CHECK:         %[[ACC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<33x48xi32>
// CHECK:         tisa.apply "vpdpbusd.zmm"
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]], %{{.*}} : memref<33x48xi32>, memref<48x33xi32>)
// CHECK:         memref.dealloc %[[ACC]]
func.func @residual_across_lanes(%a: memref<33x70xi8>, %b: memref<70x48xi8>, %res: memref<48x33xi32>, %d: memref<33x48xi32>) {
  %c = memref.alloc() : memref<33x48xi32>
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<33x48xi32>)
  // expected-warning @below {{epilogue not applied in registers: operand #1 does not run along the accumulator lanes contiguously (its innermost dimension, unit stride); it runs after the computation}}
  linalg.matmul ins(%a, %b : memref<33x70xi8>, memref<70x48xi8>) outs(%c : memref<33x48xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n, m)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %res : memref<33x48xi32>, memref<48x33xi32>) outs(%d : memref<33x48xi32>) {
  ^bb0(%cv: i32, %rv: i32, %o: i32):
    %s = arith.addi %cv, %rv : i32
    linalg.yield %s : i32
  }
  memref.dealloc %c : memref<33x48xi32>
  return
}
