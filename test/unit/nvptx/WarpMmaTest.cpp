//===- WarpMmaTest.cpp - tests of the mma.sync CPU reference --------------===//
//
// The fragment rules are checked two ways for every modelled form: each is a
// bijection onto its matrix, and each gives the positions read off the PTX
// figures, written independently here. warpMma is checked against a plain
// matrix product whose arithmetic is done in software by APFloat (so neither
// the host FPU nor the compiler's contraction choices matter), on random data
// with fixed seeds and on edge values.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/WarpMma.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tisa::nvptx;
using llvm::APFloat;
using llvm::APInt;

namespace {

constexpr const char *kF16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
constexpr const char *kBF16 =
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
constexpr const char *kS8 = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";

/// Every family and shape the reference models, one or two of each.
const char *const kAllForms[] = {
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32",
    "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.u8.s32",
    "mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32",
    "mma.sync.aligned.m8n8k32.row.col.s32.u4.u4.s32",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
};

MmaForm form(const char *mnemonic) {
  llvm::Expected<MmaForm> f = parseMma(mnemonic);
  if (!f) {
    ADD_FAILURE() << llvm::toString(f.takeError());
    return {};
  }
  return *f;
}

std::string name(const MmaForm &f) { return f.mnemonic(); }

/// One operand's matrix geometry and fragment size.
struct Operand {
  char which;
  unsigned rows, cols, perLane;
};

std::vector<Operand> operandsOf(const MmaForm &f) {
  FragmentSizes sizes = fragmentSizes(f);
  return {{'a', f.m, f.k, sizes.a},
          {'b', f.k, f.n, sizes.b},
          {'c', f.m, f.n, sizes.c}};
}

Operand operand(const MmaForm &f, char which) {
  for (const Operand &op : operandsOf(f))
    if (op.which == which)
      return op;
  return {};
}

/// Row-major matrix of raw element bits.
using Matrix = std::vector<uint64_t>;

/// The test's own packing: the inverse of fragmentCoord.
std::vector<uint64_t> pack(const MmaForm &f, char which, const Matrix &matrix) {
  Operand op = operand(f, which);
  std::vector<uint64_t> fragment(kWarpSize * op.perLane);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < op.perLane; ++i) {
      auto [row, col] = fragmentCoord(f, which, lane, i);
      fragment[lane * op.perLane + i] = matrix[row * op.cols + col];
    }
  return fragment;
}

Matrix unpackD(const MmaForm &f, const std::vector<uint64_t> &fragment) {
  Operand op = operand(f, 'c');
  Matrix matrix(op.rows * op.cols);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < op.perLane; ++i) {
      auto [row, col] = fragmentCoord(f, 'c', lane, i);
      matrix[row * op.cols + col] = fragment[lane * op.perLane + i];
    }
  return matrix;
}

//===----------------------------------------------------------------------===//
// Plain matrix reference
//===----------------------------------------------------------------------===//

/// A multiplicand as an APFloat of the accumulator's format, converted by
/// APFloat (widening is exact; tf32 keeps its register's top 19 bits).
APFloat multiplicand(PtxType t, uint64_t bits) {
  if (t == PtxType::F64)
    return APFloat(APFloat::IEEEdouble(), APInt(64, bits));
  if (t == PtxType::TF32) { // truncated toward zero by APFloat itself
    APFloat value(APFloat::IEEEsingle(), APInt(32, bits & 0xffffffffu));
    bool losesInfo = false;
    value.convert(APFloat::FloatTF32(), APFloat::rmTowardZero, &losesInfo);
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    return value;
  }
  APFloat value(t == PtxType::F16 ? APFloat::IEEEhalf() : APFloat::BFloat(),
                APInt(16, bits & 0xffff));
  bool losesInfo = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  // Only a signalling NaN changes (it is quietened).
  EXPECT_TRUE(value.isNaN() || !losesInfo) << "multiplicands widen exactly";
  return value;
}

