//===- PtxasCheckerTest.cpp - tests of the ptxas driver -------------------===//
//
// ptxas must accept hand-written kernels using each mma.sync form the CPU
// reference models, for sm_80 and sm_90, and reject malformed PTX with its own
// message. The same forms are also produced by LLVM's NVPTX backend from the
// llvm.nvvm.mma.* intrinsics and handed to ptxas: the toolchain path tisa
// uses. Without ptxas every test here is skipped with the reason.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/PtxasChecker.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

using namespace tisa::nvptx;
using namespace llvm;

namespace {

#define SKIP_WITHOUT_PTXAS()                                                   \
  do {                                                                         \
    std::string reason = ptxasUnavailableReason();                             \
    if (!reason.empty())                                                       \
      GTEST_SKIP() << reason;                                                  \
  } while (false)

/// One target the project emits for, with the PTX version it needs.
struct PtxTarget {
  const char *arch;
  const char *ptxVersion;   // .version in hand-written PTX
  const char *llvmFeatures; // PTX version feature for LLVM's NVPTX backend
};
constexpr PtxTarget kSm80 = {"sm_80", "7.0", "+ptx70"};
constexpr PtxTarget kSm90 = {"sm_90", "7.8", "+ptx78"};

/// The forms whose registers fit the hand-written kernel below (A four .b32,
/// B two, C/D four 32-bit registers).
enum class MmaShape { M16N8K16_F16_F32, M16N8K16_BF16_F32, M16N8K32_S8_S32 };

std::string ptxMnemonic(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
    return "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  case MmaShape::M16N8K16_BF16_F32:
    return "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
  case MmaShape::M16N8K32_S8_S32:
    return "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
  }
  return "unknown";
}

const char *shapeSuffix(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
    return "m16n8k16_f16_f32";
  case MmaShape::M16N8K16_BF16_F32:
    return "m16n8k16_bf16_f32";
  case MmaShape::M16N8K32_S8_S32:
    return "m16n8k32_s8_s32";
  }
  return "unknown";
}

void replaceAll(std::string &text, StringRef from, StringRef to) {
  for (size_t pos = text.find(from.str()); pos != std::string::npos;
       pos = text.find(from.str(), pos + to.size()))
    text.replace(pos, from.size(), to.str());
}

/// A kernel in which each lane loads its fragments (A: 4 x .b32, B: 2 x .b32,
/// C: 4 x f32/s32; 48 bytes per lane), runs one mma.sync and stores D. All
/// three forms share the register shapes, so only the mnemonic and the
/// accumulator type vary.
std::string handWrittenKernel(MmaShape shape, const PtxTarget &target) {
  std::string ptx = R"(.version @VERSION@
.target @ARCH@
.address_size 64

.visible .entry mma_kernel(.param .u64 p_in, .param .u64 p_out)
{
  .reg .b32 %lane, %ra<4>, %rb<2>;
  .reg @ACC@ %c<4>, %d<4>;
  .reg .b64 %rd<4>;

  ld.param.u64 %rd0, [p_in];
  ld.param.u64 %rd1, [p_out];
  cvta.to.global.u64 %rd0, %rd0;
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %lane, %laneid;
  mul.wide.u32 %rd2, %lane, 48;
  add.u64 %rd0, %rd0, %rd2;
  ld.global.v4.b32 {%ra0, %ra1, %ra2, %ra3}, [%rd0];
  ld.global.v2.b32 {%rb0, %rb1}, [%rd0+16];
  ld.global.v4@ACC@ {%c0, %c1, %c2, %c3}, [%rd0+32];
  @MNEMONIC@
      {%d0, %d1, %d2, %d3},
      {%ra0, %ra1, %ra2, %ra3},
      {%rb0, %rb1},
      {%c0, %c1, %c2, %c3};
  mul.wide.u32 %rd3, %lane, 16;
  add.u64 %rd1, %rd1, %rd3;
  st.global.v4@ACC@ [%rd1], {%d0, %d1, %d2, %d3};
  ret;
}
)";
  replaceAll(ptx, "@VERSION@", target.ptxVersion);
  replaceAll(ptx, "@ARCH@", target.arch);
  replaceAll(ptx, "@ACC@",
             shape == MmaShape::M16N8K32_S8_S32 ? ".s32" : ".f32");
  replaceAll(ptx, "@MNEMONIC@", ptxMnemonic(shape));
  return ptx;
}

