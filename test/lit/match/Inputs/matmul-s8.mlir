func.func @g(%a: memref<256x256xi8>, %b: memref<256x256xi8>, %c: memref<256x256xi32>) {
  linalg.matmul ins(%a, %b : memref<256x256xi8>, memref<256x256xi8>) outs(%c : memref<256x256xi32>)
  return
}