int64_t integer(PtxType t, uint64_t bits) {
  unsigned w = t == PtxType::S4 || t == PtxType::U4 ? 4 : 8;
  int64_t v = static_cast<int64_t>(bits & ((1u << w) - 1));
  bool isSignedType = t == PtxType::S4 || t == PtxType::S8;
  return isSignedType && v >= (int64_t(1) << (w - 1)) ? v - (int64_t(1) << w)
                                                       : v;
}

/// D = A * B + C: products rounded to nearest even in the accumulator's
/// format, added to C in ascending k, each add rounded (the project's model);
/// integers exact, then wrapped or clamped.
Matrix referenceMma(const MmaForm &f, const Matrix &a, const Matrix &b,
                    const Matrix &c) {
  Matrix d(f.m * f.n);
  bool integerForm = f.d == PtxType::S32;
  unsigned accBits = f.d == PtxType::F64 ? 64 : 32;
  for (unsigned m = 0; m < f.m; ++m)
    for (unsigned n = 0; n < f.n; ++n) {
      if (integerForm) {
        int64_t exact = static_cast<int32_t>(c[m * f.n + n]);
        for (unsigned k = 0; k < f.k; ++k)
          exact += integer(f.a, a[m * f.k + k]) * integer(f.b, b[k * f.n + n]);
        if (f.satfinite)
          exact = std::min<int64_t>(std::max<int64_t>(exact, INT32_MIN),
                                    INT32_MAX);
        d[m * f.n + n] = static_cast<uint32_t>(exact); // mod 2^32
        continue;
      }
      APFloat acc(accBits == 64 ? APFloat::IEEEdouble() : APFloat::IEEEsingle(),
                  APInt(accBits, c[m * f.n + n]));
      for (unsigned k = 0; k < f.k; ++k) {
        APFloat product = multiplicand(f.a, a[m * f.k + k]);
        product.multiply(multiplicand(f.b, b[k * f.n + n]),
                         APFloat::rmNearestTiesToEven);
        acc.add(product, APFloat::rmNearestTiesToEven);
      }
      d[m * f.n + n] = acc.bitcastToAPInt().getZExtValue();
    }
  return d;
}

bool isF32NaN(uint64_t bits) {
  return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0;
}

bool isNaNOf(const MmaForm &f, uint64_t bits) {
  if (f.d == PtxType::F64)
    return std::isnan(llvm::bit_cast<double>(bits));
  return f.d == PtxType::F32 && isF32NaN(bits);
}

