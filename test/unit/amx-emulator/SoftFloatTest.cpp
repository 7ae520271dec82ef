//===- SoftFloatTest.cpp - emulator soft-float against the host FPU -------===//
//
// The emulator's integer fp32 FMA must agree bit for bit with the host's
// vfmadd under MXCSR DAZ|FTZ|RNE, which is how the SDM defines the steps of
// TDPBF16PS and TDPFP16PS. Random bit patterns cover NaN/inf/denormal
// operands; constructed operands cover cancellation, the underflow boundary
// (tininess after rounding) and overflow.
//
//===----------------------------------------------------------------------===//

#include "HostFloat.h"
#include "ScalarReference.h"
#include "SoftFloat.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <random>

using namespace tisa::amx;

namespace {

std::string hex3(uint32_t a, uint32_t b, uint32_t c) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "a=%08x b=%08x c=%08x", a, b, c);
  return buf;
}

class SoftFloatTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!test::hostHasFMA())
      GTEST_SKIP() << "the host reference needs FMA3";
  }

  /// Compares one FMA; returns false (and reports) on the first mismatch so
  /// a broken build does not print a million lines.
  bool checkFma(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t got = detail::fmaF32DazFtz(a, b, c);
    uint32_t want = test::hostFmaDazFtz(a, b, c);
    EXPECT_EQ(got, want) << hex3(a, b, c);
    return got == want;
  }
};

uint32_t makeFloat(bool negative, int biasedExp, uint32_t frac) {
  return (negative ? 0x80000000u : 0u) | uint32_t(biasedExp) << 23 |
         (frac & 0x7FFFFFu);
}

TEST_F(SoftFloatTest, RandomBitPatterns) {
  std::mt19937 rng(0xA3C5u);
  for (int i = 0; i < 300000; ++i)
    if (!checkFma(rng(), rng(), rng()))
      return;
}

TEST_F(SoftFloatTest, NearbyExponentsAndCancellation) {
  std::mt19937 rng(0x5EEDu);
  std::uniform_int_distribution<int> exp(100, 154);
  for (int i = 0; i < 300000; ++i) {
    uint32_t a = makeFloat(rng() & 1, exp(rng), rng());
    uint32_t b = makeFloat(rng() & 1, exp(rng), rng());
    // c close to -(a*b): nearly everything cancels.
    uint32_t p = test::hostFmaDazFtz(a, b, 0);
    uint32_t c = (p ^ 0x80000000u) + int32_t(rng() % 9) - 4;
    if (i % 2)
      c = makeFloat(rng() & 1, exp(rng), rng());
    if (!checkFma(a, b, c))
      return;
  }
}

TEST_F(SoftFloatTest, UnderflowBoundary) {
  std::mt19937 rng(0xF12u);
  // Products and sums around 2^-126, where DAZ, FTZ and the point at which
  // tininess is detected decide the result.
  std::uniform_int_distribution<int> exp(1, 70);
  for (int i = 0; i < 300000; ++i) {
    int ea = exp(rng);
    uint32_t a = makeFloat(rng() & 1, ea, rng());
    uint32_t b = makeFloat(rng() & 1, 128 - ea + int(rng() % 5) - 2, rng());
    uint32_t c = (i % 3 == 0) ? makeFloat(rng() & 1, 1 + rng() % 3, rng())
                              : (i % 3 == 1 ? rng() & 0x807FFFFFu : 0u);
    if (!checkFma(a, b, c))
      return;
  }
  // Exact result just below 2^-126 that rounds up to it: x86 detects
  // tininess after rounding, so this is 2^-126, not a flushed zero.
  EXPECT_EQ(detail::fmaF32DazFtz(0x3F7FFFFFu, 0x01000001u, 0x80800001u),
            0x00800000u);
  // An exact denormal result is still flushed.
  EXPECT_EQ(detail::fmaF32DazFtz(0x20000000u, 0x1F800000u, 0u), 0u);
}

TEST_F(SoftFloatTest, Overflow) {
  std::mt19937 rng(0x0F10u);
  std::uniform_int_distribution<int> exp(190, 254);
  for (int i = 0; i < 100000; ++i) {
    int ea = exp(rng);
    uint32_t a = makeFloat(rng() & 1, ea, rng());
    uint32_t b =
        makeFloat(rng() & 1, 254 - ea + 127 + int(rng() % 3) - 1, rng());
    uint32_t c = makeFloat(rng() & 1, 250 + rng() % 5, rng());
    if (!checkFma(a, b, c))
      return;
  }
}

TEST_F(SoftFloatTest, Add) {
  std::mt19937 rng(0xADDu);
  for (int i = 0; i < 200000; ++i) {
    uint32_t a = rng(), b = i % 2 ? rng() : (a ^ 0x80000000u) + rng() % 5;
    uint32_t got = detail::addF32DazFtz(a, b);
    uint32_t want = test::hostAddDazFtz(a, b);
    ASSERT_EQ(got, want) << hex3(a, b, 0);
  }
}

