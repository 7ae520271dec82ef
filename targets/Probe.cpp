//===- Probe.cpp - a description's lowering as runnable code --------------===//

#include "tisa/Targets/Probe.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Semantics/Intrinsic.h"
#include "tisa/Semantics/Layout.h"
#include "tisa/Semantics/Parse.h"

#include "mlir/Target/LLVMIR/Dialect/ArmSVE/ArmSVEToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/TypeFromLLVM.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Process.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;

namespace tisa {

std::string probeSymbol(const Description &d) {
  std::string s = "tisa_probe_" + d.name;
  for (char &c : s)
    if (!llvm::isAlnum(c))
      c = '_';
  return s;
}

namespace {

/// Registers of one class: vectors, AMX tiles or warp fragments.
bool isRegisterInstruction(const Description &d) {
  auto all = [&](RegisterClass cls) {
    return llvm::all_of(d.registers, [&](const OperandRegister &r) {
      return r.cls == cls;
    });
  };
  return all(RegisterClass::Vector) || all(RegisterClass::AMXTile) ||
         all(RegisterClass::WarpFragment);
}

/// Loads every register from its address, applies the instruction (the
/// tisa.apply the code generators emit, lowered by the same function; not in
/// a scaffold) and stores the accumulator back.
LogicalResult emitRegisterBody(OpBuilder &b, Location loc,
                               const Description &d, ArrayRef<Value> address,
                               bool scaffold) {
  FailureOr<FunctionType> signature = loweringSignature(
      d, b.getContext(), [&]() { return emitError(loc); });
  if (failed(signature))
    return failure();
  SmallVector<Value> registers;
  for (auto [i, reg] : llvm::enumerate(d.registers))
    registers.push_back(loadRegister(b, loc, reg, address[i]));
  unsigned acc = d.accumulatorOperand();
  if (scaffold) {
    storeRegister(b, loc, d.registers[acc], address[acc], registers[acc]);
    return success();
  }
  ApplyOp apply = buildApply(b, loc, d, *signature, registers);
  if (std::string why = whyNotLowered(apply); !why.empty())
    return emitError(loc) << d.name << ": " << why;
  Value result = lowerApply(b, apply);
  apply.erase();
  storeRegister(b, loc, d.registers[acc], address[acc], result);
  return success();
}

} // namespace

FailureOr<LLVM::LLVMFuncOp> buildProbe(const Description &d, ModuleOp module,
                                       bool scaffold) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<LLVM::LLVMDialect, TisaDialect>();
  Location loc = d.loc;
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> argTypes(d.registers.size(), ptrTy);
  auto fnTy =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), argTypes);
  auto fn = LLVM::LLVMFuncOp::create(
      b, loc, probeSymbol(d) + (scaffold ? "_scaffold" : ""), fnTy);
  fn.setTargetFeaturesAttr(
      LLVM::TargetFeaturesAttr::get(ctx, d.featureString()));
  bool warp = d.target == TargetArch::NVPTX;
  if (warp)
    fn.setCConv(LLVM::cconv::CConv::PTX_Kernel);
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);

  auto i64 = b.getI64Type();
  auto constant = [&](Type t, int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
  };
  auto perLaneBytes = [&](unsigned op) {
    const OperandRegister &r = d.registers[op];
    return r.type.getDimSize(1) * r.type.getElementTypeBitWidth() / 8;
  };

  // The lane's slice of every warp fragment starts at lane * bytes-per-lane.
  Value lane;
  if (warp) {
    Value tid =
        LLVM::CallIntrinsicOp::create(
            b, loc, b.getI32Type(),
            b.getStringAttr("llvm.nvvm.read.ptx.sreg.tid.x"), ValueRange{})
            .getResult(0);
    lane = LLVM::ZExtOp::create(b, loc, i64, tid);
  }
  auto laneAddress = [&](unsigned op, int64_t offset) -> Value {
    Value base = fn.getArgument(op);
    Value index =
        LLVM::MulOp::create(b, loc, lane, constant(i64, perLaneBytes(op)));
    index = LLVM::AddOp::create(b, loc, index, constant(i64, offset));
    return LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), base,
                               ValueRange{index});
  };

  // The instruction as the code generators emit it, a tisa.apply, lowered by
  // the same function -tisa-legalize-instructions uses; a warp fragment is
  // the lane's slice of its argument.
  if (!isRegisterInstruction(d))
    return emitError(loc) << d.name
                          << ": registers of several classes in one "
                             "instruction are not supported";
  SmallVector<Value> address;
  for (unsigned i = 0; i < d.registers.size(); ++i)
    address.push_back(warp ? laneAddress(i, 0) : fn.getArgument(i));
  if (failed(emitRegisterBody(b, loc, d, address, scaffold)))
    return failure();
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return fn;
}

