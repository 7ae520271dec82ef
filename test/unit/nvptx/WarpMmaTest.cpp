//===- WarpMmaTest.cpp - tests of the mma.sync CPU reference --------------===//
//
// The fragment tables are checked two ways: each is a bijection onto its
// matrix, and each agrees with a second, register-oriented reading of the PTX
// figures written independently here. warpMma is checked against a plain
// matrix product whose arithmetic is done in software by APFloat (so neither
// the host FPU nor the compiler's contraction choices matter), on random data
// with fixed seeds and on edge values.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/WarpMma.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tisa::nvptx;
using llvm::APFloat;
using llvm::APInt;

namespace {

constexpr MmaShape kAllShapes[] = {MmaShape::M16N8K16_F16_F32,
                                   MmaShape::M16N8K16_BF16_F32,
                                   MmaShape::M16N8K32_S8_S32};

std::string name(MmaShape shape) { return ptxMnemonic(shape).str(); }

/// One operand's matrix geometry and fragment size.
struct Operand {
  char which;
  unsigned rows, cols, perLane;
};

std::vector<Operand> operandsOf(MmaShape shape) {
  MmaDims dims = mmaDims(shape);
  FragmentSizes sizes = fragmentSizes(shape);
  return {{'a', dims.m, dims.k, sizes.a},
          {'b', dims.k, dims.n, sizes.b},
          {'c', dims.m, dims.n, sizes.c}};
}

Operand operand(MmaShape shape, char which) {
  for (const Operand &op : operandsOf(shape))
    if (op.which == which)
      return op;
  return {};
}

/// Row-major matrix of raw element bits.
using Matrix = std::vector<uint32_t>;

/// The test's own packing: the inverse of fragmentCoord.
std::vector<uint32_t> pack(MmaShape shape, char which, const Matrix &matrix) {
  Operand op = operand(shape, which);
  std::vector<uint32_t> fragment(kWarpSize * op.perLane);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < op.perLane; ++i) {
      auto [row, col] = fragmentCoord(shape, which, lane, i);
      fragment[lane * op.perLane + i] = matrix[row * op.cols + col];
    }
  return fragment;
}

Matrix unpackD(MmaShape shape, const std::vector<uint32_t> &fragment) {
  Operand op = operand(shape, 'c');
  Matrix matrix(op.rows * op.cols);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < op.perLane; ++i) {
      auto [row, col] = fragmentCoord(shape, 'c', lane, i);
      matrix[row * op.cols + col] = fragment[lane * op.perLane + i];
    }
  return matrix;
}

//===----------------------------------------------------------------------===//
// Plain matrix reference
//===----------------------------------------------------------------------===//

APFloat multiplicandToF32(MmaShape shape, uint32_t bits) {
  const llvm::fltSemantics &semantics = shape == MmaShape::M16N8K16_F16_F32
                                            ? APFloat::IEEEhalf()
                                            : APFloat::BFloat();
  APFloat value(semantics, APInt(16, bits));
  bool losesInfo = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  // Widening is exact; only a signalling NaN changes (it is quietened).
  EXPECT_TRUE(value.isNaN() || !losesInfo) << "16-bit floats widen exactly";
  return value;
}

/// D = A * B + C: fp32 products rounded to nearest even, added to C in
/// ascending k, each add rounded to nearest even (the project's model).
Matrix referenceMma(MmaShape shape, const Matrix &a, const Matrix &b,
                    const Matrix &c) {
  MmaDims dims = mmaDims(shape);
  Matrix d(dims.m * dims.n);
  for (unsigned m = 0; m < dims.m; ++m)
    for (unsigned n = 0; n < dims.n; ++n) {
      if (shape == MmaShape::M16N8K32_S8_S32) {
        int64_t exact = static_cast<int32_t>(c[m * dims.n + n]);
        for (unsigned k = 0; k < dims.k; ++k)
          exact += int64_t(static_cast<int8_t>(a[m * dims.k + k])) *
                   int64_t(static_cast<int8_t>(b[k * dims.n + n]));
        d[m * dims.n + n] = static_cast<uint32_t>(exact); // mod 2^32
        continue;
      }
      APFloat acc(APFloat::IEEEsingle(), APInt(32, c[m * dims.n + n]));
      for (unsigned k = 0; k < dims.k; ++k) {
        APFloat product = multiplicandToF32(shape, a[m * dims.k + k]);
        product.multiply(multiplicandToF32(shape, b[k * dims.n + n]),
                         APFloat::rmNearestTiesToEven);
        acc.add(product, APFloat::rmNearestTiesToEven);
      }
      d[m * dims.n + n] = acc.bitcastToAPInt().getZExtValue();
    }
  return d;
}

