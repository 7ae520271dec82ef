// -tisa-bufferize (upstream passes run by one of tisa's, what `tisa gen FILE.mlir` runs first):
// linalg on tensors becomes linalg on memrefs of the identity layout, and the returned tensor an
// output argument the caller provides, computed in place; then the contraction is split and
// tensorized as a memref program is. A public function's tensor arguments are the caller's
// inputs, never written; a module on memrefs passes unchanged.
// RUN: tisa-opt %s --split-input-file -tisa-bufferize | FileCheck %s
// RUN: tisa-opt %s --split-input-file -tisa-bufferize -tisa-split-pack=target=znver4 -tisa-tensorize=target=znver4 | FileCheck %s --check-prefix=TENSORIZED

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

// -----

// An input the caller keeps (the pass marks the tensor arguments of public functions so, as
// here without the attribute) is copied before the contraction accumulates into it.
// CHECK-LABEL: func.func @accumulate_into_input
// CHECK-SAME:    (%[[A:.*]]: memref<8x64xi8>, %[[B:.*]]: memref<64x32xi8>, %[[C:.*]]: memref<8x32xi32>, %[[OUT:.*]]: memref<8x32xi32>)
// CHECK:         memref.copy %[[C]], %[[OUT]]
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[OUT]] : memref<8x32xi32>)
// CHECK-NOT:     outs(%[[C]]
// CHECK:         return
func.func @accumulate_into_input(%a: tensor<8x64xi8>, %b: tensor<64x32xi8>,
                                 %c: tensor<8x32xi32>) -> tensor<8x32xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x64xi8>, tensor<64x32xi8>)
                     outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %r : tensor<8x32xi32>
}

// -----

// An intermediate buffer is freed.
// CHECK-LABEL: func.func @intermediate
// CHECK:         %[[T:.*]] = memref.alloc() {{.*}} : memref<8x32xi32>
// CHECK:         linalg.matmul {{.*}} outs(%[[T]] : memref<8x32xi32>)
// CHECK:         memref.dealloc %[[T]]
func.func @intermediate(%a: tensor<8x64xi8>, %b: tensor<64x32xi8>) -> tensor<8x32xi32> {
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<8x32xi32>
  %c = linalg.fill ins(%zero : i32) outs(%empty : tensor<8x32xi32>) -> tensor<8x32xi32>
  %m = linalg.matmul ins(%a, %b : tensor<8x64xi8>, tensor<64x32xi8>)
                     outs(%c : tensor<8x32xi32>) -> tensor<8x32xi32>
  %e = tensor.empty() : tensor<8x32xi32>
  %r = linalg.add ins(%m, %m : tensor<8x32xi32>, tensor<8x32xi32>) outs(%e : tensor<8x32xi32>) -> tensor<8x32xi32>
  return %r : tensor<8x32xi32>
}


// -----

// A module on memrefs passes unchanged, its own deallocation included (upstream's deallocation
// pipeline refused it: "memory free side-effect on MemRef value not supported!").
// CHECK-LABEL: func.func @on_memrefs
// CHECK:         %[[T:.*]] = memref.alloc() : memref<8x32xi32>
// CHECK:         linalg.matmul {{.*}} outs(%[[T]] : memref<8x32xi32>)
// CHECK:         memref.copy %[[T]], %{{.*}}
// CHECK:         memref.dealloc %[[T]]
// CHECK-NEXT:    return
func.func @on_memrefs(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %c: memref<8x32xi32>) {
  %t = memref.alloc() : memref<8x32xi32>
  linalg.matmul ins(%a, %b : memref<8x64xi8>, memref<64x32xi8>) outs(%t : memref<8x32xi32>)
  memref.copy %t, %c : memref<8x32xi32> to memref<8x32xi32>
  memref.dealloc %t : memref<8x32xi32>
  return
}
