// RUN: tisa-opt %s -split-input-file -verify-diagnostics
// Closed sets of values name the allowed ones.

// expected-error @+1 {{key 'target' in the metadata block is 'riscv', expected one of: x86_64, aarch64, nvptx64}}
func.func @d(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "t.sdot",
      target = "riscv",
      features = ["+neon", "+dotprod"],
      extension = "DotProd",
      mnemonic = "sdot",
      registers = [{type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<4xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 1]},
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

// expected-error @+1 {{key 'saturation' in the metadata block is 'clamp', expected one of: none, signed, unsigned}}
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
      saturation = "clamp",
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 1]},
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

// expected-error @+1 {{'fp' applies to floating-point results; this instruction accumulates 'i32'}}
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
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 1]},
      reference = "test",
      fp = {accumulation = "sequential"}}} {
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

// by_element names an input register (the accumulator has no by-element form).
// expected-error @+1 {{by_element names register 2; it must be an input register (0 or 1)}}
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
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 1], by_element = 2},
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

// expected-error @+1 {{key 'by_element' in 'lowering' must be the index of the input register with a by-element form}}
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
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 1], by_element = "b"},
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
