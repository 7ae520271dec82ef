//===- ScalarReference.h - scalar model of the AMX dot products -*- C++ -*-===//
//
// Written from the SDM pseudocode independently of the emulator: integers
// are summed in 64 bits and wrapped once at the end, and float steps run on
// the host's own fp32 FMA and add with MXCSR set to DAZ|FTZ|round-to-nearest
// (the "FP32 FMA with DAZ=FTZ=1, RNE" the SDM names), where the emulator
// uses an integer soft-float. The only convention copied on purpose is the
// NaN rule the SDM leaves open (first NaN operand, quieted, in the order
// a, b, c of a*b+c), which is the x86 FMA rule.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TEST_UNIT_AMXEMULATOR_SCALARREFERENCE_H
#define TISA_TEST_UNIT_AMXEMULATOR_SCALARREFERENCE_H

#include "AMXKernels.h"

#include <cstdint>

namespace tisa::amx::test {

/// C (m rows of nBytes / 4 elements) += A (m x kBytes) . B (kBytes / 4 rows
/// of nBytes), all row-major with byte strides; B in the [K/4][N][4] (int8)
/// or [K/2][N][2] (16-bit) layout the instructions take.
void referenceDotProduct(DotKind kind, int m, int kBytes, int nBytes,
                         const uint8_t *a, long strideA, const uint8_t *b,
                         long strideB, uint8_t *c, long strideC);

/// Host fp32 a*b+c and a+b under DAZ|FTZ|RNE, same NaN rule.
uint32_t hostFmaDazFtz(uint32_t a, uint32_t b, uint32_t c);
uint32_t hostAddDazFtz(uint32_t a, uint32_t b);

/// fp16 -> fp32 by arithmetic (ldexp), not by bit surgery.
uint32_t halfToFloatBits(uint16_t h);

/// True when the host has FMA3, which the float reference needs.
bool hostHasFMA();

} // namespace tisa::amx::test

#endif // TISA_TEST_UNIT_AMXEMULATOR_SCALARREFERENCE_H
