// A depthwise convolution: each channel is its own 3x3 reduction, so there is
// no channel group for a dot product to reduce; it stays plain code.
func.func @dw(%i: memref<1x10x10x32xi8>, %f: memref<3x3x32xi8>, %o: memref<1x8x8x32xi32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x10x10x32xi8>, memref<3x3x32xi8>) outs(%o : memref<1x8x8x32xi32>)
  return
}
