//===- PeakBench.cpp - measured peak of the tensorized instructions -------===//
//
// Independent chains of one instruction on registers only: the throughput
// the generated kernels are compared with (one thread; run with
// --benchmark_repetitions to get medians). 16 chains cover a latency of up to
// 16 cycles at one issue per cycle, and more than that at two.
//
//   vpdpbusd zmm: 64 multiply-accumulates = 128 ops per instruction
//   vdpbf16ps zmm: 32 multiply-accumulates = 64 flops
//   vfmadd231ps zmm: 16 fused multiply-adds = 32 flops
//
//===----------------------------------------------------------------------===//

#include <benchmark/benchmark.h>
#include <immintrin.h>

namespace {

constexpr int kChains = 16;
constexpr int kSteps = 1024;

__attribute__((target("avx512f,avx512vnni"))) void vpdpbusdChains(
    benchmark::State &state) {
  __m512i acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_epi32(c);
  __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-5);
  for (auto _ : state) {
    for (int s = 0; s < kSteps; ++s)
      for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
    for (int c = 0; c < kChains; ++c)
      benchmark::DoNotOptimize(acc[c]);
  }
  state.counters["GOPS"] = benchmark::Counter(
      double(state.iterations()) * kSteps * kChains * 128,
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

__attribute__((target("avx512f,avx512bf16"))) void vdpbf16psChains(
    benchmark::State &state) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(float(c));
  __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80); // 1.0
  __m512bh b = (__m512bh)_mm512_set1_epi16(0x3c00); // 2^-7
  for (auto _ : state) {
    for (int s = 0; s < kSteps; ++s)
      for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
    for (int c = 0; c < kChains; ++c)
      benchmark::DoNotOptimize(acc[c]);
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      double(state.iterations()) * kSteps * kChains * 64,
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

__attribute__((target("avx512f"))) void fmaChains(benchmark::State &state) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(float(c));
  __m512 a = _mm512_set1_ps(1.0f), b = _mm512_set1_ps(1e-7f);
  for (auto _ : state) {
    for (int s = 0; s < kSteps; ++s)
      for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_fmadd_ps(a, b, acc[c]);
    for (int c = 0; c < kChains; ++c)
      benchmark::DoNotOptimize(acc[c]);
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      double(state.iterations()) * kSteps * kChains * 32,
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

/// Runs `body` if the CPU has `feature`, else reports the benchmark skipped.
template <void (*Body)(benchmark::State &)>
void guarded(benchmark::State &state, bool supported, const char *feature) {
  if (!supported) {
    state.SkipWithError((std::string("this CPU lacks ") + feature).c_str());
    for (auto _ : state) {
    }
    return;
  }
  Body(state);
}

void BM_PeakVpdpbusdZmm(benchmark::State &state) {
  guarded<vpdpbusdChains>(state, __builtin_cpu_supports("avx512vnni"),
                          "avx512vnni");
}
void BM_PeakVdpbf16psZmm(benchmark::State &state) {
  guarded<vdpbf16psChains>(state, __builtin_cpu_supports("avx512bf16"),
                           "avx512bf16");
}
void BM_PeakFmaZmm(benchmark::State &state) {
  guarded<fmaChains>(state, __builtin_cpu_supports("avx512f"), "avx512f");
}

} // namespace

BENCHMARK(BM_PeakVpdpbusdZmm);
BENCHMARK(BM_PeakVdpbf16psZmm);
BENCHMARK(BM_PeakFmaZmm);
BENCHMARK_MAIN();
