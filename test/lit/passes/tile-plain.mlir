// RUN: tisa-opt %s -tisa-tile-plain="vector-bits=128 vector-registers=16" -canonicalize -cse | FileCheck %s
// RUN: tisa-opt %s -tisa-tile-plain | FileCheck %s --check-prefix=OFF

// Without a vector width (the pass's default) nothing changes.
// OFF-COUNT-3: linalg.generic
// OFF: linalg.matmul
// OFF: linalg.depthwise_conv_2d_nhwc_hwc
// OFF-COUNT-7: linalg.generic

// f16 x f16 -> f32 in 4-lane vectors and 16 registers: of the tiles whose
// accumulators and step vectors leave 4 registers, 3 rows x 3 vectors reads
// fewest operands per update. 5 rows: a tile of 3, then one of 2; 10 lanes:
// 3 vectors, the last masked to 2. The product of two f16 is exact in f32:
// multiply and add may fuse.
// CHECK-LABEL: func.func @gemm_f16
// CHECK: %[[MASK:.*]] = vector.constant_mask [2] : vector<4xi1>
// CHECK: vector.maskedload %arg2[%c0, %c8], %[[MASK]]
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:   %[[A:.*]] = memref.load %arg0[%c0, %{{.*}}] : memref<5x3xf16>
// CHECK:   %[[B:.*]] = vector.load %arg1[%{{.*}}, %c0] : memref<3x10xf16>, vector<4xf16>
// CHECK:   %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK:   %[[BW:.*]] = arith.extf %[[B]] : vector<4xf16> to vector<4xf32>
// CHECK:   %[[AB:.*]] = vector.broadcast %[[AW]] : f32 to vector<4xf32>
// CHECK:   %[[P:.*]] = arith.mulf %[[AB]], %[[BW]] fastmath<contract> : vector<4xf32>
// CHECK:   arith.addf %{{.*}}, %[[P]] fastmath<contract> : vector<4xf32>
// CHECK:   vector.maskedload %arg1[%{{.*}}, %c8], %[[MASK]]
// CHECK:   scf.yield
// CHECK: vector.maskedstore %arg2[%c2, %c8], %[[MASK]]
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:   memref.load %arg0[%c3, %{{.*}}] : memref<5x3xf16>
// CHECK: vector.maskedstore %arg2[%c4, %c8], %[[MASK]]
// CHECK-NOT: linalg.generic
func.func @gemm_f16(%a: memref<5x3xf16>, %b: memref<3x10xf16>, %c: memref<5x10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<5x3xf16>, memref<3x10xf16>) outs(%c : memref<5x10xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %z, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// bf16 products can leave f32's exponent range: no fusing.
// CHECK-LABEL: func.func @gemm_bf16
// CHECK: scf.for
// CHECK-NOT: fastmath
// CHECK: return
func.func @gemm_bf16(%a: memref<4x8xbf16>, %b: memref<8x8xbf16>, %c: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x8xbf16>, memref<8x8xbf16>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: bf16, %y: bf16, %z: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %z, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// A conv2d (NHWC, HWCF): the filters in vectors, output columns as rows,
// the input read as a scalar at (oh + kh, ow + kw), three reduction loops.
// CHECK-LABEL: func.func @conv
// CHECK: scf.for %[[OH:.*]] = %c0 to %c3 step %c1 {
// CHECK-COUNT-3: vector.load %arg2[%c0, %[[OH]], %c{{[0-2]}}, %c0] : memref<1x3x3x4xi32>, vector<4xi32>
// CHECK:   scf.for %[[KH:.*]] = %c0 to %c3 step %c1 iter_args(
// CHECK:     scf.for %[[KW:.*]] = %c0 to %c3 step %c1 iter_args(
// CHECK:       scf.for %[[C:.*]] = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<4xi32>, vector<4xi32>, vector<4xi32>)
// CHECK:         %[[H:.*]] = arith.addi %[[OH]], %[[KH]] : index
// CHECK:         memref.load %arg0[%c0, %[[H]], %[[KW]], %[[C]]] : memref<1x5x5x2xi8>
// CHECK:         vector.load %arg1[%[[KH]], %[[KW]], %[[C]], %c0] : memref<3x3x2x4xi8>, vector<4xi8>
// CHECK:         arith.extsi %{{.*}} : vector<4xi8> to vector<4xi32>
// CHECK:         arith.muli %{{.*}} : vector<4xi32>
// CHECK-COUNT-3: vector.store
// CHECK-NOT: linalg.generic
func.func @conv(%i: memref<1x5x5x2xi8>, %w: memref<3x3x2x4xi8>, %o: memref<1x3x3x4xi32>) {
  linalg.generic {indexing_maps = [affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>, affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>, affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%i, %w : memref<1x5x5x2xi8>, memref<3x3x2x4xi8>) outs(%o : memref<1x3x3x4xi32>) {
  ^bb0(%x: i8, %y: i8, %z: i32):
    %0 = arith.extui %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %z, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// Named ops are taken as their generics: a matmul on f32 (whose products
// are not exact: no fusing) and a depthwise conv2d, whose input varies
// along the channels too and is read as vectors.
// CHECK-LABEL: func.func @named
// CHECK: scf.for
// CHECK:   vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK:   arith.mulf %{{.*}} : vector<4xf32>
// CHECK:   arith.addf %{{.*}} : vector<4xf32>
// CHECK: scf.for
// CHECK:   vector.load %arg3[%c0, %{{.*}}, %{{.*}}, %c0] : memref<1x5x5x4xi8>, vector<4xi8>
// CHECK:   vector.load %arg4[%{{.*}}, %{{.*}}, %c0] : memref<3x3x4xi8>, vector<4xi8>
// CHECK:   arith.muli %{{.*}} : vector<4xi32>
// CHECK-NOT: linalg.
// CHECK: return
func.func @named(%a: memref<4x8xf32>, %b: memref<8x8xf32>, %c: memref<4x8xf32>, %i: memref<1x5x5x4xi8>, %w: memref<3x3x4xi8>, %o: memref<1x3x3x4xi32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : memref<1x5x5x4xi8>, memref<3x3x4xi8>) outs(%o : memref<1x3x3x4xi32>)
  return
}

// Extents known at run time: full tiles of 3 rows in a loop, then single
// rows; along the lanes full tiles of 3 vectors, single vectors, then one
// vector masked to what is left.
// CHECK-LABEL: func.func @dynamic
// CHECK-DAG: %[[M:.*]] = memref.dim %arg0, %c0 : memref<?x4xi32>
// CHECK-DAG: %[[N:.*]] = memref.dim %arg1, %c1 : memref<4x?xi32>
// CHECK: %[[MR:.*]] = arith.remui %[[M]], %c3
// CHECK: %[[MFULL:.*]] = arith.subi %[[M]], %[[MR]]
// CHECK: scf.for %{{.*}} = %c0 to %[[MFULL]] step %c3 {
// CHECK:   scf.for %{{.*}} = %c0 to %{{.*}} step %c12 {
// CHECK:     scf.for {{.*}} iter_args({{.*}}) -> (vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4 {
// CHECK:   scf.if
// CHECK:     %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<4xi1>
// CHECK:     vector.maskedload %arg2[%{{.*}}, %{{.*}}], %[[MASK]]
// CHECK: scf.for %{{.*}} = %[[MFULL]] to %[[M]] step %c1 {
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @dynamic(%a: memref<?x4xi32>, %b: memref<4x?xi32>, %c: memref<?x?xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<?x4xi32>, memref<4x?xi32>) outs(%c : memref<?x?xi32>) {
  ^bb0(%x: i32, %y: i32, %z: i32):
    %0 = arith.muli %x, %y : i32
    %1 = arith.addi %z, %0 : i32
    linalg.yield %1 : i32
  }
  return
}

// Left as they are: B transposed (n strided in B), a body that may trap
// (division), the output read as an input too (the tile reads inputs from
// memory while it holds the outputs), a parallel loop the output does not
// vary along, inputs of sub-byte elements (a vector load reads them
// bit-packed, memref.load one per byte: the tile computed wrong sums),
// tensors.
// CHECK-LABEL: func.func @stay
// CHECK-COUNT-5: linalg.generic
// CHECK-LABEL: func.func @stay_tensors
// CHECK: linalg.generic
func.func @stay(%a: memref<8x4xf32>, %bt: memref<16x4xf32>, %c: memref<8x16xf32>, %b: memref<4x16xi32>, %a4: memref<4x4xi32>, %c2: memref<4x16xi32>, %e: memref<4x2xi32>, %s4: memref<4x2xi4>, %t4: memref<2x16xi4>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s4, %t4 : memref<4x2xi4>, memref<2x16xi4>) outs(%c2 : memref<4x16xi32>) {
  ^bb0(%x: i4, %y: i4, %z: i32):
    %0 = arith.extsi %x : i4 to i32
    %1 = arith.extsi %y : i4 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %z, %2 : i32
    linalg.yield %3 : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bt : memref<8x4xf32>, memref<16x4xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %z, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a4, %b : memref<4x4xi32>, memref<4x16xi32>) outs(%c2 : memref<4x16xi32>) {
  ^bb0(%x: i32, %y: i32, %z: i32):
    %0 = arith.divsi %x, %y : i32
    %1 = arith.addi %z, %0 : i32
    linalg.yield %1 : i32
  }
  %cv = memref.subview %c2[0, 0] [4, 16] [1, 1] : memref<4x16xi32> to memref<4x16xi32, strided<[16, 1]>>
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (m, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a4, %cv : memref<4x4xi32>, memref<4x16xi32, strided<[16, 1]>>) outs(%c2 : memref<4x16xi32>) {
  ^bb0(%x: i32, %y: i32, %z: i32):
    %0 = arith.muli %x, %y : i32
    %1 = arith.addi %z, %0 : i32
    linalg.yield %1 : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k, p) -> (m, k)>, affine_map<(m, n, k, p) -> (k, n)>, affine_map<(m, n, k, p) -> (k, p)>, affine_map<(m, n, k, p) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a4, %b, %e : memref<4x4xi32>, memref<4x16xi32>, memref<4x2xi32>) outs(%c2 : memref<4x16xi32>) {
  ^bb0(%x: i32, %y: i32, %w: i32, %z: i32):
    %0 = arith.muli %x, %y : i32
    %1 = arith.muli %0, %w : i32
    %2 = arith.addi %z, %1 : i32
    linalg.yield %2 : i32
  }
  return
}
func.func @stay_tensors(%a: tensor<8x4xi32>, %b: tensor<4x16xi32>, %c: tensor<8x16xi32>) -> tensor<8x16xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x4xi32>, tensor<4x16xi32>) outs(%c : tensor<8x16xi32>) {
  ^bb0(%x: i32, %y: i32, %z: i32):
    %0 = arith.muli %x, %y : i32
    %1 = arith.addi %z, %0 : i32
    linalg.yield %1 : i32
  } -> tensor<8x16xi32>
  return %r : tensor<8x16xi32>
}