std::string errorText(Error err) { return toString(std::move(err)); }

//===----------------------------------------------------------------------===//
// Hand-written PTX
//===----------------------------------------------------------------------===//

struct MmaCase {
  MmaShape shape;
  PtxTarget target;
};

/// Names the case in gtest and ctest output instead of dumping its bytes.
void PrintTo(const MmaCase &tc, std::ostream *os) {
  *os << ptxMnemonic(tc.shape) << " for " << tc.target.arch;
}

class PtxasAcceptsMma : public ::testing::TestWithParam<MmaCase> {};

TEST_P(PtxasAcceptsMma, HandWrittenKernel) {
  SKIP_WITHOUT_PTXAS();
  const MmaCase &tc = GetParam();
  std::string ptx = handWrittenKernel(tc.shape, tc.target);
  Error err = runPtxas(ptx, tc.target.arch);
  EXPECT_FALSE(static_cast<bool>(err))
      << errorText(std::move(err)) << "\nPTX:\n"
      << ptx;
}

const MmaCase kMmaCases[] = {
    {MmaShape::M16N8K16_F16_F32, kSm80},  {MmaShape::M16N8K16_BF16_F32, kSm80},
    {MmaShape::M16N8K32_S8_S32, kSm80},   {MmaShape::M16N8K16_F16_F32, kSm90},
    {MmaShape::M16N8K16_BF16_F32, kSm90}, {MmaShape::M16N8K32_S8_S32, kSm90},
};

std::string mmaCaseName(const ::testing::TestParamInfo<MmaCase> &info) {
  return std::string(shapeSuffix(info.param.shape)) + "_" +
         info.param.target.arch;
}

INSTANTIATE_TEST_SUITE_P(AllForms, PtxasAcceptsMma,
                         ::testing::ValuesIn(kMmaCases), mmaCaseName);

TEST(PtxasRejects, OperandVectorOfTheWrongSize) {
  SKIP_WITHOUT_PTXAS();
  std::string ptx = handWrittenKernel(MmaShape::M16N8K16_F16_F32, kSm80);
  std::string good = "{%d0, %d1, %d2, %d3}";
  size_t pos = ptx.find(good);
  ASSERT_NE(pos, std::string::npos);
  ptx.replace(pos, good.size(), "{%d0, %d1}");
  size_t mmaLine =
      1 + StringRef(ptx).take_front(ptx.find("mma.sync")).count('\n');
  Error err = runPtxas(ptx, "sm_80");
  ASSERT_TRUE(static_cast<bool>(err)) << "ptxas accepted:\n" << ptx;
  std::string message = errorText(std::move(err));
  EXPECT_NE(message.find("rejected the PTX"), std::string::npos) << message;
  // ptxas's own diagnostic, with the line of the mma.
  EXPECT_NE(message.find("error"), std::string::npos) << message;
  EXPECT_NE(message.find("line " + std::to_string(mmaLine)), std::string::npos)
      << message;
}

TEST(PtxasRejects, Bf16MmaBelowSm80) {
  SKIP_WITHOUT_PTXAS();
  PtxTarget sm75 = {"sm_75", "7.0", ""};
  std::string ptx = handWrittenKernel(MmaShape::M16N8K16_BF16_F32, sm75);
  Error err = runPtxas(ptx, "sm_75");
  ASSERT_TRUE(static_cast<bool>(err)) << "ptxas accepted:\n" << ptx;
  std::string message = errorText(std::move(err));
  EXPECT_NE(message.find("error"), std::string::npos) << message;
}