TEST_F(SoftFloatTest, SpecialValues) {
  const uint32_t specials[] = {
      0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000,
      0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
      0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF, 0x7FC12345, 0x33800000};
  for (uint32_t a : specials)
    for (uint32_t b : specials)
      for (uint32_t c : specials)
        if (!checkFma(a, b, c))
          return;
}

TEST(SoftFloatConversion, HalfToFloatIsExactForEveryPattern) {
  for (uint32_t h = 0; h < 0x10000; ++h)
    ASSERT_EQ(detail::fp16ToF32(uint16_t(h)),
              test::halfToFloatBits(uint16_t(h)))
        << std::hex << h;
}

TEST(SoftFloatConversion, BF16IsTheUpperHalf) {
  EXPECT_EQ(detail::bf16ToF32(0x3F80), 0x3F800000u);
  EXPECT_EQ(detail::bf16ToF32(0x0001), 0x00010000u); // a denormal, kept
  EXPECT_EQ(detail::bf16ToF32(0xFF81), 0xFF810000u); // a NaN, kept
}

/// The soft-float's steps for one pair dot product: what pairSumsOnHost must
/// give, bit for bit.
void softPairSums(detail::PairOperands &ops) {
  for (unsigned m = 0; m < ops.rows; ++m)
    for (unsigned n = 0; n < ops.columns; ++n) {
      uint32_t even = 0, odd = 0;
      for (unsigned k = 0; k < ops.steps; ++k) {
        even = detail::fmaF32DazFtz(ops.aEven[m][k], ops.bEven[k][n], even);
        odd = detail::fmaF32DazFtz(ops.aOdd[m][k], ops.bOdd[k][n], odd);
      }
      ops.even[m][n] = even;
      ops.odd[m][n] = odd;
      ops.c[m][n] =
          detail::addF32DazFtz(ops.c[m][n], detail::addF32DazFtz(even, odd));
    }
}

/// bf16 operands (widened) of one exponent range, random signs and
/// fractions; C finite, a denormal now and then.
detail::PairOperands randomPairs(std::mt19937 &rng, int lowExp, int highExp) {
  std::uniform_int_distribution<int> exp(lowExp, highExp);
  auto bf16 = [&] {
    uint32_t x = makeFloat(rng() & 1, exp(rng), rng()) & 0xFFFF0000u;
    return rng() % 16 ? x : x & 0x807F0000u; // a denormal: read as zero
  };
  detail::PairOperands ops;
  ops.rows = 1 + rng() % detail::kPairRows;
  ops.steps = 1 + rng() % detail::kPairSteps;
  ops.columns = 1 + rng() % detail::kPairColumns;
  for (unsigned m = 0; m < detail::kPairRows; ++m)
    for (unsigned k = 0; k < detail::kPairSteps; ++k) {
      ops.aEven[m][k] = bf16();
      ops.aOdd[m][k] = bf16();
    }
  for (unsigned k = 0; k < detail::kPairSteps; ++k)
    for (unsigned n = 0; n < detail::kPairColumns; ++n) {
      bool used = n < ops.columns;
      ops.bEven[k][n] = used ? bf16() : 0;
      ops.bOdd[k][n] = used ? bf16() : 0;
    }
  for (unsigned m = 0; m < detail::kPairRows; ++m)
    for (unsigned n = 0; n < detail::kPairColumns; ++n)
      ops.c[m][n] = rng() % 8 ? makeFloat(rng() & 1, exp(rng), rng())
                              : rng() & 0x807FFFFFu;
  return ops;
}

// The emulator's fast path (the accumulators on the host's FMA, vectorized)
// against the soft-float it stands in for, on operands with no NaN or
// infinity (the only ones it takes): ordinary magnitudes, sums that
// underflow (DAZ, FTZ) and sums that overflow to infinity and then meet the
// other sign (the default NaN).
TEST(HostPairSums, AgreeWithTheSoftFloatBitForBit) {
  if (!detail::hostHasFma())
    GTEST_SKIP() << "the host has no FMA unit: the emulator uses the "
                    "soft-float alone";
  std::mt19937 rng(0xB16u);
  struct Range {
    int low, high;
  } ranges[] = {{110, 140}, {1, 70}, {200, 254}, {1, 254}};
  for (Range r : ranges)
    for (int i = 0; i < 300; ++i) {
      detail::PairOperands host = randomPairs(rng, r.low, r.high);
      detail::PairOperands soft = host;
      detail::pairSumsOnHost(host);
      softPairSums(soft);
      for (unsigned m = 0; m < host.rows; ++m)
        for (unsigned n = 0; n < host.columns; ++n) {
          ASSERT_EQ(host.even[m][n], soft.even[m][n])
              << "exponents " << r.low << ".." << r.high << ", row " << m
              << ", column " << n;
          ASSERT_EQ(host.odd[m][n], soft.odd[m][n]);
          ASSERT_EQ(host.c[m][n], soft.c[m][n]);
        }
    }
}

} // namespace
