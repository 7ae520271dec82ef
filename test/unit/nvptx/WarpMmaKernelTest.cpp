//===- WarpMmaKernelTest.cpp - Tensor Core GEMM kernels, checked on the host ===//
//
// For every shipped mma.sync description and a set of GEMM shapes (odd ones
// included), the kernel generator's gpu.func is
//   - lowered to PTX, which must hold the instruction and which ptxas -v must
//     accept for sm_80 and sm_90 without spilling (skipped without ptxas);
//   - lowered for the host by -tisa-gpu-to-host (blocks and threads as loops,
//     each mma.sync by the warp-level reference), JIT-compiled and run on
//     random data with a random C to accumulate into: integers bit-exact,
//     floats within a bound derived from K.
//
//===----------------------------------------------------------------------===//

#include "tisa/Matcher/Matcher.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Semantics/Parse.h"
#include "tisa/Targets/Codegen.h"
#include "tisa/Targets/KernelPtx.h"
#include "tisa/Targets/PtxasChecker.h"
#include "tisa/Targets/Target.h"
#include "tisa/Targets/WarpMma.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/WarpMmaKernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir;
using namespace tisa;

namespace {

/// A 2-D memref as MLIR's C interface passes it.
struct MemRef2D {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

struct Case {
  const char *isa;
  int64_t m, n, k;
  /// Fragments read by ldmatrix (every shipped layout allows it), or by
  /// vector loads.
  bool ldmatrix = true;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.isa << " " << c.m << "x" << c.n << "x" << c.k
      << (c.ldmatrix ? "" : " without ldmatrix");
}

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// A linalg.generic GEMM whose arithmetic is the description's own: the
/// factors widened as the description widens them (an f32 description reads
/// plain f32 products; tf32 needs --allow-reduced-precision).
std::string gemmSource(const Description &d, int64_t m, int64_t n, int64_t k) {
  const MulAcc &a = d.mulAcc;
  std::string ta = typeName(d.operandElementType(0)),
              tb = typeName(d.operandElementType(1)),
              tc = typeName(d.operandElementType(2));
  auto widen = [&](const char *v, MulAcc::Ext ext, const std::string &from) {
    if (from == tc)
      return std::string();
    const char *op = ext == MulAcc::Ext::Sign   ? "arith.extsi"
                     : ext == MulAcc::Ext::Zero ? "arith.extui"
                                                : "arith.extf";
    return llvm::formatv("      %{0}w = {1} %{0} : {2} to {3}\n", v, op, from,
                         tc)
        .str();
  };
  bool lhsIsA = a.lhsInput == 0;
  std::string body = widen("x", lhsIsA ? a.lhsExt : a.rhsExt, ta) +
                     widen("y", lhsIsA ? a.rhsExt : a.lhsExt, tb);
  std::string x = ta == tc ? "%x" : "%xw", y = tb == tc ? "%y" : "%yw";
  bool isFloat = a.isFloat;
  return llvm::formatv(
             R"(func.func @gemm(%A: memref<{0}x{2}x{3}>, %B: memref<{2}x{1}x{4}>, %C: memref<{0}x{1}x{5}>) {{
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<{0}x{2}x{3}>, memref<{2}x{1}x{4}>) outs(%C : memref<{0}x{1}x{5}>) {{
    ^bb0(%x: {3}, %y: {4}, %s: {5}):
{6}      %p = {7} {8}, {9} : {5}
      %t = {10} %s, %p : {5}
      linalg.yield %t : {5}
  }
  return
}
)",
             m, n, k, ta, tb, tc, body, isFloat ? "arith.mulf" : "arith.muli",
             x, y, isFloat ? "arith.addf" : "arith.addi")
      .str();
}

/// Everything the test builds for one case, in one context.
class KernelFixture : public ::testing::TestWithParam<Case> {
protected:
  static void SetUpTestSuite() {
    loaded = new LoadedDescriptions();
    loaded->ctx.loadDialect<gpu::GPUDialect>();
    auto sm80 = loadTarget("sm_80");
    auto host = loadTarget("host");
    ASSERT_TRUE(static_cast<bool>(sm80)) << llvm::toString(sm80.takeError());
    ASSERT_TRUE(static_cast<bool>(host)) << llvm::toString(host.takeError());
    targetSm80 = new Target(std::move(*sm80));
    targetHost = new Target(std::move(*host));
  }

