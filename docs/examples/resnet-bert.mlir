// Two contractions people tensorize: a BERT-base GEMM (u8 x s8 -> s32) and a ResNet-50 3x3
// convolution (s8 x s8 -> s32, NHWC activations, HWCF weights). `tisa match` on this file prints
// the plan tisa would use for each on the target.
func.func @bert_ffn(%a: tensor<128x768xi8>, %b: tensor<768x3072xi8>, %c: tensor<128x3072xi32>) -> tensor<128x3072xi32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                       affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<128x768xi8>, tensor<768x3072xi8>) outs(%c : tensor<128x3072xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<128x3072xi32>
  return %r : tensor<128x3072xi32>
}

func.func @resnet_conv3x3(%i: tensor<1x58x58x64xi8>, %f: tensor<3x3x64x64xi8>, %o: tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x58x58x64xi8>, tensor<3x3x64x64xi8>) outs(%o : tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32>
  return %r : tensor<1x56x56x64xi32>
}
