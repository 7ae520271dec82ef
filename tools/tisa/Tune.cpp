//===- Tune.cpp - tisa tune gemm|conv2d -----------------------------------===//
//
// Searches loop schedules around the default by measuring each (checked
// against the reference) and stores the fastest where gen and run find it.
//
//===----------------------------------------------------------------------===//

#include "GenCommon.h"
#include "tisa/Kernels/Tune.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace tisa::driver {

int tune(const Options &o) {
  int code = 0;
  std::optional<Runnable> r = runnable(o, "tune", code);
  if (!r)
    return code;
  if (r->underQemu)
    return fail("'tune' measures schedules on this machine, which runs " +
                r->target.name + " code under qemu-aarch64: its times say "
                "nothing about the hardware; use 'run' to check the kernel");
  if (r->emulateAMX)
    return fail("'tune' measures schedules on this machine, which runs " +
                r->target.name +
                "'s AMX under an emulator: its times say nothing about the "
                "hardware; use 'run' to check the kernel");
  for (const char *runOnly : {"repeat", "schedule"})
    if (o.values.count(runOnly))
      return usageError("--" + std::string(runOnly) +
                        " does not apply to 'tune'");
  double limit = 60;
  std::string limitText = value(o, "time-limit", "60");
  if (llvm::StringRef(limitText).getAsDouble(limit) || !(limit > 0))
    return usageError("--time-limit expects a positive number of seconds, "
                      "got '" + limitText + "'");
  TuneOptions options;
  options.jit = r->options;
  options.timeLimit = limit;
  options.threads = int(r->threads);
  options.seed = o.seed;
  // A progress bar on a terminal; nothing on a pipe (the summary follows).
  bool bar = llvm::errs().is_displayed();
  const char *unit = r->spec.types.isFloat() ? "GFLOPS" : "GOPS";
  // A kernel of run-time rows is tuned at the last --at extent (256 by
  // default): one schedule serves every block.
  KernelSpec spec = r->call();
  double giga = spec.ops() / 1e9;
  options.progress = [&](const TuneProgress &p) {
    if (!bar)
      return;
    double fraction = std::max(double(p.done) / std::max(p.planned, 1),
                               p.elapsed / p.limit);
    int filled = int(std::min(fraction, 1.0) * 30);
    llvm::errs() << "\r[" << std::string(filled, '#')
                 << std::string(30 - filled, ' ') << "] "
                 << llvm::formatv("{0}/{1} schedules, {2:f0}/{3:f0} s, best "
                                  "{4:f1} {5}   ",
                                  p.done, p.planned, p.elapsed, p.limit,
                                  giga / p.bestSeconds, unit);
  };
  auto result = tuneKernel(spec, options);
  if (bar)
    llvm::errs() << "\n";
  if (!result)
    return fail(llvm::toString(result.takeError()));
  auto &os = llvm::outs();
  os << "kernel       " << r->spec.symbol() << " (" << spec.describe()
     << ")\n"
     << llvm::formatv("searched     {0} schedules{1}, {2} thread{3}\n",
                      result->tried.size(),
                      result->timedOut ? " (stopped by --time-limit)" : "",
                      options.threads, options.threads == 1 ? "" : "s");
  // The five fastest.
  std::vector<const TuneCandidate *> ranked;
  for (const TuneCandidate &c : result->tried)
    if (c.seconds > 0)
      ranked.push_back(&c);
  llvm::sort(ranked, [](auto *a, auto *b) {
    return a->seconds < b->seconds || (a->seconds == b->seconds && a < b);
  });
  for (size_t i = 0; i < std::min<size_t>(5, ranked.size()); ++i)
    os << llvm::formatv("  {0,8:f1} {1}  {2}{3}\n", giga / ranked[i]->seconds,
                        unit, ranked[i]->schedule,
                        ranked[i]->schedule == result->initial ? " (default)"
                                                               : "");
  for (const TuneCandidate &c : result->tried)
    if (!c.error.empty())
      os << "  failed   " << c.schedule << ": " << c.error << "\n";
  os << llvm::formatv("best         {0} ({1:f1} {2}, {3:f2}x the default "
                      "{4:f1} {2})\n",
                      result->best, giga / result->bestSeconds, unit,
                      result->initialSeconds / result->bestSeconds,
                      giga / result->initialSeconds);
  if (!options.jit.cacheDir.empty())
    os << "stored in    " << options.jit.cacheDir
       << " (used by 'tisa gen' and 'tisa run' for this kernel and CPU)\n";
  return 0;
}

} // namespace tisa::driver
