// The quantized convolution of quantized-conv.mlir in NCHW (PyTorch's
// layout): zero-point terms split off, then run on NHWC copies.
func.func @qconv(%i: memref<1x19x11x13xi8>, %f: memref<21x19x3x3xi8>, %iz: i32, %fz: i32, %o: memref<1x21x5x6xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x21x5x6xi32>)
  linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f, %iz, %fz : memref<1x19x11x13xi8>, memref<21x19x3x3xi8>, i32, i32) outs(%o : memref<1x21x5x6xi32>)
  return
}
