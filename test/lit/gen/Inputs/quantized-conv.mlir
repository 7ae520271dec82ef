// A quantized NHWC convolution with run-time zero points (input already
// padded), odd channels: O = (I - iz)(F - fz) over 3x3 windows, stride 2.
func.func @qconv(%i: memref<1x11x13x19xi8>, %f: memref<3x3x19x21xi8>, %iz: i32, %fz: i32, %o: memref<1x5x6x21xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x5x6x21xi32>)
  linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f, %iz, %fz : memref<1x11x13x19xi8>, memref<3x3x19x21xi8>, i32, i32) outs(%o : memref<1x5x6x21xi32>)
  return
}