/// Runs warpMma on matrices packed by the test and compares with the
/// reference: integers and non-NaN floats bit-exactly, NaNs by NaN-ness.
/// Returns the D matrix warpMma produced.
Matrix checkAgainstReference(const MmaForm &f, const Matrix &a,
                             const Matrix &b, const Matrix &c,
                             const std::string &what) {
  std::vector<uint64_t> d =
      warpMma(f, pack(f, 'a', a), pack(f, 'b', b), pack(f, 'c', c));
  EXPECT_EQ(d.size(), kWarpSize * fragmentSizes(f).c);
  Matrix got = unpackD(f, d);
  Matrix want = referenceMma(f, a, b, c);
  unsigned mismatches = 0;
  for (unsigned idx = 0; idx < want.size() && mismatches < 8; ++idx) {
    bool ok = isNaNOf(f, want[idx]) ? isNaNOf(f, got[idx])
                                    : got[idx] == want[idx];
    if (!ok) {
      ++mismatches;
      ADD_FAILURE() << name(f) << " " << what << ": D[" << idx / f.n << "]["
                    << idx % f.n << "] = 0x" << std::hex << got[idx]
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
  for (uint64_t &x : m)
    x = gen(rng);
  return m;
}

template <typename T>
Matrix pickFrom(unsigned count, std::mt19937 &rng,
                const std::vector<T> &values) {
  Matrix m(count);
  for (uint64_t &x : m)
    x = static_cast<uint64_t>(values[rng() % values.size()]);
  return m;
}

//===----------------------------------------------------------------------===//
// Fragment tables
//===----------------------------------------------------------------------===//

TEST(WarpMmaForms, MnemonicsRoundTrip) {
  for (const char *mnemonic : kAllForms)
    EXPECT_EQ(form(mnemonic).mnemonic(), mnemonic);
}

TEST(WarpMmaForms, UnmodelledAndMalformedFormsAreNamed) {
  auto why = [](const char *mnemonic) {
    llvm::Expected<MmaForm> f = parseMma(mnemonic);
    EXPECT_FALSE(static_cast<bool>(f)) << mnemonic << " parsed";
    return f ? std::string() : llvm::toString(f.takeError());
  };
  EXPECT_NE(why("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32")
                .find("quad-pair"),
            std::string::npos);
  EXPECT_NE(why("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")
                .find("accumulators only"),
            std::string::npos);
  EXPECT_NE(why("mma.sync.aligned.m16n8k12.row.col.f32.bf16.bf16.f32")
                .find("not a PTX shape of .bf16"),
            std::string::npos);
  EXPECT_NE(why("mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32")
                .find("do not form one PTX mma type"),
            std::string::npos);
  EXPECT_NE(why("mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32")
                .find(".satfinite"),
            std::string::npos);
  EXPECT_NE(why("mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32")
                .find(".row.col"),
            std::string::npos);
  EXPECT_NE(why("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32")
                .find("'.e4m3' is not a PTX mma type"),
            std::string::npos);
  EXPECT_NE(why("vpdpbusd").find("not a PTX mma.sync.aligned"),
            std::string::npos);
}

TEST(WarpMmaFragments, SizesMatchThePtxRegisterCounts) {
  // f16/bf16 m16n8k16: A four .f16x2, B two .f16x2, C/D four .f32.
  for (const char *m : {kF16, kBF16}) {
    FragmentSizes sizes = fragmentSizes(form(m));
    EXPECT_EQ(sizes.a, 8u);
    EXPECT_EQ(sizes.b, 4u);
    EXPECT_EQ(sizes.c, 4u);
  }
  // s8 m16n8k32: A four .b32 of four bytes, B two .b32, C/D four .s32.
  FragmentSizes sizes = fragmentSizes(form(kS8));
  EXPECT_EQ(sizes.a, 16u);
  EXPECT_EQ(sizes.b, 8u);
  EXPECT_EQ(sizes.c, 4u);
  // tf32 m16n8k8: A four .b32, B two, C four; m8n8k4 f64: one, one, two.
  sizes = fragmentSizes(form("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
  EXPECT_EQ(sizes.a, 4u);
  EXPECT_EQ(sizes.b, 2u);
  EXPECT_EQ(sizes.c, 4u);
  sizes = fragmentSizes(form("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"));
  EXPECT_EQ(sizes.a, 1u);
  EXPECT_EQ(sizes.b, 1u);
  EXPECT_EQ(sizes.c, 2u);
}

TEST(WarpMmaFragments, EveryFormIsABijectionOntoItsMatrices) {
  for (const char *mnemonic : kAllForms) {
    MmaForm f = form(mnemonic);
    for (const Operand &op : operandsOf(f)) {
      SCOPED_TRACE(name(f) + " operand " + op.which);
      ASSERT_EQ(kWarpSize * op.perLane, op.rows * op.cols);
      std::vector<int> owner(op.rows * op.cols, -1);
      for (unsigned lane = 0; lane < kWarpSize; ++lane)
        for (unsigned i = 0; i < op.perLane; ++i) {
          auto [row, col] = fragmentCoord(f, op.which, lane, i);
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
}

/// Positions read off the PTX ISA's fragment figures and their row/column
/// formulas, one form at a time, written here independently of the rule in
/// WarpMma.cpp.
TEST(WarpMmaFragments, SpotValuesFromThePtxFigures) {
  using P = std::pair<unsigned, unsigned>;
  MmaForm f16 = form(kF16);
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

  MmaForm s8 = form(kS8);
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

  // m16n8k8 .tf32: A row g for a0, a2 and g + 8 for a1, a3; column t for a0,
  // a1 and t + 4 for a2, a3. B row t for b0, t + 4 for b1; column g.
  MmaForm tf32 = form("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
  EXPECT_EQ(fragmentCoord(tf32, 'a', 5, 1), P(9, 1));
  EXPECT_EQ(fragmentCoord(tf32, 'a', 5, 2), P(1, 5));
  EXPECT_EQ(fragmentCoord(tf32, 'a', 31, 3), P(15, 7));
  EXPECT_EQ(fragmentCoord(tf32, 'b', 5, 1), P(5, 1));
  // m16n8k4 .tf32: a0 at (g, t), a1 at (g + 8, t); b0 at (t, g).
  MmaForm tf32k4 = form("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32");
  EXPECT_EQ(fragmentCoord(tf32k4, 'a', 6, 1), P(9, 2));
  EXPECT_EQ(fragmentCoord(tf32k4, 'b', 6, 0), P(2, 1));
  // m16n8k8 .f16: a0,a1 row g, a2,a3 row g + 8, column 2t + (i & 1);
  // b0,b1 rows 2t, 2t + 1 of column g.
  MmaForm f16k8 = form("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32");
  EXPECT_EQ(fragmentCoord(f16k8, 'a', 7, 3), P(9, 7));
  EXPECT_EQ(fragmentCoord(f16k8, 'b', 7, 1), P(7, 1));
  // m16n8k16 .u8/.s8: a0..a3 row g, a4..a7 row g + 8, column 4t + (i & 3);
  // b0..b3 rows 4t..4t+3 of column g.
  MmaForm u8k16 = form("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32");
  EXPECT_EQ(fragmentCoord(u8k16, 'a', 31, 7), P(15, 15));
  EXPECT_EQ(fragmentCoord(u8k16, 'a', 1, 4), P(8, 4));
  EXPECT_EQ(fragmentCoord(u8k16, 'b', 31, 3), P(15, 7));
  // m8n8k16 .s8: a_i at (g, 4t + i); b_i at (4t + i, g); c_i at (g, 2t + i).
  MmaForm m8 = form("mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.u8.s32");
  EXPECT_EQ(fragmentCoord(m8, 'a', 7, 2), P(1, 14));
  EXPECT_EQ(fragmentCoord(m8, 'b', 7, 3), P(15, 1));
  EXPECT_EQ(fragmentCoord(m8, 'c', 7, 1), P(1, 7));
  // m16n8k64 .s4: a0..a7 row g, a8..a15 row g + 8, a16..a31 the same at
  // column + 32, column 8t + (i & 7); b0..b7 rows 8t.., b8..b15 rows + 32.
  MmaForm s4 = form("mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32");
  EXPECT_EQ(fragmentCoord(s4, 'a', 0, 31), P(8, 39));
  EXPECT_EQ(fragmentCoord(s4, 'a', 3, 9), P(8, 25));
  EXPECT_EQ(fragmentCoord(s4, 'b', 0, 8), P(32, 0));
  // m8n8k4 .f64: a0 at (g, t), b0 at (t, g), c0,c1 at (g, 2t), (g, 2t + 1).
  MmaForm f64 = form("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64");
  EXPECT_EQ(fragmentCoord(f64, 'a', 13, 0), P(3, 1));
  EXPECT_EQ(fragmentCoord(f64, 'b', 13, 0), P(1, 3));
  EXPECT_EQ(fragmentCoord(f64, 'c', 13, 1), P(3, 3));
  // m16n8k16 .f64: a_i row g (even i) or g + 8 (odd i), column t + 4 (i / 2);
  // b_i at row t + 4i of column g.
  MmaForm f64k16 = form("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64");
  EXPECT_EQ(fragmentCoord(f64k16, 'a', 2, 5), P(8, 10));
  EXPECT_EQ(fragmentCoord(f64k16, 'b', 2, 3), P(14, 0));
}

//===----------------------------------------------------------------------===//
// warpMma against the plain reference
//===----------------------------------------------------------------------===//

TEST(WarpMma, F16RandomMatchesReference) {
  MmaForm shape = form(kF16);
  const MmaForm &dims = shape;
  std::mt19937 rng(kSeed);
  for (unsigned round = 0; round < 20; ++round) {
    Matrix a = fill(dims.m * dims.k, rng, randomFiniteF16);
    Matrix b = fill(dims.k * dims.n, rng, randomFiniteF16);
    Matrix c = fill(dims.m * dims.n, rng, randomModerateF32);
    checkAgainstReference(shape, a, b, c, "round " + std::to_string(round));
  }
}

TEST(WarpMma, BF16RandomMatchesReference) {
  MmaForm shape = form(kBF16);
  const MmaForm &dims = shape;
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
  MmaForm shape = form(kS8);
  const MmaForm &dims = shape;
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
  MmaForm shape = form(kF16);
  const MmaForm &dims = shape;
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
  MmaForm shape = form(kBF16);
  const MmaForm &dims = shape;
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
  MmaForm shape = form(kS8);
  const MmaForm &dims = shape;
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
    for (uint64_t x : d)
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
  MmaForm shape = form(kF16);
  const MmaForm &dims = shape;
  Matrix a(dims.m * dims.k, 0);
  for (unsigned i = 0; i < dims.m; ++i)
    a[i * dims.k + i] = 0x3c00; // 1.0
  std::mt19937 rng(kSeed + 6);
  Matrix b = fill(dims.k * dims.n, rng, randomFiniteF16);
  Matrix c(dims.m * dims.n, 0);
  Matrix d = checkAgainstReference(shape, a, b, c, "identity");
  for (unsigned idx = 0; idx < d.size(); ++idx) {
    APFloat want = multiplicand(PtxType::F16, b[idx]);
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
  MmaForm shape = form(kF16);
  const MmaForm &dims = shape;
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
  MmaForm shape = form(kBF16);
  const MmaForm &dims = shape;
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
    MmaForm shape = form(kF16);
    const MmaForm &dims = shape;
    Matrix a(dims.m * dims.k, 0x0001), b(dims.k * dims.n, 0x0001);
    Matrix c(dims.m * dims.n, 0);
    for (uint64_t x : checkAgainstReference(shape, a, b, c, "f16 subnormal"))
      EXPECT_EQ(x, uint32_t(127 - 44) << 23);
  }
  // bf16: 16 products of 2^-133 * 1 sum to 2^-129, an fp32 subnormal.
  {
    MmaForm shape = form(kBF16);
    const MmaForm &dims = shape;
    Matrix a(dims.m * dims.k, 0x0001), b(dims.k * dims.n, 0x3f80);
    Matrix c(dims.m * dims.n, 0);
    for (uint64_t x : checkAgainstReference(shape, a, b, c, "bf16 subnormal"))
      EXPECT_EQ(x, 0x00100000u);
  }
}

TEST(WarpMma, NaNAndInfinityPropagate) {
  MmaForm shape = form(kBF16);
  const MmaForm &dims = shape;
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
  MmaForm shape = form(kS8);
  FragmentSizes sizes = fragmentSizes(shape);
  std::vector<uint64_t> a(kWarpSize * sizes.a, 0xffffffffffffff01u);
  std::vector<uint64_t> b(kWarpSize * sizes.b, 0x12345602u);
  std::vector<uint64_t> c(kWarpSize * sizes.c, 5);
  for (uint64_t x : warpMma(shape, a, b, c))
    EXPECT_EQ(x, 5u + 32u * 2u);
}

/// Random operands for every modelled form: floats of moderate magnitude
/// (nothing over- or underflows), integers of any bits.
TEST(WarpMma, EveryFormMatchesTheReferenceOnRandomData) {
  std::mt19937 rng(kSeed + 7);
  for (const char *mnemonic : kAllForms) {
    MmaForm f = form(mnemonic);
    auto element = [&](PtxType t) -> uint64_t {
      switch (t) {
      case PtxType::F16:
        return randomFiniteF16(rng);
      case PtxType::BF16:
        return randomModerateBF16(rng);
      case PtxType::TF32:
      case PtxType::F32:
        return randomModerateF32(rng) | (rng() & 0x1fff); // low bits too
      case PtxType::F64:
        return llvm::bit_cast<uint64_t>(
            std::ldexp(double(int32_t(rng())), int(rng() % 40) - 60));
      default:
        return (uint64_t(rng()) << 32) | rng(); // bits above are ignored
      }
    };
    auto matrix = [&](unsigned count, PtxType t) {
      Matrix m(count);
      for (uint64_t &x : m)
        x = element(t);
      return m;
    };
    for (unsigned round = 0; round < 5; ++round) {
      Matrix c = matrix(f.m * f.n, f.c);
      if (f.c == PtxType::S32 || f.c == PtxType::F32)
        for (uint64_t &x : c)
          x &= 0xffffffffu;
      checkAgainstReference(f, matrix(f.m * f.k, f.a), matrix(f.k * f.n, f.b),
                            c, "round " + std::to_string(round));
    }
  }
}

TEST(WarpMma, Tf32IgnoresTheLow13BitsOfItsRegister) {
  MmaForm f = form("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
  Matrix a(f.m * f.k, 0), b(f.k * f.n, 0), c(f.m * f.n, 0);
  a[0] = 0x3f801fffu; // 1 + 8191 * 2^-23: below tf32's last bit, read as 1
  b[0] = 0x3f800000u;
  a[1 * f.k] = 0x3f802000u; // 1 + 2^-10: tf32's last bit, kept
  b[0 * f.n + 1] = 0x3f800000u;
  a[2 * f.k] = 0x7f800001u; // a NaN whose payload is all in the low bits
  Matrix d = checkAgainstReference(f, a, b, c, "tf32");
  EXPECT_TRUE(isF32NaN(d[2 * f.n])) << std::hex << d[2 * f.n];
  EXPECT_EQ(d[0], 0x3f800000u);
  EXPECT_EQ(d[1 * f.n + 0], 0x3f802000u);
  EXPECT_EQ(d[0 * f.n + 1], 0x3f801fffu & 0xffffe000u);
}

TEST(WarpMma, SatfiniteClampsTheExactSum) {
  MmaForm f = form("mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.u8.s32");
  // 16 products of -128 * 255 = -522240 from C = INT32_MIN + 1: clamps;
  // 127 * 255 * 16 from INT32_MAX - 1: clamps; from 0 it is exact.
  struct Case {
    uint64_t a, b, c, d;
  };
  const Case cases[] = {{0x80, 0xff, 0x80000001u, 0x80000000u},
                        {0x7f, 0xff, 0x7ffffffeu, 0x7fffffffu},
                        {0x7f, 0xff, 0, 127u * 255u * 16u}};
  for (const Case &tc : cases) {
    Matrix d = checkAgainstReference(f, Matrix(f.m * f.k, tc.a),
                                     Matrix(f.k * f.n, tc.b),
                                     Matrix(f.m * f.n, tc.c), "satfinite");
    for (uint64_t x : d)
      EXPECT_EQ(x, tc.d);
  }
}

TEST(WarpMma, FourBitMultiplicandsAreSignedOrNotByType) {
  // s4 0xf is -1, u4 0xf is 15: 64 products of -15 from C = 0.
  MmaForm f = form("mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32");
  Matrix d = checkAgainstReference(f, Matrix(f.m * f.k, 0xf),
                                   Matrix(f.k * f.n, 0xf),
                                   Matrix(f.m * f.n, 0), "s4 x u4");
  for (uint64_t x : d)
    EXPECT_EQ(x, uint32_t(-15 * 64));
}

} // namespace
