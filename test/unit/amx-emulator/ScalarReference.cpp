//===- ScalarReference.cpp - scalar model of the AMX dot products ---------===//
//
// Compiled with -mfma so std::fma is the host's vfmadd instruction, which
// honours MXCSR.DAZ and MXCSR.FTZ. FENV_ACCESS keeps the compiler from moving
// float operations across the MXCSR changes.
//
//===----------------------------------------------------------------------===//

#include "ScalarReference.h"

#include <cmath>
#include <cstring>
#include <vector>
#include <xmmintrin.h>

#pragma STDC FENV_ACCESS ON

namespace tisa::amx::test {
namespace {

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
uint32_t toBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
bool isNaNBits(uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }
uint32_t quiet(uint32_t u) { return u | 0x00400000u; }

/// MXCSR with all exceptions masked, DAZ, FTZ and round to nearest, for the
/// lifetime of the object.
class DazFtzScope {
public:
  DazFtzScope() : saved(_mm_getcsr()) { _mm_setcsr(0x1F80u | 0x40u | 0x8000u); }
  ~DazFtzScope() { _mm_setcsr(saved); }

private:
  unsigned saved;
};

__attribute__((noinline)) uint32_t fmaInScope(uint32_t a, uint32_t b,
                                              uint32_t c) {
  if (isNaNBits(a))
    return quiet(a);
  if (isNaNBits(b))
    return quiet(b);
  if (isNaNBits(c))
    return quiet(c);
  return toBits(std::fma(fromBits(a), fromBits(b), fromBits(c)));
}

__attribute__((noinline)) uint32_t addInScope(uint32_t a, uint32_t b) {
  if (isNaNBits(a))
    return quiet(a);
  if (isNaNBits(b))
    return quiet(b);
  return toBits(fromBits(a) + fromBits(b));
}

uint16_t load16(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

int64_t byteValue(uint8_t v, bool isSigned) {
  return isSigned ? int64_t(int8_t(v)) : int64_t(v);
}

void referenceInt8(bool aSigned, bool bSigned, int m, int kBytes, int nBytes,
                   const uint8_t *a, long strideA, const uint8_t *b,
                   long strideB, uint8_t *c, long strideC) {
  for (int i = 0; i < m; ++i) {
    for (int n = 0; n < nBytes / 4; ++n) {
      int64_t sum = 0;
      for (int kk = 0; kk < kBytes; ++kk) {
        // A element kk pairs with byte kk % 4 of dword n in B row kk / 4.
        uint8_t av = a[i * strideA + kk];
        uint8_t bv = b[(kk / 4) * strideB + 4 * n + kk % 4];
        sum += byteValue(av, aSigned) * byteValue(bv, bSigned);
      }
      uint8_t *cp = c + i * strideC + 4 * n;
      int32_t old;
      std::memcpy(&old, cp, 4);
      // Wrap once, at the end: the same value modulo 2^32.
      uint32_t result = uint32_t(uint64_t(int64_t(old) + sum));
      std::memcpy(cp, &result, 4);
    }
  }
}

void referencePairs(bool isBF16, int m, int kBytes, int nBytes,
                    const uint8_t *a, long strideA, const uint8_t *b,
                    long strideB, uint8_t *c, long strideC) {
  auto widen = [&](uint16_t v) -> uint32_t {
    return isBF16 ? uint32_t(v) << 16 : halfToFloatBits(v);
  };
  int pairs = kBytes / 4, nOut = nBytes / 4;
  // Widen outside the DAZ scope: fp16 denormals must survive as values.
  std::vector<uint32_t> wa(size_t(m) * pairs * 2), wb(size_t(pairs) * nOut * 2);
  for (int i = 0; i < m; ++i)
    for (int e = 0; e < 2 * pairs; ++e)
      wa[size_t(i) * 2 * pairs + e] = widen(load16(a + i * strideA + 2 * e));
  for (int k = 0; k < pairs; ++k)
    for (int e = 0; e < 2 * nOut; ++e)
      wb[size_t(k) * 2 * nOut + e] = widen(load16(b + k * strideB + 2 * e));

  DazFtzScope scope;
  for (int i = 0; i < m; ++i) {
    // SDM: even and odd products go to separate accumulators starting at
    // +0, then even + odd is added to C.
    std::vector<uint32_t> even(nOut, 0), odd(nOut, 0);
    for (int k = 0; k < pairs; ++k) {
      const uint32_t *ap = &wa[size_t(i) * 2 * pairs + 2 * k];
      const uint32_t *bp = &wb[size_t(k) * 2 * nOut];
      for (int n = 0; n < nOut; ++n) {
        even[n] = fmaInScope(ap[0], bp[2 * n], even[n]);
        odd[n] = fmaInScope(ap[1], bp[2 * n + 1], odd[n]);
      }
    }
    for (int n = 0; n < nOut; ++n) {
      uint8_t *cp = c + i * strideC + 4 * n;
      uint32_t result = addInScope(load32(cp), addInScope(even[n], odd[n]));
      std::memcpy(cp, &result, 4);
    }
  }
}

} // namespace

uint32_t halfToFloatBits(uint16_t h) {
  bool negative = h & 0x8000u;
  int exp = (h >> 10) & 0x1F;
  int mant = h & 0x3FF;
  if (exp == 0x1F) // inf or NaN, payload in the top fraction bits
    return (negative ? 0x80000000u : 0u) | 0x7F800000u | uint32_t(mant) << 13;
  float v = exp == 0 ? std::ldexp(float(mant), -24)
                     : std::ldexp(float(mant | 0x400), exp - 25);
  return toBits(negative ? -v : v);
}

uint32_t hostFmaDazFtz(uint32_t a, uint32_t b, uint32_t c) {
  DazFtzScope scope;
  return fmaInScope(a, b, c);
}

uint32_t hostAddDazFtz(uint32_t a, uint32_t b) {
  DazFtzScope scope;
  return addInScope(a, b);
}

bool hostHasFMA() { return __builtin_cpu_supports("fma"); }

void referenceDotProduct(DotKind kind, int m, int kBytes, int nBytes,
                         const uint8_t *a, long strideA, const uint8_t *b,
                         long strideB, uint8_t *c, long strideC) {
  switch (kind) {
  case DotKind::Tdpbssd:
    return referenceInt8(true, true, m, kBytes, nBytes, a, strideA, b, strideB,
                         c, strideC);
  case DotKind::Tdpbsud:
    return referenceInt8(true, false, m, kBytes, nBytes, a, strideA, b, strideB,
                         c, strideC);
  case DotKind::Tdpbusd:
    return referenceInt8(false, true, m, kBytes, nBytes, a, strideA, b, strideB,
                         c, strideC);
  case DotKind::Tdpbuud:
    return referenceInt8(false, false, m, kBytes, nBytes, a, strideA, b,
                         strideB, c, strideC);
  case DotKind::Tdpbf16ps:
    return referencePairs(true, m, kBytes, nBytes, a, strideA, b, strideB, c,
                          strideC);
  case DotKind::Tdpfp16ps:
    return referencePairs(false, m, kBytes, nBytes, a, strideA, b, strideB, c,
                          strideC);
  }
}

} // namespace tisa::amx::test
