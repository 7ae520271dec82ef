//===- AMXEmulatorTest.cpp - AMX machine code under the SIGILL emulator ---===//
//
// Real AMX code (AMXKernels.cpp, compiled by clang-22 with the AMX features)
// runs on this AMX-less CPU through the emulator; results are compared bit
// for bit with the scalar reference (ScalarReference.cpp) and, for the
// semantic corner cases, with values worked out by hand from the SDM.
//
//===----------------------------------------------------------------------===//

#include "AMXKernels.h"
#include "ScalarReference.h"

#include "tisa/Targets/AMXEmulator.h"

#include "gtest/gtest.h"

#include <asm/prctl.h>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <thread>
#include <ucontext.h>
#include <unistd.h>
#include <vector>
#include <xmmintrin.h>

using namespace tisa::amx;
using namespace tisa::amx::test;

namespace tisa::amx::test {
// Readable parameter names in gtest output.
void PrintTo(DotKind kind, std::ostream *os) { *os << getMnemonic(kind); }
} // namespace tisa::amx::test

namespace {

//===----------------------------------------------------------------------===//
// Buffers and data
//===----------------------------------------------------------------------===//

constexpr uint8_t kCanary = 0xA5;

/// `rows` rows of `rowBytes` bytes, `stride` bytes apart (negative strides
/// run backwards from row 0), with canary bytes around and between rows so
/// stray stores show up.
class StridedBuffer {
public:
  StridedBuffer(int rows, int rowBytes, long stride)
      : rows(rows), rowBytes(rowBytes), stride(stride) {
    long span = rows > 0 ? (rows - 1) * std::labs(stride) + rowBytes : 0;
    storage.assign(size_t(span + 2 * kGuard), kCanary);
    first = kGuard + (stride < 0 ? (rows - 1) * -stride : 0);
  }
  uint8_t *row(int r) { return storage.data() + first + r * stride; }
  const uint8_t *row(int r) const {
    return storage.data() + first + r * stride;
  }
  uint8_t *data() { return row(0); }
  long getStride() const { return stride; }
  int getRows() const { return rows; }
  int getRowBytes() const { return rowBytes; }

  uint32_t element32(int r, int n) const {
    uint32_t v;
    std::memcpy(&v, row(r) + 4 * n, 4);
    return v;
  }
  void setElement32(int r, int n, uint32_t v) {
    std::memcpy(row(r) + 4 * n, &v, 4);
  }

  /// Every byte outside the rows still holds the canary.
  bool canariesIntact() const {
    std::vector<bool> inside(storage.size(), false);
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < rowBytes; ++j)
        inside[size_t(row(r) - storage.data()) + j] = true;
    for (size_t i = 0; i < storage.size(); ++i)
      if (!inside[i] && storage[i] != kCanary)
        return false;
    return true;
  }

private:
  static constexpr long kGuard = 64;
  int rows, rowBytes;
  long stride;
  long first = 0;
  std::vector<uint8_t> storage;
};

void store16(uint8_t *p, uint16_t v) { std::memcpy(p, &v, 2); }
void store32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

uint16_t pick(std::mt19937 &rng, const std::vector<uint16_t> &values) {
  return values[rng() % values.size()];
}

const std::vector<uint16_t> kBF16Specials = {
    0x0000, 0x8000, 0x0001, 0x807F, 0x0040, 0x7F80, 0xFF80, 0x7FC0,
    0x7F81, 0xFFC1, 0x7F7F, 0x0080, 0x1F80, 0x9C80, 0x3F80};
const std::vector<uint16_t> kFP16Specials = {
    0x0000, 0x8000, 0x0001, 0x83FF, 0x0200, 0x7C00, 0xFC00,
    0x7E00, 0x7C01, 0xFE01, 0x7BFF, 0x0400, 0x3C00, 0xBC00};
const std::vector<uint32_t> kF32Specials = {
    0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x7F800000,
    0xFF800000, 0x7FC00001, 0xFF800002, 0x7F7FFFFF, 0x00800000};

/// How the inputs of one run are drawn.
enum class Data {
  /// Finite values of moderate magnitude: exercises rounding, not specials.
  Random,
  /// Mostly finite, ~10% zeros, denormals, infinities and NaNs.
  WithSpecials,
  /// Uniformly random bit patterns (floats: mostly huge, many NaN/inf).
  AllBitPatterns,
  /// Integers: A all 0xFF, B all 0x80, C at INT32_MAX - 5 / INT32_MIN + 5.
  IntExtremes,
};

