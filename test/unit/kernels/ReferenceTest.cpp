//===- ReferenceTest.cpp - the reference's two readings agree ---------------===//
//
// computeReference sums every output at once, a row of channels at a time
// (fast enough for BERT-sized GEMMs); referenceAt sums one output on its
// own (compareSampled's reading). Both must give the same value on every
// output, for every type family, layout, fill, convolution geometry and
// epilogue, or one of them is wrong.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace tisa;
using namespace tisa::test;

namespace {

std::vector<MatrixCase> referenceCases() {
  std::vector<MatrixCase> out;
  for (llvm::StringRef t :
       {"u8s8s32", "s8s8s32", "u8u8s32", "s16s16s32", "bf16bf16f32",
        "f16f16f32", "s16s16s64", "u32u32u64", "s64s64s64", "f32f32f32",
        "f64f64f64"}) {
    out.push_back({gemm(1, 1, 1, t)});
    out.push_back({gemm(13, 37, 29, t)});
    out.push_back(convCase(2, 9, 11, 7, 19, 3, 3, 2, 1, t, 5, 6));
    out.push_back(convCase(1, 9, 8, 3, 16, 3, 5, 1, 2, t, 11, 8));
    out.push_back(convCase(1, 3, 3, 4, 5, 7, 7, 1, 3, t, 3, 3));
  }
  out.push_back({withEpilogue(gemm(17, 33, 40, "u8,s8,s32"),
                              "bias,residual,relu,requant=u8")});
  out.push_back({withEpilogue(gemm(17, 33, 40, "bf16,bf16,f32"),
                              "bias,residual,relu,bf16")});
  out.push_back({withEpilogue(conv(1, 7, 7, 9, 21, 3, 1, 1, "s8,s8,s32"),
                              "bias,requant=s8"),
                 7, 7});
  return out;
}

class ReferenceReadings : public testing::TestWithParam<MatrixCase> {};

TEST_P(ReferenceReadings, AgreeOnEveryOutput) {
  const KernelSpec &spec = GetParam().spec;
  expectOutputSize(GetParam());
  for (const CheckInputs &in : checkInputs()) {
    for (bool flush : {true, false}) {
      KernelData data = makeData(spec, kSeed, in.fill, in.layout);
      data.denormalsAreZero = {flush, flush};
      computeReference(spec, data);
      ASSERT_EQ(data.expected.size(), size_t(spec.outputElements()));
      int64_t differ = 0, first = -1;
      for (int64_t o = 0; o < spec.outputElements(); ++o) {
        ReferenceValue want = referenceAt(spec, data, o),
                       got = data.expected[o];
        auto equal = [](double x, double y) {
          return x == y || (std::isnan(x) && std::isnan(y));
        };
        bool same = spec.outputKind().isFloat()
                        ? equal(got.real, want.real) &&
                              equal(got.bound, want.bound)
                        : got.integer == want.integer;
        if (!same && differ++ == 0)
          first = o;
      }
      EXPECT_EQ(differ, 0) << in.name << (flush ? ", denormals as zero" : "")
                           << ": first at output " << first;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ReferenceReadings,
                         testing::ValuesIn(referenceCases()), testName);

} // namespace
