//===- Tune.h - search loop schedules by measuring them --------*- C++ -*-===//
//
// The analytical schedule (the matcher's register tile, L2 blocks of the lane
// loop) is a good start but not always the best on a given CPU: a 6x4 tile
// beats 5x5 on Zen 4 for large GEMMs because it needs one load less per step.
// tuneKernel measures schedules around the default (register tiles of the
// unrolled loops, lane blocks, loop order), checks each candidate's output
// against the reference, and stores the fastest under the kernel's cache key
// so that `tisa gen` and the JIT use it.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_TUNE_H
#define TISA_KERNELS_TUNE_H

#include "tisa/Kernels/Jit.h"

#include <functional>

namespace tisa {

struct TuneProgress {
  int done = 0;          ///< candidates measured so far
  int planned = 0;       ///< candidates known so far (grows as it searches)
  double elapsed = 0;    ///< seconds
  double limit = 0;      ///< seconds
  std::string best;      ///< best schedule so far
  double bestSeconds = 0;
};

struct TuneOptions {
  /// isa, description dirs, target (must run here) and the cache directory
  /// that receives the result.
  JitOptions jit;
  /// Stop searching after this many seconds (the candidate being measured
  /// finishes).
  double timeLimit = 60;
  /// Measure on this many threads (the range entry on a thread pool).
  int threads = 1;
  uint64_t seed = 0x7153a;
  /// Store the winner in jit.cacheDir.
  bool store = true;
  std::function<void(const TuneProgress &)> progress;
};

struct TuneCandidate {
  std::string schedule;
  double seconds = 0; ///< median time of one call; 0 when it failed
  std::string error;  ///< why it was not measured
};

struct TuneResult {
  std::string initial, best; ///< schedules
  double initialSeconds = 0, bestSeconds = 0;
  std::vector<TuneCandidate> tried; ///< in the order measured
  bool timedOut = false;
  std::string key; ///< the kernel's cache key
};

/// Searches schedules for `spec` on this machine. Fails when the kernel has
/// no instruction (nothing to tune) or cannot be generated.
llvm::Expected<TuneResult> tuneKernel(const KernelSpec &spec,
                                      const TuneOptions &options);

} // namespace tisa

#endif // TISA_KERNELS_TUNE_H
