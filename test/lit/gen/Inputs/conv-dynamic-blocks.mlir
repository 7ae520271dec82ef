// A convolution of run-time height and width whose 120 filters of 3x3x512 (540 KiB) outgrow
// znver4's L2 block budget (512 KiB): planning blocks them in 64 (tisa.loop_blocks), the last
// block zero-padded, and -tisa-split-dynamic runs the output rows inside each block.
func.func @conv(%i: memref<1x?x?x512xi8>, %f: memref<3x3x512x120xi8>, %o: memref<1x?x?x120xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%o : memref<1x?x?x120xi32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x?x?x512xi8>, memref<3x3x512x120xi8>) outs(%o : memref<1x?x?x120xi32>)
  return
}