bool isF32NaN(uint32_t bits) {
  return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0;
}

/// Runs warpMma on matrices packed by the test and compares with the
/// reference: integers and non-NaN floats bit-exactly, NaNs by NaN-ness.
/// Returns the D matrix warpMma produced.
Matrix checkAgainstReference(MmaShape shape, const Matrix &a, const Matrix &b,
                             const Matrix &c, const std::string &what) {
  std::vector<uint32_t> d = warpMma(shape, pack(shape, 'a', a),
                                    pack(shape, 'b', b), pack(shape, 'c', c));
  EXPECT_EQ(d.size(), kWarpSize * fragmentSizes(shape).c);
  Matrix got = unpackD(shape, d);
  Matrix want = referenceMma(shape, a, b, c);
  MmaDims dims = mmaDims(shape);
  bool isFloat = shape != MmaShape::M16N8K32_S8_S32;
  unsigned mismatches = 0;
  for (unsigned idx = 0; idx < want.size() && mismatches < 8; ++idx) {
    bool ok = isFloat && isF32NaN(want[idx]) ? isF32NaN(got[idx])
                                             : got[idx] == want[idx];
    if (!ok) {
      ++mismatches;
      ADD_FAILURE() << name(shape) << " " << what << ": D[" << idx / dims.n
                    << "][" << idx % dims.n << "] = 0x" << std::hex << got[idx]
                    << ", reference 0x" << want[idx];
    }
  }
  return got;
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

constexpr uint32_t kSeed = 20240611;

/// Finite f16 with any exponent (products and sums stay finite in fp32).
uint32_t randomFiniteF16(std::mt19937 &rng) {
  for (;;) {
    uint32_t bits = rng() & 0xffff;
    if (((bits >> 10) & 0x1f) != 0x1f)
      return bits;
  }
}

/// bf16 within 2^-20..2^20 in magnitude, so nothing over- or underflows.
uint32_t randomModerateBF16(std::mt19937 &rng) {
  uint32_t sign = rng() & 1;
  uint32_t exponent = 127 - 20 + rng() % 41;
  return (sign << 15) | (exponent << 7) | (rng() & 0x7f);
}

/// Any fp32 in +-2^-10..2^10, or zero.
uint32_t randomModerateF32(std::mt19937 &rng) {
  if (rng() % 16 == 0)
    return 0;
  uint32_t sign = rng() & 1;
  uint32_t exponent = 127 - 10 + rng() % 21;
  return (sign << 31) | (exponent << 23) | (rng() & 0x7fffff);
}

template <typename Gen>
Matrix fill(unsigned count, std::mt19937 &rng, Gen gen) {
  Matrix m(count);
  for (uint32_t &x : m)
    x = gen(rng);
  return m;
}

template <typename T>
Matrix pickFrom(unsigned count, std::mt19937 &rng,
                const std::vector<T> &values) {
  Matrix m(count);
  for (uint32_t &x : m)
    x = static_cast<uint32_t>(values[rng() % values.size()]);
  return m;
}

//===----------------------------------------------------------------------===//
// Fragment tables
//===----------------------------------------------------------------------===//

TEST(WarpMmaFragments, SizesMatchThePtxRegisterCounts) {
  // f16/bf16: A four .f16x2, B two .f16x2, C/D four .f32.
  for (MmaShape shape :
       {MmaShape::M16N8K16_F16_F32, MmaShape::M16N8K16_BF16_F32}) {
    FragmentSizes sizes = fragmentSizes(shape);
    EXPECT_EQ(sizes.a, 8u);
    EXPECT_EQ(sizes.b, 4u);
    EXPECT_EQ(sizes.c, 4u);
    EXPECT_EQ(multiplicandBits(shape), 16u);
  }
  // s8: A four .b32 of four bytes, B two .b32, C/D four .s32.
  FragmentSizes sizes = fragmentSizes(MmaShape::M16N8K32_S8_S32);
  EXPECT_EQ(sizes.a, 16u);
  EXPECT_EQ(sizes.b, 8u);
  EXPECT_EQ(sizes.c, 4u);
  EXPECT_EQ(multiplicandBits(MmaShape::M16N8K32_S8_S32), 8u);
}

TEST(WarpMmaFragments, EveryTableIsABijectionOntoItsMatrix) {
  for (MmaShape shape : kAllShapes)
    for (const Operand &op : operandsOf(shape)) {
      SCOPED_TRACE(name(shape) + " operand " + op.which);
      ASSERT_EQ(kWarpSize * op.perLane, op.rows * op.cols);
      std::vector<int> owner(op.rows * op.cols, -1);
      for (unsigned lane = 0; lane < kWarpSize; ++lane)
        for (unsigned i = 0; i < op.perLane; ++i) {
          auto [row, col] = fragmentCoord(shape, op.which, lane, i);
          ASSERT_LT(row, op.rows) << "lane " << lane << " element " << i;
          ASSERT_LT(col, op.cols) << "lane " << lane << " element " << i;
          int &slot = owner[row * op.cols + col];
          EXPECT_EQ(slot, -1)
              << "(" << row << ", " << col << ") held twice, again by lane "
              << lane << " element " << i;
          slot = static_cast<int>(lane * op.perLane + i);
        }
      for (unsigned idx = 0; idx < owner.size(); ++idx)
        EXPECT_NE(owner[idx], -1) << "(" << idx / op.cols << ", "
                                  << idx % op.cols << ") held by no lane";
    }
}

/// A second reading of the PTX figures, by register: with g = lane / 4,
/// t = lane % 4, register r of a fragment and byte/half j within it,
///   f16/bf16 A: row g + 8 * (r & 1), col 2t + j + 8 * (r >> 1)
///   f16/bf16 B: row 2t + j + 8r, col g
///   s8 A:       row g + 8 * (r & 1), col 4t + j + 16 * (r >> 1)
///   s8 B:       row 4t + j + 16r, col g
///   C/D:        row g + 8 * (i >> 1), col 2t + (i & 1)
std::pair<unsigned, unsigned> byRegister(MmaShape shape, char which,
                                         unsigned lane, unsigned i) {
  unsigned g = lane / 4, t = lane % 4;
  if (which == 'c')
    return {g + 8 * (i >> 1), 2 * t + (i & 1)};
  unsigned perRegister = 32 / multiplicandBits(shape);
  unsigned r = i / perRegister, j = i % perRegister;
  unsigned kStep = perRegister * 4; // k covered by one register across a quad
  if (which == 'a')
    return {g + 8 * (r & 1), perRegister * t + j + kStep * (r >> 1)};
  return {perRegister * t + j + kStep * r, g};
}

TEST(WarpMmaFragments, AgreesWithARegisterReadingOfThePtxFigures) {
  for (MmaShape shape : kAllShapes)
    for (const Operand &op : operandsOf(shape))
      for (unsigned lane = 0; lane < kWarpSize; ++lane)
        for (unsigned i = 0; i < op.perLane; ++i)
          EXPECT_EQ(fragmentCoord(shape, op.which, lane, i),
                    byRegister(shape, op.which, lane, i))
              << name(shape) << " " << op.which << " lane " << lane
              << " element " << i;
}

TEST(WarpMmaFragments, SpotValuesFromThePtxFigures) {
  using P = std::pair<unsigned, unsigned>;
  MmaShape f16 = MmaShape::M16N8K16_F16_F32;
  // Figure "MMA .m16n8k16 fragment layout for matrix A with .f16/.bf16":
  // T0 holds a0,a1 at (0,0),(0,1); a2,a3 at (8,0),(8,1); a4..a7 at col + 8.
  EXPECT_EQ(fragmentCoord(f16, 'a', 0, 0), P(0, 0));
  EXPECT_EQ(fragmentCoord(f16, 'a', 0, 1), P(0, 1));
  EXPECT_EQ(fragmentCoord(f16, 'a', 0, 2), P(8, 0));
  EXPECT_EQ(fragmentCoord(f16, 'a', 0, 4), P(0, 8));
  EXPECT_EQ(fragmentCoord(f16, 'a', 0, 7), P(8, 9));
  EXPECT_EQ(fragmentCoord(f16, 'a', 31, 7), P(15, 15));
  EXPECT_EQ(fragmentCoord(f16, 'a', 5, 0), P(1, 2));
  // B: T0 b0,b1 at rows 0,1 and b2,b3 at rows 8,9 of column 0.
  EXPECT_EQ(fragmentCoord(f16, 'b', 0, 1), P(1, 0));
  EXPECT_EQ(fragmentCoord(f16, 'b', 0, 2), P(8, 0));
  EXPECT_EQ(fragmentCoord(f16, 'b', 31, 3), P(15, 7));
  // C/D: T0 c0,c1 at (0,0),(0,1), c2,c3 at (8,0),(8,1).
  EXPECT_EQ(fragmentCoord(f16, 'c', 0, 2), P(8, 0));
  EXPECT_EQ(fragmentCoord(f16, 'c', 31, 3), P(15, 7));

  MmaShape s8 = MmaShape::M16N8K32_S8_S32;
  // A: T0 a0..a3 (0,0..3), a4..a7 (8,0..3), a8..a11 (0,16..19),
  // a12..a15 (8,16..19).
  EXPECT_EQ(fragmentCoord(s8, 'a', 0, 3), P(0, 3));
  EXPECT_EQ(fragmentCoord(s8, 'a', 0, 4), P(8, 0));
  EXPECT_EQ(fragmentCoord(s8, 'a', 0, 8), P(0, 16));
  EXPECT_EQ(fragmentCoord(s8, 'a', 0, 15), P(8, 19));
  EXPECT_EQ(fragmentCoord(s8, 'a', 31, 15), P(15, 31));
  // B: T0 b0..b3 rows 0..3, b4..b7 rows 16..19 of column 0.
  EXPECT_EQ(fragmentCoord(s8, 'b', 0, 3), P(3, 0));
  EXPECT_EQ(fragmentCoord(s8, 'b', 0, 4), P(16, 0));
  EXPECT_EQ(fragmentCoord(s8, 'b', 31, 7), P(31, 7));
  EXPECT_EQ(fragmentCoord(s8, 'c', 6, 1), P(1, 5));
}

//===----------------------------------------------------------------------===//
// warpMma against the plain reference
//===----------------------------------------------------------------------===//

TEST(WarpMma, F16RandomMatchesReference) {
  MmaShape shape = MmaShape::M16N8K16_F16_F32;
  MmaDims dims = mmaDims(shape);
  std::mt19937 rng(kSeed);
  for (unsigned round = 0; round < 20; ++round) {
    Matrix a = fill(dims.m * dims.k, rng, randomFiniteF16);
    Matrix b = fill(dims.k * dims.n, rng, randomFiniteF16);
    Matrix c = fill(dims.m * dims.n, rng, randomModerateF32);
    checkAgainstReference(shape, a, b, c, "round " + std::to_string(round));
  }
}

TEST(WarpMma, BF16RandomMatchesReference) {
  MmaShape shape = MmaShape::M16N8K16_BF16_F32;
  MmaDims dims = mmaDims(shape);
  std::mt19937 rng(kSeed + 1);
  for (unsigned round = 0; round < 20; ++round) {
    Matrix a = fill(dims.m * dims.k, rng, randomModerateBF16);
    Matrix b = fill(dims.k * dims.n, rng, randomModerateBF16);
    Matrix c = fill(dims.m * dims.n, rng, randomModerateF32);
    checkAgainstReference(shape, a, b, c, "round " + std::to_string(round));
  }
  // Unrestricted bit patterns: products over- and underflow fp32, inf, NaN.
  for (unsigned round = 0; round < 20; ++round) {
    auto anyBits = [](std::mt19937 &r) { return uint32_t(r() & 0xffff); };
    Matrix a = fill(dims.m * dims.k, rng, anyBits);
    Matrix b = fill(dims.k * dims.n, rng, anyBits);
    Matrix c = fill(dims.m * dims.n, rng, randomModerateF32);
    checkAgainstReference(shape, a, b, c,
                          "any-bits round " + std::to_string(round));
  }
}

TEST(WarpMma, S8RandomMatchesReference) {
  MmaShape shape = MmaShape::M16N8K32_S8_S32;
  MmaDims dims = mmaDims(shape);
  std::mt19937 rng(kSeed + 2);
  auto byte = [](std::mt19937 &r) { return uint32_t(r() & 0xff); };
  auto word = [](std::mt19937 &r) { return uint32_t(r()); };
  for (unsigned round = 0; round < 20; ++round) {
    Matrix a = fill(dims.m * dims.k, rng, byte);
    Matrix b = fill(dims.k * dims.n, rng, byte);
    Matrix c = fill(dims.m * dims.n, rng, word);
    checkAgainstReference(shape, a, b, c, "round " + std::to_string(round));
  }
}

TEST(WarpMma, F16EdgeValuesMatchReference) {
  MmaShape shape = MmaShape::M16N8K16_F16_F32;
  MmaDims dims = mmaDims(shape);
  // +-0, smallest and largest subnormal, smallest normal, largest finite,
  // +-inf, quiet and signalling NaN, +-1, 4096.
  std::vector<uint32_t> halves = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff,
                                  0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
                                  0x7e00, 0x7c01, 0x3c00, 0xbc00, 0x6c00};
  std::vector<uint32_t> floats = {0x00000000, 0x80000000, 0x00000001,
                                  0x7f7fffff, 0xff7fffff, 0x7f800000,
                                  0xff800000, 0x7fc00000, 0x3f800000};
  std::mt19937 rng(kSeed + 3);
  for (unsigned round = 0; round < 30; ++round) {
    Matrix a = pickFrom(dims.m * dims.k, rng, halves);
    Matrix b = pickFrom(dims.k * dims.n, rng, halves);
    Matrix c = pickFrom(dims.m * dims.n, rng, floats);
    checkAgainstReference(shape, a, b, c, "round " + std::to_string(round));
  }
  // Subnormals only: every D is finite, so each is compared bit-exactly.
  std::vector<uint32_t> subnormals = {0x0001, 0x8001, 0x0200, 0x03ff,
                                      0x83ff, 0x0000, 0x3c00};
  for (unsigned round = 0; round < 10; ++round) {
    Matrix a = pickFrom(dims.m * dims.k, rng, subnormals);
    Matrix b = pickFrom(dims.k * dims.n, rng, subnormals);
    Matrix c(dims.m * dims.n, 0);
    checkAgainstReference(shape, a, b, c,
                          "subnormal round " + std::to_string(round));
  }
}

