// Contractions no instruction takes, as named ops: a GEMM on f32 and a
// depthwise convolution on s8 (each channel its own 3x3 reduction). Both
// become register tiles of vectors (-tisa-tile-plain).
func.func @mm(%a: memref<33x29xf32>, %b: memref<29x47xf32>, %c: memref<33x47xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<33x47xf32>)
  linalg.matmul ins(%a, %b : memref<33x29xf32>, memref<29x47xf32>) outs(%c : memref<33x47xf32>)
  return
}
func.func @dw(%i: memref<1x10x10x35xi8>, %f: memref<3x3x35xi8>, %o: memref<1x8x8x35xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x8x8x35xi32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x10x10x35xi8>, memref<3x3x35xi8>) outs(%o : memref<1x8x8x35xi32>)
  return
}
