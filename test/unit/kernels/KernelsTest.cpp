//===- KernelsTest.cpp - generated kernels, end to end --------------------===//
//
// A declared matrix of GEMM and conv2d shapes x types, fixed seed. Every
// kernel is JIT-compiled for this machine, run through its plain and its
// pre-packed entries on random and extreme inputs, compared with the
// reference (integers bit-exact, bf16 within a bound derived from K), and
// disassembled: an innermost loop must hold the planned instruction and no
// innermost loop may multiply without it (a scalar or plain-vector fallback
// fails). On a CPU without AVX512-VNNI and AVX512_BF16 the kernels are
// compiled for znver4 and inspected, and the tests that would run them report
// skipped with the features this CPU lacks.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/Reference.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <array>
#include <climits>
#include <cmath>
#include <cstring>

using namespace tisa;
using namespace tisa::test;

namespace {


class Kernels : public testing::TestWithParam<MatrixCase> {};

TEST_P(Kernels, CorrectAndTensorized) {
  const KernelSpec &spec = GetParam().spec;
  expectOutputSize(GetParam());
  std::string warnings, notRun;
  auto compiled =
      compileUncached(spec, x86MatrixTarget(spec.types, notRun), warnings);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const CompiledKernel &k = **compiled;
  // The target has AVX512-VNNI and AVX512_BF16: no fallback is acceptable.
  ASSERT_FALSE(k.instruction().empty()) << warnings;
  EXPECT_TRUE(warnings.empty()) << warnings;
  const char *expected = spec.types.isFloat()                ? "vdpbf16ps"
                         : spec.types.a == ElementType::S16 ? "vpdpwssd"
                                                            : "vpdpbusd";
  EXPECT_EQ(k.mnemonic(), expected);

  // The plain entry packs through NAME_pack_X, compiled once.
  EXPECT_TRUE(
      refersTo(k.object(), k.name(), k.name() + "_pack_" + k.packedOperand()))
      << k.name() << " does not call its pack entry";
  // A padded conv2d's plain entry computes through NAME_packed, as the
  // others do (LLVM may inline a tiny GEMM's): the computation is compiled
  // once for both entries.
  if (spec.op == KernelSpec::Op::Conv2d && spec.pad)
    EXPECT_TRUE(refersTo(k.object(), k.name(), k.name() + "_packed"))
        << k.name() << " does not call its pre-packed entry";

  // Multiply-accumulates per instruction: 16 lanes x the group.
  expectTensorized(k, spec, 16.0 * 4 / spec.types.a.bytes());

  if (!notRun.empty())
    GTEST_SKIP() << notRun;
  int runs = 0;
  EXPECT_EQ(checkKernel(k, kSeed, runs), "") << "plan " << k.plan();
  EXPECT_EQ(runs, 6);
}

INSTANTIATE_TEST_SUITE_P(Matrix, Kernels, testing::ValuesIn(kernelMatrix()),
                         testName);
// The same checks with a fused epilogue: the reference applies it too.
INSTANTIATE_TEST_SUITE_P(Epilogues, Kernels,
                         testing::ValuesIn(epilogueMatrix()), testName);

// One kernel for every m (conv2d batch) of a shape, run at the matrix's own
// extents and others: -tisa-split-dynamic's blocks, each the static kernel.
class RunTimeRows : public testing::TestWithParam<MatrixCase> {};

/// `spec` compiled for the matrix's x86 target, with an instruction, no
/// warnings and that instruction in the code of a call as `call`; null
/// after a failure. `notRun` says why this machine cannot run it.
std::unique_ptr<CompiledKernel> tensorizedKernel(const KernelSpec &spec,
                                                 const KernelSpec &call,
                                                 std::string &notRun) {
  std::string warnings;
  auto compiled =
      compileUncached(spec, x86MatrixTarget(spec.types, notRun), warnings);
  if (!compiled) {
    ADD_FAILURE() << llvm::toString(compiled.takeError());
    return nullptr;
  }
  if ((*compiled)->instruction().empty()) {
    ADD_FAILURE() << "no instruction: " << warnings;
    return nullptr;
  }
  EXPECT_TRUE(warnings.empty()) << warnings;
  expectTensorized(**compiled, call, 16.0 * 4 / spec.types.a.bytes());
  return std::move(*compiled);
}

TEST_P(RunTimeRows, CorrectAtEachExtentAndTensorized) {
  const MatrixCase &c = GetParam();
  std::string notRun;
  auto kernel = tensorizedKernel(c.spec, c.spec.withRows(c.rows.front()),
                                 notRun);
  ASSERT_TRUE(kernel);
  const CompiledKernel &k = *kernel;
  if (!notRun.empty())
    GTEST_SKIP() << notRun;
  for (int64_t rows : c.rows) {
    int runs = 0;
    EXPECT_EQ(checkKernel(k, kSeed, runs, rows), "")
        << "at " << rows << " rows, plan " << k.plan();
    EXPECT_EQ(runs, 6);
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, RunTimeRows,
                         testing::ValuesIn(runTimeRowsMatrix()), testName);

// One kernel for every m, n and k of a type (n alone with an epilogue: its
// k must be fixed), run at each of the matrix's GEMM shapes of that type:
// -tisa-split-dynamic's whole blocks of N and K, the last ones zero-padded.
// One conv2d for every batch, h and w of a filter, stride, padding and
// types, run at each of the matrix's images of them and at the smallest
// image with an output: blocks of output rows and columns on windows of
// the input.
struct RunTimeShapeCase {
  KernelSpec spec;
  std::vector<KernelSpec> calls;
};

void PrintTo(const RunTimeShapeCase &c, std::ostream *os) {
  *os << c.spec.describe();
}

std::vector<RunTimeShapeCase> runTimeShapeCases() {
  std::vector<RunTimeShapeCase> out;
  llvm::StringMap<size_t> index;
  for (const MatrixCase &c : allMatrixCases()) {
    KernelSpec spec = c.spec;
    bool gemm = spec.op == KernelSpec::Op::Gemm;
    spec.runTimeRows = true;
    (gemm ? spec.runTimeN : spec.runTimeH) = true;
    (gemm ? spec.runTimeK : spec.runTimeW) = !gemm || !spec.epilogue.any();
    auto [second, third] = c.spec.callExtents();
    KernelSpec call = spec.withCall(c.spec.rows(), second, third);
    spec = spec.withCall(0, 0, gemm && !spec.runTimeK ? spec.k : 0);
    auto [it, fresh] = index.try_emplace(spec.key(), out.size());
    if (fresh) {
      out.push_back({spec, {}});
      if (!gemm)
        out.back().calls.push_back(
            spec.withCall(1, std::max<int64_t>(1, spec.r - 2 * spec.pad),
                          std::max<int64_t>(1, spec.s - 2 * spec.pad)));
    }
    out[it->second].calls.push_back(call);
  }
  return out;
}

class RunTimeShape : public testing::TestWithParam<RunTimeShapeCase> {};

TEST_P(RunTimeShape, CorrectAtEachShapeAndTensorized) {
  const RunTimeShapeCase &c = GetParam();
  std::string notRun;
  auto kernel = tensorizedKernel(c.spec, c.calls.front(), notRun);
  ASSERT_TRUE(kernel);
  const CompiledKernel &k = *kernel;
  if (!notRun.empty())
    GTEST_SKIP() << notRun;
  for (const KernelSpec &call : c.calls) {
    int runs = 0;
    EXPECT_EQ(checkKernel(k, kSeed, runs, call), "")
        << "at " << call.describe() << ", plan " << k.plan();
    EXPECT_EQ(runs, 6);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, RunTimeShape, testing::ValuesIn(runTimeShapeCases()),
    [](const testing::TestParamInfo<RunTimeShapeCase> &info) {
      return info.param.spec.symbol().substr(5); // without "tisa_"
    });

/// With only a conv2d's w at run time, the range entry's tiles (output rows)
/// are a constant: CompiledKernel::tiles (tisa_kernel_tiles) gives it, as
/// NAME_tiles() does, instead of 0 (which says "call NAME_tiles").
TEST(KernelsRunTime, ConstantTilesWithOnlyWidthAtRunTime) {
  KernelSpec spec = conv(2, 7, 9, 16, 16, 3, 1, 1, "u8s8s32");
  spec.runTimeW = true;
  spec = spec.withCall(spec.rows(), spec.h, 0);
  std::string warnings, notRun;
  auto compiled =
      compileUncached(spec, x86MatrixTarget(spec.types, notRun), warnings);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  EXPECT_EQ((*compiled)->tiles(), 2 * 7);
  if (!notRun.empty())
    GTEST_SKIP() << notRun;
  auto *entry = reinterpret_cast<int64_t (*)()>((*compiled)->address("_tiles"));
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry(), 2 * 7);
}

/// Plain vector code (u16 x s16: no instruction of the x86 targets) with m at
/// run time counts its tiles per call too: CompiledKernel::tiles
/// (tisa_kernel_tiles) is 0, and NAME_tiles(m) counts them. It said 1, so a
/// caller that trusted it computed the first 16 rows of any m.
TEST(KernelsRunTime, PlainCodeTilesWithRowsAtRunTime) {
  KernelSpec spec = gemm(100, 6, 7, "u16s16s32");
  spec.runTimeRows = true;
  spec = spec.withRows(0).withCall(100, 0, 0);
  std::string warnings, notRun;
  auto compiled =
      compileUncached(spec, x86MatrixTarget(spec.types, notRun), warnings);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  ASSERT_EQ((*compiled)->instruction(), "") << "expected plain vector code";
  EXPECT_EQ((*compiled)->tiles(), 0);
  if (!notRun.empty())
    GTEST_SKIP() << notRun;
  auto *entry =
      reinterpret_cast<int64_t (*)(int64_t)>((*compiled)->address("_tiles"));
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry(100), 7);
}

// Every schedule computes the same result: loop orders, cache blocks of the
// lane loop (with a partial last block), register tiles with remainders in
// both directions, and the range entry's partition over each of them.
struct ScheduleCase {
  KernelSpec spec;
  std::string schedule;
};

void PrintTo(const ScheduleCase &c, std::ostream *os) {
  *os << c.spec.describe() << " " << c.schedule;
}

class Schedules : public testing::TestWithParam<ScheduleCase> {};

TEST_P(Schedules, SameResult) {
  const ScheduleCase &c = GetParam();
  JitOptions options;
  options.cacheDir = "";
  options.schedule = c.schedule;
  std::string notRun;
  options.target = x86MatrixTarget(c.spec.types, notRun);
  auto compiled = compileKernel(c.spec, options);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  EXPECT_EQ((*compiled)->schedule(), c.schedule);
  if (!notRun.empty())
    GTEST_SKIP() << notRun;
  int runs = 0;
  EXPECT_EQ(checkKernel(**compiled, kSeed, runs), "") << c.schedule;
  EXPECT_EQ(runs, 6);
}

std::vector<ScheduleCase> scheduleCases() {
  std::vector<ScheduleCase> out;
  for (llvm::StringRef t : {"u8s8s32", "s8s8s32", "bf16bf16f32"}) {
    // N = 131: 144 padded lanes, so blocks of 32 or 64 leave a partial one.
    KernelSpec g = gemm(97, 131, 67, t);
    for (const char *s : {"unroll=1x1x1,block=0,order=lanes-outer",
                          "unroll=3x2x1,block=32,order=lanes-inner",
                          "unroll=2x4x1,block=64,order=lanes-outer",
                          "unroll=7x3x1,block=48,order=lanes-inner",
                          // Panels as wide as the tile, or not: the last
                          // panel of 144 lanes is partial either way.
                          "unroll=5x2x1,block=0,order=lanes-inner,panel=32",
                          "unroll=3x3x1,block=96,order=lanes-outer,panel=64"})
      out.push_back({g, s});
    // conv2d loops (n, oh, ow, f, kh, kw, c): 3x3, pad 1, 20 filters.
    KernelSpec cv = conv(2, 9, 11, 8, 20, 3, 1, 1, t);
    for (const char *s : {"unroll=1x2x3x2x1x1x1,block=0,order=lanes-inner",
                          "unroll=2x1x4x1x1x1x1,block=16,order=lanes-outer",
                          // oh and ow fused: 9 x 11 positions in tiles of 4.
                          "unroll=1x1x4x2x1x1x1,block=0,order=lanes-inner,"
                          "panel=16,fuse=1",
                          "unroll=2x1x5x1x1x1x1,block=16,order=lanes-outer,"
                          "fuse=1",
                          // Border columns (ow = 0, 10) in tiles of oh rows.
                          "unroll=1x1x3x2x1x1x1,block=0,order=lanes-inner,"
                          "edge=2",
                          "unroll=2x1x4x1x1x1x1,block=16,order=lanes-outer,"
                          "panel=16,edge=4"})
      out.push_back({cv, s});
    // 5x5, stride 2, pad 2: tiles whose rows need different filter taps
    // (rows of oh, of ow, fused rows across image rows, 2-D tiles).
    KernelSpec cv5 = conv(1, 10, 9, 8, 20, 5, 2, 2, t);
    for (const char *s : {"unroll=1x3x1x2x1x1x1,block=0,order=lanes-inner",
                          "unroll=1x1x4x1x1x1x1,block=0,order=lanes-outer",
                          "unroll=1x2x2x2x1x1x1,block=0,order=lanes-inner",
                          "unroll=1x1x7x1x1x1x1,block=0,order=lanes-inner,"
                          "fuse=1",
                          "unroll=1x1x2x2x1x1x1,block=0,order=lanes-inner,"
                          "edge=3"})
      out.push_back({cv5, s});
    // C = 3 reads a padded copy, and a range copies only its rows: edge
    // tiles of 5 rows of oh, run by the range holding their first row, need
    // the rows below it too (one-row ranges over 14 rows).
    KernelSpec cv3 = conv(1, 14, 14, 3, 16, 3, 1, 1, t);
    out.push_back({cv3, "unroll=1x1x6x1x1x1x1,block=0,order=lanes-inner,"
                        "edge=5"});
  }
  return out;
}

std::string scheduleName(const testing::TestParamInfo<ScheduleCase> &info) {
  std::string name = info.param.spec.symbol() + "_" +
                     std::to_string(info.index);
  for (char &ch : name)
    if (!llvm::isAlnum(ch))
      ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Schedules,
                         testing::ValuesIn(scheduleCases()), scheduleName);

// A schedule that does not fit the kernel is an error that says why. The
// messages name the register tile Zen 4's figures pick (another host's data
// pick other instructions), so the target is pinned.
TEST(KernelsJit, BadSchedules) {
  KernelSpec spec = gemm(97, 131, 67, "u8s8s32");
  struct Bad {
    const char *schedule, *why;
    bool conv = false; ///< for the conv2d below, else the GEMM
  } cases[] = {
      {"unroll=5x5", "unrolls 2 loops but the kernel has 3"},
      {"unroll=1x1x2,block=0", "loop 2 is a reduction"},
      // N = 131 pads best to ymm's 8 lanes: 2 registers make 16.
      {"unroll=2x2x1,block=40", "not a multiple of the register tile's 16"},
      {"unroll=9x8x1", "72 accumulators"},
      {"unroll=1x1x1,order=diagonal", "neither lanes-inner nor lanes-outer"},
      {"unroll=1xax1", "unroll factor 'a'"},
      {"block=16", "no unroll field"},
      {"unroll=1x1x1,tile=3", "unknown schedule field 'tile'"},
      {"unroll=2x2x1,panel=12", "panel 12 is not a multiple of the "
                                "instruction's 8 lanes"},
      {"unroll=1x1x1,panel=-16", "panel '-16' is not a non-negative"},
      {"unroll=1x1x1,fuse=yes", "fuse 'yes' is neither 0 nor 1"},
      {"unroll=1x1x1,hold=-1", "hold '-1' is not an integer in [0, 64]"},
      {"unroll=2x2x1,hold=1", "hold applies to AMX tile kernels"},
      {"unroll=2x2x1,fuse=1", "fuse needs two parallel loops besides the "
                              "lanes"},
      {"unroll=1x1x2x1x1x1x1,edge=x", "edge 'x' is not an integer in [0, 64]",
       true},
      {"unroll=1x1x2x1x1x1x1,fuse=1,edge=2",
       "edge needs unfused rows and two parallel loops besides the lanes",
       true},
      {"unroll=1x1x2x8x1x1x1,edge=9", "the edge tile has 72 accumulators",
       true},
      // The batch factor stays in the edge tile: 2 x 5 rows x 8 registers.
      {"unroll=2x1x2x8x1x1x1,edge=5", "the edge tile has 80 accumulators",
       true},
      {"unroll=1x2x2x1x1x1x1,fuse=1",
       "loop 1 is fused with the next one; the fused loop's unroll factor is "
       "the inner loop's, so its own must be 1",
       true},
  };
  KernelSpec convSpec = conv(1, 9, 11, 8, 20, 3, 1, 1, "u8s8s32");
  for (const Bad &b : cases) {
    JitOptions options;
    options.cacheDir = "";
    options.target = "znver4";
    options.schedule = b.schedule;
    auto compiled = compileKernel(b.conv ? convSpec : spec, options);
    ASSERT_FALSE(bool(compiled)) << b.schedule;
    std::string message = llvm::toString(compiled.takeError());
    EXPECT_NE(message.find(b.why), std::string::npos)
        << b.schedule << ": " << message;
    EXPECT_NE(message.find(b.schedule), std::string::npos) << message;
  }
}

/// Whether an innermost loop of `k`'s pre-packed entry multiplies whole
/// vectors (ymm or zmm) and writes no memory: plain code held in a register
/// tile (-tisa-tile-plain), its accumulators in registers through the
/// reduction. (Loops that LLVM vectorized over the output store it every
/// iteration; scalar loops multiply no vectors.)
bool holdsVectorAccumulators(const CompiledKernel &k, std::string &why) {
  auto functions = disassembleWithCallees(k.object(), k.name() + "_packed", "");
  if (!functions) {
    why = llvm::toString(functions.takeError());
    return false;
  }
  for (const DecodedFunction &f : *functions)
    for (auto [first, last] : innermostLoops(f.insts)) {
      bool multiplies = false, stores = false;
      for (size_t i = first; i <= last; ++i) {
        llvm::StringRef m = f.insts[i].mnemonic, t = f.insts[i].text;
        // (LLVM may take a widened 16-bit multiply-add as vpdpwssd.)
        multiplies |= (m.starts_with("vfmadd") || m == "vmulps" ||
                       m == "vpmulld" || m == "vpmaddwd" || m == "vpdpwssd") &&
                      (t.contains("%ymm") || t.contains("%zmm"));
        // AT&T: a memory destination is the last operand.
        stores |= t.ends_with(")") && !m.starts_with("cmp") &&
                  !m.starts_with("test") && !m.starts_with("prefetch");
      }
      if (multiplies && !stores)
        return true;
    }
  why = k.name() + "_packed: no innermost loop multiplies ymm or zmm "
                   "vectors without storing";
  return false;
}

// On a CPU without a matching instruction (skylake-avx512 has no VNNI) the JIT
// warns and emits plain vector code, which is still correct.
TEST(KernelsJit, FallbackWithoutInstruction) {
  KernelSpec spec = gemm(33, 47, 29, "u8s8s32");
  std::string warnings;
  auto compiled = compileUncached(spec, "skylake-avx512", warnings);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const CompiledKernel &k = **compiled;
  EXPECT_EQ(k.instruction(), "");
  EXPECT_NE(warnings.find("plain vector code"), std::string::npos) << warnings;
  auto insts = disassembleFunction(k.object(), k.name(), "");
  ASSERT_TRUE(bool(insts)) << llvm::toString(insts.takeError());
  llvm::Error absent = expectMnemonic(*insts, "vpdpbusd");
  EXPECT_TRUE(bool(absent)) << "skylake-avx512 code must not use vpdpbusd";
  llvm::consumeError(std::move(absent));
  std::string why;
  EXPECT_TRUE(holdsVectorAccumulators(k, why)) << why;
  if (std::string why = cannotRunHere("skylake-avx512"); !why.empty())
    GTEST_SKIP() << why;
  for (bool prepacked : {false, true}) {
    KernelData data = makeData(spec, kSeed, Fill::Random);
    computeReference(spec, data);
    runKernel(k, data, RunMode{prepacked});
    EXPECT_EQ(compareOutput(spec, data), "");
  }
}

/// The checker catches what it exists to catch: a kernel that takes tight
/// strides on padded rows, and writes into a gap between output rows or a
/// guard (here made by hand on a correct kernel's result).
TEST(KernelsReference, CatchesStridesAndStrayWrites) {
  KernelSpec spec = gemm(17, 15, 65, "u8s8s32");
  std::string warnings;
  auto compiled = compileUncached(spec, "host", warnings);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  KernelData data = makeData(spec, kSeed, Fill::Random, Layout::Padded);
  ASSERT_EQ(data.lda, 65 + 3);
  ASSERT_EQ(data.ldc, 15 + 7);
  computeReference(spec, data);
  auto *plain = (*compiled)->entry<void(const void *, int64_t, const void *,
                                         int64_t, void *, int64_t)>();
  plain(data.input.data(), spec.k, data.weights.data(), spec.n, data.out(),
        spec.n);
  EXPECT_NE(compareOutput(spec, data), "");

  poisonOutput(data);
  runKernel(**compiled, data, RunMode{});
  ASSERT_EQ(compareOutput(spec, data), "");
  // The gap after row 3, one element past its last.
  data.out()[4 * (3 * data.ldc + spec.n)] ^= 1;
  EXPECT_NE(compareOutput(spec, data).find("byte 0 of the gap after output "
                                           "row 3"),
            std::string::npos)
      << compareOutput(spec, data);
  data.out()[4 * (3 * data.ldc + spec.n)] ^= 1;
  data.output[data.guard - 4] = 0;
  EXPECT_NE(compareOutput(spec, data).find("4 bytes before the first"),
            std::string::npos)
      << compareOutput(spec, data);
  data.output[data.guard - 4] = kOutputPoison;
  data.output.back() = 0;
  EXPECT_NE(compareOutput(spec, data).find("after the last row"),
            std::string::npos)
      << compareOutput(spec, data);
}

/// A long enough K wraps the s32 accumulator; the kernels wrap as the
/// reference does (vpdpbusd does not saturate, and the signedness repairs'
/// compensation terms wrap the same way).
TEST(KernelsReference, AccumulatorWraps) {
  for (llvm::StringRef t :
       {"u8s8s32", "s8s8s32", "u8u8s32", "s8u8s32", "s16s16s32"}) {
    // |product| >= 128 * 128; 140000 of them pass 2^31 for every pair.
    KernelSpec spec = gemm(3, 47, 140000, t);
    std::string warnings;
    auto compiled = compileUncached(spec, "host", warnings);
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    KernelData data = makeData(spec, kSeed, Fill::Saturating, Layout::Guarded);
    computeReference(spec, data);
    auto saturated = [](ElementType k) -> int64_t {
      int64_t bits = k.bits;
      return k.isSigned ? -(int64_t(1) << (bits - 1))
                        : (int64_t(1) << bits) - 1;
    };
    int64_t a = saturated(spec.types.a), b = saturated(spec.types.b);
    int64_t exact = a * b * spec.k;
    ASSERT_TRUE(exact > INT32_MAX || exact < INT32_MIN) << t.str();
    EXPECT_EQ(data.expected[0].integer, int32_t(uint32_t(uint64_t(exact))))
        << t.str();
    for (bool prepacked : {false, true}) {
      poisonOutput(data);
      runKernel(**compiled, data, RunMode{prepacked});
      EXPECT_EQ(compareOutput(spec, data), "") << t.str();
    }
  }
}

/// Types outside every shipped description run as plain vector code: 64-bit
/// integer accumulators hold what an s32 one would wrap (s16 x s16 sums
/// past 2^31) and wrap modulo 2^64 (u32 x u32), same-precision f32 and f64
/// stay within their bounds; random, extreme and saturating inputs, each
/// with every buffer against a PROT_NONE page on either side.
TEST(KernelsReference, AccumulatorsOfOtherWidths) {
  for (llvm::StringRef t : {"s16s16s64", "u32u32u64", "s64s64s64",
                            "u8s8s16", "f32f32f32", "f64f64f64"}) {
    KernelSpec spec = gemm(5, 47, 70000, t);
    std::string warnings;
    auto compiled = compileUncached(spec, "host", warnings);
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    EXPECT_EQ((*compiled)->instruction(), "") << t.str();
    for (Fill fill : {Fill::Random, Fill::Extreme, Fill::Saturating})
    for (Fence fence : {Fence::After, Fence::Before}) {
      KernelData data = makeData(spec, kSeed, fill, Layout::Padded, fence);
      computeReference(spec, data);
      if (t == "s16s16s64" && fill == Fill::Saturating) // past 2^31
        EXPECT_EQ(data.expected[0].integer, int64_t(-32768) * -32768 * 70000);
      runKernel(**compiled, data, RunMode{});
      EXPECT_EQ(compareOutput(spec, data), "") << t.str();
    }
  }
}

/// bf16 extremes hold infinities, NaNs and denormals: the outputs they reach
/// are NaN or infinite in the reference and must be so in the kernel, and
/// most outputs stay finite, so the arithmetic is still checked. The
/// reference reads denormals as the kernel does: as zero under vdpbf16ps, as
/// their values in plain vector code (a CPU without AVX512_BF16), where a
/// denormal times an infinity is an infinity, not a NaN.
TEST(KernelsReference, Bf16Specials) {
  KernelSpec spec = gemm(19, 37, 45, "bf16bf16f32");
  std::string warnings;
  auto compiled = compileUncached(spec, "host", warnings);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  bool flushes = !(*compiled)->instruction().empty();
  EXPECT_EQ((*compiled)->denormalsAreZero(),
            (std::array<bool, 2>{flushes, flushes}))
      << (*compiled)->instruction();
  KernelData data = makeData(spec, kSeed, Fill::Extreme, Layout::Padded);
  data.denormalsAreZero = (*compiled)->denormalsAreZero();
  computeReference(spec, data);
  int64_t nan = 0, inf = 0, finite = 0;
  for (int64_t o = 0; o < spec.outputElements(); ++o) {
    double f = data.expected[o].real;
    nan += std::isnan(f);
    inf += std::isinf(f);
    finite += std::isfinite(f);
  }
  EXPECT_GT(nan, 0);
  EXPECT_GT(inf, 0);
  EXPECT_GT(finite, spec.outputElements() / 2);
  for (bool prepacked : {false, true}) {
    poisonOutput(data);
    runKernel(**compiled, data, RunMode{prepacked});
    EXPECT_EQ(compareOutput(spec, data), "");
  }
}

// Types no description implements on this machine (16-bit unsigned, mixed
// widths, f16 without AMX-FP16) are still kernels: plain vector code, with a
// warning, correct and vectorized.
TEST(KernelsJit, TypesWithoutInstruction) {
  for (llvm::StringRef t :
       {"u16s16s32", "u8s16s32", "u16u16s32", "f16f16f32"}) {
    KernelSpec spec = gemm(33, 47, 29, t);
    std::string warnings;
    auto compiled = compileUncached(spec, "host", warnings);
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    EXPECT_EQ((*compiled)->instruction(), "") << t.str();
    EXPECT_NE(warnings.find("plain vector code"), std::string::npos)
        << warnings;
    std::string why;
    EXPECT_TRUE(holdsVectorAccumulators(**compiled, why)) << why;
    int runs = 0;
    EXPECT_EQ(checkKernel(**compiled, kSeed, runs), "") << t.str();
    EXPECT_EQ(runs, 6);
  }
}

// A second compilation of the same kernel comes from the disk cache, and a
// different CPU (feature set) is a different entry.
TEST(KernelsJit, DiskCache) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tisa-cache", dir));
  KernelSpec spec = gemm(20, 40, 24, "s8s8s32");
  JitOptions options;
  options.cacheDir = std::string(dir);
  auto first = compileKernel(spec, options);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_FALSE((*first)->fromCache());
  auto second = compileKernel(spec, options);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_TRUE((*second)->fromCache());
  EXPECT_EQ((*second)->instruction(), (*first)->instruction());
  EXPECT_EQ((*second)->header(), (*first)->header());
  KernelData data = makeData(spec, kSeed, Fill::Extreme);
  computeReference(spec, data);
  runKernel(**second, data, RunMode{true});
  EXPECT_EQ(compareOutput(spec, data), "");
  options.target = "skylake-avx512";
  options.warnings = nullptr;
  auto other = compileKernel(spec, options);
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  EXPECT_FALSE((*other)->fromCache());
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
