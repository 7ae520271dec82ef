// An NHWC convolution (input already padded) whose height and width only
// run time knows, odd channels, stride 2: check-conv.c's kernel at any
// H and W.
func.func @conv(%i: memref<1x?x?x19xi8>, %f: memref<3x3x19x21xi8>, %o: memref<1x?x?x21xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x?x?x21xi32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<1x?x?x19xi8>, memref<3x3x19x21xi8>) outs(%o : memref<1x?x?x21xi32>)
  return
}
