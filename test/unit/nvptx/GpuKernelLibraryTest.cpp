//===- GpuKernelLibraryTest.cpp - tisa gen's Tensor Core kernels, on the host ===//
//
// The kernel test matrix for Tensor Cores, through the library entry that
// `tisa gen|run --target sm_XX` use (tisa::generateGpuKernel): GEMMs of odd
// shapes, BERT's 128x768x768, and NHWC conv2d (3x3 pad 1 with odd channels,
// ResNet-50's 7x7x512 layer, strides, a batch, 1x1) for every element type an mma description implements, with
// the inputs staged by cp.async where their slice rows are contiguous and
// element by element elsewhere. Each kernel is
//   - run through its host lowering on random and extreme data against the
//     CPU kernels' reference: integers bit-exact, floats within the bound
//     derived from K;
//   - PTX holding the instruction, assembled by ptxas for sm_80 with no
//     spills (skipped, with the reason, without ptxas).
// Each test generates the kernel with only the lowering it checks
// (GpuLowerings): the two were compiled twice, once in each test's process.
//
//===----------------------------------------------------------------------===//

#include "tisa/Kernels/Reference.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/PtxasChecker.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace tisa;

namespace {

struct Case {
  const char *types;
  KernelSpec spec;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.types << " " << c.spec.describe();
}

KernelSpec gemm(int64_t m, int64_t n, int64_t k) {
  return KernelSpec::makeGemm(m, n, k);
}

KernelSpec conv(int64_t batch, int64_t h, int64_t w, int64_t c, int64_t f,
                int64_t r, int64_t stride, int64_t pad) {
  return KernelSpec::makeConv2d(batch, h, w, c, f, r, stride, pad);
}

/// Fills C's elements with random values (s32 below 2^20 in magnitude, f32
/// multiples of 2^-10 in [-1, 1]) and makes the expected result C + A * B:
/// s32 wraps; in f32, C is one more term of the sum, whose every addition
/// may round relative to |C| too, and the reference's own result rounds
/// once more: the bound grows by (K + 3) * 2^-24 * |C| + 2^-23 * |A * B|.
void addRandomStart(const KernelSpec &spec, KernelData &data, uint64_t seed) {
  std::mt19937_64 rng(seed);
  bool isFloat = spec.types.isFloat();
  for (int64_t o = 0; o < spec.outputElements(); ++o) {
    uint8_t *c = data.out() + 4 * o;
    ReferenceValue &want = data.expected[o];
    if (!isFloat) {
      int32_t start = int32_t(rng() % (1 << 21)) - (1 << 20);
      want.integer = int32_t(uint32_t(want.integer) + uint32_t(start));
      std::memcpy(c, &start, 4);
      continue;
    }
    float start = std::ldexp(float(int(rng() % 2001) - 1000), -10);
    int64_t terms = spec.op == KernelSpec::Op::Gemm ? spec.k
                                                     : spec.r * spec.s * spec.c;
    want.bound += double(terms + 3) * std::ldexp(1.0, -24) * std::fabs(start) +
                  std::ldexp(1.0, -23) * std::fabs(want.real);
    want.real = float(double(start) + want.real);
    std::memcpy(c, &start, 4);
  }
}

class GpuLibrary : public ::testing::TestWithParam<Case> {
protected:
  static void SetUpTestSuite() {
    loaded = new LoadedDescriptions();
    loaded->ctx.loadDialect<mlir::gpu::GPUDialect>();
    auto sm80 = loadTarget("sm_80");
    auto host = loadTarget("host");
    ASSERT_TRUE(static_cast<bool>(sm80)) << llvm::toString(sm80.takeError());
    ASSERT_TRUE(static_cast<bool>(host)) << llvm::toString(host.takeError());
    sm80Target = new Target(std::move(*sm80));
    hostTarget = new Target(std::move(*host));
  }

  /// The case's kernel with the lowering a test checks (the other is
  /// another test's), or a failure recorded.
  std::optional<GeneratedGpuKernel> generate(KernelSpec &spec,
                                             GpuLowerings lowerings) {
    const Case &tc = GetParam();
    spec = tc.spec;
    auto types = KernelTypes::parse(tc.types);
    if (!types) {
      ADD_FAILURE() << llvm::toString(types.takeError());
      return std::nullopt;
    }
    spec.types = *types;
    auto kernel = generateGpuKernel(loaded->ctx, spec, loaded->all,
                                    *sm80Target, *hostTarget, {}, lowerings);
    if (!kernel) {
      ADD_FAILURE() << llvm::toString(kernel.takeError());
      return std::nullopt;
    }
    return std::move(*kernel);
  }

