//===- HostFloat.h - AMX float dot products on the host's FMA ---*- C++ -*-===//
//
// The fp32 accumulators of TDPBF16PS and TDPFP16PS on the host's FMA under
// MXCSR DAZ|FTZ|RNE: the same steps as the integer soft-float (SoftFloat.h),
// which was measured against exactly this (SoftFloatTest.cpp), at vector
// speed. Used only where no input is a NaN or an infinity: the NaN the SDM
// leaves to the x86 rule (first NaN operand of a*b+c) would depend on the
// operand order the compiler picks. Without NaN inputs every NaN an
// accumulator can reach is the default NaN, whichever operand it came from.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_X86_AMXEMULATOR_HOSTFLOAT_H
#define TISA_TARGETS_X86_AMXEMULATOR_HOSTFLOAT_H

#include <cstdint>

namespace tisa::amx::detail {

/// Most rows, pairs of a row, and columns of a dot product's tiles.
constexpr unsigned kPairRows = 16, kPairSteps = 16, kPairColumns = 16;

/// One dot product's operands widened to fp32 bit patterns: A's row m, pair
/// k in aEven/aOdd[m][k]; B's row k, column n in bEven/bOdd[k][n] (columns
/// past `columns` zero); the accumulators of C's row m, column n in
/// even/odd[m][n], and C's element in c[m][n].
struct PairOperands {
  unsigned rows, steps, columns;
  uint32_t aEven[kPairRows][kPairSteps], aOdd[kPairRows][kPairSteps];
  uint32_t bEven[kPairSteps][kPairColumns], bOdd[kPairSteps][kPairColumns];
  uint32_t even[kPairRows][kPairColumns], odd[kPairRows][kPairColumns];
  uint32_t c[kPairRows][kPairColumns];
};

/// Whether this host has the FMA unit (and AVX2) the fast path needs.
bool hostHasFma();

/// Every row's even and odd accumulators, from +0, by one FMA per k, then
/// c = c + (even + odd), on the host (DAZ, FTZ, round to nearest even); MXCSR
/// is set for the call and restored. Only for B with no NaN or infinity, on
/// an FMA host. A row of A with a NaN or an infinity computes here but not
/// the soft-float's bits, nor c where it is a NaN (its payload would be the
/// compiler's choice of operand order).
void pairSumsOnHost(PairOperands &ops);

} // namespace tisa::amx::detail

#endif // TISA_TARGETS_X86_AMXEMULATOR_HOSTFLOAT_H
