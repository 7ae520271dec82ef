// RUN: tisa-opt %s -tisa-order-plain-loops | FileCheck %s

// A GEMM written (m, n, k): n, contiguous in B and C, goes innermost, the
// reduction around it.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[I:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d3, d2 + d4, d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d4, d5, d6)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @gemm
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
func.func @gemm(%a: memref<33x29xi16>, %b: memref<29x47xi16, strided<[?, 1]>>, %c: memref<33x47xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<33x29xi16>, memref<29x47xi16, strided<[?, 1]>>) outs(%c : memref<33x47xi32>) {
  ^bb0(%x: i16, %y: i16, %z: i32):
    %0 = arith.extsi %x : i16 to i32
    %1 = arith.extsi %y : i16 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %z, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// A conv2d (n, oh, ow, f, kh, kw, c), NHWC input and HWCF filter: the filters
// go innermost, the taps and channels keep their order around them.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.generic {indexing_maps = [#[[I]], #[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
func.func @conv(%i: memref<1x9x9x8xf16>, %w: memref<3x3x8x16xf16>, %o: memref<1x7x7x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>, affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>, affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%i, %w : memref<1x9x9x8xf16>, memref<3x3x8x16xf16>) outs(%o : memref<1x7x7x16xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32):
    %0 = arith.extf %x : f16 to f32
    %1 = arith.extf %y : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %z, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// Left as they are: B transposed (n is B's outer dimension, strided), an
// output whose last dimension is strided, n already innermost, an
// elementwise op (no reduction), tensors.
// CHECK-LABEL: func.func @stay
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
func.func @stay(%a: memref<8x4xf32>, %bt: memref<16x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>, %cs: memref<8x16xf32, strided<[32, 2]>>, %ta: tensor<8x4xf32>, %tb: tensor<4x16xf32>, %tc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bt : memref<8x4xf32>, memref<16x4xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %z, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%cs : memref<8x16xf32, strided<[32, 2]>>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %z, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %z, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<8x16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %z: f32):
    %0 = arith.addf %x, %z : f32
    linalg.yield %0 : f32
  }
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ta, %tb : tensor<8x4xf32>, tensor<4x16xf32>) outs(%tc : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %z, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
