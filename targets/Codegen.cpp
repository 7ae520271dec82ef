//===- Codegen.cpp - from tensorized MLIR to machine code -----------------===//

#include "tisa/Config.h"
#include "tisa/Targets/Codegen.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace tisa {

llvm::StringRef llvmLoweringPipeline() {
  return "func.func(convert-linalg-to-loops), lower-affine, "
         "convert-vector-to-llvm{enable-arm-sve}, convert-math-to-llvm, convert-scf-to-cf, expand-strided-metadata, "
         "lower-affine, "
         "finalize-memref-to-llvm, convert-arith-to-llvm, "
         "convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, "
         "convert-ub-to-llvm, reconcile-unrealized-casts, canonicalize, cse";
}

namespace {

/// memref.copy between buffers that are not both contiguous (a padded
/// tensor's interior, a subview) as linalg.copy, which becomes loops:
/// finalize-memref-to-llvm would call `memrefCopy` of MLIR's runner
/// utilities, which no generated library links.
void stridedCopiesAsLoops(ModuleOp module) {
  module.walk([](memref::CopyOp copy) {
    auto contiguous = [](Value v) {
      auto t = cast<MemRefType>(v.getType());
      return t.getLayout().isIdentity() ||
             (t.hasStaticShape() && memref::isStaticShapeAndContiguousRowMajor(t));
    };
    if (contiguous(copy.getSource()) && contiguous(copy.getTarget()))
      return;
    OpBuilder b(copy);
    linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    copy.erase();
  });
}

/// The loop annotations convert-scf-to-cf leaves on back edges
/// (kLoopAnnotationAttr: -tisa-roll-copies sets them), as the branches'
/// own, which the translation to LLVM IR reads.
void loopAnnotationsOnBranches(ModuleOp module) {
  module.walk([&](LLVM::BrOp br) {
    if (auto a =
            br->getAttrOfType<LLVM::LoopAnnotationAttr>(kLoopAnnotationAttr)) {
      br.setLoopAnnotationAttr(a);
      br->removeAttr(kLoopAnnotationAttr);
    }
  });
}

} // namespace

LogicalResult lowerToLLVMDialect(ModuleOp module) {
  stridedCopiesAsLoops(module);
  // The passes llvmLoweringPipeline names, registered for its parser
  // (registerAllPasses costs every process that compiles about 4 ms).
  static bool registered = [] {
    registerConvertLinalgToLoopsPass();
    registerLowerAffinePass();
    registerConvertVectorToLLVMPass();
    registerConvertMathToLLVMPass();
    registerSCFToControlFlowPass();
    memref::registerExpandStridedMetadataPass();
    registerFinalizeMemRefToLLVMConversionPass();
    registerArithToLLVMConversionPass();
    registerConvertIndexToLLVMPass();
    registerConvertControlFlowToLLVMPass();
    registerConvertFuncToLLVMPass();
    registerUBToLLVMConversionPass();
    registerReconcileUnrealizedCastsPass();
    registerCanonicalizerPass();
    registerCSEPass();
    return true;
  }();
  (void)registered;
  PassManager pm(module.getContext());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(llvmLoweringPipeline(), pm, os)))
    return module.emitError("tisa: bad lowering pipeline: ") << error;
  // Upstream's conversions are verified once, after the last of them, not
  // after each (a full walk of a module of thousands of operations, 17 times).
  pm.enableVerifier(false);
  if (failed(pm.run(module)) || failed(verify(module)))
    return failure();
  loopAnnotationsOnBranches(module);
  return success();
}

CodegenTarget codegenTargetFor(const Target &target) {
  CodegenTarget t;
  switch (target.arch) {
  case TargetArch::X86_64:
    t.triple = "x86_64-unknown-linux-gnu";
    break;
  case TargetArch::AArch64:
    t.triple = "aarch64-unknown-linux-gnu";
    break;
  case TargetArch::NVPTX:
    t.triple = "nvptx64-nvidia-cuda";
    break;
  }
  t.cpu = target.cpu;
  std::vector<std::string> features;
  for (const auto &f : target.features)
    features.push_back("+" + f.getKey().str());
  for (const auto &f : target.disabledFeatures)
    features.push_back("-" + f.getKey().str());
  llvm::sort(features);
  t.features = llvm::join(features, ",");
  return t;
}

