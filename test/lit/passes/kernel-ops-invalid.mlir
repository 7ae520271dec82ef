// The verifiers of tisa.pack and tisa.compute: what the region must hold and what the operands
// must be, each a located error.
// RUN: tisa-opt %s --split-input-file -verify-diagnostics

func.func @two_ops(%b: memref<64x32xi8>, %buf: memref<2048xi8>) {
  // expected-error @+1 {{'tisa.pack' op region must hold exactly one linalg op, the contraction}}
  tisa.pack %b into %buf : memref<64x32xi8>, memref<2048xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @two_arguments(%b: memref<64x32xi8>, %buf: memref<2048xi8>) {
  // expected-error @+1 {{'tisa.pack' op region must take the contraction's three operands (two inputs, then the output) as memref arguments}}
  tisa.pack %b into %buf : memref<64x32xi8>, memref<2048xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>):
  }
  return
}

// -----

func.func @operands_swapped(%b: memref<64x32xi8>, %buf: memref<2048xi8>) {
  // expected-error @+1 {{'tisa.pack' op the contraction must read the region's arguments 0 and 1 and write argument 2}}
  tisa.pack %b into %buf : memref<64x32xi8>, memref<2048xi8> {
  ^bb0(%x: memref<64x32xi8>, %y: memref<8x64xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%y, %x : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @foreign_source(%b: memref<32x32xi8>, %buf: memref<2048xi8>) {
  // expected-error @+1 {{'tisa.pack' op source type 'memref<32x32xi8>' is not the type of an input of the contraction}}
  tisa.pack %b into %buf : memref<32x32xi8>, memref<2048xi8> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @one_range_value(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>, %begin: index) {
  // expected-error @+1 {{'tisa.compute' op range takes two values (begin, end), not 1}}
  tisa.compute %a, %buf -> %c range(%begin) : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @wrong_output(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x16xi32>) {
  // expected-error @+1 {{'tisa.compute' op output type 'memref<8x16xi32>' does not have the shape and element type of the contraction's output, 'memref<8x32xi32>'}}
  tisa.compute %a, %buf -> %c : memref<8x64xi8>, memref<2048xi8>, memref<8x16xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @padding_rank(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>) {
  // expected-error @+1 {{'tisa.compute' op input_padding has 3 entries but the input has rank 2}}
  tisa.compute %a, %buf -> %c {input_padding = array<i64: 0, 1, 0>} : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @active_without_loops(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>, %n: index) {
  // expected-error @+1 {{'tisa.compute' op active has 1 values but active_loops names 0 loops}}
  tisa.compute %a, %buf -> %c active(%n) : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @active_loop_out_of_range(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>, %n: index) {
  // expected-error @+1 {{'tisa.compute' op active_loops entry 3 is not a loop of the contraction (it has 3)}}
  tisa.compute %a, %buf -> %c active(%n) {active_loops = array<i64: 3>} : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}

// -----

func.func @active_loop_twice(%a: memref<8x64xi8>, %buf: memref<2048xi8>, %c: memref<8x32xi32>, %n: index) {
  // expected-error @+1 {{'tisa.compute' op active_loops names loop 1 twice: one active extent per loop}}
  tisa.compute %a, %buf -> %c active(%n, %n) {active_loops = array<i64: 1, 1>} : memref<8x64xi8>, memref<2048xi8>, memref<8x32xi32> {
  ^bb0(%x: memref<8x64xi8>, %y: memref<64x32xi8>, %z: memref<8x32xi32>):
    linalg.matmul ins(%x, %y : memref<8x64xi8>, memref<64x32xi8>) outs(%z : memref<8x32xi32>)
  }
  return
}
