//===- CApiTest.cpp - the C API's refusals (include/tisa/tisa.h) ----------===//
//
// Every message tisa_compile gives starts with "tisa_compile: " and says what
// is wrong in the C API's terms; the C examples (examples/c-api) check the
// kernels it gives.
//
//===----------------------------------------------------------------------===//

#include "tisa/tisa.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>

namespace {

/// tisa_compile's message for `spec` on `target`, or "" when it compiled.
std::string refusal(const tisa_kernel_spec &spec, const char *target = nullptr) {
  char *error = nullptr;
  tisa_kernel *k = tisa_compile(&spec, target, &error);
  tisa_kernel_free(k);
  std::string text = error ? error : "";
  tisa_free(error);
  return text;
}

TEST(CApi, EveryRefusalSaysItIsTisaCompiles) {
  // The compiler's own messages (plan, target, extents) as well as the C
  // API's checks.
  EXPECT_EQ(refusal(tisa_gemm_spec(8, 8, TISA_RUN_TIME, "f16,f16,f32"))
                .rfind("tisa_compile: no instruction host executes applies to "
                       "gemm 8x8x? f16f16f32, and plain code does not take n "
                       "or k at run time",
                       0),
            0u);
  EXPECT_EQ(refusal(tisa_gemm_spec(8, 8, 8, "u8,s8,s32"), "foo")
                .rfind("tisa_compile: unknown target 'foo'", 0),
            0u);
  EXPECT_EQ(refusal(tisa_gemm_spec(0, 8, 8, "u8,s8,s32")),
            "tisa_compile: spec.m is 0; it must be a positive integer or "
            "TISA_RUN_TIME");
}

TEST(CApi, TooLargeNamesTheZeroPaddedInput) {
  // One input element, padded by 2^20 - 1 on each side: the padded input is
  // what would not fit (the message said "the input").
  int64_t big = int64_t(1) << 20;
  EXPECT_EQ(refusal(tisa_conv2d_spec(1, 1, 1, 1, 1, big, big, big, big - 1,
                                     "u8,s8,s32")),
            "tisa_compile: the zero-padded input would have 4.4E+12 elements, "
            "more than 2^40");
}

TEST(CApi, AnUnreadableDescriptionDirectorySaysWhereItLooked) {
  const char *before = std::getenv("TISA_ISA_PATH");
  std::string saved = before ? before : "";
  setenv("TISA_ISA_PATH", "/nonexistent/tisa-descriptions", 1);
  std::string text = refusal(tisa_gemm_spec(8, 8, 8, "u8,s8,s32"));
  if (before)
    setenv("TISA_ISA_PATH", saved.c_str(), 1);
  else
    unsetenv("TISA_ISA_PATH");
  EXPECT_EQ(text.rfind("tisa_compile: bad instruction descriptions "
                       "(searched: /nonexistent/tisa-descriptions, ",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("TISA_ISA_PATH adds directories"), std::string::npos);
  EXPECT_NE(text.find("error: cannot read description directory "
                      "'/nonexistent/tisa-descriptions'"),
            std::string::npos);
  EXPECT_EQ(text.find("<unknown>"), std::string::npos) << text;
}

} // namespace
