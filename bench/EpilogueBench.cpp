//===- EpilogueBench.cpp - fused epilogues against oneDNN post-ops --------===//
//
// tisa-epilogue-bench: for the BERT GEMMs and the ResNet-50 convolutions of
// ../shared/reference/workloads.md, with what an int8 or bf16 network does to
// each result (u8s8s32: bias, ReLU, requantization to u8 with per-channel
// scales and a zero point; bf16: bias, ReLU, rounding to bf16), times on the
// same inputs, in alternating rounds (bench/Rounds.h):
//   tisa          the kernel with the epilogue fused (--epilogue), pre-packed;
//   tisa.unfused  tisa's kernel without it, then the epilogue as a separate
//                 pass over the stored s32/f32 result (vectorized C++);
//   onednn        oneDNN's matmul (packed weights) or direct convolution with
//                 the same post-ops (bias, eltwise ReLU, output scales, dst
//                 zero point, u8 or bf16 destination).
// tisa is checked against the reference first, the unfused pair must give
// the same bytes, and oneDNN must agree within one quantization step (it
// converts the s32 sum to f32 before adding the bias, and its own order of
// the scale, the zero point and the rounding is not documented) or, for bf16,
// within a bf16 step; the report says how many outputs differ by a step.
// Writes results.md to --report DIR.
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "Rounds.h"
#include "Workloads.h"
#include "TisaBenchReport.h"
#include "Vendors.h"

#include "tisa/Config.h"
#include "tisa/Kernels/Reference.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace tisa;
using namespace tisa::bench;

namespace {

/// workloads.md's BERT GEMMs and ResNet-50 convolutions, each with what an
/// int8 or a bf16 network does to its result.
std::vector<Workload> workloads() {
  std::vector<Workload> out;
  for (const char *types : {"u8s8s32", "bf16bf16f32"})
    for (Workload w : shapes()) {
      if (w.name != "bert" && w.name != "resnet50")
        continue;
      w.spec.types = llvm::cantFail(KernelTypes::parse(types));
      w.spec.epilogue = llvm::cantFail(EpilogueSpec::parse(
          w.spec.types.isFloat() ? "bias,relu,bf16" : "bias,relu,requant=u8"));
      out.push_back(w);
    }
  return out;
}

//===----------------------------------------------------------------------===//
// The unfused pair's second pass
//===----------------------------------------------------------------------===//

#define TISA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

/// bias, ReLU, requantization to u8: rows of `channels` s32 accumulators.
TISA_AVX512 void requantizePass(const int32_t *acc, const int32_t *bias,
                                const float *scale, int32_t zeroPoint,
                                uint8_t *out, int64_t rows,
                                int64_t channels) {
  float zp = float(zeroPoint);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < channels; ++j) {
      int32_t x = acc[r * channels + j] + bias[j];
      x = x > 0 ? x : 0;
      float f = __builtin_roundevenf(float(x) * scale[j]) + zp;
      f = f < 0.0f ? 0.0f : f;
      f = f > 255.0f ? 255.0f : f;
      out[r * channels + j] = uint8_t(int32_t(f));
    }
}

/// bias, ReLU, rounding to bf16: rows of `channels` f32 accumulators.
TISA_AVX512 void bf16Pass(const float *acc, const float *bias, __bf16 *out,
                          int64_t rows, int64_t channels) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < channels; ++j) {
      float x = acc[r * channels + j] + bias[j];
      x = x > 0.0f || x != x ? x : 0.0f; // arith.maximumf keeps a NaN
      out[r * channels + j] = __bf16(x);
    }
}

