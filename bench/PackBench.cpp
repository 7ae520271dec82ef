//===- PackBench.cpp - the pack entries' time ------------------------------===//
//
// The time of each kernel's NAME_pack_X entry (the weights' copy into the
// layout the pre-packed entry reads) on tisa-bench's square and BERT GEMMs
// and two ResNet-50 convolutions, for u8 x s8, s8 x s8 and bf16, one thread.
// Packing is off the hot path (once per weight tensor), but a change to how
// the packs read their source (masked tails instead of whole registers past
// the end) must say what it costs: run this before and after, in one
// session, and compare the medians.
//
//   tisa-pack-bench --benchmark_repetitions=9 \
//       --benchmark_report_aggregates_only=true
//
//===----------------------------------------------------------------------===//

#include "Workloads.h"

#include "tisa/Kernels/Reference.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <memory>

using namespace tisa;
using namespace tisa::bench;

namespace {

/// The workloads whose packs are timed: tisa-bench's square and BERT rows,
/// ResNet-50's 3x3 and 1x1 64-channel layers.
bool timed(const Workload &w) {
  return w.name == "square" || w.name == "bert" ||
         (w.name == "resnet50" && w.spec.c == 64);
}

/// "square 512x512x512", "bert 128x3072x768", "resnet50 56x56x64->64 3x3".
std::string nameOf(const Workload &w) {
  const KernelSpec &s = w.spec;
  if (s.op == KernelSpec::Op::Gemm)
    return llvm::formatv("{0} {1}x{2}x{3}", w.name, s.m, s.n, s.k);
  return llvm::formatv("{0} {1}x{2}x{3}->{4} {5}x{6}", w.name, s.h, s.w, s.c,
                       s.filters, s.r, s.s);
}

/// Registers the pack of `w` with `types`; false (after saying why) when it
/// does not compile.
bool registerPack(Workload w, llvm::StringRef types) {
  auto parsed = KernelTypes::parse(types);
  if (!parsed) {
    llvm::errs() << llvm::toString(parsed.takeError()) << "\n";
    return false;
  }
  w.spec.types = *parsed;
  JitOptions jit;
  jit.warnings = nullptr;
  auto compiled = compileKernel(w.spec, jit);
  if (!compiled) {
    llvm::errs() << "tisa-pack-bench: " << nameOf(w) << " " << types << ": "
                 << llvm::toString(compiled.takeError()) << "\n";
    return false;
  }
  std::shared_ptr<CompiledKernel> k = std::move(*compiled);
  auto data = std::make_shared<KernelData>(makeData(w.spec, 1, Fill::Random));
  auto packed = std::make_shared<Bytes>(packedBytes(*k, *data));
  std::function<void()> pack = bindPack(*k, *data, packed->data());
  int64_t bytes = int64_t(data->weights.size());
  std::string name = llvm::formatv("pack/{0}/{1}", nameOf(w), types.str());
  benchmark::RegisterBenchmark(
      name.c_str(), [k, data, packed, pack, bytes](benchmark::State &state) {
        for (auto _ : state) {
          pack();
          benchmark::ClobberMemory();
        }
        state.SetBytesProcessed(state.iterations() * bytes);
      });
  return true;
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  int failures = 0;
  for (const Workload &w : shapes())
    if (timed(w))
      for (llvm::StringRef types : {"u8,s8,s32", "s8,s8,s32", "bf16,bf16,f32"})
        failures += !registerPack(w, types);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return failures ? 1 : 0;
}
