//===- MatcherBench.cpp - how long tisa::match takes ----------------------===//
//
//   tisa-matcher-bench [--benchmark_repetitions=5
//                       --benchmark_report_aggregates_only=true]
//
// Times `tisa::match` alone: parsing the workloads, loading the shipped
// descriptions and loading the target happen once, before any benchmark runs.
//
//   BM_MatchAll/<workload>/<target>  every shipped description against one
//       contraction; target "any" (options.target = nullptr: every
//       description considered, neutral costs) or "znver4".
//   BM_MatchScaling/<n>  the ResNet-50 3x3 convolution against the first n
//       descriptions in load order; n > the number shipped repeats the list,
//       so the 22 -> 44 -> 88 steps measure linearity with identical work per
//       description. Reported as counters (per_desc) and as a fitted O(N).
//
// Counters: plans (candidate plans returned), rejected (descriptions that do
// not apply), per_desc (time per description considered).
//
//===----------------------------------------------------------------------===//

#include "tisa/Matcher/Matcher.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Target.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

using namespace mlir;

namespace {

/// The workloads, one contraction per function. Convolutions are named ops
/// (whose default cast is signed: s8 x s8 -> s32); the int8 GEMM is a generic
/// with explicit extensions (u8 x s8 -> s32, the VNNI form); the bf16 GEMM is
/// a named matmul.
constexpr const char *kWorkloads = R"mlir(
// ResNet-50 conv2_x: 56x56x64 -> 64, 3x3, stride 1, padding 1 (pre-padded).
func.func @conv3x3_s8(%in: tensor<1x58x58x64xi8>, %f: tensor<3x3x64x64xi8>,
                      %out: tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %f : tensor<1x58x58x64xi8>, tensor<3x3x64x64xi8>)
         outs(%out : tensor<1x56x56x64xi32>) -> tensor<1x56x56x64xi32>
  return %r : tensor<1x56x56x64xi32>
}

// ResNet-50 conv1: 224x224x3 -> 64, 7x7, stride 2, padding 3 (pre-padded).
func.func @conv7x7s2_s8(%in: tensor<1x230x230x3xi8>, %f: tensor<7x7x3x64xi8>,
                        %out: tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf
         {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %f : tensor<1x230x230x3xi8>, tensor<7x7x3x64xi8>)
         outs(%out : tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32>
  return %r : tensor<1x112x112x64xi32>
}

// BERT-base FFN up-projection: 128 tokens x 768 -> 3072.
func.func @gemm_u8s8(%a: tensor<128x768xi8>, %b: tensor<768x3072xi8>,
                     %c: tensor<128x3072xi32>) -> tensor<128x3072xi32> {
  %r = linalg.generic
         {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                           affine_map<(m, n, k) -> (k, n)>,
                           affine_map<(m, n, k) -> (m, n)>],
          iterator_types = ["parallel", "parallel", "reduction"]}
         ins(%a, %b : tensor<128x768xi8>, tensor<768x3072xi8>)
         outs(%c : tensor<128x3072xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<128x3072xi32>
  return %r : tensor<128x3072xi32>
}

func.func @gemm_bf16(%a: tensor<128x768xbf16>, %b: tensor<768x3072xbf16>,
                     %c: tensor<128x3072xf32>) -> tensor<128x3072xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<128x768xbf16>, tensor<768x3072xbf16>)
                     outs(%c : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}
)mlir";

/// Everything the timed loops read; built once in main.
struct Fixture {
  std::vector<std::pair<std::string, tisa::Contraction>> workloads;
  std::vector<const tisa::Description *> descriptions;
  tisa::Target znver4;
};

void setCounters(benchmark::State &state, const tisa::MatchResult &r,
                 size_t considered) {
  state.counters["plans"] = double(r.plans.size());
  state.counters["rejected"] = double(r.rejected.size());
  state.counters["per_desc"] = benchmark::Counter(
      double(considered), benchmark::Counter::kIsIterationInvariantRate |
                              benchmark::Counter::kInvert);
}