uint16_t randomHalf(std::mt19937 &rng, bool bf16, Data data) {
  if (data == Data::AllBitPatterns)
    return uint16_t(rng());
  if (data == Data::WithSpecials && rng() % 10 == 0)
    return pick(rng, bf16 ? kBF16Specials : kFP16Specials);
  uint16_t sign = (rng() & 1) << 15;
  if (bf16) // exponent 2^-9 .. 2^9, 7 fraction bits
    return sign | uint16_t((118 + rng() % 19) << 7) | uint16_t(rng() & 0x7F);
  // fp16: 2^-7 .. 2^7, 10 fraction bits
  return sign | uint16_t((8 + rng() % 15) << 10) | uint16_t(rng() & 0x3FF);
}

uint32_t randomAccumulator(std::mt19937 &rng, bool isFloat, Data data,
                           int index) {
  if (!isFloat) {
    if (data == Data::IntExtremes)
      return index % 2 ? uint32_t(INT32_MAX - 5) : uint32_t(INT32_MIN + 5);
    return rng();
  }
  if (data == Data::AllBitPatterns)
    return rng();
  if (data == Data::WithSpecials && rng() % 10 == 0)
    return kF32Specials[rng() % kF32Specials.size()];
  return ((rng() & 1) << 31) | ((110 + rng() % 31) << 23) | (rng() & 0x7FFFFF);
}

void fillInputs(StridedBuffer &buf, DotKind kind, Data data, bool isA,
                std::mt19937 &rng) {
  for (int r = 0; r < buf.getRows(); ++r) {
    uint8_t *p = buf.row(r);
    if (!isFloat(kind)) {
      for (int j = 0; j < buf.getRowBytes(); ++j)
        p[j] = data == Data::IntExtremes ? (isA ? 0xFF : 0x80) : uint8_t(rng());
      continue;
    }
    for (int j = 0; j < buf.getRowBytes(); j += 2)
      store16(p + j, randomHalf(rng, kind == DotKind::Tdpbf16ps, data));
  }
}

void fillAccumulators(StridedBuffer &buf, DotKind kind, Data data,
                      std::mt19937 &rng) {
  for (int r = 0; r < buf.getRows(); ++r)
    for (int n = 0; n < buf.getRowBytes() / 4; ++n)
      buf.setElement32(r, n,
                       randomAccumulator(rng, isFloat(kind), data, r + n));
}

//===----------------------------------------------------------------------===//
// Running one dot product
//===----------------------------------------------------------------------===//

struct Shape {
  int m, kBytes, nBytes;
};
// Full tiles, the partial 7 x 20 shape, 1 x 1, K = one group, and ragged ones.
const Shape kShapes[] = {{16, 64, 64}, {7, 20, 20}, {1, 4, 4},   {16, 4, 64},
                         {3, 64, 8},   {9, 36, 44}, {15, 60, 12}};

struct Strides {
  long a, b, c;
};
std::vector<Strides> stridesFor(const Shape &s) {
  return {{s.kBytes, s.nBytes, s.nBytes},
          {s.kBytes + 12, s.nBytes + 36, s.nBytes + 4},
          {-(s.kBytes + 8), -(s.nBytes + 64), -(s.nBytes + 20)}};
}

enum class Path { ExplicitTiles, CompilerConfigured };

TileConfigBlock makeConfig(DotKind kind, const Shape &s) {
  TileAssignment t = getTileAssignment(kind);
  TileConfigBlock cfg;
  cfg.palette = 1;
  cfg.rows[t.c] = uint8_t(s.m);
  cfg.colsb[t.c] = uint16_t(s.nBytes);
  cfg.rows[t.a] = uint8_t(s.m);
  cfg.colsb[t.a] = uint16_t(s.kBytes);
  cfg.rows[t.b] = uint8_t(s.kBytes / 4);
  cfg.colsb[t.b] = uint16_t(s.nBytes);
  return cfg;
}

std::string describe(DotKind kind, Path path, const Shape &s, const Strides &st,
                     Data data) {
  char buf[200];
  std::snprintf(buf, sizeof(buf),
                "%s %s M=%d K=%dB N=%dB strides A=%ld B=%ld C=%ld data=%d",
                getMnemonic(kind),
                path == Path::ExplicitTiles ? "explicit-tiles"
                                            : "compiler-configured",
                s.m, s.kBytes, s.nBytes, st.a, st.b, st.c, int(data));
  return buf;
}