/// The second pass of the unfused pair, from `acc` into `data.out()`: part
/// `part` of `parts` of the rows.
void epiloguePass(const KernelSpec &spec, const Bytes &acc, KernelData &data,
                  int64_t part, int64_t parts) {
  int64_t channels = spec.channels(),
          rows = spec.outputElements() / channels;
  int64_t first = rows * part / parts, count = rows * (part + 1) / parts - first;
  int64_t at = first * channels;
  if (spec.types.isFloat())
    bf16Pass(reinterpret_cast<const float *>(acc.data()) + at,
             reinterpret_cast<const float *>(data.bias.data()),
             reinterpret_cast<__bf16 *>(data.out()) + at, count, channels);
  else
    requantizePass(reinterpret_cast<const int32_t *>(acc.data()) + at,
                   reinterpret_cast<const int32_t *>(data.bias.data()),
                   reinterpret_cast<const float *>(data.scale.data()),
                   data.zeroPoint, data.out() + at, count, channels);
}

//===----------------------------------------------------------------------===//
// Agreement with oneDNN
//===----------------------------------------------------------------------===//

/// How oneDNN's output compares with tisa's: "" and the number of outputs a
/// quantization step apart, or what is wrong.
std::string agreeWithOnednn(const KernelSpec &spec, const Bytes &got,
                            const Bytes &want, int64_t &offByOne) {
  ElementType k = spec.outputKind();
  int64_t n = spec.outputElements(), bad = 0, first = -1;
  offByOne = 0;
  for (int64_t o = 0; o < n; ++o) {
    double x = loadElement(k, got.data(), o), y = loadElement(k, want.data(), o);
    bool ok;
    if (k.isFloat()) {
      // Both round an f32 that each computed within the K-derived bound:
      // a bf16 step of either side.
      ok = std::fabs(x - y) <= std::ldexp(std::fabs(y), -6) + 1e-30 ||
           (std::isnan(x) && std::isnan(y));
    } else {
      ok = std::fabs(x - y) <= 1;
      offByOne += x != y;
    }
    if (!ok && bad++ == 0)
      first = o;
  }
  if (!bad)
    return "";
  return llvm::formatv("{0} of {1} outputs differ; first at {2}: {3} vs tisa "
                       "{4}",
                       bad, n, first, loadElement(k, got.data(), first),
                       loadElement(k, want.data(), first));
}

//===----------------------------------------------------------------------===//
// One workload
//===----------------------------------------------------------------------===//

struct Result {
  Workload workload;
  int threads = 1;
  double ops = 0;
  double fused = 0, unfused = 0, onednn = 0; ///< median seconds; 0: not timed
  std::string onednnImpl, note;
  int64_t offByOne = 0;
};


