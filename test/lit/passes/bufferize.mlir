// -tisa-bufferize (a pipeline of upstream passes, what `tisa gen FILE.mlir` runs first): linalg on
// tensors becomes linalg on memrefs of the identity layout, and the returned tensor an output
// argument the caller provides, computed in place; then the contraction is split and tensorized
// as a memref program is.
// RUN: tisa-opt %s -tisa-bufferize | FileCheck %s
// RUN: tisa-opt %s -tisa-bufferize -tisa-split-pack=target=znver4 -tisa-tensorize=target=znver4 | FileCheck %s --check-prefix=TENSORIZED

// CHECK-LABEL: func.func @matmul_tensors
// CHECK-SAME:    (%[[A:.*]]: memref<8x64xi8>, %[[B:.*]]: memref<64x32xi8>, %[[OUT:.*]]: memref<8x32xi32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.fill ins(%{{.*}} : i32) outs(%[[OUT]] : memref<8x32xi32>)
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] : memref<8x64xi8>, memref<64x32xi8>) outs(%[[OUT]] : memref<8x32xi32>)
// CHECK-NEXT:    return
// CHECK-NOT:     tensor

// TENSORIZED-LABEL: func.func @matmul_tensors
// TENSORIZED-NOT:   linalg.matmul
// TENSORIZED:       tisa.apply "vpdpbusd.zmm"
func.func @matmul_tensors(%a: tensor<8x64xi8>, %b: tensor<64x32xi8>) -> tensor<8x32xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<8x32xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<8x32xi32>) -> tensor<8x32xi32>
  %r = linalg.matmul ins(%a, %b : tensor<8x64xi8>, tensor<64x32xi8>)
                     outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %r : tensor<8x32xi32>
}