/// Runs C += A.B under the emulator and with the reference; expects
/// identical C bits, untouched canaries and one more emulated instruction of
/// the kind.
void runAndCompare(DotKind kind, Path path, const Shape &s, const Strides &st,
                   Data data, std::mt19937 &rng) {
  SCOPED_TRACE(describe(kind, path, s, st, data));
  StridedBuffer a(s.m, s.kBytes, st.a), b(s.kBytes / 4, s.nBytes, st.b),
      c(s.m, s.nBytes, st.c);
  fillInputs(a, kind, data, /*isA=*/true, rng);
  fillInputs(b, kind, data, /*isA=*/false, rng);
  fillAccumulators(c, kind, data, rng);
  StridedBuffer want = c;
  referenceDotProduct(kind, s.m, s.kBytes, s.nBytes, a.data(), st.a, b.data(),
                      st.b, want.data(), st.c);

  uint64_t before = emulatedCount(getMnemonic(kind));
  if (path == Path::ExplicitTiles)
    runExplicitTiles(kind, makeConfig(kind, s), a.data(), st.a, b.data(), st.b,
                     c.data(), st.c);
  else
    runCompilerConfigured(kind, s.m, s.kBytes, s.nBytes, a.data(), st.a,
                          b.data(), st.b, c.data(), st.c);
  EXPECT_EQ(emulatedCount(getMnemonic(kind)), before + 1);

  int mismatches = 0;
  for (int r = 0; r < s.m; ++r)
    for (int n = 0; n < s.nBytes / 4; ++n)
      if (c.element32(r, n) != want.element32(r, n) && ++mismatches <= 5)
        ADD_FAILURE() << "C[" << r << "][" << n << "] = 0x" << std::hex
                      << c.element32(r, n) << ", reference 0x"
                      << want.element32(r, n);
  EXPECT_EQ(mismatches, 0);
  EXPECT_TRUE(c.canariesIntact()) << "bytes outside C's rows were written";
}

//===----------------------------------------------------------------------===//
// Fixtures
//===----------------------------------------------------------------------===//

class EmulatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (hostHasAMXTile())
      GTEST_SKIP() << "this CPU executes AMX natively: its instructions never "
                      "reach the SIGILL emulator, which cannot be forced";
    std::string why;
    ASSERT_TRUE(installEmulator(&why)) << why;
  }
};

class DotProductTest : public EmulatorTest,
                       public ::testing::WithParamInterface<DotKind> {
protected:
  void SetUp() override {
    EmulatorTest::SetUp();
    if (IsSkipped())
      return;
    if (isFloat(GetParam()) && !hostHasFMA())
      GTEST_SKIP() << "the float reference runs on the host's FMA3 unit, "
                      "which this CPU lacks";
  }
};

std::string kindName(const ::testing::TestParamInfo<DotKind> &info) {
  return getMnemonic(info.param);
}

//===----------------------------------------------------------------------===//
// Every dot product against the reference
//===----------------------------------------------------------------------===//

TEST_P(DotProductTest, RandomDataEveryShapeAndStride) {
  std::mt19937 rng(0x7153A + int(GetParam()));
  for (const Shape &s : kShapes)
    for (const Strides &st : stridesFor(s))
      runAndCompare(GetParam(), Path::ExplicitTiles, s, st, Data::Random, rng);
}

TEST_P(DotProductTest, CompilerConfiguredTiles) {
  // __tile1024i code: clang writes the tile configuration on the stack and
  // picks the registers; this is the llvm.x86.*.internal intrinsic path.
  std::mt19937 rng(0xC0DE + int(GetParam()));
  for (const Shape &s : kShapes)
    for (const Strides &st : stridesFor(s))
      runAndCompare(GetParam(), Path::CompilerConfigured, s, st, Data::Random,
                    rng);
}

TEST_P(DotProductTest, EdgeValues) {
  std::mt19937 rng(0xED6E + int(GetParam()));
  Data data = isFloat(GetParam()) ? Data::WithSpecials : Data::IntExtremes;
  for (const Shape &s : kShapes)
    for (const Strides &st : stridesFor(s))
      runAndCompare(GetParam(), Path::ExplicitTiles, s, st, data, rng);
}