TEST(PtxasRejects, TextThatIsNotPtx) {
  SKIP_WITHOUT_PTXAS();
  Error err = runPtxas("this is not ptx\n", "sm_80");
  ASSERT_TRUE(static_cast<bool>(err));
  std::string message = errorText(std::move(err));
  EXPECT_NE(message.find("ptxas"), std::string::npos) << message;
  EXPECT_NE(message.find("error"), std::string::npos) << message;
}

TEST(PtxasChecker, RefusesAnArchThatLooksLikeAnOption) {
  SKIP_WITHOUT_PTXAS();
  Error err =
      runPtxas(handWrittenKernel(MmaShape::M16N8K16_F16_F32, kSm80), "-v");
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(errorText(std::move(err)).find("invalid ptxas architecture '-v'"),
            std::string::npos);
}

/// Sets an environment variable for one scope, restoring it afterwards.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (std::optional<std::string> old = sys::Process::GetEnv(name))
      previous = *old;
    ::setenv(name, value, /*overwrite=*/1);
  }
  ~ScopedEnv() {
    if (previous)
      ::setenv(name, previous->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> previous;
};

TEST(PtxasChecker, EnvironmentOverridesTheConfiguredPath) {
  ScopedEnv env("TISA_PTXAS", "/nonexistent/tisa/ptxas");
  EXPECT_EQ(ptxasPath(), "/nonexistent/tisa/ptxas");
  std::string reason = ptxasUnavailableReason();
  EXPECT_NE(reason.find("/nonexistent/tisa/ptxas"), std::string::npos)
      << reason;
  Error err = runPtxas(".version 7.0\n", "sm_80");
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_EQ(errorText(std::move(err)), reason);
}

/// A ptxas that exits 0 without writing the cubin is an error, not an
/// empty cubin (`tisa gen` printed "no cubin: " with no reason).
TEST(PtxasChecker, NoCubinFromASuccessfulRunIsAnError) {
  SmallString<128> script;
  ASSERT_FALSE(sys::fs::createTemporaryFile("fake-ptxas", "sh", script));
  FileRemover remove(script);
  {
    std::error_code ec;
    raw_fd_ostream os(script, ec);
    ASSERT_FALSE(ec) << ec.message();
    os << "#!/bin/sh\nexit 0\n";
  }
  ASSERT_FALSE(sys::fs::setPermissions(script, sys::fs::all_exe |
                                                   sys::fs::owner_read |
                                                   sys::fs::owner_write));
  ScopedEnv env("TISA_PTXAS", script.c_str());
  Expected<std::string> cubin = assembleCubin(".version 7.0\n", "sm_80");
  ASSERT_FALSE(static_cast<bool>(cubin));
  EXPECT_NE(errorText(cubin.takeError()).find("exited 0 but wrote no cubin"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// PTX from LLVM's NVPTX backend
//===----------------------------------------------------------------------===//

void initializeNVPTX() {
  static bool once = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)once;
}

/// The NVVM intrinsic that lowers to each form. The f16 one is named by its
/// D and C types: llvm.nvvm.mma.m16n8k16.row.col.f32.f32 (A/B are f16).
Intrinsic::ID intrinsicFor(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
    return Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
  case MmaShape::M16N8K16_BF16_F32:
    return Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
  case MmaShape::M16N8K32_S8_S32:
    return Intrinsic::nvvm_mma_m16n8k32_row_col_s8;
  }
  return Intrinsic::not_intrinsic;
}

/// A kernel `mma_kernel(ptr addrspace(1) in, ptr addrspace(1) out)` that
/// loads every operand of the intrinsic from `in`, calls it and stores the
/// result fields to `out`. Operand types come from the intrinsic itself.
std::unique_ptr<Module> buildMmaModule(LLVMContext &ctx, MmaShape shape,
                                       TargetMachine &tm) {
  auto module = std::make_unique<Module>("tisa_mma", ctx);
  module->setTargetTriple(tm.getTargetTriple());
  module->setDataLayout(tm.createDataLayout());
  const DataLayout &layout = module->getDataLayout();

  Function *mma =
      Intrinsic::getOrInsertDeclaration(module.get(), intrinsicFor(shape));
  PointerType *globalPtr = PointerType::get(ctx, /*AddressSpace=*/1);
  FunctionType *kernelType = FunctionType::get(
      Type::getVoidTy(ctx), {globalPtr, globalPtr}, /*isVarArg=*/false);
  Function *kernel = Function::Create(kernelType, GlobalValue::ExternalLinkage,
                                      "mma_kernel", module.get());
  kernel->setCallingConv(CallingConv::PTX_Kernel);

  IRBuilder<> builder(BasicBlock::Create(ctx, "entry", kernel));
  SmallVector<Value *, 16> operands;
  uint64_t offset = 0;
  for (Type *type : mma->getFunctionType()->params()) {
    Value *ptr = builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(),
                                                    kernel->getArg(0), offset);
    operands.push_back(builder.CreateLoad(type, ptr));
    offset += layout.getTypeAllocSize(type);
  }
  Value *result = builder.CreateCall(mma, operands);
  auto *resultType = cast<StructType>(mma->getReturnType());
  offset = 0;
  for (unsigned i = 0; i < resultType->getNumElements(); ++i) {
    Value *ptr = builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(),
                                                    kernel->getArg(1), offset);
    builder.CreateStore(builder.CreateExtractValue(result, i), ptr);
    offset += layout.getTypeAllocSize(resultType->getElementType(i));
  }
  builder.CreateRetVoid();
  return module;
}

