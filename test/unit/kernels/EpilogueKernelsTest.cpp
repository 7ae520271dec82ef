//===- EpilogueKernelsTest.cpp - what --epilogue refuses --------------------===//
//
// The kernels with epilogues run in KernelsTest.cpp's matrix (Epilogues/...);
// here: an AMX kernel, whose tiles are stored whole, is refused with its
// reason, and so are bad lists and types.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/Reference.h"

#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

using namespace tisa;
using namespace tisa::test;

namespace {

TEST(EpilogueKernels, RefusedOnTiles) {
  KernelSpec spec =
      withEpilogue(gemm(64, 64, 64, "u8,s8,s32"), "bias,relu,requant=u8");
  std::string warnings;
  auto compiled = compileUncached(spec, "sapphirerapids", warnings);
  ASSERT_FALSE(bool(compiled));
  EXPECT_EQ(llvm::toString(compiled.takeError()),
            "--epilogue bias,relu,requant=u8 is not generated for tdpbusd: "
            "tdpbusd's code generator stores its accumulators whole (tiles)");
}

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