TEST_P(DotProductTest, AllBitPatterns) {
  std::mt19937 rng(0xB175 + int(GetParam()));
  for (const Shape &s : kShapes)
    runAndCompare(GetParam(), Path::ExplicitTiles, s, stridesFor(s)[1],
                  Data::AllBitPatterns, rng);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, DotProductTest,
                         ::testing::ValuesIn(kAllDotKinds), kindName);

//===----------------------------------------------------------------------===//
// Semantics worked out by hand from the SDM
//===----------------------------------------------------------------------===//

/// One C element from one row of A and the matching rows of B, through
/// runExplicitTiles with M = 1, N = 4 bytes.
uint32_t dotOne(DotKind kind, std::vector<uint16_t> aHalves,
                std::vector<uint16_t> bHalves, uint32_t c0) {
  int kBytes = int(aHalves.size()) * 2;
  Shape s{1, kBytes, 4};
  std::vector<uint8_t> a(kBytes), b(kBytes), c(4);
  for (size_t i = 0; i < aHalves.size(); ++i) {
    store16(&a[2 * i], aHalves[i]);
    store16(&b[2 * i], bHalves[i]); // B row k holds pair k
  }
  store32(c.data(), c0);
  runExplicitTiles(kind, makeConfig(kind, s), a.data(), kBytes, b.data(), 4,
                   c.data(), 4);
  uint32_t result;
  std::memcpy(&result, c.data(), 4);
  return result;
}

TEST_F(EmulatorTest, IntegerWrapAroundWithExtremeBytes) {
  // A = all 0xFF, B = all 0x80, K = 64: per element 64 products of
  // (-1 or 255) * (-128 or 128).
  struct Case {
    DotKind kind;
    int32_t sum;
  } cases[] = {{DotKind::Tdpbssd, 64 * 128},
               {DotKind::Tdpbsud, -64 * 128},
               {DotKind::Tdpbusd, 64 * 255 * -128},
               {DotKind::Tdpbuud, 64 * 255 * 128}};
  Shape s{16, 64, 64};
  for (const Case &cs : cases) {
    for (uint32_t c0 : {uint32_t(INT32_MAX - 5), uint32_t(INT32_MIN + 5)}) {
      std::vector<uint8_t> a(16 * 64, 0xFF), b(16 * 64, 0x80), c(16 * 64);
      for (int i = 0; i < 16 * 16; ++i)
        store32(&c[4 * i], c0);
      runExplicitTiles(cs.kind, makeConfig(cs.kind, s), a.data(), 64, b.data(),
                       64, c.data(), 64);
      uint32_t want = c0 + uint32_t(cs.sum);
      for (int i = 0; i < 16 * 16; ++i) {
        uint32_t got;
        std::memcpy(&got, &c[4 * i], 4);
        ASSERT_EQ(got, want) << getMnemonic(cs.kind) << " element " << i;
      }
    }
  }
}

TEST_F(EmulatorTest, BF16EvenAndOddProductsAccumulateSeparately) {
  // Pairs k = 0: (1 * 1, 1 * 2^-24), k = 1: (1 * 0, 1 * 2^-24). The SDM sums
  // the even products (1) and the odd ones (2^-23) apart, then adds them:
  // 1 + 2^-23. Adding the products into C one by one would round each 2^-24
  // away and give 1.
  const uint16_t one = 0x3F80, tiny = 0x3380, zero = 0;
  EXPECT_EQ(dotOne(DotKind::Tdpbf16ps, {one, one, one, one},
                   {one, tiny, zero, tiny}, 0),
            0x3F800001u);
}

TEST_F(EmulatorTest, FloatDenormals) {
  // bf16 denormal input is read as zero: 2^-127 * 2^100 would be 2^-27.
  EXPECT_EQ(dotOne(DotKind::Tdpbf16ps, {0x0040, 0}, {0x7180, 0}, 0), 0u);
  // fp16 denormal input is honoured: 2^-24 * 1.
  EXPECT_EQ(dotOne(DotKind::Tdpfp16ps, {0x0001, 0}, {0x3C00, 0}, 0),
            0x33800000u);
  // A denormal fp32 result (-2^-140 per product) is flushed to -0.
  EXPECT_EQ(dotOne(DotKind::Tdpbf16ps, {0x9C80, 0x9C80}, {0x1C80, 0x1C80},
                   0x80000000u),
            0x80000000u);
  // A denormal accumulator is read as zero: -0 + (+0 + +0) is +0 (the
  // pair accumulators start at +0), where keeping C would return C.
  EXPECT_EQ(dotOne(DotKind::Tdpbf16ps, {0, 0}, {0, 0}, 0x00000001u), 0u);
  EXPECT_EQ(dotOne(DotKind::Tdpfp16ps, {0, 0}, {0, 0}, 0x807FFFFFu), 0u);
  // ... and a normal one is kept, sign of zero included.
  EXPECT_EQ(dotOne(DotKind::Tdpfp16ps, {0, 0}, {0, 0}, 0x80800000u),
            0x80800000u);
}

