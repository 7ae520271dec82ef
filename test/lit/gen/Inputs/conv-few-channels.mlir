// An NHWC convolution of 5 channels, 3x3 stride 2, on an input already
// padded: a filter row's 15 taps fill 4 groups of 4 where 3 pixels took 2
// each, so -tisa-tap-rows reads them as rows of taps. The shape of
// check-conv.c with -DCH=5 -DH=17 -DW=19.
func.func @conv(%i: memref<1x17x19x5xi8>, %f: memref<3x3x5x21xi8>, %o: memref<1x8x9x21xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x8x9x21xi32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<1x17x19x5xi8>, memref<3x3x5x21xi8>) outs(%o : memref<1x8x9x21xi32>)
  return
}
