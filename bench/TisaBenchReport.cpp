//===- TisaBenchReport.cpp - tisa-bench's Markdown table and chart --------===//

#include "TisaBenchReport.h"

#include "Report.h"
#include "Workloads.h"
#include "Vendors.h"

#include "tisa/Config.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <cmath>
#include <ctime>
#include <thread>

namespace tisa {
namespace bench {

std::string label(const Workload &w) {
  const KernelSpec &s = w.spec;
  if (s.op == KernelSpec::Op::Gemm)
    return llvm::formatv("{0} {1}x{2}x{3}", w.name, s.m, s.n, s.k);
  return llvm::formatv("{0} {1}x{2}x{3}->{4} {5}x{5}/{6}p{7}", w.name, s.h, s.w,
                       s.c, s.filters, s.r, s.stride, s.pad);
}

namespace {

/// Below this many multiply-accumulates a workload times a call, not
/// arithmetic.
constexpr int64_t kTinyMacs = 1000;

std::string cpuName() {
  auto file = llvm::MemoryBuffer::getFile("/proc/cpuinfo");
  if (file) {
    llvm::SmallVector<llvm::StringRef> lines;
    (*file)->getBuffer().split(lines, '\n');
    for (llvm::StringRef l : lines)
      if (l.starts_with("model name"))
        return l.split(':').second.trim().str();
  }
  return llvm::sys::getHostCPUName().str();
}


using Peaks = std::map<int, std::map<PeakKind, double>>;

/// The machine, the versions, how it was measured, and the peaks.
void writeHeader(llvm::raw_ostream &os, const Settings &settings,
                 const Peaks &peaks) {
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
  os << "# tisa-bench results\n\n"
     << "- Machine: " << cpuName() << " (" << llvm::sys::getHostCPUName()
     << "), " << std::thread::hardware_concurrency() << " hardware threads\n"
     << "- Date: " << date << "\n"
     << "- tisa " << TISA_VERSION << "; " << onednnVersion() << "; "
     << libxsmmVersion() << "; " << openblasVersion() << "\n"
     << "- Medians of " << settings.repetitions
     << " rounds (Google Benchmark, real time); each round times every "
        "implementation of a workload once, in alternating order. GOPS count 2 per "
        "multiply-accumulate; convolutions exclude taps on padding.\n"
     << "- tisa: pre-packed weights (as the vendors' packed variants); "
        "before timing, tisa's output was checked against the reference "
        "(4096 sampled outputs, each a whole reduction) and every "
        "implementation's against tisa's.\n";
  if (!settings.schedule.empty())
    os << "- tisa's static kernels with the schedule `" << settings.schedule
       << "` (--schedule).\n";
  os
     << "- Best vendor: the fastest of oneDNN (gemm API, matmul with plain "
        "or packed weights, convolution) and libxsmm (BRGEMM) per shape.\n\n";
  os << "Measured peak (independent chains, the best of this run):\n\n"
     << "| threads | vpdpbusd (int8 GOPS) | vdpbf16ps (bf16 GFLOPS) | FMA "
        "(f32 GFLOPS) |\n|---|---|---|---|\n";
  for (auto &[t, p] : peaks)
    os << llvm::formatv("| {0} | {1:f1} | {2:f1} | {3:f1} |\n", t,
                        p.at(PeakKind::Vpdpbusd), p.at(PeakKind::Vdpbf16ps),
                        p.at(PeakKind::Fma));
  os << "\n";
}

/// Per thread count: tisa against the best vendor, with geomeans.
void writeThreadTables(llvm::raw_ostream &os, const Settings &settings,
                       const std::vector<Row> &rows, const Peaks &peaks) {
  std::map<int, std::map<std::string, std::vector<double>>> ratios;
  for (int threads : settings.threads) {
    os << "## " << threads << " thread" << (threads == 1 ? "" : "s") << "\n\n"
       << "| workload | types | tisa GOPS | % peak | best vendor | vendor GOPS "
          "| tisa / best |";
    if (threads > 1)
      os << " tisa scaling |";
    os << "\n|---|---|---|---|---|---|---|" << (threads > 1 ? "---|" : "")
       << "\n";
    for (const Row &r : rows) {
      if (r.threads != threads)
        continue;
      const Entry *t = r.find("tisa");
      const Entry *v = r.bestVendor();
      double peak = peaks.at(threads).at(r.peak);
      double tg = t && t->seconds > 0 ? r.ops / t->seconds / 1e9 : 0;
      double vg = v ? r.ops / v->seconds / 1e9 : 0;
      os << "| " << label(r.workload) << " | " << r.workload.spec.types.text()
         << " | " << (tg ? llvm::formatv("{0:f1}", tg).str() : "-") << " | "
         << (tg && peak ? llvm::formatv("{0:f0}%", 100 * tg / peak).str()
                        : "-")
         << " | "
         << (v ? v->impl + (v->detail.empty() ? "" : " (" + v->detail + ")")
               : "-")
         << " | " << (vg ? llvm::formatv("{0:f1}", vg).str() : "-") << " | ";
      if (tg && vg) {
        os << llvm::formatv("{0:f2}x", tg / vg);
        std::string group = (r.workload.spec.op == KernelSpec::Op::Gemm
                                 ? "GEMM "
                                 : "conv2d ") +
                            std::string(r.workload.spec.types.isFloat()
                                            ? "bf16"
                                            : "int8");
        ratios[threads][group].push_back(tg / vg);
        ratios[threads]["all"].push_back(tg / vg);
        // 1x1x1 times a function call, not arithmetic (tisa's bare call
        // against a library's dispatch: 8-100x), and would tilt the geomean.
        if (r.ops >= 2 * kTinyMacs)
          ratios[threads]["all but tiny"].push_back(tg / vg);
      } else {
        os << "-";
      }
      os << " |";
      if (threads > 1) {
        const Row *one = nullptr;
        for (const Row &o : rows)
          if (o.threads == 1 && label(o.workload) == label(r.workload) &&
              o.workload.spec.types.text() == r.workload.spec.types.text())
            one = &o;
        const Entry *t1 = one ? one->find("tisa") : nullptr;
        if (t && t->seconds > 0 && t1 && t1->seconds > 0)
          os << llvm::formatv(" {0:f2}x |", t1->seconds / t->seconds);
        else
          os << " - |";
      }
      os << "\n";
    }
    os << "\nGeomean of tisa / best vendor:";
    for (auto &[group, v] : ratios[threads])
      os << llvm::formatv(" {0} {1:f3}x ({2} shapes);", group, geomean(v),
                          v.size());
    os << "\n\n\"all but tiny\" leaves out shapes of fewer than " << kTinyMacs
       << " multiply-accumulates (odd 1x1x1), whose time is a function "
          "call's.\n\n";
  }
}

/// What a section on kernels of run-time extents says.
struct RunTimeSection {
  const char *impl;    ///< kRunTimeM, kRunTimeMNK or kRunTimeImage
  const char *extents; ///< "m", "m, n and k"
  const char *what;    ///< "GEMMs of 32 rows and more"
  const char *how;     ///< how the kernel was generated and runs
};

/// The kernels of run-time extents against the static ones and the best
/// vendor.
void writeRunTime(llvm::raw_ostream &os, const Settings &settings,
                  const std::vector<Row> &rows, const RunTimeSection &sec) {
  const char *impl = sec.impl;
  if (!llvm::any_of(rows, [&](const Row &r) { return r.find(impl); }))
    return;
  os << "## " << sec.extents << " at run time\n\n"
     << sec.what << " by " << sec.how
     << ", against the static kernel of the shape and the best vendor, "
        "timed in the same rounds.\n\n";
  for (int threads : settings.threads) {
    os << "### " << threads << " thread" << (threads == 1 ? "" : "s")
       << "\n\n| workload | types | static GOPS | run-time "
       << sec.extents
       << " GOPS | run-time / static | run-time / best vendor |\n"
          "|---|---|---|---|---|---|\n";
    std::vector<double> toStatic, toVendor;
    for (const Row &r : rows) {
      const Entry *d = r.find(impl), *t = r.find("tisa");
      if (r.threads != threads || !d)
        continue;
      const Entry *v = r.bestVendor();
      auto gops = [&](const Entry *e) {
        return e && e->seconds > 0 ? r.ops / e->seconds / 1e9 : 0.0;
      };
      double dg = gops(d), tg = gops(t), vg = gops(v);
      auto ratio = [](double a, double b) {
        return a && b ? llvm::formatv("{0:f3}x", a / b).str() : "-";
      };
      os << "| " << label(r.workload) << " | "
         << r.workload.spec.types.text() << " | "
         << (tg ? llvm::formatv("{0:f1}", tg).str() : "-") << " | "
         << (dg ? llvm::formatv("{0:f1}", dg).str() : "-") << " | "
         << ratio(dg, tg) << " | " << ratio(dg, vg) << " |\n";
      if (dg && tg)
        toStatic.push_back(dg / tg);
      if (dg && vg)
        toVendor.push_back(dg / vg);
    }
    auto summary = [](const std::vector<double> &v) {
      if (v.empty())
        return std::string("-");
      return llvm::formatv("geomean {0:f3}x, lowest {1:f3}x ({2} shapes)",
                           geomean(v), *llvm::min_element(v), v.size())
          .str();
    };
    os << "\nRun-time " << sec.extents << " / static: " << summary(toStatic)
       << ". Run-time " << sec.extents
       << " / best vendor: " << summary(toVendor) << ".\n\n";
  }
}

/// GOPS of every implementation, and why some were not timed.
void writeEveryImplementation(llvm::raw_ostream &os,
                              const std::vector<Row> &rows) {
  os << "## Every implementation\n\nGOPS per implementation (\"-\": not "
        "applicable or not timed; reasons below).\n\n";
  std::vector<std::string> impls;
  for (const Row &r : rows)
    for (const Entry &e : r.entries)
      if (!llvm::is_contained(impls, e.impl))
        impls.push_back(e.impl);
  os << "| workload | types | threads |";
  for (const std::string &i : impls)
    os << " " << i << " |";
  os << "\n|---|---|---|";
  for (size_t i = 0; i < impls.size(); ++i)
    os << "---|";
  os << "\n";
  std::vector<std::string> notes;
  for (const Row &r : rows) {
    os << "| " << label(r.workload) << " | " << r.workload.spec.types.text()
       << " | " << r.threads << " |";
    for (const std::string &i : impls) {
      const Entry *e = r.find(i);
      if (e && e->seconds > 0)
        os << llvm::formatv(" {0:f1} |", r.ops / e->seconds / 1e9);
      else
        os << " - |";
      if (e && !e->note.empty() &&
          e->note.find("not a ") == std::string::npos)
        notes.push_back(label(r.workload) + " " +
                        r.workload.spec.types.text() + " " + i + ": " +
                        e->note);
    }
    os << "\n";
  }
  if (!notes.empty()) {
    os << "\nNot timed:\n\n";
    llvm::sort(notes);
    notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
    for (const std::string &n : notes)
      os << "- " << n << "\n";
  }

}

/// tisa / best vendor per workload, one bar per thread count.
RatioChart chart(const Settings &settings, const std::vector<Row> &rows) {
  RatioChart chart;
  chart.title = "tisa / best of oneDNN and libxsmm (log scale; right of 1x: "
                "tisa faster)";
  for (int64_t t : settings.threads)
    chart.series.push_back(std::to_string(t) + " thread" +
                           (t == 1 ? "" : "s"));
  for (const Row &r : rows) {
    std::string l = label(r.workload) + " " + r.workload.spec.types.text();
    if (chart.bars.empty() || chart.bars.back().label != l)
      chart.bars.push_back({l, std::vector<double>(settings.threads.size(), 0)});
    const Entry *t = r.find("tisa");
    const Entry *v = r.bestVendor();
    auto it = llvm::find(settings.threads, r.threads);
    if (t && t->seconds > 0 && v && it != settings.threads.end())
      chart.bars.back().ratio[it - settings.threads.begin()] =
          v->seconds / t->seconds;
  }
  return chart;
}

} // namespace

void writeReport(const Settings &settings, const std::vector<Row> &rows,
                 const Peaks &peaks) {
  std::string md;
  llvm::raw_string_ostream os(md);
  writeHeader(os, settings, peaks);
  writeThreadTables(os, settings, rows, peaks);
  writeRunTime(os, settings, rows,
               {kRunTimeM, "m", "GEMMs of 32 rows and more",
                "the kernel generated with `--m ?` (one library for every m, "
                "called with the workload's; -tisa-split-dynamic runs it in "
                "static blocks of 256 rows and the remainder's binary "
                "digits)"});
  writeRunTime(os, settings, rows,
               {kRunTimeMNK, "m, n and k", "GEMMs of 32 rows and more",
                "the kernel generated with `--m ? --n ? --k ?` (one library "
                "for every shape; n and k run in whole blocks of 256, the "
                "last one zero-padded, each with its part of the packed "
                "weights)"});
  writeRunTime(os, settings, rows,
               {kRunTimeImage, "batch, height and width", "Convolutions",
                "the kernel generated with `--n ? --h ? --w ?` (one library "
                "for every image of the filter; filters that outgrow the "
                "L2 budget in blocks of at least 64, and within each block "
                "output rows in blocks of 4 and columns in blocks of 64 (and "
                "the remainders' binary digits), each on its window of the "
                "input, copied with its zero border)"});
  writeEveryImplementation(os, rows);
  writeReportFiles("tisa-bench", settings.reportDir,
                   {{"results.md", md},
                    {"chart.svg", renderSvg(chart(settings, rows))}});
}

} // namespace bench
} // namespace tisa
