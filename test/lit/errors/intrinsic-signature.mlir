// RUN: tisa-opt %s -split-input-file -verify-diagnostics
// The lowering intrinsic must exist and fit the registers.

// expected-error @+1 {{intrinsic 'llvm.aarch64.neon.sdot.v2i32.v8i8' does not fit the registers: their types <4 x i32> (<4 x i32>, <16 x i8>, <16 x i8>) select 'llvm.aarch64.neon.sdot.v4i32.v16i8'}}
func.func @d(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "t.sdot",
      target = "aarch64",
      features = ["+neon", "+dotprod"],
      extension = "DotProd",
      mnemonic = "sdot",
      registers = [{type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<4xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v2i32.v8i8", operands = [2, 0, 1]},
      reference = "test"}} {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k)>,
                                         affine_map<(n, k) -> (n)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%acc : tensor<4xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// expected-error @+1 {{'llvm.aarch64.neon.sdott' is not an LLVM 22 intrinsic}}
func.func @d(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "t.sdot",
      target = "aarch64",
      features = ["+neon", "+dotprod"],
      extension = "DotProd",
      mnemonic = "sdot",
      registers = [{type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<4xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.sdott", operands = [2, 0, 1]},
      reference = "test"}} {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k)>,
                                         affine_map<(n, k) -> (n)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%acc : tensor<4xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// expected-error @+1 {{intrinsic 'llvm.x86.avx512.vpdpbusd.512' parameter 0 is <16 x i32> but operand 2 is held in <4 x i32>}}
func.func @d(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "t.sdot",
      target = "x86_64",
      features = ["+neon", "+dotprod"],
      extension = "DotProd",
      mnemonic = "sdot",
      registers = [{type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<4xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.x86.avx512.vpdpbusd.512", operands = [2, 0, 1]},
      reference = "test"}} {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k)>,
                                         affine_map<(n, k) -> (n)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%acc : tensor<4xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// expected-error @+1 {{operand 0 is passed to the intrinsic 2 times; each operand must be passed exactly once}}
func.func @d(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "t.sdot",
      target = "aarch64",
      features = ["+neon", "+dotprod"],
      extension = "DotProd",
      mnemonic = "sdot",
      registers = [{type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<4xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 0]},
      reference = "test"}} {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k)>,
                                         affine_map<(n, k) -> (n)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%acc : tensor<4xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
