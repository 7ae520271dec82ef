//===- Report.cpp - what a benchmark writes to its report directory --------===//

#include "Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

namespace tisa {
namespace bench {

std::string renderSvg(const RatioChart &chart) {
  const int rowH = 14, left = 330, width = 420, top = 40;
  int height = top + int(chart.bars.size()) * rowH + 40;
  std::string svg;
  llvm::raw_string_ostream sv(svg);
  double lo = std::log(0.25), hi = std::log(4.0);
  auto x = [&](double ratio) {
    double v = std::log(std::clamp(ratio, 0.25, 4.0));
    return left + (v - lo) / (hi - lo) * width;
  };
  const char *colours[] = {"#3572b0", "#e08a1e", "#5a9e4b", "#9b59b6"};
  sv << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 30
     << "\" height=\"" << height
     << "\" font-family=\"sans-serif\" font-size=\"10\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"10\" y=\"16\" font-size=\"13\">" << chart.title
     << "</text>\n";
  for (size_t t = 0; t < chart.series.size(); ++t)
    sv << "<rect x=\"" << 10 + 110 * t << "\" y=\"24\" width=\"10\" "
       << "height=\"10\" fill=\"" << colours[t % 4] << "\"/><text x=\""
       << 24 + 110 * t << "\" y=\"33\">" << chart.series[t] << "</text>\n";
  for (double g : {0.25, 0.5, 1.0, 2.0, 4.0})
    sv << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1}\" x2=\"{0:f1}\" "
                        "y2=\"{2}\" stroke=\"{3}\"/><text x=\"{0:f1}\" "
                        "y=\"{4}\" text-anchor=\"middle\">{5}x</text>\n",
                        x(g), top, height - 30, g == 1.0 ? "black" : "#ccc",
                        height - 18, g);
  double barH = double(rowH - 2) / std::max<size_t>(1, chart.series.size());
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const RatioChart::Bar &bar = chart.bars[i];
    int y = top + int(i) * rowH;
    sv << "<text x=\"" << left - 6 << "\" y=\"" << y + 10
       << "\" text-anchor=\"end\">" << bar.label << "</text>\n";
    for (size_t t = 0; t < bar.ratio.size(); ++t) {
      double r = bar.ratio[t];
      if (r <= 0)
        continue;
      double x0 = x(1.0), x1 = x(r);
      sv << llvm::formatv("<rect x=\"{0:f1}\" y=\"{1:f1}\" width=\"{2:f1}\" "
                          "height=\"{3:f1}\" fill=\"{4}\"><title>{5:f2}x"
                          "</title></rect>\n",
                          std::min(x0, x1), y + 1 + t * barH,
                          std::max(std::fabs(x1 - x0), 0.5), barH,
                          colours[t % 4], r);
    }
  }
  sv << "</svg>\n";
  return svg;
}

void writeReportFiles(llvm::StringRef tool, llvm::StringRef dir,
                      llvm::ArrayRef<std::pair<std::string, std::string>> files) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << tool << ": cannot create " << dir << ": " << ec.message()
                 << "\n";
    return;
  }
  for (const auto &[name, text] : files) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream f(path, ec);
    if (ec) {
      llvm::errs() << tool << ": cannot write " << path << ": " << ec.message()
                   << "\n";
      continue;
    }
    f << text;
    llvm::outs() << tool << ": wrote " << path << "\n";
  }
}

} // namespace bench
} // namespace tisa
