// An NCHW convolution as PyTorch lays it out (input already padded), odd
// channels, stride 2: the shape of check-conv.c.
func.func @conv(%i: memref<1x19x11x13xi8>, %f: memref<21x19x3x3xi8>, %o: memref<1x21x5x6xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x21x5x6xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<1x19x11x13xi8>, memref<21x19x3x3xi8>) outs(%o : memref<1x21x5x6xi32>)
  return
}
