//===- Reference.h - data, reference results and calls for kernels -*- C++ -*-===//
//
// What `tisa run` and the end-to-end tests share: operands filled from a
// seed, a straightforward reference (exact integers that wrap like the
// kernel's s32; bf16 products summed in double), the comparison (bit-exact for
// integers; for bf16 a bound derived from K), and calls through each entry.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_REFERENCE_H
#define TISA_KERNELS_REFERENCE_H

#include "tisa/Kernels/Jit.h"
#include "tisa/Kernels/ThreadPool.h"

#include <cstdint>
#include <functional>
#include <new>
#include <string>
#include <vector>

namespace tisa {

/// How operands are filled: uniformly random, or at the extremes of the type
/// (u8 255, s8 -128 for the weights and 127/-128 alternating for the input;
/// bf16 large magnitudes of mixed sign).
enum class Fill { Random, Extreme };

/// Allocates on 64-byte (cache line) boundaries, as a deployment would:
/// vector loads of packed panels and stores to the output then never split
/// a line, so timings do not depend on where malloc put a buffer.
template <typename T> struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U> CacheLineAllocator(const CacheLineAllocator<U> &) {}
  T *allocate(size_t n) {
    return static_cast<T *>(
        ::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <typename U> bool operator==(const CacheLineAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const CacheLineAllocator<U> &) const {
    return false;
  }
};
using Bytes = std::vector<uint8_t, CacheLineAllocator<uint8_t>>;

struct KernelData {
  Bytes input, weights, output, expected;
};

KernelData makeData(const KernelSpec &spec, uint64_t seed, Fill fill);
/// data.expected = reference(input, weights).
void computeReference(const KernelSpec &spec, KernelData &data);
/// Empty when `data.output` agrees with `data.expected`; otherwise the first
/// mismatch (index, values) and the number of mismatches.
std::string compareOutput(const KernelSpec &spec, const KernelData &data);

/// Calls the kernel on `data` through its plain entry, or through
/// pack + packed entries (with `packed` as the buffer) when `prepacked`.
/// How runKernel calls a kernel.
struct RunMode {
  /// Through the pre-packed entries (packing once into `packed` if it is
  /// empty) instead of the plain entry.
  bool prepacked = false;
  /// With prepacked: through `_packed_range` in this many consecutive ranges
  /// of the tiles, on `pool` when given (one range per part), else one after
  /// another. 0: the `_packed` entry.
  int64_t ranges = 0;
  ThreadPool *pool = nullptr;
};

/// Multiply-accumulates below which another thread costs more than it saves.
/// A spinning pool thread starts a part in well under a microsecond; 2^17
/// MACs take about 0.6 us at one Zen 4 core's int8 peak. Measured on Zen 4:
/// 2 threads run 97x131x67 u8s8s32 in 2.9 us instead of 5.4, and the
/// 1x1024x1024 matvec in 5.7 us instead of 11.
constexpr int64_t kMinMacsPerThread = int64_t(1) << 17;
/// How many of `threads` parts are worth running `k` in: no more than its
/// tiles, and at least kMinMacsPerThread multiply-accumulates each.
int64_t usefulParts(const CompiledKernel &k, int64_t threads);

/// With mode.pool, the ranges are cut to usefulParts(); one part runs the
/// `_packed` entry on the calling thread.
void runKernel(const CompiledKernel &k, KernelData &data, const RunMode &mode,
               Bytes *packed = nullptr);
/// runKernel's call with the entries, operands and parts resolved once, for
/// callers that repeat it (timing): a 1x1x1 GEMM takes tens of nanoseconds,
/// as long as looking the entries up by name. `data`, `packed` and the pool
/// must outlive it; with mode.prepacked it packs into `packed` now when that
/// is empty.
std::function<void()> bindKernel(const CompiledKernel &k, KernelData &data,
                                 const RunMode &mode, Bytes &packed);
/// Runs the kernel on random and on extreme data (from `seed`) through its
/// plain and its pre-packed entries and compares each result with the
/// reference. Empty if all agree; otherwise which run differed and how.
/// `runs` counts the runs that agreed.
std::string checkKernel(const CompiledKernel &k, uint64_t seed, int &runs);

/// Packs the weights once (for timing the packed entry).
void packWeights(const CompiledKernel &k, const KernelData &data,
                 Bytes &packed);

} // namespace tisa

#endif // TISA_KERNELS_REFERENCE_H
