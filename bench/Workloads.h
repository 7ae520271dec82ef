//===- Workloads.h - what the x86 benchmarks run -----------------*- C++ -*-===//
//
// The workloads of ../shared/reference/workloads.md as kernel specs, the
// vendor adapters' Problem of a spec, and the geomean the reports quote:
// shared by tisa-bench and tisa-epilogue-bench.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_WORKLOADS_H
#define TISA_BENCH_WORKLOADS_H

#include "TisaBenchReport.h"
#include "Vendors.h"

#include <vector>

namespace tisa {
namespace bench {

/// workloads.md's shapes, in its order, types left to set.
std::vector<Workload> shapes();
/// What a vendor adapter computes for `s` (its epilogue as post-ops).
Problem problemOf(const KernelSpec &s);
/// 0 for none.
double geomean(const std::vector<double> &v);

} // namespace bench
} // namespace tisa

#endif // TISA_BENCH_WORKLOADS_H
