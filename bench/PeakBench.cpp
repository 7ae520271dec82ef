//===- PeakBench.cpp - measured peak of the tensorized instructions -------===//
//
// Independent chains of one instruction on registers only (Peak.h): the
// throughput the generated kernels are compared with (one thread; run with
// --benchmark_repetitions to get medians).
//
//===----------------------------------------------------------------------===//

#include "Peak.h"

#include <benchmark/benchmark.h>

#include <string>

using namespace tisa::bench;

namespace {

constexpr int64_t kSteps = 1024;

/// Runs the chains of `kind` if the CPU has them, else reports skipped.
void peak(benchmark::State &state, PeakKind kind, const char *feature,
          const char *unit) {
  if (!peakSupported(kind)) {
    state.SkipWithError((std::string("this CPU lacks ") + feature).c_str());
    for (auto _ : state) {
    }
    return;
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(runChains(kind, kSteps));
  state.counters[unit] = benchmark::Counter(
      double(state.iterations()) * kSteps * kChains * opsPerInstruction(kind),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void BM_PeakVpdpbusdZmm(benchmark::State &state) {
  peak(state, PeakKind::Vpdpbusd, "avx512vnni", "GOPS");
}
void BM_PeakVdpbf16psZmm(benchmark::State &state) {
  peak(state, PeakKind::Vdpbf16ps, "avx512bf16", "GFLOPS");
}
void BM_PeakFmaZmm(benchmark::State &state) {
  peak(state, PeakKind::Fma, "avx512f", "GFLOPS");
}

} // namespace

BENCHMARK(BM_PeakVpdpbusdZmm);
BENCHMARK(BM_PeakVdpbf16psZmm);
BENCHMARK(BM_PeakFmaZmm);
BENCHMARK_MAIN();
