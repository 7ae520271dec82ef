//===- TisaBench.cpp - tisa's kernels against oneDNN, libxsmm, OpenBLAS ---===//
//
// For every workload of ../shared/reference/workloads.md (GEMM and conv2d;
// u8s8s32, s8s8s32 and bf16) and 1 and 2 threads, in one process:
//   1. generate tisa's kernel for this CPU (the JIT; a schedule stored by
//      `tisa tune` is used when there is one) and pack its weights;
//   2. prepare every vendor adapter that applies (bench/vendors/) on the same
//      inputs, run it once, and check its output against tisa's (integers bit
//      for bit, bf16 within twice the K-derived bound): a disagreement is
//      reported and that implementation is not timed;
//   3. time them with Google Benchmark in rounds (every implementation once
//      per round, alternating order), the median over the rounds;
// then measure the peak of vpdpbusd / vdpbf16ps / FMA on as many threads, and
// write a Markdown table (GOPS, % of peak, ratio to the best of oneDNN and
// libxsmm, geomeans) and an SVG chart to --report DIR.
//
// tisa is timed through its pre-packed entry (its weights packed once, as the
// vendors' packed variants; on 2 threads the range entry on a thread pool).
// Convolution ops exclude multiplications by padding.
//
//===----------------------------------------------------------------------===//

#include "Peak.h"
#include "Rounds.h"
#include "Workloads.h"
#include "TisaBenchReport.h"
#include "Vendors.h"

#include "tisa/Config.h"
#include "tisa/Kernels/Reference.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <numeric>
#include <thread>
#include <unistd.h>

using namespace tisa;
using namespace tisa::bench;