TEST(WarpMma, BF16EdgeValuesMatchReference) {
  MmaShape shape = MmaShape::M16N8K16_BF16_F32;
  MmaDims dims = mmaDims(shape);
  // +-0, smallest/largest subnormal, smallest normal, largest finite, +-inf,
  // NaNs, +-1, 2^64.
  std::vector<uint32_t> values = {0x0000, 0x8000, 0x0001, 0x8001, 0x007f,
                                  0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80,
                                  0x7fc0, 0x7f81, 0x3f80, 0xbf80, 0x5f80};
  std::vector<uint32_t> floats = {0x00000000, 0x80000000, 0x00000001,
                                  0x7f7fffff, 0x7f800000, 0xff800000,
                                  0x7fc00000, 0x3f800000};
  std::mt19937 rng(kSeed + 4);
  for (unsigned round = 0; round < 30; ++round) {
    Matrix a = pickFrom(dims.m * dims.k, rng, values);
    Matrix b = pickFrom(dims.k * dims.n, rng, values);
    Matrix c = pickFrom(dims.m * dims.n, rng, floats);
    checkAgainstReference(shape, a, b, c, "round " + std::to_string(round));
  }
}

TEST(WarpMma, S8ExtremesWrapModulo2To32) {
  MmaShape shape = MmaShape::M16N8K32_S8_S32;
  MmaDims dims = mmaDims(shape);
  const uint32_t intMin = 0x80000000u, intMax = 0x7fffffffu;
  struct Case {
    int8_t a, b;
    uint32_t c, d;
  };
  // K = 32: (-128)^2 * 32 = 0x80000, 127 * -128 * 32 = -0x7f000,
  // 127^2 * 32 = 0x7e020; the sums wrap past INT32_MAX / INT32_MIN.
  const Case cases[] = {
      {-128, -128, intMax, 0x8007ffffu}, {-128, -128, intMin, 0x80080000u},
      {127, -128, intMin, 0x7ff81000u},  {-128, 127, intMin, 0x7ff81000u},
      {127, 127, intMax, 0x8007e01fu},   {127, 127, 0, 0x0007e020u},
      {-128, -128, 0, 0x00080000u},
  };
  for (const Case &tc : cases) {
    Matrix a(dims.m * dims.k, uint8_t(tc.a));
    Matrix b(dims.k * dims.n, uint8_t(tc.b));
    Matrix c(dims.m * dims.n, tc.c);
    Matrix d = checkAgainstReference(shape, a, b, c, "extreme");
    for (uint32_t x : d)
      EXPECT_EQ(x, tc.d) << "a " << int(tc.a) << " b " << int(tc.b) << " c 0x"
                         << std::hex << tc.c;
  }
  // Random extremes with C at the int32 limits.
  std::mt19937 rng(kSeed + 5);
  std::vector<uint32_t> bytes = {0x80, 0x7f, 0xff, 0x01, 0x00};
  std::vector<uint32_t> words = {intMin, intMax, 0xffffffffu, 0};
  for (unsigned round = 0; round < 20; ++round)
    checkAgainstReference(shape, pickFrom(dims.m * dims.k, rng, bytes),
                          pickFrom(dims.k * dims.n, rng, bytes),
                          pickFrom(dims.m * dims.n, rng, words),
                          "extreme round " + std::to_string(round));
}