/// Compiles, checks and times one workload on `threads` threads (tisa's
/// range entry on a pool, the unfused pass split by rows on it too); `error`
/// says why it could not.
Result runWorkload(const Workload &w, int threads, const Settings &settings,
                   RoundReporter &reporter, std::string &error) {
  Result res;
  res.workload = w;
  res.threads = threads;
  res.ops = w.spec.ops();
  KernelSpec plain = w.spec;
  plain.epilogue = EpilogueSpec();
  JitOptions jit;
  jit.warnings = nullptr;
  auto fused = compileKernel(w.spec, jit);
  auto unfused = compileKernel(plain, jit);
  if (!fused || !unfused) {
    error = llvm::toString(fused ? unfused.takeError() : fused.takeError());
    return res;
  }
  std::shared_ptr<CompiledKernel> kf = std::move(*fused), ku = std::move(*unfused);
  // The same inputs for both: makeData fills the epilogue's operands last.
  auto data = std::make_shared<KernelData>(makeData(w.spec, 1, Fill::Random));
  auto accData = std::make_shared<KernelData>(makeData(plain, 1, Fill::Random));
  data->denormalsAreZero = accData->denormalsAreZero = kf->denormalsAreZero();
  auto packedF = std::make_shared<Bytes>(), packedU = std::make_shared<Bytes>();
  auto pool = std::make_shared<ThreadPool>(threads);
  RunMode mode{true, threads > 1 ? threads : 0,
               threads > 1 ? pool.get() : nullptr};
  runKernel(*kf, *data, mode, packedF.get());
  if (std::string diff = compareSampled(w.spec, *data, 4096, 2); !diff.empty()) {
    error = "tisa disagrees with the reference: " + diff;
    return res;
  }
  Bytes fusedOut = data->output;
  std::vector<Timed> timed;
  std::string prefix = label(w) + " " + w.spec.types.text() + "/t" +
                       std::to_string(threads) + "/";
  std::replace(prefix.begin(), prefix.end(), ' ', '_');
  timed.push_back({prefix + "tisa", res.ops,
                   [kf, data, packedF, pool, call = bindKernel(*kf, *data, mode,
                                                               *packedF)] {
                     call();
                   }});
  // The unfused pair writes the same output buffer.
  auto pair = [ku, accData, data, packedU, pool, threads, spec = w.spec,
               call = bindKernel(*ku, *accData, mode, *packedU)] {
    call();
    if (threads == 1)
      return epiloguePass(spec, accData->output, *data, 0, 1);
    pool->run(threads, [&](int64_t part, int64_t parts) {
      epiloguePass(spec, accData->output, *data, part, parts);
    });
  };
  std::fill(data->output.begin(), data->output.end(), kOutputPoison);
  pair();
  if (data->output != fusedOut) {
    error = "the unfused pair's output differs from the fused kernel's";
    return res;
  }
  timed.push_back({prefix + "tisa.unfused", res.ops, pair});
  // oneDNN with the same post-ops, into a buffer of its own.
  auto out = std::make_shared<Bytes>(fusedOut.size());
  Buffers b{data->input.data(), data->weights.data(), out->data(),
            data->bias.data(),
            reinterpret_cast<const float *>(data->scale.data()),
            data->zeroPoint};
  Problem problem = problemOf(w.spec);
  const char *vendor =
      problem.kind == Problem::Kind::Gemm ? "onednn.matmul.packed" : "onednn.conv";
  for (const Vendor &v : onednnVendors()) {
    if (v.name != vendor)
      continue;
    std::string whyNot;
    std::shared_ptr<VendorKernel> vk = v.prepare(problem, b, threads, whyNot);
    if (!vk) {
      res.note = "oneDNN: " + whyNot;
      break;
    }
    res.onednnImpl = vk->implementation();
    vk->run();
    vk->finish();
    std::string diff = agreeWithOnednn(w.spec, *out, fusedOut, res.offByOne);
    if (!diff.empty()) {
      res.note = "oneDNN disagrees: " + diff;
      break;
    }
    timed.push_back({prefix + "onednn", res.ops, [vk, out] { vk->run(); }});
  }
  timeInRounds(timed, settings, reporter);
  res.fused = reporter.median(prefix + "tisa");
  res.unfused = reporter.median(prefix + "tisa.unfused");
  res.onednn = reporter.median(prefix + "onednn");
  return res;
}

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//


