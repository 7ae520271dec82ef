// RUN: tisa-opt %s -split-input-file -verify-diagnostics
// An operand with an empty dimension describes no computation (it used to
// pass `tisa isa verify`, whose checks hold vacuously, and crash the matcher).

// expected-error @+1 {{operand 0 has an empty dimension ('tensor<4x0xi8>'): an instruction computes at least one element}}
func.func @d(%a: tensor<4x0xi8>, %b: tensor<4x0xi8>, %acc: tensor<4xi32>) -> tensor<4xi32>
    attributes {tisa.instruction = {
      name = "t.sdot",
      target = "aarch64",
      features = ["+neon", "+dotprod"],
      extension = "DotProd",
      mnemonic = "sdot",
      reference = "none",
      registers = [{type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<16xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<4xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.aarch64.neon.sdot.v4i32.v16i8", operands = [2, 0, 1]}}} {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k)>,
                                         affine_map<(n, k) -> (n)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<4x0xi8>, tensor<4x0xi8>) outs(%acc : tensor<4xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extsi %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
