// The other named contractions: batch_matmul, conv_2d_nchw_fchw with strides and dilations,
// conv_2d, and matmul on strided memrefs with a transposed A through indexing_maps.
// RUN: tisa match %s --target znver4 | FileCheck %s
// CHECK: linalg.batch_matmul (b=4 m=64 n=64 k=64r; bf16 x bf16 -> f32)
// CHECK: instruction: vdpbf16ps.zmm
// CHECK: B -> operand 1 (vector<32xbf16>): pack [B][K][N] -> [B][K/2][N][2]
// CHECK: linalg.conv_2d_nchw_fchw (n=1 f=64 oh=28 ow=28 c=64r kh=3r kw=3r; s8 x s8 -> s32)
// CHECK: loops: n(16) <- oh.ow(784); k(4) <- c.kh.kw(576);
// CHECK: input -> operand 0 (vector<64xi8>): gather (im2col style)
// CHECK: filter -> operand 1 (vector<64xi8>): broadcast 4 bytes
// CHECK: output -> operand 2 (vector<16xi32>): vector load of 64 bytes
// CHECK: linalg.conv_2d (oh=16 ow=16 kh=3r kw=3r; s8 x s8 -> s32)
// CHECK: linalg.matmul (m=64 n=64 k=64r; s8 x s8 -> s32)
// CHECK: A -> operand 0 (vector<64xi8>): pack [K][M] -> [M][K], then broadcast 4 bytes
func.func @bmm(%a: tensor<4x64x64xbf16>, %b: tensor<4x64x64xbf16>, %c: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x64x64xbf16>, tensor<4x64x64xbf16>) outs(%c : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}
func.func @nchw(%i: tensor<1x64x60x60xi8>, %f: tensor<64x64x3x3xi8>, %o: tensor<1x64x28x28xi32>) -> tensor<1x64x28x28xi32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : tensor<1x64x60x60xi8>, tensor<64x64x3x3xi8>) outs(%o : tensor<1x64x28x28xi32>) -> tensor<1x64x28x28xi32>
  return %r : tensor<1x64x28x28xi32>
}
func.func @c2(%i: tensor<18x18xi8>, %f: tensor<3x3xi8>, %o: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %r = linalg.conv_2d ins(%i, %f : tensor<18x18xi8>, tensor<3x3xi8>) outs(%o : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}
func.func @mt(%a: memref<64x64xi8, strided<[128, 1]>>, %b: memref<64x64xi8>, %c: memref<64x64xi32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<64x64xi8, strided<[128, 1]>>, memref<64x64xi8>) outs(%c : memref<64x64xi32>)
  return
}