TEST_F(EmulatorTest, FloatSpecials) {
  const uint16_t bfInf = 0x7F80, bfOne = 0x3F80;
  // inf * 0 is invalid: the default NaN.
  EXPECT_EQ(dotOne(DotKind::Tdpbf16ps, {bfInf, 0}, {0, 0}, 0), 0xFFC00000u);
  // inf plus -inf in C is invalid too.
  EXPECT_EQ(dotOne(DotKind::Tdpbf16ps, {bfInf, 0}, {bfOne, 0}, 0xFF800000u),
            0xFFC00000u);
  // A signalling NaN in A comes out quieted with its payload.
  EXPECT_EQ(dotOne(DotKind::Tdpbf16ps, {0x7F81, 0}, {bfOne, 0}, 0),
            0x7FC10000u);
  // fp16 NaN payloads move to the top of the fp32 fraction.
  EXPECT_EQ(dotOne(DotKind::Tdpfp16ps, {0x7C01, 0}, {0x3C00, 0}, 0),
            0x7FC02000u);
}

TEST_F(EmulatorTest, MXCSRIsNeitherReadNorWritten) {
  // Round toward zero, flags clear. The even accumulator gets 1, then
  // 1 + 1.5 * 2^-24 = 1 + 0.75 ulp: nearest-even rounds up to 1 + 2^-23,
  // round-toward-zero would give 1. No flag may appear.
  const unsigned towardZero = 0x1F80u | 0x6000u;
  unsigned saved = _mm_getcsr();
  _mm_setcsr(towardZero);
  const uint16_t one = 0x3F80, threeHalvesUlp = 0x33C0;
  uint32_t got = dotOne(DotKind::Tdpbf16ps, {one, 0, one, 0},
                        {one, 0, threeHalvesUlp, 0}, 0);
  unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(got, 0x3F800001u);
  EXPECT_EQ(after, towardZero);
}

//===----------------------------------------------------------------------===//
// Tile state instructions
//===----------------------------------------------------------------------===//

TileConfigBlock tile3Config(int rows, int colsb, int startRow = 0) {
  TileConfigBlock cfg;
  cfg.palette = 1;
  cfg.startRow = uint8_t(startRow);
  cfg.rows[3] = uint8_t(rows);
  cfg.colsb[3] = uint16_t(colsb);
  return cfg;
}

TEST_F(EmulatorTest, ConfigRoundTrip) {
  TileConfigBlock cfg;
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = uint8_t(t == 5 ? 0 : 16 - t);
    cfg.colsb[t] = uint16_t(t == 5 ? 0 : 64 - 4 * t);
  }
  TileConfigBlock loaded, released;
  std::memset(&loaded, 0xEE, sizeof(loaded));
  std::memset(&released, 0xEE, sizeof(released));
  storeConfigRoundTrip(cfg, &loaded, &released);
  EXPECT_EQ(std::memcmp(&loaded, &cfg, 64), 0);
  TileConfigBlock zero;
  EXPECT_EQ(std::memcmp(&released, &zero, 64), 0);

  TileConfigBlock viaRip;
  ripRelativeConfigRoundTrip(cfg, &viaRip);
  EXPECT_EQ(std::memcmp(&viaRip, &cfg, 64), 0);
}

TEST_F(EmulatorTest, PartialTileLoadStoreAndZero) {
  const int rows = 7, colsb = 20;
  const long stride = 48;
  StridedBuffer src(rows, colsb, stride), dst(rows, colsb, stride);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < colsb; ++j)
      src.row(r)[j] = uint8_t(r * 31 + j + 1);

  loadMaybeZeroStore(tile3Config(rows, colsb), src.data(), dst.data(), stride,
                     /*zero=*/false);
  for (int r = 0; r < rows; ++r)
    EXPECT_EQ(std::memcmp(dst.row(r), src.row(r), colsb), 0) << "row " << r;
  EXPECT_TRUE(dst.canariesIntact()) << "tilestored wrote beyond colsb/rows";

  StridedBuffer zeroed(rows, colsb, stride);
  loadMaybeZeroStore(tile3Config(rows, colsb), src.data(), zeroed.data(),
                     stride, /*zero=*/true);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < colsb; ++j)
      EXPECT_EQ(zeroed.row(r)[j], 0) << r << "," << j;
  EXPECT_TRUE(zeroed.canariesIntact());
}