  const Description *description(StringRef name) {
    for (const Description *d : loaded->all)
      if (d->name == name)
        return d;
    return nullptr;
  }

  /// The kernel module for `c`, or a failure message.
  OwningOpRef<ModuleOp> build(const Case &tc, const Description &d,
                              WarpMmaLaunch &launch, std::string &error) {
    MLIRContext &ctx = loaded->ctx;
    program = parseSourceString<ModuleOp>(gemmSource(d, tc.m, tc.n, tc.k),
                                          &ctx);
    if (!program) {
      error = "the GEMM did not parse";
      return {};
    }
    linalg::LinalgOp op;
    program->walk([&](linalg::LinalgOp l) { op = l; });
    std::string why;
    FailureOr<Contraction> c = readContraction(op, why);
    if (failed(c)) {
      error = why;
      return {};
    }
    contraction = *c;
    MatchOptions options;
    options.target = targetSm80;
    options.allowReducedPrecision = true;
    auto plans = matchDescription(contraction, d, options, why);
    if (failed(plans)) {
      error = "not matched: " + why;
      return {};
    }
    const TensorizePlan *chosen = nullptr;
    for (const TensorizePlan &p : *plans)
      if (whyNotWarpMmaGemm(contraction, p).empty()) {
        chosen = &p;
        break;
      }
    if (!chosen) {
      error = "no plan the generator supports: " +
              whyNotWarpMmaGemm(contraction, plans->front());
      return {};
    }
    OwningOpRef<ModuleOp> kernels = ModuleOp::create(UnknownLoc::get(&ctx));
    WarpMmaSchedule schedule = defaultWarpMmaSchedule(contraction, *chosen);
    schedule.ldmatrix = tc.ldmatrix;
    auto l = buildWarpMmaKernel(*kernels, "gemm", contraction, *chosen,
                                schedule, why);
    if (failed(l)) {
      error = why;
      return {};
    }
    launch = *l;
    if (failed(verify(*kernels))) {
      error = "the kernel module does not verify";
      return {};
    }
    return kernels;
  }

  /// The kernel of the test's case; null after recording why.
  OwningOpRef<ModuleOp> kernelOfCase(const Description *&d,
                                     WarpMmaLaunch &launch) {
    const Case &tc = GetParam();
    d = description(tc.isa);
    if (!d) {
      ADD_FAILURE() << "no description " << tc.isa;
      return {};
    }
    std::string error;
    OwningOpRef<ModuleOp> kernels = build(tc, *d, launch, error);
    if (!kernels)
      ADD_FAILURE() << error;
    return kernels;
  }

  bool runPass(ModuleOp module, std::unique_ptr<Pass> pass) {
    PassManager pm(&loaded->ctx);
    pm.addPass(std::move(pass));
    return succeeded(pm.run(module));
  }

  static LoadedDescriptions *loaded;
  static Target *targetSm80, *targetHost;
  OwningOpRef<ModuleOp> program;
  Contraction contraction;
};

LoadedDescriptions *KernelFixture::loaded = nullptr;
Target *KernelFixture::targetSm80 = nullptr;
Target *KernelFixture::targetHost = nullptr;

/// Random elements of `t` as raw bytes: integers of any value, floats of
/// moderate magnitude whose products and sums stay finite.
std::vector<uint8_t> randomElements(Type t, int64_t count, std::mt19937 &rng) {
  unsigned bytes = t.getIntOrFloatBitWidth() / 8;
  std::vector<uint8_t> out(count * bytes);
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = rng();
    if (auto f = dyn_cast<FloatType>(t)) {
      // Multiples of 2^-6 in [-4, 4): exact in f16, bf16 and tf32.
      double v = (int(rng() % 512) - 256) / 64.0;
      llvm::APFloat x(v);
      bool lost;
      x.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      bits = x.bitcastToAPInt().getZExtValue();
      if (f.isF32())
        bits |= rng() & 0x1fff; // low bits tf32 ignores
    }
    for (unsigned b = 0; b < bytes; ++b)
      out[i * bytes + b] = uint8_t(bits >> (8 * b));
  }
  return out;
}

