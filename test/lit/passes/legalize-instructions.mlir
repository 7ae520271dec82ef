// -tisa-legalize-instructions: tisa.apply becomes the description's intrinsic,
// operands in the lowering's order, llvm.bitcast to its parameter types where the
// register types differ, the result bitcast back.
// RUN: tisa-opt %s --split-input-file --tisa-legalize-instructions -verify-diagnostics | FileCheck %s

// vpdpbusd zmm: registers (a, b, acc) passed as (acc, a, b); a and b are
// 64 bytes, the intrinsic takes them as vector<16xi32>.
// CHECK-LABEL: func.func @vpdpbusd
// CHECK-SAME:    (%[[A:.*]]: vector<64xi8>, %[[B:.*]]: vector<64xi8>, %[[ACC:.*]]: vector<16xi32>)
// CHECK-DAG:     %[[A32:.*]] = llvm.bitcast %[[A]] : vector<64xi8> to vector<16xi32>
// CHECK-DAG:     %[[B32:.*]] = llvm.bitcast %[[B]] : vector<64xi8> to vector<16xi32>
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[A32]], %[[B32]]) : (vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>
// CHECK:         return %[[R]]
// CHECK-NOT:     tisa.apply
func.func @vpdpbusd(%a: vector<64xi8>, %b: vector<64xi8>, %acc: vector<16xi32>) -> vector<16xi32> {
  %r = tisa.apply "vpdpbusd.zmm"(%a, %b, %acc) {accumulator = 2 : i64,
         intrinsic = "llvm.x86.avx512.vpdpbusd.512", order = array<i64: 2, 0, 1>,
         signature = (vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
       : (vector<64xi8>, vector<64xi8>, vector<16xi32>) -> vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// Types that already match: no bitcast. The result bitcasts back when the
// intrinsic returns another vector type of the same size.
// CHECK-LABEL: func.func @same_types
// CHECK-NOT:     llvm.bitcast %arg
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%arg2, %arg0, %arg1) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// CHECK:         return %[[R]]
func.func @same_types(%a: vector<32xbf16>, %b: vector<32xbf16>, %acc: vector<16xf32>) -> vector<16xf32> {
  %r = tisa.apply "vdpbf16ps.zmm"(%a, %b, %acc) {accumulator = 2 : i64,
         intrinsic = "llvm.x86.avx512bf16.dpbf16ps.512", order = array<i64: 2, 0, 1>,
         signature = (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>}
       : (vector<32xbf16>, vector<32xbf16>, vector<16xf32>) -> vector<16xf32>
  return %r : vector<16xf32>
}

// CHECK-LABEL: func.func @result_cast
// CHECK:         %[[ACC:.*]] = llvm.bitcast %arg1 : vector<16xi8> to vector<4xi32>
// CHECK:         %[[R:.*]] = llvm.call_intrinsic "llvm.made.up"(%arg0, %[[ACC]]) : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>
// CHECK:         %[[C:.*]] = llvm.bitcast %[[R]] : vector<4xi32> to vector<16xi8>
// CHECK:         return %[[C]]
func.func @result_cast(%a: vector<4xi32>, %acc: vector<16xi8>) -> vector<16xi8> {
  %r = tisa.apply "made.up"(%a, %acc) {accumulator = 1 : i64, intrinsic = "llvm.made.up",
         order = array<i64: 0, 1>, signature = (vector<4xi32>, vector<4xi32>) -> vector<4xi32>}
       : (vector<4xi32>, vector<16xi8>) -> vector<16xi8>
  return %r : vector<16xi8>
}

// -----

// A register that does not bitcast to its parameter (other size): an error
// that names the instruction, not a crash.
func.func @negative_size(%a: vector<32xi8>, %b: vector<64xi8>, %acc: vector<16xi32>) -> vector<16xi32> {
  // expected-error @below {{tisa-legalize-instructions: cannot lower 'vpdpbusd.zmm' to llvm.x86.avx512.vpdpbusd.512: register 0 is vector<32xi8>, which does not bitcast to the intrinsic's parameter 1 (vector<16xi32>)}}
  %r = tisa.apply "vpdpbusd.zmm"(%a, %b, %acc) {accumulator = 2 : i64,
         intrinsic = "llvm.x86.avx512.vpdpbusd.512", order = array<i64: 2, 0, 1>,
         signature = (vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
       : (vector<32xi8>, vector<64xi8>, vector<16xi32>) -> vector<16xi32>
  return %r : vector<16xi32>
}

// -----

func.func @negative_accumulator(%a: vector<64xi8>, %acc: vector<16xi32>) -> vector<16xi32> {
  // expected-error @below {{'tisa.apply' op accumulator 2 is not one of its 2 registers}}
  %r = tisa.apply "x"(%a, %acc) {accumulator = 2 : i64, intrinsic = "llvm.y", order = array<i64: 1, 0>,
         signature = (vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
       : (vector<64xi8>, vector<16xi32>) -> vector<16xi32>
  return %r : vector<16xi32>
}

// -----

func.func @negative_result(%a: vector<64xi8>, %acc: vector<16xi32>) -> vector<16xf32> {
  // expected-error @below {{'tisa.apply' op the result has type 'vector<16xf32>' but the accumulator register has 'vector<16xi32>'}}
  %r = tisa.apply "x"(%a, %acc) {accumulator = 1 : i64, intrinsic = "llvm.y", order = array<i64: 1, 0>,
         signature = (vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
       : (vector<64xi8>, vector<16xi32>) -> vector<16xf32>
  return %r : vector<16xf32>
}

// -----

func.func @negative_order(%a: vector<64xi8>, %acc: vector<16xi32>) -> vector<16xi32> {
  // expected-error @below {{'tisa.apply' op order[1] = 5 is not one of its 2 registers}}
  %r = tisa.apply "x"(%a, %acc) {accumulator = 1 : i64, intrinsic = "llvm.y", order = array<i64: 1, 5>,
         signature = (vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
       : (vector<64xi8>, vector<16xi32>) -> vector<16xi32>
  return %r : vector<16xi32>
}

// -----

func.func @negative_signature(%a: vector<64xi8>, %acc: vector<16xi32>) -> vector<16xi32> {
  // expected-error @below {{'tisa.apply' op the signature has 3 parameters but order names 2}}
  %r = tisa.apply "x"(%a, %acc) {accumulator = 1 : i64, intrinsic = "llvm.y", order = array<i64: 1, 0>,
         signature = (vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
       : (vector<64xi8>, vector<16xi32>) -> vector<16xi32>
  return %r : vector<16xi32>
}

// -----

func.func @negative_intrinsic(%a: vector<64xi8>, %acc: vector<16xi32>) -> vector<16xi32> {
  // expected-error @below {{'tisa.apply' op intrinsic 'vpdpbusd' is not an LLVM intrinsic name (llvm.*)}}
  %r = tisa.apply "x"(%a, %acc) {accumulator = 1 : i64, intrinsic = "vpdpbusd", order = array<i64: 1, 0>,
         signature = (vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
       : (vector<64xi8>, vector<16xi32>) -> vector<16xi32>
  return %r : vector<16xi32>
}

// -----

// AMX tiles: registers are !llvm.x86_amx values; the tile shapes the
// intrinsic takes first are immediates (order -1).
// CHECK-LABEL: func.func @tdpbssd
// CHECK:         %[[R:.*]] = llvm.mlir.constant(16 : i16) : i16
// CHECK:         %[[C:.*]] = llvm.mlir.constant(64 : i16) : i16
// CHECK:         %[[K:.*]] = llvm.mlir.constant(64 : i16) : i16
// CHECK:         %[[T:.*]] = llvm.call_intrinsic "llvm.x86.tdpbssd.internal"(%[[R]], %[[C]], %[[K]], %arg2, %arg0, %arg1) : (i16, i16, i16, !llvm.x86_amx, !llvm.x86_amx, !llvm.x86_amx) -> !llvm.x86_amx
// CHECK:         return %[[T]]
func.func @tdpbssd(%a: !llvm.x86_amx, %b: !llvm.x86_amx, %acc: !llvm.x86_amx) -> !llvm.x86_amx {
  %r = tisa.apply "tdpbssd"(%a, %b, %acc) {accumulator = 2 : i64,
         intrinsic = "llvm.x86.tdpbssd.internal", order = array<i64: -1, -1, -1, 2, 0, 1>,
         immediates = array<i64: 16, 64, 64, 0, 0, 0>,
         signature = (i16, i16, i16, !llvm.x86_amx, !llvm.x86_amx, !llvm.x86_amx) -> !llvm.x86_amx}
       : (!llvm.x86_amx, !llvm.x86_amx, !llvm.x86_amx) -> !llvm.x86_amx
  return %r : !llvm.x86_amx
}

// -----

func.func @negative_immediates(%a: !llvm.x86_amx, %acc: !llvm.x86_amx) -> !llvm.x86_amx {
  // expected-error @below {{'tisa.apply' op order[0] = -1 takes an immediate, but there are none}}
  %r = tisa.apply "x"(%a, %acc) {accumulator = 1 : i64, intrinsic = "llvm.y", order = array<i64: -1, 1, 0>,
         signature = (i16, !llvm.x86_amx, !llvm.x86_amx) -> !llvm.x86_amx}
       : (!llvm.x86_amx, !llvm.x86_amx) -> !llvm.x86_amx
  return %r : !llvm.x86_amx
}