  static LoadedDescriptions *loaded;
  static Target *sm80Target, *hostTarget;
};

LoadedDescriptions *GpuLibrary::loaded = nullptr;
Target *GpuLibrary::sm80Target = nullptr;
Target *GpuLibrary::hostTarget = nullptr;

TEST_P(GpuLibrary, HostRunMatchesTheReference) {
  KernelSpec spec;
  auto kernel = generate(spec, GpuLowerings::Host);
  ASSERT_TRUE(kernel);
  auto run = loadGpuKernelOnHost(*kernel, spec);
  ASSERT_TRUE(static_cast<bool>(run)) << llvm::toString(run.takeError());
  for (Fill fill : {Fill::Random, Fill::Extreme}) {
    // Guard bytes of poison beside C: a write outside it is seen. Every
    // buffer ends at a fence page (random data) or starts right after one
    // (extreme data): a read outside faults.
    KernelData data =
        makeData(spec, /*seed=*/7, fill, Layout::Guarded,
                 fill == Fill::Random ? Fence::After : Fence::Before);
    data.denormalsAreZero = {false, false}; // mma.sync keeps denormals
    computeReference(spec, data);
    // C += A * B from a C of random values (a kernel that overwrites C, or
    // adds twice, is seen); with an epilogue C = epilogue(A * B), C not
    // read: it keeps the poison.
    if (!spec.epilogue.any())
      addRandomStart(spec, data, /*seed=*/11);
    (*run)(data);
    EXPECT_EQ(compareOutput(spec, data), "")
        << (fill == Fill::Random ? "random" : "extreme") << " data";
  }
}

TEST_P(GpuLibrary, PtxasAssemblesItWithoutSpills) {
  KernelSpec spec;
  auto kernel = generate(spec, GpuLowerings::Device);
  ASSERT_TRUE(kernel);
  EXPECT_NE(kernel->ptx.find(kernel->mnemonic), std::string::npos);
  // cp.async copies an input whose slice lines are contiguous in chunks of
  // 4 bytes or more: A's k, the convolution input's channels, and for
  // 16-bit types (ldmatrix.trans reads them transposed) B's n, the filter's
  // output channels.
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  unsigned bytes = spec.types.a.bytes();
  int64_t chunk = std::max<int64_t>(1, 4 / bytes);
  bool inputLines = (gemm ? spec.k : spec.c) % chunk == 0;
  bool weightLines = bytes == 2 && (gemm ? spec.n : spec.filters) % chunk == 0;
  EXPECT_EQ(kernel->ptx.find("cp.async") != std::string::npos,
            inputLines || weightLines);
  EXPECT_NE(kernel->ptx.find("ldmatrix"), std::string::npos);
  if (kernel->cubin.empty())
    GTEST_SKIP() << "no cubin: " << kernel->noCubinWhy;
  EXPECT_GT(kernel->registers, 0);
  EXPECT_EQ(kernel->spillBytes, 0);
  EXPECT_GT(kernel->occupancy, 0.0);
  RecordProperty("registers", int(kernel->registers));
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char *types : {"s8,s8,s32", "u8,s8,s32", "bf16,bf16,f32",
                            "f16,f16,f32", "tf32,tf32,f32"})
    for (KernelSpec s :
         {gemm(1, 1, 1), gemm(15, 16, 17), gemm(17, 15, 65),
          gemm(97, 131, 67), gemm(33, 40, 80), gemm(128, 768, 768),
          conv(1, 7, 9, 19, 21, 3, 1, 1), conv(2, 14, 13, 33, 40, 3, 2, 1),
          conv(1, 9, 7, 32, 24, 3, 1, 1), conv(1, 7, 7, 512, 512, 3, 1, 1),
          conv(1, 8, 8, 3, 16, 1, 1, 0), conv(1, 5, 6, 16, 8, 3, 1, 0)}) {
      s.types = cantFail(KernelTypes::parse(types));
      out.push_back({types, s});
    }
  return out;
}