void matchAll(benchmark::State &state, const tisa::Contraction *c,
              llvm::ArrayRef<const tisa::Description *> descs,
              const tisa::Target *target) {
  tisa::MatchOptions options;
  options.target = target;
  // Assigning destroys the previous iteration's result inside the timed loop,
  // as a scope-local result would be; the last one feeds the counters.
  tisa::MatchResult r;
  for (auto _ : state) {
    r = tisa::match(*c, descs, options);
    benchmark::DoNotOptimize(r.plans.data());
    benchmark::ClobberMemory();
  }
  setCounters(state, r, descs.size());
}

void matchScaling(benchmark::State &state, const tisa::Contraction *c,
                  llvm::ArrayRef<const tisa::Description *> all) {
  size_t n = size_t(state.range(0));
  std::vector<const tisa::Description *> descs;
  for (size_t i = 0; i < n; ++i)
    descs.push_back(all[i % all.size()]);
  matchAll(state, c, descs, /*target=*/nullptr);
  state.SetComplexityN(int64_t(n));
}

/// Parses the workloads and loads descriptions and the target; reports and
/// fails on any error.
bool setUp(MLIRContext &ctx, tisa::DescriptionSet &set,
           OwningOpRef<ModuleOp> &module, Fixture &f) {
  bool ok = true;
  for (const std::string &dir : tisa::isaSearchPath({}))
    ok &= succeeded(set.loadDirectory(dir));
  if (!ok)
    return false;
  for (const auto &d : set.descriptions())
    f.descriptions.push_back(d.get());
  if (f.descriptions.empty()) {
    llvm::errs() << "tisa-matcher-bench: no descriptions found\n";
    return false;
  }

  llvm::Expected<tisa::Target> t = tisa::loadTarget("znver4");
  if (!t) {
    llvm::errs() << "tisa-matcher-bench: " << llvm::toString(t.takeError())
                 << "\n";
    return false;
  }
  f.znver4 = std::move(*t);

  module = parseSourceString<ModuleOp>(kWorkloads, &ctx, "workloads");
  if (!module)
    return false;
  module->walk([&](func::FuncOp func) {
    func.walk([&](linalg::LinalgOp op) {
      std::string why;
      FailureOr<tisa::Contraction> c = tisa::readContraction(op, why);
      if (failed(c)) {
        llvm::errs() << "tisa-matcher-bench: @" << func.getSymName()
                     << " is not a contraction: " << why << "\n";
        ok = false;
        return;
      }
      f.workloads.emplace_back(func.getSymName().str(), std::move(*c));
    });
  });
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  tisa::DescriptionSet set(ctx, llvm::errs());
  OwningOpRef<ModuleOp> module;
  Fixture f;
  if (!setUp(ctx, set, module, f))
    return 1;

  benchmark::AddCustomContext("descriptions",
                              std::to_string(f.descriptions.size()));
  const tisa::Target *targets[] = {nullptr, &f.znver4};
  for (const auto &[name, c] : f.workloads) {
    for (const tisa::Target *target : targets) {
      std::string benchName = "BM_MatchAll/" + name + "/" +
                              (target ? target->name : std::string("any"));
      benchmark::RegisterBenchmark(benchName.c_str(), matchAll, &c,
                                   llvm::ArrayRef(f.descriptions), target)
          ->Unit(benchmark::kMillisecond)
          ->MinTime(0.1);
    }
  }

  const tisa::Contraction *conv = &f.workloads.front().second;
  auto *scaling = benchmark::RegisterBenchmark(
      "BM_MatchScaling", matchScaling, conv, llvm::ArrayRef(f.descriptions));
  size_t shipped = f.descriptions.size();
  for (size_t n : {size_t(1), size_t(2), size_t(4), size_t(8), size_t(16),
                   shipped, 2 * shipped, 4 * shipped})
    scaling->Arg(int64_t(n));
  scaling->Unit(benchmark::kMillisecond)
      ->MinTime(0.1)
      ->Complexity(benchmark::oN);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
