//===- EpilogueKernelsTest.cpp - what --epilogue refuses --------------------===//
//
// The kernels with epilogues run in the kernel matrices (Epilogues/... in
// KernelsTest.cpp, AMXKernelsTest.cpp and ArmKernelsTest.cpp); here: bad
// lists and types are refused with their reason.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/Reference.h"

#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

using namespace tisa;
using namespace tisa::test;

namespace {

TEST(EpilogueKernels, BadLists) {
  for (auto [list, error] :
       {std::pair<const char *, const char *>{
            "bias,gelu", "--epilogue: unknown step 'gelu' (steps: bias, "
                         "residual, relu, requant=u8, requant=s8, bf16)"},
        {"requant=u8,bf16", "--epilogue: requant and bf16 both convert the "
                            "result; take one"}}) {
    auto e = EpilogueSpec::parse(list);
    ASSERT_FALSE(bool(e));
    EXPECT_EQ(llvm::toString(e.takeError()), error);
  }
  KernelSpec s = withEpilogue(gemm(8, 8, 8, "bf16,bf16,f32"), "requant=u8");
  EXPECT_EQ(llvm::toString(s.validate()),
            "--epilogue requant=u8 takes an s32 result, not f32");
  s = withEpilogue(gemm(8, 8, 8, "u8,s8,s32"), "bf16");
  EXPECT_EQ(llvm::toString(s.validate()),
            "--epilogue bf16 takes an f32 result, not s32");
}

} // namespace