std::string markdown(const std::vector<Result> &results,
                     const Settings &settings) {
  std::string md;
  llvm::raw_string_ostream os(md);
  os << "# tisa-epilogue-bench\n\n"
     << "tisa " << TISA_VERSION << ", " << onednnVersion()
     << "; median of " << settings.repetitions
     << " rounds (each implementation once per round, alternating order).\n"
     << "u8s8s32 rows: bias (s32), ReLU, requantization to u8 (f32 scale per "
        "channel, round to nearest even, zero point, saturation); bf16 rows: "
        "bias (f32), ReLU, bf16 output. tisa: the fused kernel, pre-packed. "
        "unfused: tisa's kernel, then the epilogue as a separate vectorized "
        "pass over the stored result. oneDNN: matmul with packed weights or "
        "direct convolution, the same post-ops.\n\n"
     << "| workload | types | threads | tisa GOPS | unfused GOPS | oneDNN GOPS "
        "| tisa / oneDNN | tisa / unfused | oneDNN off by one step | oneDNN "
        "implementation |\n|---|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, std::vector<double>> vsOnednn, vsUnfused;
  for (const Result &r : results) {
    auto gops = [&](double s) {
      return s > 0 ? llvm::formatv("{0:f0}", r.ops / s / 1e9).str()
                   : std::string("-");
    };
    auto ratio = [&](double base) {
      return base > 0 && r.fused > 0
                 ? llvm::formatv("{0:f2}x", base / r.fused).str()
                 : std::string("-");
    };
    std::string types = r.workload.spec.types.text();
    std::string group = types + ", " + std::to_string(r.threads) + " thread" +
                        (r.threads > 1 ? "s" : "");
    os << "| " << label(r.workload) << " | " << types << " | " << r.threads
       << " | "
       << gops(r.fused) << " | " << gops(r.unfused) << " | "
       << gops(r.onednn) << " | " << ratio(r.onednn) << " | "
       << ratio(r.unfused) << " | "
       << (r.onednn > 0 ? std::to_string(r.offByOne) : "-") << " | "
       << (r.note.empty() ? r.onednnImpl : r.note) << " |\n";
    if (r.onednn > 0 && r.fused > 0)
      vsOnednn[group].push_back(r.onednn / r.fused);
    if (r.unfused > 0 && r.fused > 0)
      vsUnfused[group].push_back(r.unfused / r.fused);
  }
  os << "\nGeomean of tisa (fused) / oneDNN with post-ops:";
  for (auto &[types, v] : vsOnednn)
    os << llvm::formatv(" {0} {1:f3}x ({2} shapes);", types, geomean(v),
                        v.size());
  os << "\nGeomean of tisa (fused) / tisa's unfused pair:";
  for (auto &[types, v] : vsUnfused)
    os << llvm::formatv(" {0} {1:f3}x ({2} shapes);", types, geomean(v),
                        v.size());
  os << "\n";
  return md;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  settings.threads = {1};
  std::vector<char *> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if ((a == "--report" || a == "--filter" || a == "--repetitions" ||
         a == "--threads") &&
        i + 1 < argc) {
      llvm::StringRef v = argv[++i];
      if (a == "--report") {
        settings.reportDir = v.str();
      } else if (a == "--filter") {
        settings.filter = v.str();
      } else if (a == "--threads") {
        if (!parseThreads("tisa-epilogue-bench", v, settings.threads))
          return 2;
      } else if (a == "--repetitions" &&
               (v.getAsInteger(10, settings.repetitions) ||
                settings.repetitions < 1)) {
        llvm::errs() << "tisa-epilogue-bench: --repetitions expects a "
                        "positive integer\n";
        return 2;
      }
    } else if (a == "--help" || a == "-h") {
      llvm::outs() << "usage: " << argv[0]
                   << " [--report DIR] [--filter TEXT] [--threads 1,2] "
                      "[--repetitions N] [Google Benchmark flags]\n";
      return 0;
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!initializeGoogleBenchmark(rest))
    return 2;
  RoundReporter reporter;
  std::vector<Result> results;
  int failures = 0;
  for (const Workload &w : workloads()) {
    std::string what = label(w) + " " + w.spec.types.text();
    if (!settings.filter.empty() && what.find(settings.filter) == std::string::npos)
      continue;
    for (int threads : settings.threads) {
      std::string error;
      Result r = runWorkload(w, threads, settings, reporter, error);
      if (!error.empty()) {
        llvm::errs() << "tisa-epilogue-bench: " << what << ", " << threads
                     << " thread(s): " << error << "\n";
        ++failures;
        continue;
      }
      results.push_back(r);
    }
  }
  std::string md = markdown(results, settings);
  llvm::outs() << md;
  if (!settings.reportDir.empty())
    writeReportFiles("tisa-epilogue-bench", settings.reportDir,
                     {{"results.md", md}});
  benchmark::Shutdown();
  return failures ? 1 : 0;
}