//===----------------------------------------------------------------------===//
// Known answers that pin the documented model
//===----------------------------------------------------------------------===//

TEST(WarpMma, F16IdentityTimesBIsB) {
  MmaShape shape = MmaShape::M16N8K16_F16_F32;
  MmaDims dims = mmaDims(shape);
  Matrix a(dims.m * dims.k, 0);
  for (unsigned i = 0; i < dims.m; ++i)
    a[i * dims.k + i] = 0x3c00; // 1.0
  std::mt19937 rng(kSeed + 6);
  Matrix b = fill(dims.k * dims.n, rng, randomFiniteF16);
  Matrix c(dims.m * dims.n, 0);
  Matrix d = checkAgainstReference(shape, a, b, c, "identity");
  for (unsigned idx = 0; idx < d.size(); ++idx) {
    APFloat want = multiplicandToF32(shape, b[idx]);
    // 0 + (+-0) is +0 under round to nearest, so compare -0 as +0.
    uint32_t wantBits =
        want.isZero() ? 0 : uint32_t(want.bitcastToAPInt().getZExtValue());
    EXPECT_EQ(d[idx], wantBits) << "index " << idx;
  }
}

TEST(WarpMma, F16AccumulatesInAscendingKFromC) {
  // Row 0 of A = (4096, 1, -4096, 0...), column 0 of B = (4096, 1, 4096, ...):
  // products 2^24, 1, -2^24. Ascending k from C = 0: 2^24 + 1 rounds to 2^24
  // (tie to even), minus 2^24 gives 0; the exact dot product is 1.
  MmaShape shape = MmaShape::M16N8K16_F16_F32;
  MmaDims dims = mmaDims(shape);
  Matrix a(dims.m * dims.k, 0), b(dims.k * dims.n, 0), c(dims.m * dims.n, 0);
  a[0] = 0x6c00; // 4096
  a[1] = 0x3c00; // 1
  a[2] = 0xec00; // -4096
  b[0 * dims.n] = 0x6c00;
  b[1 * dims.n] = 0x3c00;
  b[2 * dims.n] = 0x6c00;
  Matrix d = checkAgainstReference(shape, a, b, c, "order");
  EXPECT_EQ(d[0], 0x00000000u);
  // Starting from C = 1 instead: 1 + 2^24 -> 2^24, + 1 -> 2^24, - 2^24 -> 0.
  c[0] = 0x3f800000;
  d = checkAgainstReference(shape, a, b, c, "order from C");
  EXPECT_EQ(d[0], 0x00000000u);
}