double elementValue(Type t, const uint8_t *p, bool isSigned) {
  unsigned bytes = t.getIntOrFloatBitWidth() / 8;
  uint64_t bits = 0;
  for (unsigned b = 0; b < bytes; ++b)
    bits |= uint64_t(p[b]) << (8 * b);
  if (auto f = dyn_cast<FloatType>(t)) {
    llvm::APFloat x(f.getFloatSemantics(), llvm::APInt(bytes * 8, bits));
    return x.convertToDouble();
  }
  if (isSigned && bytes < 8 && (bits >> (bytes * 8 - 1)))
    return double(int64_t(bits) - (int64_t(1) << (bytes * 8)));
  return double(bits);
}

TEST_P(KernelFixture, PtxHoldsTheInstructionAndPtxasAcceptsIt) {
  const Description *d = nullptr;
  WarpMmaLaunch launch;
  OwningOpRef<ModuleOp> kernels = kernelOfCase(d, launch);
  ASSERT_TRUE(kernels);
  ASSERT_TRUE(runPass(*kernels, createTisaLegalizeInstructionsPass()));
  auto ptx = nvptx::emitKernelPtx(*kernels, *targetSm80);
  ASSERT_TRUE(static_cast<bool>(ptx)) << llvm::toString(ptx.takeError());
  EXPECT_NE(ptx->find(d->mnemonic), std::string::npos) << *ptx;
  EXPECT_EQ(ptx->find("ldmatrix.sync.aligned") != std::string::npos,
            GetParam().ldmatrix);
  std::string why = nvptx::ptxasUnavailableReason();
  if (!why.empty())
    GTEST_SKIP() << "ptxas: " << why;
  for (const char *arch : {"sm_80", "sm_86", "sm_90"}) {
    auto resources = nvptx::ptxasResources(*ptx, arch);
    ASSERT_TRUE(static_cast<bool>(resources))
        << llvm::toString(resources.takeError());
    ASSERT_EQ(resources->size(), 1u);
    const nvptx::KernelResources &r = resources->front();
    EXPECT_EQ(r.name, "gemm");
    EXPECT_EQ(r.spillStoreBytes, 0) << arch;
    EXPECT_EQ(r.spillLoadBytes, 0) << arch;
    EXPECT_EQ(r.sharedBytes, launch.sharedBytes) << arch;
    EXPECT_GT(r.registers, 0) << arch;
    RecordProperty(std::string(arch) + "_registers", int(r.registers));
  }
}