/// Fused epilogues (bias, residual, ReLU, requantization or a bf16 output)
/// applied to each accumulator on its way out; the data makes s32 wrap and
/// tells rounding modes apart (tisa::fillEpilogue).
std::vector<Case> epilogueCases() {
  auto with = [](KernelSpec s, const char *types, llvm::StringRef list) {
    s.types = cantFail(KernelTypes::parse(types));
    s.epilogue = cantFail(EpilogueSpec::parse(list));
    return Case{types, s};
  };
  return {with(gemm(97, 131, 67), "u8,s8,s32", "bias,relu,requant=u8"),
          with(gemm(97, 131, 67), "s8,s8,s32", "bias,residual,requant=s8"),
          with(gemm(1, 1, 1), "u8,s8,s32", "bias,requant=u8"),
          with(gemm(33, 48, 70), "bf16,bf16,f32", "bias,residual,relu,bf16"),
          with(gemm(17, 15, 65), "f16,f16,f32", "bias,relu"),
          with(conv(1, 14, 14, 19, 21, 3, 1, 1), "u8,s8,s32",
               "bias,residual,relu,requant=u8"),
          with(conv(2, 9, 7, 16, 24, 3, 2, 1), "bf16,bf16,f32",
               "bias,relu,bf16")};
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string s = info.param.spec.symbol();
  std::replace_if(
      s.begin(), s.end(), [](char c) { return !std::isalnum(c); }, '_');
  return s;
}

INSTANTIATE_TEST_SUITE_P(Matrix, GpuLibrary, ::testing::ValuesIn(cases()),
                         caseName);
INSTANTIATE_TEST_SUITE_P(Epilogues, GpuLibrary,
                         ::testing::ValuesIn(epilogueCases()), caseName);

/// sm_80 with a limit changed, and a kernel generated for it.
class GpuLibraryTarget : public ::testing::Test {
protected:
  void SetUp() override {
    loaded.ctx.loadDialect<mlir::gpu::GPUDialect>();
    auto sm80 = loadTarget("sm_80");
    auto host = loadTarget("host");
    ASSERT_TRUE(static_cast<bool>(sm80)) << llvm::toString(sm80.takeError());
    ASSERT_TRUE(static_cast<bool>(host)) << llvm::toString(host.takeError());
    target = std::move(*sm80);
    hostTarget = std::move(*host);
  }
  llvm::Expected<GeneratedGpuKernel> generate(int64_t m, int64_t n,
                                              int64_t k) {
    KernelSpec spec = gemm(m, n, k);
    spec.types = *KernelTypes::parse("f16,f16,f32");
    return generateGpuKernel(loaded.ctx, spec, loaded.all, target, hostTarget,
                             {});
  }
  LoadedDescriptions loaded;
  Target target, hostTarget;
};

/// A target whose blocks hold less shared memory than the kernel uses is
/// refused with the figures (the key was read and never used: the kernel
/// could not have launched there).
TEST_F(GpuLibraryTarget, SharedMemoryBeyondTheTargetIsRefused) {
  target.sharedMemoryBytes = 1024;
  auto kernel = generate(256, 256, 256);
  ASSERT_FALSE(static_cast<bool>(kernel));
  std::string why = llvm::toString(kernel.takeError());
  EXPECT_NE(why.find("bytes of shared memory per block; sm_80 gives a block "
                     "1024 (shared_memory_bytes)"),
            std::string::npos)
      << why;
}

/// The grid's x runs over the larger of m's and n's block counts (x holds
/// 2^31 - 1 blocks, y 65535), and a launch beyond the target's limits is
/// refused with the counts: a convolution of 65536 x 64 output pixels
/// launched 65536 blocks along y, which CUDA refuses.
TEST_F(GpuLibraryTarget, GridWithinTheTargetsLimits) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{1024, 16}, {16, 1024}}) {
    auto kernel = generate(m, n, 64);
    ASSERT_TRUE(static_cast<bool>(kernel))
        << llvm::toString(kernel.takeError());
    EXPECT_GT(kernel->gridX, kernel->gridY) << m << "x" << n;
  }
  auto kernel = generate(1024, 16, 64);
  ASSERT_TRUE(static_cast<bool>(kernel)) << llvm::toString(kernel.takeError());
  target.gridBlocksX = kernel->gridX - 1;
  auto refused = generate(1024, 16, 64);
  ASSERT_FALSE(static_cast<bool>(refused));
  std::string why = llvm::toString(refused.takeError());
  EXPECT_NE(why.find("the launch needs " + std::to_string(kernel->gridX) +
                     " x 1 blocks"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("sm_80 allows " + std::to_string(kernel->gridX - 1) +
                     " x 65535 (grid_blocks_x, grid_blocks_y)"),
            std::string::npos)
      << why;
}

} // namespace
