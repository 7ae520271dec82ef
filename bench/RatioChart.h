//===- RatioChart.h - an SVG bar chart of ratios on a log scale -*- C++ -*-===//
//
// The charts of tisa-bench (times) and tisa-arm-counts (executed
// instructions): per workload one bar per series, the vendor's figure over
// tisa's, on a log scale centred on 1x.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_RATIOCHART_H
#define TISA_BENCH_RATIOCHART_H

#include <string>
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

} // namespace bench
} // namespace tisa

#endif // TISA_BENCH_RATIOCHART_H