FailureOr<LLVM::LLVMFuncOp> buildBatchProbe(const Description &d,
                                            ModuleOp module,
                                            LLVM::LLVMFuncOp probe,
                                            unsigned count) {
  MLIRContext *ctx = module.getContext();
  Location loc = d.loc;
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto fnTy =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  SmallVector<Type>(d.registers.size(), ptrTy));
  auto fn = LLVM::LLVMFuncOp::create(b, loc, probeSymbol(d) + "_batch", fnTy);
  fn.setTargetFeaturesAttr(
      LLVM::TargetFeaturesAttr::get(ctx, d.featureString()));
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  auto i64 = b.getI64Type();
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getIntegerAttr(i64, v));
  };
  // A scalable register image grows with the vector length: vscale segments per
  // case.
  Value segments = constant(1);
  if (d.isScalable())
    segments = LLVM::CallIntrinsicOp::create(b, loc, i64,
                                             b.getStringAttr("llvm.vscale.i64"),
                                             ValueRange{})
                   .getResult(0);
  SmallVector<Value> strides;
  for (unsigned i = 0; i < d.registers.size(); ++i)
    strides.push_back(LLVM::MulOp::create(
        b, loc, segments, constant(registerImageBytes(d, i, 1))));
  for (unsigned c = 0; c < count; ++c) {
    SmallVector<Value> args;
    for (unsigned i = 0; i < d.registers.size(); ++i) {
      Value offset = LLVM::MulOp::create(b, loc, strides[i], constant(c));
      args.push_back(LLVM::GEPOp::create(
          b, loc, ptrTy, b.getI8Type(), fn.getArgument(i), ValueRange{offset}));
    }
    LLVM::CallOp::create(b, loc, probe, args);
  }
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return fn;
}

CodegenTarget codegenTargetFor(const Description &d, StringRef cpu) {
  switch (d.target) {
  case TargetArch::X86_64:
    return {"x86_64-unknown-linux-gnu", cpu.empty() ? "x86-64" : cpu.str(),
            d.featureString()};
  case TargetArch::AArch64:
    return {"aarch64-unknown-linux-gnu", cpu.empty() ? "generic" : cpu.str(),
            d.featureString()};
  case TargetArch::NVPTX:
    // The CPU (sm_XX) is the architecture. The PTX version is left to LLVM's
    // default for that architecture: a fixed one (the description's minimum)
    // would be too old for newer ones, and LLVM aborts on that combination
    // instead of reporting it.
    return {"nvptx64-nvidia-cuda", cpu.empty() ? "sm_80" : cpu.str(), ""};
  }
  llvm_unreachable("unknown target");
}

llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &ctx) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerArmSVEDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, ctx);
  if (!llvmModule)
    return llvm::createStringError("cannot translate the probe to LLVM IR");
  return llvmModule;
}

static void initializeTargets() {
  static bool once = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    return true;
  }();
  (void)once;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CodegenTarget &target, llvm::CodeGenOptLevel level) {
  initializeTargets();
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t)
    return llvm::createStringError("no LLVM target for '" + target.triple +
                                   "': " + error);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(
      triple, target.cpu, target.features, options, llvm::Reloc::PIC_,
      std::nullopt, level));
  if (!tm)
    return llvm::createStringError("cannot create a target machine for " +
                                   target.triple);
  return tm;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitMachineCode(llvm::Module &module, const CodegenTarget &target,
                bool assembly) {
  auto tm = createTargetMachine(target);
  if (!tm)
    return tm.takeError();
  return emitMachineCode(module, **tm, assembly);
}

namespace {

/// Runs LLVM's code generation so that what it reports through
/// report_fatal_error (an intrinsic it cannot select, for example) comes
/// back as an error instead of ending the process: the fatal error handler
/// records the message and exits through a crash recovery context, as clang
/// does. One at a time (the handler and the context's signal handlers are
/// process-wide, enabled only around the run).
llvm::Error runCodegen(llvm::legacy::PassManager &pm, llvm::Module &module) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::string message;
  llvm::ScopedFatalErrorHandler handler(
      [](void *user, const char *reason, bool) {
        *static_cast<std::string *>(user) = reason;
        llvm::sys::Process::Exit(1); // returns from runRecoveringCrashes
      },
      &message);
  if (runRecoveringCrashes([&] { pm.run(module); }))
    return llvm::Error::success();
  // The first line says what failed; the rest is a dump of the DAG, except
  // the function it was in.
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(message).split(lines, '\n');
  std::string what = lines.empty() ? "" : lines.front().str();
  for (llvm::StringRef line : lines)
    if (line.consume_front("In function: "))
      what += " (in " + line.str() + ")";
  return llvm::createStringError(
      "LLVM cannot compile this code: " +
      (what.empty() ? std::string("its code generator crashed") : what));
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitMachineCode(llvm::Module &module, llvm::TargetMachine &tm, bool assembly) {
  module.setTargetTriple(tm.getTargetTriple());
  module.setDataLayout(tm.createDataLayout());
  llvm::SmallVector<char, 0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr,
                             assembly ? llvm::CodeGenFileType::AssemblyFile
                                      : llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the " + tm.getTargetTriple().str() +
                                   " backend cannot emit this file type");
  if (llvm::Error e = runCodegen(pm, module))
    return std::move(e);
  return llvm::MemoryBuffer::getMemBufferCopy(StringRef(out.data(), out.size()),
                                              module.getModuleIdentifier());
}

} // namespace tisa
