//===- Report.h - what a benchmark writes to its report directory -*- C++ -*-===//
//
// The report directory of tisa-bench (times) and tisa-arm-counts (executed
// instructions): a Markdown table and a chart, per workload one bar per
// series, the vendor's figure over tisa's, on a log scale centred on 1x.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_REPORT_H
#define TISA_BENCH_REPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace tisa {
namespace bench {

struct RatioChart {
  std::string title;
  /// One colour each; bars[i].ratio[j] belongs to series[j].
  std::vector<std::string> series;
  struct Bar {
    std::string label;
    std::vector<double> ratio; ///< <= 0: none
  };
  std::vector<Bar> bars;
};

/// The chart as an SVG document.
std::string renderSvg(const RatioChart &chart);

/// Writes each (file name, text) into `dir`, created if missing, and says
/// so on stdout as `tool`; errors go to stderr.
void writeReportFiles(llvm::StringRef tool, llvm::StringRef dir,
                      llvm::ArrayRef<std::pair<std::string, std::string>> files);

} // namespace bench
} // namespace tisa

#endif // TISA_BENCH_REPORT_H
