//===- AMXKernelsTest.cpp - AMX kernels, run under the emulator -----------===//
//
// The kernel matrix for the tile instructions: sapphirerapids' int8 and bf16
// ones, and graniterapids' tdpfp16ps on the static matrix's bf16 cases as
// f16 (a description the tile generator takes with no code of its own; the
// run-time extents below take the same path for every tile instruction). Every
// kernel is JIT-compiled for its target without the features this CPU lacks
// besides AMX, run under the project's AMX emulator through all entries on
// random and extreme inputs, and compared with the reference (integers
// bit-exact, bf16 and f16 within the K-derived bound). Its machine code must hold
// the tile instruction in a loop and configure the tiles outside
// every loop; the emulator's counts of one pre-packed call must show the
// multiply-accumulates done by tile instructions with few tile loads.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/Reference.h"
#include "tisa/Targets/AMXEmulator.h"
#include "tisa/Targets/Target.h"

#include "llvm/ADT/STLExtras.h"

using namespace tisa;
using namespace tisa::test;

namespace {

/// A case, the tile instruction its types select and the target that has it.
struct AMXCase {
  MatrixCase kernel;
  const char *mnemonic;
  const char *target;
};

void PrintTo(const AMXCase &c, std::ostream *os) { PrintTo(c.kernel, os); }

/// The tile instruction for `types`, or null (no AMX instruction takes
/// 16-bit integers).
const char *tileInstruction(const KernelTypes &types) {
  if (types.a == ElementType::F16)
    return "tdpfp16ps";
  if (types.isFloat())
    return "tdpbf16ps";
  if (types.a == ElementType::S16)
    return nullptr;
  bool sa = types.a == ElementType::S8, sb = types.b == ElementType::S8;
  return sa ? (sb ? "tdpbssd" : "tdpbsud") : (sb ? "tdpbusd" : "tdpbuud");
}

/// Every case of the kernel matrix that an AMX instruction computes, with
/// that instruction chosen (the cost model prefers vpdpbusd on a few tiny
/// shapes, such as 1x1x1; the tile generator must handle them too), on
/// sapphirerapids.
std::vector<AMXCase> amxMatrix(const std::vector<MatrixCase> &cases) {
  std::vector<AMXCase> out;
  for (const MatrixCase &c : cases)
    if (const char *mnemonic = tileInstruction(c.spec.types))
      out.push_back({c, mnemonic, "sapphirerapids"});
  return out;
}

/// amxMatrix(cases), then its bf16 cases as f16 on graniterapids.
std::vector<AMXCase> withF16(const std::vector<MatrixCase> &cases) {
  std::vector<AMXCase> out = amxMatrix(cases);
  for (const MatrixCase &c : cases) {
    if (c.spec.types.a != ElementType::BF16)
      continue;
    MatrixCase f16 = c;
    f16.spec.types.a = f16.spec.types.b = ElementType::F16;
    out.push_back({f16, tileInstruction(f16.spec.types), "graniterapids"});
  }
  return out;
}

std::string amxName(const testing::TestParamInfo<AMXCase> &info) {
  return testName({info.param.kernel, info.index});
}

/// The features of `target` this CPU lacks besides AMX (the code is
/// generated without them), or a reason this machine cannot run it.
std::optional<std::vector<std::string>>
lackingBesidesAMX(llvm::StringRef target, std::string &why) {
  auto amxTarget = loadTarget(target);
  auto host = loadTarget("host");
  if (!amxTarget || !host) {
    why = "cannot load a target: " +
          llvm::toString(amxTarget ? host.takeError() : amxTarget.takeError());
    return std::nullopt;
  }
  std::vector<std::string> lacking = featuresLacking(*amxTarget, *host);
  llvm::erase_if(lacking, [](const std::string &f) {
    return llvm::StringRef(f).starts_with("amx-");
  });
  for (const char *needed : {"avx512f", "avx512bw", "avx512vl"})
    if (llvm::is_contained(lacking, needed)) {
      why = std::string("this CPU lacks ") + needed + ", which " +
            target.str() + " kernels use beside AMX";
      return std::nullopt;
    }
  return lacking;
}

/// The features of `target` to generate without once the emulator is
/// installed, or why AMX code cannot run here.
std::optional<std::vector<std::string>> amxRunnable(llvm::StringRef target,
                                                    std::string &why) {
  std::optional<std::vector<std::string>> without =
      lackingBesidesAMX(target, why);
  if (without && !amx::installEmulator(&why)) {
    why = "the AMX emulator cannot be installed: " + why;
    return std::nullopt;
  }
  return without;
}

/// Tile instructions of the product padded to whole 16 x 16 x K tiles, with
/// a conv2d's m the output row (K = 64 bytes of the input elements).
int64_t wholeTiles(const KernelSpec &s, double macs) {
  int64_t kTile = int64_t(macs) / 256;
  auto tiles = [](int64_t x, int64_t t) { return (x + t - 1) / t; };
  if (s.op == KernelSpec::Op::Gemm)
    return tiles(s.m, 16) * tiles(s.n, 16) * tiles(s.k, kTile);
  return s.batch * s.outH() * s.r * s.s * tiles(s.outW(), 16) *
         tiles(s.filters, 16) * tiles(s.c, kTile);
}

/// Instruction steps of the reduction (K, or a conv2d's taps and channel
/// steps), K being 64 bytes of the input elements per step.
/// The reduction's instruction steps: a conv2d's per pixel of each filter
/// row, or per row of its s * c taps (CompiledKernel::tapRows).
int64_t reductionSteps(const KernelSpec &s, double macs, bool tapRows) {
  int64_t kTile = int64_t(macs) / 256;
  auto tiles = [](int64_t x, int64_t t) { return (x + t - 1) / t; };
  if (s.op == KernelSpec::Op::Gemm)
    return tiles(s.k, kTile);
  if (tapRows)
    return s.r * tiles(s.s * s.c, kTile);
  return s.r * s.s * tiles(s.c, kTile);
}

/// Fewer reduction steps than this may be unrolled completely (LLVM unrolls
/// the 5 steps of a 5x3 filter's rows of taps, each two tdp* and three tile
/// loads).
constexpr int64_t kUnrolledSteps = 6;

class AMXKernels : public testing::TestWithParam<AMXCase> {};

TEST_P(AMXKernels, CorrectAndTensorized) {
  const KernelSpec &spec = GetParam().kernel.spec;
  expectOutputSize(GetParam().kernel);
  std::string why;
  auto without = amxRunnable(GetParam().target, why);
  if (!without)
    GTEST_SKIP() << why;

  std::string warnings;
  auto compiled = compileUncached(spec, GetParam().target, warnings, *without,
                                  GetParam().mnemonic);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const CompiledKernel &k = **compiled;
  EXPECT_TRUE(warnings.empty()) << warnings;
  ASSERT_EQ(k.mnemonic(), GetParam().mnemonic) << "plan " << k.plan();

  int runs = 0;
  EXPECT_EQ(checkKernel(k, kSeed, runs), "") << "plan " << k.plan();
  EXPECT_EQ(runs, 6);

  // A 16x16 tile of C per instruction, 64 bytes of A's row deep.
  double macs = 16.0 * 16 * 64 / spec.types.a.bytes();
  expectTensorized(k, spec, macs, /*innermost=*/false);
  for (llvm::StringRef entry : {"_packed", "_packed_range"}) {
    auto insts = disassembleFunction(k.object(), k.name() + entry.str(), "");
    ASSERT_TRUE(bool(insts)) << llvm::toString(insts.takeError());
    // The reduction's steps run as an innermost loop of tile loads and
    // tdp*, unless they are so few that LLVM unrolls them completely (then
    // the loop over blocks holds them, beside the edge moves' own loops).
    // With an epilogue, the loop over a block's rows through it may sit
    // inside the loop that holds them: no loop inside may hold a tdp*.
    auto holds = [&](std::pair<size_t, size_t> loop, llvm::StringRef m) {
      for (size_t i = loop.first; i <= loop.second; ++i)
        if ((*insts)[i].mnemonic == m)
          return true;
      return false;
    };
    auto loops = spec.epilogue.any() ? allLoops(*insts) : innermostLoops(*insts);
    auto hot = [&](std::pair<size_t, size_t> loop) {
      if (!holds(loop, GetParam().mnemonic) || !holds(loop, "tileloadd"))
        return false;
      return llvm::none_of(loops, [&](std::pair<size_t, size_t> inner) {
        return inner != loop && inner.first >= loop.first &&
               inner.second <= loop.second &&
               holds(inner, GetParam().mnemonic);
      });
    };
    if (reductionSteps(spec, macs, k.tapRows()) >= kUnrolledSteps)
      EXPECT_TRUE(llvm::any_of(loops, hot))
          << k.name() << entry.str() << ": no innermost loop holds "
          << GetParam().mnemonic << " and tileloadd (plan " << k.plan()
          << ", schedule " << k.schedule() << ")";
    for (auto [first, last] : allLoops(*insts))
      for (size_t i = first; i <= last; ++i)
        EXPECT_NE((*insts)[i].mnemonic, "ldtilecfg")
            << k.name() << entry.str() << ": tiles configured in the loop "
            << (*insts)[first].text << " @" << (*insts)[first].address
            << " .. " << (*insts)[last].text << " @" << (*insts)[last].address;
  }

  // One pre-packed call, counted by the emulator.
  KernelData data = makeData(spec, kSeed, Fill::Random);
  Bytes packed;
  ASSERT_EQ(packWeights(k, data, packed), "");
  amx::resetCounts();
  bindKernel(k, data, RunMode{true}, packed)();
  uint64_t dots = amx::emulatedCount(GetParam().mnemonic);
  uint64_t loads = amx::emulatedCount("tileloadd");
  uint64_t configs = amx::emulatedCount("ldtilecfg");
  // Every multiply-accumulate by a tile instruction, and no more
  // instructions than whole tiles of m (a conv2d's output row), n and k
  // need (each output row and tap of a conv2d apart), plus half of them for
  // whole register tiles.
  EXPECT_GE(double(dots), double(spec.ops()) / 2 / macs);
  EXPECT_LE(double(dots), 1.5 * double(wholeTiles(spec, macs)))
      << "plan " << k.plan() << ", schedule " << k.schedule();
  // At most one tile load per instruction on GEMMs of two tiles or more in
  // m and n and a whole k step: 2x2 accumulators, or B's tiles held over the
  // m blocks where k has few steps (97x131x67: 0.70, with no padded
  // instruction). One exception: 33x48x70 bf16 (f16) is 3 x 3 tiles of three k
  // steps, and no schedule within 8 tile registers reaches one load per
  // instruction there without padding (hold=1 of 1x3 tiles loads 30 for
  // 27; 2x2 tiles would issue 48 instructions for 48 loads).
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  bool threeByThree = llvm::divideCeil(spec.m, 16) == 3 &&
                      llvm::divideCeil(spec.n, 16) == 3 &&
                      llvm::divideCeil(spec.k * 2, 64) == 3 &&
                      spec.types.isFloat();
  if (gemm && spec.m >= 32 && spec.n >= 32 && spec.k >= 64 && !threeByThree)
    EXPECT_LE(loads, dots) << k.schedule();
  else if (gemm && threeByThree)
    EXPECT_LE(loads * 27, dots * 30) << k.schedule();
  else if (gemm && spec.m >= 32 && spec.n >= 32)
    EXPECT_LE(double(loads), 1.5 * dots) << k.schedule();
  EXPECT_EQ(configs, 1u) << "tile configurations in one call";
}

INSTANTIATE_TEST_SUITE_P(Matrix, AMXKernels,
                         testing::ValuesIn(withF16(kernelMatrix())), amxName);
// Fused epilogues: each block's tiles go to a scratch in L1 and its rows
// through the epilogue.
INSTANTIATE_TEST_SUITE_P(Epilogues, AMXKernels,
                         testing::ValuesIn(withF16(epilogueMatrix())),
                         amxName);

} // namespace

