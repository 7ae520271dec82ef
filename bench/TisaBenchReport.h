//===- TisaBenchReport.h - tisa-bench's results and report ------*- C++ -*-===//
//
// What tisa-bench measured (rows of timed implementations per workload and
// thread count) and the report it writes from them (TisaBenchReport.cpp):
// results.md and chart.svg.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_TISABENCHREPORT_H
#define TISA_BENCH_TISABENCHREPORT_H

#include "Peak.h"

#include "tisa/Kernels/Kernels.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace tisa {
namespace bench {

struct Settings {
  std::string reportDir;
  std::string filter;
  /// A loop schedule for tisa's static kernels (empty: tuned or default).
  std::string schedule;
  std::vector<int> threads = {1, 2};
  int repetitions = 5;
  double minTime = 0.05;
};

struct Workload {
  std::string name; ///< "resnet50.conv2", "bert.qkv", "square"
  KernelSpec spec;
};

/// "square 512x512x512", "resnet50.conv2 56x56x64->64 3x3/1p1".
std::string label(const Workload &w);

/// The entries of tisa's kernels of run-time extents, called with the
/// workload's: of any m (KernelSpec::runTimeRows), of any m, n and k, and
/// a convolution's of any batch, height and width.
inline constexpr const char *kRunTimeM = "tisa.run-time-m";
inline constexpr const char *kRunTimeMNK = "tisa.run-time-mnk";
inline constexpr const char *kRunTimeImage = "tisa.run-time-nhw";

struct Entry {
  std::string impl;      ///< "tisa", "onednn.matmul.packed", ...
  std::string detail;    ///< oneDNN's implementation, tisa's instruction
  double seconds = 0;    ///< median; 0 when not timed
  std::string note;      ///< why not timed
};

struct Row {
  Workload workload;
  int threads = 1;
  double ops = 0;
  PeakKind peak = PeakKind::Vpdpbusd;
  std::vector<Entry> entries;

  const Entry *find(llvm::StringRef impl) const {
    for (const Entry &e : entries)
      if (e.impl == impl)
        return &e;
    return nullptr;
  }
  /// The fastest timed oneDNN or libxsmm entry.
  const Entry *bestVendor() const {
    const Entry *best = nullptr;
    for (const Entry &e : entries)
      if (e.seconds > 0 &&
          (llvm::StringRef(e.impl).starts_with("onednn") ||
           llvm::StringRef(e.impl).starts_with("libxsmm")) &&
          (!best || e.seconds < best->seconds))
        best = &e;
    return best;
  }
};

/// Writes results.md and chart.svg to settings.reportDir.
void writeReport(const Settings &settings, const std::vector<Row> &rows,
                 const std::map<int, std::map<PeakKind, double>> &peaks);

} // namespace bench
} // namespace tisa

#endif // TISA_BENCH_TISABENCHREPORT_H