TEST_F(EmulatorTest, StartRowRestartsTheFirstLoad) {
  // With start_row = 3 the load skips rows 0-2 (zero after ldtilecfg); the
  // load resets start_row, so the store writes all rows.
  const int rows = 8, colsb = 64;
  StridedBuffer src(rows, colsb, 64), dst(rows, colsb, 64);
  for (int r = 0; r < rows; ++r)
    std::memset(src.row(r), r + 1, colsb);
  loadMaybeZeroStore(tile3Config(rows, colsb, 3), src.data(), dst.data(), 64,
                     false);
  for (int r = 0; r < rows; ++r)
    EXPECT_EQ(dst.row(r)[0], r < 3 ? 0 : r + 1) << "row " << r;
}

//===----------------------------------------------------------------------===//
// Addressing forms
//===----------------------------------------------------------------------===//

thread_local uint8_t TlsRows[16 * 64];

class AddressingTest : public EmulatorTest {
protected:
  static TileConfigBlock fullTile0() {
    TileConfigBlock cfg;
    cfg.palette = 1;
    cfg.rows[0] = 16;
    cfg.colsb[0] = 64;
    return cfg;
  }
  static void fillRows(uint8_t *base, long stride, int seed) {
    for (int r = 0; r < 16; ++r)
      for (int j = 0; j < 64; ++j)
        base[r * stride + j] = uint8_t(seed + r * 13 + j * 7);
  }
  static void expectRows(const uint8_t *out, const uint8_t *base, long stride) {
    for (int r = 0; r < 16; ++r)
      EXPECT_EQ(std::memcmp(out + 64 * r, base + r * stride, 64), 0)
          << "row " << r;
  }
  /// 1 MiB at kNoBaseAddress for the forms that need a low address.
  static uint8_t *lowMapping() {
    static void *p =
        mmap(reinterpret_cast<void *>(kNoBaseAddress), 1 << 20,
             PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != reinterpret_cast<void *>(kNoBaseAddress))
      return nullptr;
    return static_cast<uint8_t *>(p);
  }
};

TEST_F(AddressingTest, ExtendedRegistersScaledIndexDisp8) {
  std::vector<uint8_t> buf(16 * 80);
  fillRows(buf.data(), 80, 1);
  uint8_t out[16 * 64];
  loadWithForm(AddressingForm::ExtendedRegsScaled, fullTile0(),
               reinterpret_cast<uintptr_t>(buf.data()), 20, out);
  expectRows(out, buf.data(), 80);
}

TEST_F(AddressingTest, Disp32) {
  std::vector<uint8_t> buf(16 * 96);
  fillRows(buf.data(), 96, 2);
  uint8_t out[16 * 64];
  loadWithForm(AddressingForm::Disp32, fullTile0(),
               reinterpret_cast<uintptr_t>(buf.data()), 96, out);
  expectRows(out, buf.data(), 96);
}

TEST_F(AddressingTest, NoIndexMeansStrideZero) {
  std::vector<uint8_t> buf(64);
  fillRows(buf.data(), 0, 3); // leaves row 15's bytes
  uint8_t out[16 * 64];
  loadWithForm(AddressingForm::NoIndex, fullTile0(),
               reinterpret_cast<uintptr_t>(buf.data()), 0, out);
  expectRows(out, buf.data(), 0);
}

TEST_F(AddressingTest, NoBaseRegister) {
  uint8_t *low = lowMapping();
  if (!low)
    GTEST_SKIP() << "cannot map memory at 0x20000000";
  fillRows(low, 96, 4);
  uint8_t out[16 * 64];
  loadWithForm(AddressingForm::NoBase, fullTile0(), 0, 12, out);
  expectRows(out, low, 96);
}

TEST_F(AddressingTest, AddressSizePrefix) {
  uint8_t *low = lowMapping();
  if (!low)
    GTEST_SKIP() << "cannot map memory at 0x20000000";
  uint8_t *base = low + 0x40000;
  fillRows(base, 72, 5);
  uint8_t out[16 * 64];
  // With 0x67 only the low halves of base and index count: the garbage
  // above them must not reach the address.
  const uint64_t garbage = uint64_t(0xDEADBEEF) << 32;
  loadWithForm(AddressingForm::AddressSize32, fullTile0(),
               garbage | reinterpret_cast<uintptr_t>(base), long(garbage | 72),
               out);
  expectRows(out, base, 72);
}