TEST(WarpMma, Bf16ProductsAreRoundedToFp32BeforeTheAdd) {
  // 2^64 * 2^64 = 2^128 overflows fp32 to +inf, and inf + -FLT_MAX = inf. A
  // fused multiply-add (or a wider product) would give 2^128 - FLT_MAX =
  // 2^104 instead.
  MmaShape shape = MmaShape::M16N8K16_BF16_F32;
  MmaDims dims = mmaDims(shape);
  Matrix a(dims.m * dims.k, 0), b(dims.k * dims.n, 0), c(dims.m * dims.n, 0);
  a[0] = 0x5f80;      // A[0][0] = 2^64
  b[0] = 0x5f80;      // B[0][0] = 2^64
  c[0] = 0xff7fffffu; // C[0][0] = -FLT_MAX
  Matrix d = checkAgainstReference(shape, a, b, c, "fp32 product");
  EXPECT_EQ(d[0], 0x7f800000u);
}

TEST(WarpMma, SubnormalsAreNotFlushed) {
  // f16: 16 products of 2^-24 * 2^-24 = 2^-48 sum to 2^-44 (fp32 normal).
  {
    MmaShape shape = MmaShape::M16N8K16_F16_F32;
    MmaDims dims = mmaDims(shape);
    Matrix a(dims.m * dims.k, 0x0001), b(dims.k * dims.n, 0x0001);
    Matrix c(dims.m * dims.n, 0);
    for (uint32_t x : checkAgainstReference(shape, a, b, c, "f16 subnormal"))
      EXPECT_EQ(x, uint32_t(127 - 44) << 23);
  }
  // bf16: 16 products of 2^-133 * 1 sum to 2^-129, an fp32 subnormal.
  {
    MmaShape shape = MmaShape::M16N8K16_BF16_F32;
    MmaDims dims = mmaDims(shape);
    Matrix a(dims.m * dims.k, 0x0001), b(dims.k * dims.n, 0x3f80);
    Matrix c(dims.m * dims.n, 0);
    for (uint32_t x : checkAgainstReference(shape, a, b, c, "bf16 subnormal"))
      EXPECT_EQ(x, 0x00100000u);
  }
}

