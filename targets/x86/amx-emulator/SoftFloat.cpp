//===- SoftFloat.cpp - fp32 arithmetic of the AMX dot products ------------===//
//
// A value is handled as sig * 2^exp with an integer significand. The exact
// product of two fp32 significands has at most 48 bits, so a*b+c fits a
// 64-bit window with room for guard bits; bits shifted out of the window are
// jammed into bit 0, which keeps the round-to-nearest-even decision exact
// because the rounding position is always far above bit 0.
//
//===----------------------------------------------------------------------===//

#include "SoftFloat.h"

namespace tisa::amx::detail {
namespace {

constexpr uint32_t kSignMask = 0x80000000u;
constexpr uint32_t kExpMask = 0x7F800000u;
constexpr uint32_t kFracMask = 0x007FFFFFu;
constexpr uint32_t kQuietBit = 0x00400000u;
constexpr uint32_t kOne = 0x3F800000u;
constexpr int kBias = 127;
constexpr int kFracBits = 23;

bool isNaN(uint32_t x) { return (x & kExpMask) == kExpMask && (x & kFracMask); }
bool isInf(uint32_t x) { return (x & ~kSignMask) == kExpMask; }
bool isZero(uint32_t x) { return (x & ~kSignMask) == 0; }
bool signOf(uint32_t x) { return (x & kSignMask) != 0; }
uint32_t signBits(bool negative) { return negative ? kSignMask : 0; }

/// Denormals-are-zero: a denormal reads as zero of the same sign.
uint32_t daz(uint32_t x) { return (x & kExpMask) == 0 ? (x & kSignMask) : x; }

/// A finite non-zero value sig * 2^exp.
struct Unpacked {
  uint64_t sig;
  int32_t exp;
};

/// Only called on normal numbers: DAZ has already removed the denormals.
Unpacked unpackNormal(uint32_t x) {
  int32_t biased = int32_t((x & kExpMask) >> kFracBits);
  return {uint64_t((x & kFracMask) | (kFracMask + 1)),
          biased - kBias - kFracBits};
}

uint64_t shiftRightJam(uint64_t x, int64_t n) {
  if (n <= 0)
    return x;
  if (n >= 64)
    return x != 0;
  return (x >> n) | uint64_t((x & ((uint64_t(1) << n) - 1)) != 0);
}

/// Rounds (-1)^negative * sig * 2^exp (sig != 0) to fp32: nearest even,
/// tininess after rounding, tiny results flushed to zero (FTZ), overflow to
/// infinity.
uint32_t roundPack(bool negative, uint64_t sig, int64_t exp) {
  int lz = __builtin_clzll(sig);
  sig <<= lz;
  exp -= lz;
  // Leading bit at 63: keep 24 bits, round on the 40 below.
  uint64_t keep = sig >> 40;
  uint64_t rest = sig & ((uint64_t(1) << 40) - 1);
  const uint64_t half = uint64_t(1) << 39;
  int64_t lead = exp + 63; // unbiased exponent of the leading bit
  if (rest > half || (rest == half && (keep & 1))) {
    ++keep;
    if (keep == (uint64_t(1) << 24)) {
      keep >>= 1;
      ++lead;
    }
  }
  if (lead < 1 - kBias)
    return signBits(negative);
  if (lead > kBias)
    return signBits(negative) | kExpMask;
  return signBits(negative) | (uint32_t(lead + kBias) << kFracBits) |
         (uint32_t(keep) & kFracMask);
}

} // namespace

uint32_t fmaF32DazFtz(uint32_t a, uint32_t b, uint32_t c) {
  if (isNaN(a))
    return a | kQuietBit;
  if (isNaN(b))
    return b | kQuietBit;
  if (isNaN(c))
    return c | kQuietBit;
  a = daz(a);
  b = daz(b);
  c = daz(c);
  bool negP = signOf(a) != signOf(b);
  bool negC = signOf(c);

  if (isInf(a) || isInf(b)) {
    if (isZero(a) || isZero(b))
      return kDefaultNaN; // inf * 0
    if (isInf(c) && negC != negP)
      return kDefaultNaN; // inf - inf
    return signBits(negP) | kExpMask;
  }
  if (isInf(c))
    return c;
  if (isZero(a) || isZero(b)) {
    // Exact zero product: c is unchanged, and the sum of two zeros is -0
    // only when both are -0 (round to nearest).
    if (isZero(c))
      return signBits(negP && negC);
    return c;
  }

  Unpacked ua = unpackNormal(a), ub = unpackNormal(b);
  uint64_t sigP = ua.sig * ub.sig; // < 2^48, exact
  int64_t expP = int64_t(ua.exp) + ub.exp;
  if (isZero(c))
    return roundPack(negP, sigP, expP);

  Unpacked uc = unpackNormal(c);
  uint64_t sigC = uc.sig;
  int64_t expC = uc.exp;
  // Both leading bits at 61: the sum cannot carry out of 64 bits and the
  // smaller operand keeps every bit unless the exponents differ by 2 or more,
  // in which case at most one bit cancels.
  int shP = __builtin_clzll(sigP) - 2;
  sigP <<= shP;
  expP -= shP;
  int shC = __builtin_clzll(sigC) - 2;
  sigC <<= shC;
  expC -= shC;
  int64_t exp;
  if (expP >= expC) {
    sigC = shiftRightJam(sigC, expP - expC);
    exp = expP;
  } else {
    sigP = shiftRightJam(sigP, expC - expP);
    exp = expC;
  }
  if (negP == negC)
    return roundPack(negP, sigP + sigC, exp);
  if (sigP == sigC)
    return 0; // exact cancellation is +0 under round to nearest
  if (sigP > sigC)
    return roundPack(negP, sigP - sigC, exp);
  return roundPack(negC, sigC - sigP, exp);
}

uint32_t addF32DazFtz(uint32_t a, uint32_t b) {
  // a * 1 + b is exact in the product and keeps the NaN order a, b.
  return fmaF32DazFtz(a, kOne, b);
}

uint32_t fp16ToF32(uint16_t x) {
  uint32_t sign = uint32_t(x & 0x8000u) << 16;
  uint32_t exp = (x >> 10) & 0x1Fu;
  uint32_t mant = x & 0x3FFu;
  if (exp == 0x1F)
    return sign | kExpMask | (mant << 13);
  if (exp != 0)
    return sign | ((exp - 15 + kBias) << kFracBits) | (mant << 13);
  if (mant == 0)
    return sign;
  // Denormal: mant * 2^-24 with the leading one at bit `msb`.
  int msb = 31 - __builtin_clz(mant);
  return sign | (uint32_t(msb - 24 + kBias) << kFracBits) |
         ((mant << (kFracBits - msb)) & kFracMask);
}

} // namespace tisa::amx::detail
