//===- TuneTest.cpp - the tuner's search ----------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/Tune.h"

#include "gtest/gtest.h"

using namespace tisa;
using namespace tisa::test;

namespace {

/// The tuner measures both row splits of a register tile: 14 rows are 6 + 6
/// + 2 or nearly even (5 + 5 + 4) by `even`, which only measuring decides.
TEST(Tune, TogglesEvenRows) {
  std::string notRun;
  KernelSpec spec = gemm(14, 48, 32, "u8s8s32");
  x86MatrixTarget(spec.types, notRun);
  if (!notRun.empty())
    GTEST_SKIP() << notRun << " (the tuner measures)";
  TuneOptions options;
  options.timeLimit = 60;
  options.store = false;
  options.jit.cacheDir.clear();
  auto result = tuneKernel(spec, options);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  bool initialEven = result->initial.find("even=1") != std::string::npos;
  bool toggled = llvm::any_of(result->tried, [&](const TuneCandidate &c) {
    return c.seconds > 0 &&
           (c.schedule.find("even=1") != std::string::npos) != initialEven;
  });
  if (!toggled && result->timedOut)
    GTEST_SKIP() << "the time limit ended the search before its steps";
  EXPECT_TRUE(toggled) << "no candidate with even=" << !initialEven
                       << " among " << result->tried.size();
}

} // namespace
