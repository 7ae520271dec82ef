func.func @gemm(%a: memref<4x0xi8>, %b: memref<0x16xi8>, %c: memref<4x16xi32>) {
  linalg.matmul ins(%a, %b : memref<4x0xi8>, memref<0x16xi8>) outs(%c : memref<4x16xi32>)
  return
}
func.func @conv(%i: memref<1x9x9x0xi8>, %f: memref<3x3x0x16xi8>, %o: memref<1x7x7x16xi32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x9x9x0xi8>, memref<3x3x0x16xi8>) outs(%o : memref<1x7x7x16xi32>)
  return
}
