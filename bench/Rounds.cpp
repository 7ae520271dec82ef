//===- Rounds.cpp - timing implementations in alternating rounds ---------===//

#include "Rounds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace tisa {
namespace bench {

namespace {

/// Registers `t` as one repetition of a benchmark: real time, GOPS as a
/// counter; `iterations` of the body when positive, else as many as fill
/// --min-time (Google Benchmark's estimate).
void registerTimed(const Timed &t, const Settings &settings,
                   int64_t iterations) {
  benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(
      t.name.c_str(),
      [body = t.body, ops = t.ops](benchmark::State &state) {
        // Untimed: lets the previous implementation's idle OpenMP workers
        // stop spinning on the other core (they took it from tisa's second
        // thread: 1.0x scaling).
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        for (auto _ : state)
          body();
        state.counters["GOPS"] = benchmark::Counter(
            ops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
      });
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
  if (iterations > 0)
    b->Iterations(iterations);
  else
    b->MinTime(settings.minTime);
}


} // namespace

bool parseThreads(llvm::StringRef tool, llvm::StringRef list,
                  std::vector<int> &threads) {
  threads.clear();
  llvm::SmallVector<llvm::StringRef> parts;
  list.split(parts, ',');
  for (llvm::StringRef part : parts) {
    int t = 0;
    if (part.getAsInteger(10, t) || t < 1 || t > 256) {
      llvm::errs() << tool << ": --threads expects a list of counts in "
                              "[1, 256], got '"
                   << list << "'\n";
      return false;
    }
    threads.push_back(t);
  }
  return true;
}

bool initializeGoogleBenchmark(std::vector<char *> &rest) {
  int argc = int(rest.size());
  benchmark::Initialize(&argc, rest.data());
  return !benchmark::ReportUnrecognizedArguments(argc, rest.data());
}

bool RoundReporter::ReportContext(const Context &context) {
  if (contextShown)
    return true;
  contextShown = true;
  return ConsoleReporter::ReportContext(context);
}

void RoundReporter::ReportRuns(const std::vector<Run> &runs) {
  for (const Run &r : runs) {
    if (r.run_type != Run::RT_Iteration || r.error_occurred)
      continue;
    std::string name = r.run_name.function_name;
    seconds[name].push_back(r.GetAdjustedRealTime() /
                            benchmark::GetTimeUnitMultiplier(r.time_unit));
    iterations.try_emplace(name, r.iterations);
  }
  ConsoleReporter::ReportRuns(runs);
}

double RoundReporter::median(const std::string &name) const {
  auto it = seconds.find(name);
  if (it == seconds.end() || it->second.empty())
    return 0;
  std::vector<double> v = it->second;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Times `timed` in `settings.repetitions` rounds. Each round runs every
/// implementation once, in alternating order, so a slow spell of a shared
/// machine falls on all of them rather than on one implementation's
/// consecutive repetitions. The first round finds each one's iteration count
/// (--min-time); later rounds repeat it.
void timeInRounds(const std::vector<Timed> &timed, const Settings &settings,
                  RoundReporter &reporter) {
  for (int round = 0; round < settings.repetitions; ++round) {
    for (size_t i = 0; i < timed.size(); ++i) {
      const Timed &t = timed[round % 2 ? timed.size() - 1 - i : i];
      auto it = reporter.iterations.find(t.name);
      registerTimed(t, settings,
                    it == reporter.iterations.end() ? 0 : it->second);
    }
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
  }
}

} // namespace bench
} // namespace tisa