namespace {

/// $TISA_LLVM_ARGS: LLVM's own options for the code generator (for one,
/// "-time-passes" to see where a kernel's compile time goes), parsed once
/// per process. A developer's switch; nothing sets it by default.
void parseLlvmArgs() {
  static bool parsed = [] {
    std::optional<std::string> text =
        llvm::sys::Process::GetEnv("TISA_LLVM_ARGS");
    if (!text || text->empty())
      return true;
    static llvm::BumpPtrAllocator allocator;
    static llvm::StringSaver saver(allocator);
    llvm::SmallVector<const char *> argv = {"tisa (TISA_LLVM_ARGS)"};
    llvm::cl::TokenizeGNUCommandLine(*text, saver, argv);
    llvm::cl::ParseCommandLineOptions(int(argv.size()), argv.data());
    return true;
  }();
  (void)parsed;
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compileToObject(ModuleOp module, const CodegenTarget &target, bool assembly) {
  parseLlvmArgs();
  llvm::LLVMContext ctx;
  auto llvmModule = translateToLLVMIR(module, ctx);
  if (!llvmModule)
    return llvmModule.takeError();
  auto tm = createTargetMachine(target);
  if (!tm)
    return tm.takeError();
  (*llvmModule)->setTargetTriple((*tm)->getTargetTriple());
  (*llvmModule)->setDataLayout((*tm)->createDataLayout());

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Instrumented as opt is, so that TISA_LLVM_ARGS's -time-passes or
  // -print-after-all see the passes.
  llvm::PassInstrumentationCallbacks pic;
  llvm::StandardInstrumentations instrumentations(ctx, /*DebugLogging=*/false);
  instrumentations.registerCallbacks(pic, &mam);
  llvm::PassBuilder pb(tm->get(), llvm::PipelineTuningOptions(), std::nullopt,
                       &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(**llvmModule, mam);
  return emitMachineCode(**llvmModule, **tm, assembly);
}

llvm::Error linkSharedLibrary(llvm::MemoryBufferRef object,
                              llvm::StringRef path) {
  llvm::StringRef linker = TISA_LINKER;
  if (linker.empty())
    return llvm::createStringError(
        "no ld.lld was found at configure time; install lld-22");
  llvm::SmallString<128> objPath;
  int fd;
  if (auto ec = llvm::sys::fs::createTemporaryFile("tisa", "o", fd, objPath))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object.getBuffer();
  }
  std::string outPath = path.str(), obj = objPath.str().str();
  llvm::SmallVector<llvm::StringRef> args = {linker, "-shared", "-o", outPath,
                                             obj};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0,
                                     &error);
  llvm::sys::fs::remove(objPath);
  if (rc != 0)
    return llvm::createStringError("linking " + outPath + " failed" +
                                   (error.empty() ? "" : ": " + error));
  return llvm::Error::success();
}

JitObject::~JitObject() = default;

llvm::Expected<std::unique_ptr<JitObject>>
JitObject::load(std::unique_ptr<llvm::MemoryBuffer> object,
                 llvm::ArrayRef<std::pair<llvm::StringRef, void *>> symbols) {
  // A kernel from the disk cache is loaded without compiling anything: the
  // native target may not be initialized yet.
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  // The generated code calls malloc and free: resolve them in this process.
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return generator.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (!symbols.empty()) {
    llvm::orc::SymbolMap map;
    for (auto [name, address] : symbols)
      map[(*jit)->mangleAndIntern(name)] = {
          llvm::orc::ExecutorAddr::fromPtr(address),
          llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    if (auto err = (*jit)->getMainJITDylib().define(
            llvm::orc::absoluteSymbols(std::move(map))))
      return std::move(err);
  }
  std::unique_ptr<JitObject> out(new JitObject);
  out->copy = llvm::MemoryBuffer::getMemBufferCopy(object->getBuffer(),
                                                   object->getBufferIdentifier());
  if (auto err = (*jit)->addObjectFile(std::move(object)))
    return std::move(err);
  out->jit = std::move(*jit);
  return out;
}

llvm::Expected<void *> JitObject::lookup(llvm::StringRef symbol) {
  auto address = jit->lookup(symbol);
  if (!address)
    return address.takeError();
  return address->toPtr<void *>();
}

llvm::MemoryBufferRef JitObject::object() const { return *copy; }

} // namespace tisa
