func.func @matmul(%a: memref<64x128xi8>, %b: memref<128x96xi8>, %c: memref<64x96xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<64x96xi32>)
  linalg.matmul ins(%a, %b : memref<64x128xi8>, memref<128x96xi8>) outs(%c : memref<64x96xi32>)
  return
}