TEST_P(KernelFixture, HostRunMatchesTheReference) {
  const Case &tc = GetParam();
  const Description *d = nullptr;
  WarpMmaLaunch launch;
  OwningOpRef<ModuleOp> kernels = kernelOfCase(d, launch);
  ASSERT_TRUE(kernels);
  ASSERT_TRUE(runPass(*kernels, createTisaGpuToHostPass()));
  ASSERT_TRUE(succeeded(lowerToLLVMDialect(*kernels)));
  auto object = compileToObject(*kernels, codegenTargetFor(*targetHost));
  ASSERT_TRUE(static_cast<bool>(object)) << llvm::toString(object.takeError());
  auto jit = JitObject::load(std::move(*object), nvptx::hostRuntimeSymbols());
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  auto entry = (*jit)->lookup("_mlir_ciface_gemm_host");
  ASSERT_TRUE(static_cast<bool>(entry)) << llvm::toString(entry.takeError());

  Type ta = d->operandElementType(0), tb = d->operandElementType(1),
       tcType = d->operandElementType(2);
  std::mt19937 rng(uint32_t(tc.m * 131 + tc.n * 7 + tc.k));
  std::vector<uint8_t> a = randomElements(ta, tc.m * tc.k, rng);
  std::vector<uint8_t> b = randomElements(tb, tc.k * tc.n, rng);
  std::vector<uint8_t> c = randomElements(tcType, tc.m * tc.n, rng);
  if (isa<FloatType>(tcType)) // a C of moderate size, exactly an f32
    for (size_t i = 0; i < c.size(); i += 4)
      c[i] = c[i + 1] = 0;
  std::vector<uint8_t> before = c;
  auto desc = [](std::vector<uint8_t> &v, int64_t rows, int64_t cols) {
    return MemRef2D{v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
  };
  MemRef2D da = desc(a, tc.m, tc.k), db = desc(b, tc.k, tc.n),
           dc = desc(c, tc.m, tc.n);
  using Fn = void (*)(MemRef2D *, MemRef2D *, MemRef2D *, int64_t, int64_t);
  reinterpret_cast<Fn>(*entry)(&da, &db, &dc, launch.gridX, launch.gridY);

  // Reference: exact for integers (then wrapped to s32); floats in double
  // from the values the instruction reads (tf32: the top 19 bits).
  bool signA = d->mulAcc.lhsInput == 0 ? d->mulAcc.lhsExt != MulAcc::Ext::Zero
                                       : d->mulAcc.rhsExt != MulAcc::Ext::Zero;
  bool signB = d->mulAcc.lhsInput == 0 ? d->mulAcc.rhsExt != MulAcc::Ext::Zero
                                       : d->mulAcc.lhsExt != MulAcc::Ext::Zero;
  bool tf32 = d->mulAcc.lhsNarrowing.has_value();
  unsigned ea = ta.getIntOrFloatBitWidth() / 8, eb = tb.getIntOrFloatBitWidth() / 8;
  auto read = [&](Type t, const uint8_t *p, bool s) {
    if (!tf32)
      return elementValue(t, p, s);
    uint8_t masked[4] = {0, uint8_t(p[1] & 0xe0), p[2], p[3]};
    return elementValue(t, masked, s);
  };
  int64_t mismatches = 0;
  std::string first;
  for (int64_t i = 0; i < tc.m; ++i)
    for (int64_t j = 0; j < tc.n; ++j) {
      double sum = elementValue(tcType, &before[(i * tc.n + j) * 4], true);
      double magnitude = std::fabs(sum);
      for (int64_t k = 0; k < tc.k; ++k) {
        double p = read(ta, &a[(i * tc.k + k) * ea], signA) *
                   read(tb, &b[(k * tc.n + j) * eb], signB);
        sum += p;
        magnitude += std::fabs(p);
      }
      double got = elementValue(tcType, &c[(i * tc.n + j) * 4], true);
      bool ok;
      if (isa<FloatType>(tcType))
        ok = std::fabs(got - sum) <= magnitude * (tc.k + 1) * 0x1p-24;
      else
        ok = uint32_t(int64_t(got)) == uint32_t(int64_t(sum));
      if (!ok && mismatches++ == 0)
        first = llvm::formatv("C[{0}][{1}] = {2}, reference {3}", i, j, got,
                              sum)
                    .str();
    }
  EXPECT_EQ(mismatches, 0) << first;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char *isa :
       {"mma.m16n8k16.f16f16f32", "mma.m16n8k16.bf16bf16f32",
        "mma.m16n8k8.f16f16f32", "mma.m16n8k8.tf32tf32f32",
        "mma.m16n8k32.s8s8s32", "mma.m16n8k16.s8s8s32",
        "mma.m16n8k32.u8s8s32"})
    for (auto [m, n, k] : std::initializer_list<std::array<int64_t, 3>>{
             {1, 1, 1}, {16, 8, 32}, {64, 64, 64}, {97, 131, 67}}) {
      out.push_back({isa, m, n, k});
      if (m == 97)
        out.push_back({isa, m, n, k, /*ldmatrix=*/false});
    }
  return out;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  std::string isa = info.param.isa;
  for (char &ch : isa)
    if (!isalnum(ch))
      ch = '_';
  return llvm::formatv("{0}_{1}x{2}x{3}{4}", isa, info.param.m, info.param.n,
                       info.param.k, info.param.ldmatrix ? "" : "_vector_loads")
      .str();
}

INSTANTIATE_TEST_SUITE_P(Matrix, KernelFixture, ::testing::ValuesIn(cases()),
                         caseName);

} // namespace