TEST(WarpMma, NaNAndInfinityPropagate) {
  MmaShape shape = MmaShape::M16N8K16_BF16_F32;
  MmaDims dims = mmaDims(shape);
  Matrix a(dims.m * dims.k, 0x3f80), b(dims.k * dims.n, 0x3f80);
  Matrix c(dims.m * dims.n, 0);
  a[0] = 0x7f80;              // A[0][0] = +inf
  b[0 * dims.n + 1] = 0;      // B[0][1] = 0: inf * 0 is NaN in D[0][1]
  a[1 * dims.k] = 0x7f7f;     // A[1][0] = max bf16: product with 1 is finite
  b[0 * dims.n + 2] = 0x7f7f; // ... and with max bf16 overflows to inf
  Matrix d = checkAgainstReference(shape, a, b, c, "specials");
  EXPECT_EQ(d[0 * dims.n + 0], 0x7f800000u);
  EXPECT_TRUE(isF32NaN(d[0 * dims.n + 1]));
  EXPECT_EQ(d[1 * dims.n + 2], 0x7f800000u);
}

TEST(WarpMma, BitsAboveTheElementWidthAreIgnored) {
  MmaShape shape = MmaShape::M16N8K32_S8_S32;
  FragmentSizes sizes = fragmentSizes(shape);
  std::vector<uint32_t> a(kWarpSize * sizes.a, 0xffffff01u);
  std::vector<uint32_t> b(kWarpSize * sizes.b, 0x12345602u);
  std::vector<uint32_t> c(kWarpSize * sizes.c, 5);
  for (uint32_t x : warpMma(shape, a, b, c))
    EXPECT_EQ(x, 5u + 32u * 2u);
}

} // namespace