// The small kernels of the matrix with m (the batch) at run time, under the
// emulator (which traps every tile instruction): correct at each extent
// through every entry, the tile instruction in a loop, and one tile
// configuration per call however many static blocks -tisa-split-dynamic
// runs (256 rows, then the remainder's binary digits; with h and w at run
// time, runs of output rows or columns): their scratch buffers are
// allocated once, before them all (-tisa-hoist-scratch), and the padded
// image is copied by one call.
class AMXRunTimeRows : public testing::TestWithParam<AMXCase> {};

TEST_P(AMXRunTimeRows, CorrectAtEachExtentAndTensorized) {
  const MatrixCase &c = GetParam().kernel;
  std::string why;
  auto without = amxRunnable(GetParam().target, why);
  if (!without)
    GTEST_SKIP() << why;
  std::string warnings;
  auto compiled = compileUncached(c.spec, GetParam().target, warnings, *without,
                                  GetParam().mnemonic);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  const CompiledKernel &k = **compiled;
  EXPECT_TRUE(warnings.empty()) << warnings;
  double macs = 16.0 * 16 * 64 / c.spec.types.a.bytes();
  expectTensorized(k, c.spec.withRows(c.rows.front()), macs,
                   /*innermost=*/false);
  for (int64_t rows : c.rows) {
    int runs = 0;
    EXPECT_EQ(checkKernel(k, kSeed, runs, rows), "")
        << "at " << rows << " rows, plan " << k.plan();
    EXPECT_EQ(runs, 6);
    KernelData data = makeData(c.spec.withRows(rows), kSeed, Fill::Random);
    Bytes packed;
    ASSERT_EQ(packWeights(k, data, packed), "");
    amx::resetCounts();
    bindKernel(k, data, RunMode{true}, packed)();
    EXPECT_EQ(amx::emulatedCount("ldtilecfg"), 1u)
        << "tile configurations in one call at " << rows << " rows";
    EXPECT_GE(double(amx::emulatedCount(GetParam().mnemonic)),
              double(c.spec.withRows(rows).ops()) / 2 / macs);
  }
}

INSTANTIATE_TEST_SUITE_P(Matrix, AMXRunTimeRows,
                         testing::ValuesIn(amxMatrix(smallRunTimeRowsMatrix())),
                         amxName);
// The convolutions of that matrix with h and w at run time too.
INSTANTIATE_TEST_SUITE_P(Image, AMXRunTimeRows,
                         testing::ValuesIn(
                             amxMatrix(smallRunTimeImageMatrix())),
                         amxName);