class LlvmPtxAcceptedByPtxas : public ::testing::TestWithParam<MmaCase> {};

TEST_P(LlvmPtxAcceptedByPtxas, IntrinsicLowersToTheModelledForm) {
  const MmaCase &tc = GetParam();
  initializeNVPTX();
  Triple triple("nvptx64-nvidia-cuda");
  std::string lookupError;
  const Target *target = TargetRegistry::lookupTarget(triple, lookupError);
  ASSERT_NE(target, nullptr) << lookupError;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, tc.target.arch, tc.target.llvmFeatures, TargetOptions(),
      /*RM=*/std::nullopt));
  ASSERT_NE(tm, nullptr);

  LLVMContext ctx;
  std::unique_ptr<Module> module = buildMmaModule(ctx, tc.shape, *tm);
  std::string verifyErrors;
  raw_string_ostream verifyStream(verifyErrors);
  ASSERT_FALSE(verifyModule(*module, &verifyStream)) << verifyErrors;

  SmallString<0> ptx;
  raw_svector_ostream ptxStream(ptx);
  legacy::PassManager passes;
  ASSERT_FALSE(tm->addPassesToEmitFile(passes, ptxStream, nullptr,
                                       CodeGenFileType::AssemblyFile))
      << "NVPTX cannot emit assembly";
  passes.run(*module);
  std::string ptxText = ptx.str().str();

  // The backend emits exactly the instruction the CPU reference models.
  EXPECT_NE(ptxText.find(ptxMnemonic(tc.shape)), std::string::npos)
      << ptxText;
  EXPECT_NE(ptxText.find(std::string(".target ") + tc.target.arch),
            std::string::npos)
      << ptxText;

  SKIP_WITHOUT_PTXAS();
  Error err = runPtxas(ptxText, tc.target.arch);
  EXPECT_FALSE(static_cast<bool>(err))
      << errorText(std::move(err)) << "\nPTX:\n"
      << ptxText;
}

INSTANTIATE_TEST_SUITE_P(AllForms, LlvmPtxAcceptedByPtxas,
                         ::testing::ValuesIn(kMmaCases), mmaCaseName);

} // namespace
