//===- SoftFloat.h - fp32 arithmetic of the AMX dot products ----*- C++ -*-===//
//
// The AMX float dot products compute with "DAZ=FTZ=1, RNE rounding, MXCSR
// neither consulted nor updated". Doing that with host float would need the
// handler to swap MXCSR and trust the compiler not to move float code across
// the swap; integer arithmetic on bit patterns has neither problem, so these
// functions use no floating-point instructions at all. (HostFloat.h does the
// common case, no NaN or infinity among the inputs, on the host's FMA with the
// swap done across non-inlined calls, and is tested against these.)
//
// Conventions, taken from x86 SSE/FMA (measured on the host's vfmadd231ss and
// addss under MXCSR DAZ|FTZ, see SoftFloatTest.cpp):
//  - denormal inputs are read as zero of the same sign (DAZ);
//  - tininess is detected after rounding; a tiny result, exact or not,
//    becomes zero of the result's sign (FTZ);
//  - a NaN result is the first NaN operand, quieted, in the order a, b, c of
//    a*b+c (a, b of a+b); an invalid operation without NaN operands gives
//    the default NaN 0xFFC00000.
// The SDM does not specify NaN payloads for AMX; this is the x86 rule.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_X86_AMXEMULATOR_SOFTFLOAT_H
#define TISA_TARGETS_X86_AMXEMULATOR_SOFTFLOAT_H

#include <cstdint>

namespace tisa::amx::detail {

/// Bit pattern of the default (indefinite) NaN.
constexpr uint32_t kDefaultNaN = 0xFFC00000u;

/// a * b + c with one rounding (round to nearest even), DAZ on all inputs,
/// FTZ on the result.
uint32_t fmaF32DazFtz(uint32_t a, uint32_t b, uint32_t c);

/// a + b, same rules.
uint32_t addF32DazFtz(uint32_t a, uint32_t b);

/// bf16 -> fp32: the bf16 bits become the upper half (make_fp32 in the SDM).
inline uint32_t bf16ToF32(uint16_t x) { return uint32_t(x) << 16; }

/// fp16 -> fp32, exact; fp16 denormals become normal fp32 values, NaN
/// payloads are kept (signalling stays signalling).
uint32_t fp16ToF32(uint16_t x);

} // namespace tisa::amx::detail

#endif // TISA_TARGETS_X86_AMXEMULATOR_SOFTFLOAT_H
