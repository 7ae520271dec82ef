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
                            "result; take one"},
        // Refused, not reordered: relu then bias is other arithmetic.
        {"relu,bias", "--epilogue: 'bias' after 'relu' is out of order (the "
                      "steps run once each, in the order bias, residual, "
                      "relu, then requant=u8|s8 or bf16)"},
        {"bias,relu,relu", "--epilogue: 'relu' after 'relu' repeats a step "
                           "(the steps run once each, in the order bias, "
                           "residual, relu, then requant=u8|s8 or bf16)"},
        {"requant=s8,relu", "--epilogue: 'relu' after 'requant=s8' is out of "
                            "order (the steps run once each, in the order "
                            "bias, residual, relu, then requant=u8|s8 or "
                            "bf16)"}}) {
    auto e = EpilogueSpec::parse(list);
    ASSERT_FALSE(bool(e));
    EXPECT_EQ(llvm::toString(e.takeError()), error);
  }
  for (const char *list : {"bias,residual,relu,requant=u8", "bias,relu,bf16",
                           "residual", "relu,requant=s8"}) {
    auto e = EpilogueSpec::parse(list);
    ASSERT_TRUE(bool(e)) << list << ": " << llvm::toString(e.takeError());
    EXPECT_EQ(e->text(), list);
  }
  KernelSpec s = withEpilogue(gemm(8, 8, 8, "bf16,bf16,f32"), "requant=u8");
  EXPECT_EQ(llvm::toString(s.validate()),
            "--epilogue requant=u8 takes an s32 result, not f32");
  s = withEpilogue(gemm(8, 8, 8, "u8,s8,s32"), "bf16");
  EXPECT_EQ(llvm::toString(s.validate()),
            "--epilogue bf16 takes an f32 result, not s32");
}

} // namespace
