//===- HostFloat.cpp - AMX float dot products on the host's FMA -----------===//
//
// Compiled with -mfma and -ffp-contract=off: __builtin_fmaf is one vfmadd
// (one rounding). The MXCSR change and the arithmetic
// are separate non-inlined calls, so no float operation can move across the
// change. In the SIGILL handler this is safe: Linux starts a handler with the
// FPU in its initial state and restores the interrupted code's state (MXCSR
// and vector registers included) on sigreturn.
//
//===----------------------------------------------------------------------===//

#include "HostFloat.h"

#include <xmmintrin.h>

namespace tisa::amx::detail {
namespace {

/// All exceptions masked, DAZ, FTZ, round to nearest even.
constexpr unsigned kDazFtzRne = 0x1F80u | 0x40u | 0x8000u;

__attribute__((noinline)) void setMxcsr(unsigned value) { _mm_setcsr(value); }

float asFloat(uint32_t u) { return __builtin_bit_cast(float, u); }
uint32_t asBits(float f) { return __builtin_bit_cast(uint32_t, f); }

/// Row m's accumulators over the steps, from +0, and C + (even + odd).
void pairSumsOfRow(PairOperands &ops, unsigned m) {
  float even[kPairColumns] = {}, odd[kPairColumns] = {};
  for (unsigned k = 0; k < ops.steps; ++k) {
    float ae = asFloat(ops.aEven[m][k]), ao = asFloat(ops.aOdd[m][k]);
    for (unsigned n = 0; n < kPairColumns; ++n) {
      even[n] = __builtin_fmaf(ae, asFloat(ops.bEven[k][n]), even[n]);
      odd[n] = __builtin_fmaf(ao, asFloat(ops.bOdd[k][n]), odd[n]);
    }
  }
  for (unsigned n = 0; n < kPairColumns; ++n) {
    ops.even[m][n] = asBits(even[n]);
    ops.odd[m][n] = asBits(odd[n]);
    ops.c[m][n] = asBits(asFloat(ops.c[m][n]) + (even[n] + odd[n]));
  }
}

__attribute__((noinline)) void pairSumsOfRows(PairOperands &ops) {
  for (unsigned m = 0; m < ops.rows; ++m)
    pairSumsOfRow(ops, m);
}

} // namespace

bool hostHasFma() {
  // A load of what libgcc's constructor found: safe in the handler.
  return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
}

void pairSumsOnHost(PairOperands &ops) {
  unsigned saved = _mm_getcsr();
  setMxcsr(kDazFtzRne);
  pairSumsOfRows(ops);
  setMxcsr(saved);
}

} // namespace tisa::amx::detail
