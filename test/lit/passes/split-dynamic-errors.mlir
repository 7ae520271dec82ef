// -tisa-split-dynamic's refusals, each at the tisa.compute it cannot split.
// RUN: tisa-opt %s --split-input-file --tisa-split-dynamic=target=znver4 -verify-diagnostics

// An input given without its zero border (a named kernel's padding in place) has no view for a
// block of output rows: the border of each block would differ.
func.func @padded(%i: memref<1x?x9x16xi8>, %buf: memref<4736xi8>, %o: memref<1x?x9x32xi32>) {
  // expected-error @+1 {{loop oh has a run-time extent and indexes a dimension of the input given without its zero border; pass the input padded}}
  tisa.compute %i, %buf -> %o {input_padding = array<i64: 0, 1, 1, 0>, overwrite} : memref<1x?x9x16xi8>, memref<4736xi8>, memref<1x?x9x32xi32> {
  ^bb0(%x: memref<1x?x11x16xi8>, %y: memref<3x3x16x32xi8>, %z: memref<1x?x9x32xi32>):
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %y : memref<1x?x11x16xi8>, memref<3x3x16x32xi8>) outs(%z : memref<1x?x9x32xi32>)
  }
  return
}

// -----

// A range of tiles is a static schedule's: with run-time rows each thread gets its own rows.
func.func @range(%a: memref<?x64xi8>, %buf: memref<4096xi8>, %c: memref<?x48xi32>, %lo: index, %hi: index) {
  // expected-error @+1 {{has a range and a loop of run-time extent; give each thread its own rows of that loop instead}}
  tisa.compute %a, %buf -> %c range(%lo, %hi) {overwrite} : memref<?x64xi8>, memref<4096xi8>, memref<?x48xi32> {
  ^bb0(%x: memref<?x64xi8>, %y: memref<64x48xi8>, %z: memref<?x48xi32>):
    linalg.matmul ins(%x, %y : memref<?x64xi8>, memref<64x48xi8>) outs(%z : memref<?x48xi32>)
  }
  return
}
