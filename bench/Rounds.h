//===- Rounds.h - timing implementations in alternating rounds --*- C++ -*-===//
//
// How tisa-bench and tisa-epilogue-bench time: each round runs every
// implementation of a workload once with Google Benchmark, in alternating
// order, so a slow spell of a shared machine falls on all of them; the
// median over the rounds is reported.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_ROUNDS_H
#define TISA_BENCH_ROUNDS_H

#include "TisaBenchReport.h"

#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tisa {
namespace bench {

/// One implementation of one workload to time.
struct Timed {
  std::string name;
  double ops;
  std::function<void()> body;
};

/// Collects every run's seconds per iteration, by benchmark name.
class RoundReporter : public benchmark::ConsoleReporter {
public:
  std::map<std::string, std::vector<double>> seconds; ///< name -> per round
  std::map<std::string, int64_t> iterations;          ///< of the first round

  /// The machine context once, not once per round.
  bool ReportContext(const Context &context) override;
  void ReportRuns(const std::vector<Run> &runs) override;
  /// The median over the rounds of `name`, 0 when it never ran.
  double median(const std::string &name) const;

private:
  bool contextShown = false;
};

/// Hands the arguments a benchmark program did not take (argv[0] first) to
/// Google Benchmark; false, after it has said so, when some are not its
/// either.
bool initializeGoogleBenchmark(std::vector<char *> &rest);

/// "1,2" into thread counts in [1, 256]; false, after `tool` says so, for
/// anything else.
bool parseThreads(llvm::StringRef tool, llvm::StringRef list,
                  std::vector<int> &threads);

/// Times `timed` in `settings.repetitions` rounds. Each round runs every
/// implementation once, in alternating order. The first round finds each
/// one's iteration count (--min-time); later rounds repeat it.
void timeInRounds(const std::vector<Timed> &timed, const Settings &settings,
                  RoundReporter &reporter);

} // namespace bench
} // namespace tisa

#endif // TISA_BENCH_ROUNDS_H
