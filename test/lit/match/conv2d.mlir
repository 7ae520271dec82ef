// ResNet-50 conv2d layers against each family: output channels on the lanes,
// input channels (and, for 3 channels, the fused window) in the reduction.
// RUN: tisa match %s --target znver4 | FileCheck %s --check-prefix=VNNI
// RUN: tisa match %s --target sapphirerapids | FileCheck %s --check-prefix=AMX
// RUN: tisa match %s --target neoverse-v2 | FileCheck %s --check-prefix=ARM
// RUN: tisa match %s --target sm_90 | FileCheck %s --check-prefix=MMA
// RUN: tisa match %s --target znver4 --no-fuse | FileCheck %s --check-prefix=NOFUSE
// RUN: tisa match %s --target znver4 --all | FileCheck %s --check-prefix=VNNI-ALL

// VNNI: conv2d.mlir:[[#@LINE+42]]:8: linalg.conv_2d_nhwc_hwcf (n=1 oh=56 ow=56 f=64 kh=3r kw=3r c=64r; s8 x s8 -> s32)
// VNNI: instruction: vpdpbusd.zmm
// VNNI-NEXT: loops: n(16) <- f(64); k(4) <- c(64);
// VNNI: filter -> operand {{[01]}} (vector<64xi8>): pack [KH][KW][C][F] -> [KH][KW][C/4][F][4]
// VNNI: repair:
// VNNI: conv2d.mlir:[[#@LINE+42]]:8: linalg.conv_2d_nhwc_hwcf (n=1 oh=112 ow=112 f=64 kh=7r kw=7r c=3r; s8 x s8 -> s32)
// The plan generated (the code generators' count ranks it first) reads the 3
// channels padded to 4; the matcher's plans that fuse the window into the
// reduction use more of the lanes, but no generator takes them yet.
// VNNI: instruction: vpdpbusd.zmm
// VNNI-NEXT: loops: n(16) <- f(64); k(4) <- c(3);
// VNNI: schedule: unroll=
// VNNI: cost: {{[0-9]+}} instructions, 75.0% of the lanes useful, {{.*}} (counted for the schedule)
// VNNI-ALL: oh=112 ow=112
// VNNI-ALL: candidates (best first):
// VNNI-ALL: vpdpbusd.zmm n<-f(16) k<-kw.c(4) | input broadcast 4B, filter gathered, output direct | 88% lanes, {{.*}}, not generated

// NOFUSE: oh=112 ow=112
// NOFUSE-NOT: kw.c
// NOFUSE: cost:

// AMX: instruction: tdpbssd (AMX-INT8, tdpbssd)
// AMX-NEXT: loops: m(16) <- ow(56); n(16) <- f(64); k(64) <- c(64);
// AMX-NEXT: input -> operand 0 (vector<16x64xi8>): tile load: 16 rows of 64 bytes, row stride 64 bytes
// AMX-NEXT: filter -> operand 1 (vector<16x64xi8>): pack [KH][KW][C][F] -> [KH][KW][C/4][F][4]
// AMX: note: ow=56: the last tile uses 8 of 16 lanes: pad to 64 or a masked epilogue
// 3 channels: the tile plans pad them to a 64-byte row or gather the window
// (im2col), which no generator takes yet; the count ranks vpdpbusd first.
// AMX: oh=112 ow=112
// AMX: instruction: vpdpbusd.zmm

// ARM: target: neoverse-v2
// ARM: instruction: {{sve|neon}}.smmla
// ARM-NOT: seg
// ARM: filter -> operand {{[01]}} (vector<{{\[16\]|16}}xi8>): pack [KH][KW][C][F] -> [KH][KW][C/8][F][8]
// ARM: instruction: {{sve|neon}}.s{{mmla|dot}}

// MMA: instruction: mma.m16n8k32.s8s8s32
// MMA-NOT: repair
// MMA: instruction: mma.m16n8k32.s8s8s32
// MMA: k(32) <- kw.c(21)
func.func @layer2(%i: tensor<1x58x58x64xi8>, %f: tensor<3x3x64x64xi8>, %o: tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x58x58x64xi8>, tensor<3x3x64x64xi8>) outs(%o : tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32>
  return %r : tensor<1x56x56x64xi32>
}
func.func @layer1(%i: tensor<1x230x230x3xi8>, %f: tensor<7x7x3x64xi8>, %o: tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : tensor<1x230x230x3xi8>, tensor<7x7x3x64xi8>) outs(%o : tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32>
  return %r : tensor<1x112x112x64xi32>
}
