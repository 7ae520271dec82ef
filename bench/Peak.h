//===- Peak.h - independent instruction chains for the measured peak -----===//
//
// Registers only: kChains independent accumulators cover a latency of up to
// kChains cycles at one issue per cycle, so the loop runs at the
// instruction's throughput. Shared by tisa-peak-bench (Google Benchmark) and
// tisa-bench (the % of peak column).
//
//   vpdpbusd zmm: 64 multiply-accumulates = 128 ops per instruction
//   vdpbf16ps zmm: 32 multiply-accumulates = 64 flops
//   vfmadd231ps zmm: 16 fused multiply-adds = 32 flops
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_PEAK_H
#define TISA_BENCH_PEAK_H

#include <cstdint>
#include <immintrin.h>

namespace tisa::bench {

constexpr int kChains = 16;

enum class PeakKind { Vpdpbusd, Vdpbf16ps, Fma };

/// Operations one instruction of `kind` performs (2 per multiply-add).
constexpr double opsPerInstruction(PeakKind kind) {
  return kind == PeakKind::Vpdpbusd ? 128 : kind == PeakKind::Vdpbf16ps ? 64
                                                                        : 32;
}

/// Hides the operands' values from the optimizer, which would otherwise
/// rewrite fma(1.0, b, acc) chains with known constants. (A macro: the
/// constraint needs the caller's AVX-512 target attribute.)
#define TISA_PEAK_OPAQUE(a, b) asm volatile("" : "+v"(a), "+v"(b))

/// Runs steps x kChains instructions; the sum keeps them alive.
__attribute__((target("avx512f,avx512vnni"))) inline int64_t
vpdpbusdChains(int64_t steps) {
  __m512i acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_epi32(c);
  __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-5);
  TISA_PEAK_OPAQUE(a, b);
  for (int64_t s = 0; s < steps; ++s)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
  __m512i sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm512_add_epi32(sum, acc[c]);
  return _mm512_reduce_add_epi32(sum);
}

__attribute__((target("avx512f,avx512bf16"))) inline int64_t
vdpbf16psChains(int64_t steps) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(float(c));
  __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80); // 1.0
  __m512bh b = (__m512bh)_mm512_set1_epi16(0x3c00); // 2^-7
  TISA_PEAK_OPAQUE(a, b);
  for (int64_t s = 0; s < steps; ++s)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm512_add_ps(sum, acc[c]);
  return int64_t(_mm512_reduce_add_ps(sum));
}

__attribute__((target("avx512f"))) inline int64_t fmaChains(int64_t steps) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(float(c));
  __m512 a = _mm512_set1_ps(1.0f), b = _mm512_set1_ps(1e-7f);
  TISA_PEAK_OPAQUE(a, b);
  for (int64_t s = 0; s < steps; ++s)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_fmadd_ps(a, b, acc[c]);
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c)
    sum = _mm512_add_ps(sum, acc[c]);
  return int64_t(_mm512_reduce_add_ps(sum));
}

inline int64_t runChains(PeakKind kind, int64_t steps) {
  switch (kind) {
  case PeakKind::Vpdpbusd:
    return vpdpbusdChains(steps);
  case PeakKind::Vdpbf16ps:
    return vdpbf16psChains(steps);
  case PeakKind::Fma:
    return fmaChains(steps);
  }
  return 0;
}

inline bool peakSupported(PeakKind kind) {
  switch (kind) {
  case PeakKind::Vpdpbusd:
    return __builtin_cpu_supports("avx512vnni");
  case PeakKind::Vdpbf16ps:
    return __builtin_cpu_supports("avx512bf16");
  case PeakKind::Fma:
    return __builtin_cpu_supports("avx512f");
  }
  return false;
}

} // namespace tisa::bench

#endif // TISA_BENCH_PEAK_H
