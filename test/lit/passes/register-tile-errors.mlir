// Bad tisa.unroll / tisa.loop tags: located errors.
// RUN: tisa-opt %s --split-input-file --verify-diagnostics --tisa-register-tile


func.func @bad_factor(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tisa.unroll' must be a positive integer, not 0 : i64}}
  scf.for %i = %c0 to %n step %c1 {
  } {tisa.unroll = 0 : i64}
  return
}

// -----

func.func @dynamic_bound(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{tisa-register-tile: tisa.unroll needs constant loop bounds and a positive step}}
  scf.for %i = %c0 to %n step %c1 {
  } {tisa.unroll = 2 : i64}
  return
}

// -----

func.func @bad_role() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tisa.loop' must be "parallel", "lanes" or "reduction", not "outer"}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {tisa.loop = "outer"}
  return
}