namespace {

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

std::vector<Workload> workloads() {
  std::vector<Workload> out;
  for (const Workload &w : shapes()) {
    bool isGemm = w.spec.op == KernelSpec::Op::Gemm;
    for (const char *t : {"u8s8s32", "s8s8s32", "bf16bf16f32"}) {
      // workloads.md: conv2d in int8 (u8 x s8) and bf16.
      if (!isGemm && llvm::StringRef(t) == "s8s8s32")
        continue;
      Workload x = w;
      x.spec.types = llvm::cantFail(KernelTypes::parse(t));
      out.push_back(x);
    }
  }
  return out;
}


/// The kernel `impl` of `w` with extents given at run time: m
/// (kRunTimeM) or m, n and k (kRunTimeMNK) for the GEMMs of 32 rows and
/// more (issue: within 5% of the static kernel there), the batch, height
/// and width (kRunTimeImage) for the convolutions; null for the others or
/// when it does not compile (said on stderr).
std::shared_ptr<CompiledKernel> runTimeKernel(const Workload &w,
                                              const JitOptions &jit,
                                              llvm::StringRef impl) {
  bool gemm = w.spec.op == KernelSpec::Op::Gemm;
  if (gemm ? w.spec.m < 32 || impl == kRunTimeImage : impl != kRunTimeImage)
    return nullptr;
  KernelSpec dynamic = w.spec;
  dynamic.runTimeRows = true;
  dynamic.runTimeN = dynamic.runTimeK = impl == kRunTimeMNK;
  dynamic.runTimeH = dynamic.runTimeW = !gemm;
  dynamic = dynamic.withCall(0, 0, 0);
  auto compiled = compileKernel(dynamic, jit);
  if (!compiled) {
    llvm::errs() << "tisa-bench: " << dynamic.describe() << ": "
                 << llvm::toString(compiled.takeError()) << "\n";
    return nullptr;
  }
  return std::move(*compiled);
}

/// A kernel of run-time extents timed beside the static one.
struct RunTimeVariant {
  const char *impl; ///< kRunTimeM, kRunTimeMNK or kRunTimeImage
  std::shared_ptr<CompiledKernel> kernel;
  std::shared_ptr<Bytes> packed = std::make_shared<Bytes>();
};

/// Google Benchmark names: "square_512x512x512_u8s8s32/t1/" + implementation.
std::string benchmarkPrefix(const Workload &w, int threads);

std::string benchmarkPrefix(const Workload &w, int threads) {
  std::string prefix = label(w) + " " + w.spec.types.text() + "/t" +
                       std::to_string(threads) + "/";
  std::replace(prefix.begin(), prefix.end(), ' ', '_');
  return prefix;
}

//===----------------------------------------------------------------------===//
// Agreement
//===----------------------------------------------------------------------===//

/// The elements of `v` (of kind `k`) as floats.
std::vector<float> toFloat(ElementType k, const Bytes &v) {
  size_t n = v.size() / k.bytes();
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = float(loadElement(k, v.data(), int64_t(i)));
  return out;
}

double maxAbs(ElementType k, const Bytes &v) {
  double m = 0;
  for (float x : toFloat(k, v))
    m = std::max(m, std::fabs(double(x)));
  return m;
}

/// "" when `got` agrees with `want`: integers bit for bit; f32 within twice
/// (R + 2) 2^-24 R max|a| max|b| (each side may err by the K-derived bound,
/// bounded by the largest possible sum of |a b|).
std::string agree(const KernelSpec &s, const KernelData &d, const Bytes &got,
                  const Bytes &want, double maxProduct = -1) {
  int64_t n = s.outputElements();
  double bound = 0;
  if (s.types.isFloat()) {
    double r = s.op == KernelSpec::Op::Gemm ? s.k : s.r * s.s * s.c;
    if (maxProduct < 0)
      maxProduct = maxAbs(s.types.a, d.input) * maxAbs(s.types.b, d.weights);
    bound = 2 * (r + 2) * std::ldexp(1.0, -24) * r * maxProduct;
  }
  int64_t bad = 0, first = -1;
  for (int64_t o = 0; o < n; ++o) {
    bool ok;
    if (s.types.isFloat()) {
      float x, y;
      std::memcpy(&x, &got[4 * o], 4);
      std::memcpy(&y, &want[4 * o], 4);
      ok = std::fabs(double(x) - y) <= bound;
    } else {
      ok = std::memcmp(&got[4 * o], &want[4 * o], 4) == 0;
    }
    if (!ok && bad++ == 0)
      first = o;
  }
  if (!bad)
    return "";
  auto value = [&](const Bytes &v) {
    if (s.types.isFloat()) {
      float x;
      std::memcpy(&x, &v[4 * first], 4);
      return std::to_string(x);
    }
    int32_t x;
    std::memcpy(&x, &v[4 * first], 4);
    return std::to_string(x);
  };
  return llvm::formatv("{0} of {1} outputs differ from tisa's; first at {2}: "
                       "{3} vs tisa {4}",
                       bad, n, first, value(got), value(want));
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// Peak GOPS of `kind` on `threads` threads: the best of 9 runs of
/// independent chains on every thread at once (noise only slows them: the
/// median of 5 once read 225 bf16 GFLOPS where 236 is usual, and a kernel
/// showed 100% of it). Each thread times its own
/// chains from a common start, after a warm-up, and the rates add up:
/// timing thread creation and joins as well took a third off the 2-thread
/// peak (721 GOPS where GEMMs ran at 886).
double measurePeak(PeakKind kind, int threads) {
  if (!peakSupported(kind))
    return 0;
  constexpr int64_t steps = 1 << 18; // about 1 ms at one vpdpbusd per cycle
  std::vector<double> samples;
  for (int rep = 0; rep < 9; ++rep) {
    std::atomic<int> ready{0};
    std::vector<double> rate(threads);
    auto chains = [&](int t) {
      benchmark::DoNotOptimize(runChains(kind, steps / 16));
      ready.fetch_add(1);
      while (ready.load() < threads) {
      }
      auto t0 = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(runChains(kind, steps));
      double s = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - t0)
                     .count();
      rate[t] = steps * kChains * opsPerInstruction(kind) / s / 1e9;
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back(chains, t);
    chains(0);
    for (std::thread &t : pool)
      t.join();
    samples.push_back(std::accumulate(rate.begin(), rate.end(), 0.0));
  }
  return *std::max_element(samples.begin(), samples.end());
}

int usage(const char *argv0) {
  llvm::errs()
      << "usage: " << argv0
      << " [--report DIR] [--filter TEXT] [--threads 1,2] [--repetitions N]"
         " [--min-time S] [--schedule S] [Google Benchmark flags]\n"
         "  --report DIR     write results.md and chart.svg to DIR\n"
         "  --filter TEXT    only workloads whose label or types contain TEXT\n"
         "                   (e.g. 'square 512', 'bf16', 'resnet50')\n"
         "  --threads LIST   thread counts (default 1,2)\n"
         "  --repetitions N  rounds, each timing every implementation of a "
         "workload once\n"
         "                   (alternating order); the median is reported "
         "(default 5)\n"
         "  --min-time S     minimum seconds per repetition (default 0.05; the "
         "first\n"
         "                   round's iteration count is kept for the rest)\n"
         "  --schedule S     tisa's static kernels with this loop schedule (the\n"
         "                   text `tisa run` prints; with --filter selecting\n"
         "                   kernels it fits), timed against the same vendors\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  // OpenBLAS's idle workers busy-wait for 2^28 cycles after each call and
  // starve the adapters timed after it on 2 threads; it reads this setting
  // when the library loads, so set it and start again.
  if (!std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    execv("/proc/self/exe", argv);
  }
  Settings settings;
  std::vector<char *> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    auto value = [&](llvm::StringRef &out) {
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    llvm::StringRef v;
    if (a == "--help" || a == "-h")
      return usage(argv[0]), 0;
    if (a == "--report") {
      if (!value(v))
        return usage(argv[0]);
      settings.reportDir = v.str();
    } else if (a == "--filter") {
      if (!value(v))
        return usage(argv[0]);
      settings.filter = v.str();
    } else if (a == "--schedule") {
      if (!value(v))
        return usage(argv[0]);
      settings.schedule = v.str();
    } else if (a == "--threads") {
      if (!value(v))
        return usage(argv[0]);
      if (!parseThreads("tisa-bench", v, settings.threads))
        return 2;
    } else if (a == "--repetitions") {
      if (!value(v) || v.getAsInteger(10, settings.repetitions) ||
          settings.repetitions < 1)
        return usage(argv[0]);
    } else if (a == "--min-time") {
      if (!value(v) || v.getAsDouble(settings.minTime) ||
          !(settings.minTime > 0))
        return usage(argv[0]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!initializeGoogleBenchmark(rest))
    return 2;

  std::vector<std::pair<std::string, std::vector<Vendor>>> libraries = {
      {"onednn", onednnVendors()}, {"libxsmm", libxsmmVendors()}};
  std::vector<Workload> selected;
  for (const Workload &w : workloads())
    if (settings.filter.empty() ||
        (label(w) + " " + w.spec.types.text()).find(settings.filter) !=
            std::string::npos)
      selected.push_back(w);
  if (selected.empty()) {
    llvm::errs() << "tisa-bench: no workload matches --filter '"
                 << settings.filter
                 << "' (labels such as 'square 512', 'bert', 'resnet50', "
                    "'odd'; types such as 'u8s8s32', 'bf16')\n";
    return 2;
  }
  RoundReporter reporter;
  std::vector<Row> rows;
  // Workloads that could not be compiled or disagreed with the reference:
  // the report leaves them out and the exit status says so.
  int failures = 0;
  // The peak: the best before and after the workloads.
  std::map<int, std::map<PeakKind, double>> peaks;
  auto updatePeaks = [&] {
    for (int t : settings.threads)
      for (PeakKind kind :
           {PeakKind::Vpdpbusd, PeakKind::Vdpbf16ps, PeakKind::Fma})
        peaks[t][kind] = std::max(peaks[t][kind], measurePeak(kind, t));
  };
  updatePeaks();
  JitOptions jit;
  jit.warnings = nullptr;
  for (const Workload &w : selected) {
    std::string what = label(w) + " " + w.spec.types.text();
    JitOptions staticJit = jit;
    staticJit.schedule = settings.schedule;
    auto compiled = compileKernel(w.spec, staticJit);
    if (!compiled) {
      llvm::errs() << "tisa-bench: " << what << ": "
                   << llvm::toString(compiled.takeError()) << "\n";
      ++failures;
      continue;
    }
    std::shared_ptr<CompiledKernel> k = std::move(*compiled);
    auto data = std::make_shared<KernelData>(makeData(w.spec, 1, Fill::Random));
    data->denormalsAreZero = k->denormalsAreZero();
    auto packed = std::make_shared<Bytes>();
    runKernel(*k, *data, RunMode{true}, packed.get());
    // tisa against the reference first (at most 4096 outputs, each a whole
    // reduction); the vendors are then checked against tisa's output.
    if (std::string diff = compareSampled(w.spec, *data, 4096, 2);
        !diff.empty()) {
      llvm::errs() << "tisa-bench: " << what
                   << ": tisa disagrees with the reference, not timed: "
                   << diff << "\n";
      ++failures;
      continue;
    }
    Bytes tisaOut = data->output;
    std::vector<RunTimeVariant> variants;
    for (const char *impl : {kRunTimeM, kRunTimeMNK, kRunTimeImage})
      if (auto kernel = runTimeKernel(w, jit, impl))
        variants.push_back({impl, kernel});
    Problem problem = problemOf(w.spec);
    Buffers buffers{data->input.data(), data->weights.data(), nullptr};
    std::vector<Timed> timed;
    for (int threads : settings.threads) {
      Row row{w, threads, w.spec.ops(),
              w.spec.types.isFloat() ? PeakKind::Vdpbf16ps
                                     : PeakKind::Vpdpbusd,
              {}};
      std::string prefix = benchmarkPrefix(w, threads);
      // tisa: the pre-packed entry, on a pool through the range entry.
      auto pool = std::make_shared<ThreadPool>(threads);
      RunMode mode{true, threads > 1 ? threads : 0,
                   threads > 1 ? pool.get() : nullptr};
      {
        std::fill(data->output.begin(), data->output.end(), 0xa5);
        runKernel(*k, *data, mode, packed.get());
        Entry e{"tisa", k->instruction(), 0, ""};
        if (data->output != tisaOut) {
          e.note = "the " + std::to_string(threads) +
                   "-thread result differs from the 1-thread one";
        } else {
          timed.push_back({prefix + "tisa", row.ops,
                           [k, data, packed, pool,
                            call = bindKernel(*k, *data, mode, *packed)] {
                             call();
                           }});
        }
        row.entries.push_back(e);
      }
      // The same workload by the kernels of run-time extents, called with
      // its extents: bit-exact for integers; floats may sum in another
      // order (a static conv2d reading rows of taps, a run-time image
      // pixels), so within the bound vendors are held to.
      for (const RunTimeVariant &v : variants) {
        std::fill(data->output.begin(), data->output.end(), 0xa5);
        runKernel(*v.kernel, *data, mode, v.packed.get());
        Entry e{v.impl, v.kernel->instruction(), 0, ""};
        if (std::string diff = agree(w.spec, *data, data->output, tisaOut);
            !diff.empty())
          e.note = "disagrees with the static kernel: " + diff;
        else
          timed.push_back({prefix + v.impl, row.ops,
                           [v, data, pool,
                            call = bindKernel(*v.kernel, *data, mode,
                                              *v.packed)] { call(); }});
        row.entries.push_back(e);
      }
      // Vendors: prepare, check against tisa, then time.
      for (auto &[lib, vendors] : libraries)
        for (const Vendor &v : vendors) {
          auto out = std::make_shared<Bytes>(data->output.size());
          Buffers b = buffers;
          b.c = out->data();
          std::string whyNot;
          std::shared_ptr<VendorKernel> vk =
              v.prepare(problem, b, threads, whyNot);
          Entry e{v.name, "", 0, ""};
          if (!vk) {
            e.note = whyNot;
            row.entries.push_back(e);
            continue;
          }
          e.detail = vk->implementation();
          vk->run();
          vk->finish();
          std::string diff = agree(w.spec, *data, *out, tisaOut);
          if (!diff.empty()) {
            e.note = "disagrees: " + diff;
            row.entries.push_back(e);
            continue;
          }
          row.entries.push_back(e);
          timed.push_back({prefix + v.name, row.ops, [vk, out] { vk->run(); }});
        }
      // OpenBLAS sgemm: the same GEMM in f32 (a reference for what the
      // narrow types buy), on float copies of the inputs, checked within the
      // f32 bound against tisa's result.
      if (w.spec.op == KernelSpec::Op::Gemm)
        for (const Vendor &v : openblasVendors()) {
          Problem f32 = problem;
          f32.precision = Precision::F32;
          auto a = std::make_shared<std::vector<float>>(toFloat(
              w.spec.types.a, data->input));
          auto b = std::make_shared<std::vector<float>>(toFloat(
              w.spec.types.b, data->weights));
          auto out = std::make_shared<std::vector<float>>(
              w.spec.outputElements());
          std::string whyNot;
          std::shared_ptr<VendorKernel> vk = v.prepare(
              f32, Buffers{a->data(), b->data(), out->data()}, threads,
              whyNot);
          Entry e{v.name + " (f32)", "", 0, whyNot};
          if (vk) {
            vk->run();
            vk->finish();
            Bytes got(out->size() * 4), want(out->size() * 4);
            std::memcpy(got.data(), out->data(), got.size());
            std::vector<float> exact = toFloat(w.spec.types.c, tisaOut);
            std::memcpy(want.data(), exact.data(), want.size());
            KernelSpec asFloat = w.spec;
            asFloat.types = llvm::cantFail(KernelTypes::parse("bf16bf16f32"));
            std::string diff = agree(asFloat, *data, got, want,
                                     maxAbs(w.spec.types.a, data->input) *
                                         maxAbs(w.spec.types.b, data->weights));
            if (diff.empty())
              timed.push_back(
                  {prefix + e.impl, row.ops, [vk, a, b, out] { vk->run(); }});
            else
              e.note = "disagrees: " + diff;
          }
          row.entries.push_back(e);
        }
      rows.push_back(row);
    }
    // Time this workload's implementations (both thread counts).
    timeInRounds(timed, settings, reporter);
  }

  // Attach the medians.
  for (Row &r : rows) {
    std::string prefix = benchmarkPrefix(r.workload, r.threads);
    for (Entry &e : r.entries) {
      if (double t = reporter.median(prefix + e.impl))
        e.seconds = t;
      else if (e.note.empty())
        e.note = "not timed (filtered or failed)";
    }
  }

  updatePeaks();
  for (auto &[t, p] : peaks)
    llvm::outs() << llvm::formatv(
        "peak on {0} thread(s): vpdpbusd {1:f1} GOPS, vdpbf16ps {2:f1} "
        "GFLOPS, FMA {3:f1} GFLOPS\n",
        t, p[PeakKind::Vpdpbusd], p[PeakKind::Vdpbf16ps], p[PeakKind::Fma]);
  if (!settings.reportDir.empty())
    writeReport(settings, rows, peaks);
  benchmark::Shutdown();
  if (failures) {
    llvm::errs() << "tisa-bench: " << failures
                 << " workload(s) not timed (errors above)\n";
    return 1;
  }
  return 0;
}
