// RUN: tisa-opt %s -tisa-lower-descriptions | FileCheck %s
// The probe of a description: registers loaded from their images, the described intrinsic called
// with the described operand order, the accumulator stored back.

// CHECK-LABEL: llvm.func @tisa_probe_vpdpbusd_zmm(
// CHECK-SAME: %[[A:.*]]: !llvm.ptr, %[[B:.*]]: !llvm.ptr, %[[C:.*]]: !llvm.ptr)
// CHECK-SAME: target_features = #llvm.target_features<["+avx512f", "+avx512vnni"]>
// CHECK-DAG: %[[VA:.*]] = llvm.load %[[A]] {alignment = 1 : i64} : !llvm.ptr -> vector<64xi8>
// CHECK-DAG: %[[VB:.*]] = llvm.load %[[B]] {alignment = 1 : i64} : !llvm.ptr -> vector<64xi8>
// CHECK-DAG: %[[VC:.*]] = llvm.load %[[C]] {alignment = 1 : i64} : !llvm.ptr -> vector<16xi32>
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[VC]], %[[VA]], %[[VB]])
// CHECK: llvm.store %[[R]], %[[C]]
// CHECK-NOT: func.func
func.func @vpdpbusd_zmm(%a: tensor<16x4xi8>, %b: tensor<16x4xi8>, %acc: tensor<16xi32>) -> tensor<16xi32>
    attributes {tisa.instruction = {
      name = "vpdpbusd.zmm", target = "x86_64", features = ["+avx512f", "+avx512vnni"],
      extension = "AVX512_VNNI", mnemonic = "vpdpbusd",
      registers = [{type = vector<64xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<64xi8>, layout = affine_map<(n, k) -> (n * 4 + k)>},
                   {type = vector<16xi32>, layout = affine_map<(n) -> (n)>}],
      saturation = "none",
      lowering = {intrinsic = "llvm.x86.avx512.vpdpbusd.512", operands = [2, 0, 1]},
      reference = "Intel SDM Vol. 2C, VPDPBUSD"}} {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n, k)>,
                                         affine_map<(n, k) -> (n)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<16x4xi8>, tensor<16x4xi8>) outs(%acc : tensor<16xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.extui %x : i8 to i32
      %yw = arith.extsi %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> tensor<16xi32>
  return %r : tensor<16xi32>
}