TEST_F(AddressingTest, FSSegmentOverride) {
  unsigned long fsBase = 0;
  ASSERT_EQ(syscall(SYS_arch_prctl, ARCH_GET_FS, &fsBase), 0);
  fillRows(TlsRows, 64, 6);
  uint8_t out[16 * 64];
  loadWithForm(AddressingForm::FSSegment, fullTile0(),
               reinterpret_cast<uintptr_t>(TlsRows) - fsBase, 64, out);
  expectRows(out, TlsRows, 64);
}

//===----------------------------------------------------------------------===//
// Counting, threads, host query
//===----------------------------------------------------------------------===//

TEST_F(EmulatorTest, CountsIncrease) {
  resetCounts();
  EXPECT_EQ(emulatedInstructionCount(), 0u);
  Shape s{4, 16, 16};
  std::vector<uint8_t> a(64 * 16), b(64 * 16), c(64 * 16);
  // tdpbssd's kernel loads B with tileloadd, tdpbsud's with tileloaddt1.
  runExplicitTiles(DotKind::Tdpbssd, makeConfig(DotKind::Tdpbssd, s), a.data(),
                   64, b.data(), 64, c.data(), 64);
  EXPECT_EQ(emulatedCount("ldtilecfg"), 1u);
  EXPECT_EQ(emulatedCount("tileloadd"), 3u);
  EXPECT_EQ(emulatedCount("tdpbssd"), 1u);
  EXPECT_EQ(emulatedCount("tilestored"), 1u);
  EXPECT_EQ(emulatedCount("tilerelease"), 1u);
  EXPECT_EQ(emulatedInstructionCount(), 7u);
  runExplicitTiles(DotKind::Tdpbsud, makeConfig(DotKind::Tdpbsud, s), a.data(),
                   64, b.data(), 64, c.data(), 64);
  EXPECT_EQ(emulatedCount("tileloaddt1"), 1u);
  EXPECT_EQ(emulatedCount("tdpbsud"), 1u);
  EXPECT_EQ(emulatedInstructionCount(), 14u);
  EXPECT_EQ(emulatedCount("vpdpbusd"), 0u);
  EXPECT_EQ(emulatedCount(nullptr), 0u);
  resetCounts();
  EXPECT_EQ(emulatedInstructionCount(), 0u);
}

TEST_F(EmulatorTest, EachThreadHasItsOwnTiles) {
  // Threads configure and use tiles concurrently; shared tile state would
  // mix their configurations and data.
  constexpr int kThreads = 4, kIterations = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      std::mt19937 rng(0x7EAD + t);
      DotKind kind = kAllDotKinds[t % 4]; // integer kinds: no FMA needed
      Shape s = kShapes[t % 3];
      for (int it = 0; it < kIterations; ++it) {
        std::vector<uint8_t> a(16 * 64), b(16 * 64), c(16 * 64);
        for (auto &v : a)
          v = uint8_t(rng());
        for (auto &v : b)
          v = uint8_t(rng());
        for (auto &v : c)
          v = uint8_t(rng());
        std::vector<uint8_t> want = c;
        referenceDotProduct(kind, s.m, s.kBytes, s.nBytes, a.data(), 64,
                            b.data(), 64, want.data(), 64);
        runExplicitTiles(kind, makeConfig(kind, s), a.data(), 64, b.data(), 64,
                         c.data(), 64);
        if (c != want)
          ++failures;
      }
    });
  }
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(AMXHost, FeatureQueryIsConsistent) {
  HostAMXFeatures f = hostAMXFeatures();
  EXPECT_EQ(hostHasAMXTile(), f.tile && f.osEnabled);
  RecordProperty("amx_tile", f.tile);
  RecordProperty("amx_int8", f.int8);
  RecordProperty("amx_bf16", f.bf16);
  RecordProperty("amx_fp16", f.fp16);
  RecordProperty("os_enabled", f.osEnabled);
}

//===----------------------------------------------------------------------===//
// SIGILLs that are not ours, and AMX that must not be skipped
//===----------------------------------------------------------------------===//

std::atomic<int> PreviousHandlerCalls{0};

