// A dilated NHWC convolution (3x3 taps 2 apart) of 6 channels into 144
// filters: the filter's last row ends inside the pack's last register (its
// plain entry once read 16 bytes past the filter's end).
func.func @conv(%i: memref<1x9x10x6xi8>, %f: memref<3x3x6x144xi8>, %o: memref<1x5x6x144xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x5x6x144xi32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x9x10x6xi8>, memref<3x3x6x144xi8>) outs(%o : memref<1x5x6x144xi32>)
  return
}