void previousHandler(int, siginfo_t *info, void *context) {
  ++PreviousHandlerCalls;
  // Skip a ud2 raised by the CPU; a sent SIGILL needs nothing.
  if (info->si_code > 0)
    static_cast<ucontext_t *>(context)->uc_mcontext.gregs[REG_RIP] += 2;
}

TEST_F(EmulatorTest, OtherSigillsGoToThePreviousHandler) {
  uninstallEmulator();
  struct sigaction mine, saved;
  std::memset(&mine, 0, sizeof(mine));
  mine.sa_sigaction = previousHandler;
  mine.sa_flags = SA_SIGINFO;
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(sigaction(SIGILL, &mine, &saved), 0);
  ASSERT_TRUE(installEmulator());
  PreviousHandlerCalls = 0;

  executeUd2();
  EXPECT_EQ(PreviousHandlerCalls, 1);
  raise(SIGILL);
  EXPECT_EQ(PreviousHandlerCalls, 2);
  // AMX is still emulated and never reaches the previous handler.
  uint64_t before = emulatedInstructionCount();
  TileConfigBlock loaded, released;
  storeConfigRoundTrip(tile3Config(1, 4), &loaded, &released);
  EXPECT_EQ(emulatedInstructionCount(), before + 4);
  EXPECT_EQ(PreviousHandlerCalls, 2);

  uninstallEmulator();
  struct sigaction now;
  ASSERT_EQ(sigaction(SIGILL, nullptr, &now), 0);
  EXPECT_EQ(now.sa_sigaction, &previousHandler) << "not restored";
  ASSERT_EQ(sigaction(SIGILL, &saved, nullptr), 0);
  ASSERT_TRUE(installEmulator());
}

void noCoreDump() {
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
}

using EmulatorDeathTest = EmulatorTest;

TEST_F(EmulatorDeathTest, GenuineIllegalInstructionStillKills) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        noCoreDump();
        executeUd2();
      },
      ::testing::KilledBySignal(SIGILL), "");
}

TEST_F(EmulatorDeathTest, UnsupportedAMXInstructionAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        noCoreDump();
        executeTdpbf8ps();
      },
      "tisa-amx: AMX instruction at rip=0x[0-9a-f]+ \\(bytes c4 e5 68 fd\\): "
      "not emulated");
}

TEST_F(EmulatorDeathTest, SameTileTwiceIsUD) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TileConfigBlock cfg;
  cfg.palette = 1;
  cfg.rows[0] = cfg.rows[1] = 4;
  cfg.colsb[0] = cfg.colsb[1] = 16;
  EXPECT_DEATH(
      {
        noCoreDump();
        executeTdpbssdSameTiles(cfg);
      },
      "tisa-amx: tdpbssd at rip=0x[0-9a-f]+ \\(bytes c4 e2 73 5e c1\\): #UD: "
      "tmm1, tmm2 and tmm3 must be three different tiles");
}

TEST_F(EmulatorDeathTest, UnconfiguredTilesAreUD) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        noCoreDump();
        executeTilezeroUnconfigured();
      },
      "tisa-amx: tilezero .*#UD: tiles are not configured");
}

TEST_F(EmulatorDeathTest, BadTileConfigIsGP) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TileConfigBlock wide = tile3Config(1, 68);
  EXPECT_DEATH(
      {
        noCoreDump();
        executeLdtilecfg(wide);
      },
      "tisa-amx: ldtilecfg .*#GP: ldtilecfg: colsb above 64");
  TileConfigBlock halfSet = tile3Config(4, 0);
  EXPECT_DEATH(
      {
        noCoreDump();
        executeLdtilecfg(halfSet);
      },
      "#GP: ldtilecfg: a tile has rows == 0 or colsb == 0 but not both");
  TileConfigBlock palette2 = tile3Config(1, 4);
  palette2.palette = 2;
  EXPECT_DEATH(
      {
        noCoreDump();
        executeLdtilecfg(palette2);
      },
      "#GP: ldtilecfg: palette id above 1");
}

TEST_F(EmulatorDeathTest, TileLoadWithoutSIBIsUD) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<uint8_t> buf(64);
  TileConfigBlock cfg;
  cfg.palette = 1;
  cfg.rows[0] = 1;
  cfg.colsb[0] = 64;
  EXPECT_DEATH(
      {
        noCoreDump();
        executeTileloaddWithoutSIB(cfg, buf.data());
      },
      "#UD: tile loads and stores need a SIB memory operand");
}

} // namespace
