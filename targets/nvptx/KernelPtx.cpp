//===- KernelPtx.cpp - GPU kernel IR to PTX -------------------------------===//

#include "tisa/Targets/KernelPtx.h"
#include "tisa/Targets/Codegen.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace tisa {
namespace nvptx {

namespace {

/// The float ops of an epilogue (requantization's roundeven, its clamps by
/// maxnum and minnum, ReLU's maximum) as calls of LLVM's intrinsics, which
/// NVPTX selects as cvt.rni, max, min and max.NaN: convert-gpu-to-nvvm
/// would call libdevice (__nv_rintf, __nv_fmaxf, ...), which is not linked.
void floatOpsAsIntrinsics(ModuleOp module) {
  module.walk([](Operation *op) {
    StringRef base =
        llvm::StringSwitch<StringRef>(op->getName().getStringRef())
            .Case("math.roundeven", "llvm.roundeven")
            .Case("arith.maxnumf", "llvm.maxnum")
            .Case("arith.minnumf", "llvm.minnum")
            .Case("arith.maximumf", "llvm.maximum")
            .Case("arith.minimumf", "llvm.minimum")
            .Default("");
    if (base.empty() || op->getNumResults() != 1)
      return;
    Type t = op->getResult(0).getType();
    if (!t.isF32() && !t.isF64())
      return;
    OpBuilder b(op);
    std::string name = (base + (t.isF32() ? ".f32" : ".f64")).str();
    Operation *call = LLVM::CallIntrinsicOp::create(
        b, op->getLoc(), t, b.getStringAttr(name), op->getOperands());
    op->getResult(0).replaceAllUsesWith(call->getResult(0));
    op->erase();
  });
}

/// Lowers the gpu.modules of `module` to the NVVM/LLVM dialects in place.
LogicalResult lowerToNVVM(ModuleOp module) {
  floatOpsAsIntrinsics(module);
  PassManager pm(module.getContext());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions options;
  options.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(options));
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  return pm.run(module);
}

/// A module holding the lowered contents of every gpu.module.
OwningOpRef<ModuleOp> kernelsAsModule(ModuleOp lowered) {
  OwningOpRef<ModuleOp> out = ModuleOp::create(lowered.getLoc());
  OpBuilder b(lowered.getContext());
  b.setInsertionPointToEnd(out->getBody());
  lowered.walk([&](gpu::GPUModuleOp gm) {
    for (Operation &op : gm.getBody()->without_terminator())
      b.clone(op);
  });
  return out;
}

} // namespace

llvm::Expected<std::string> emitKernelPtx(ModuleOp module,
                                          const Target &target) {
  MLIRContext *ctx = module.getContext();
  DialectRegistry registry;
  // The to-LLVM conversion interfaces convert-gpu-to-nvvm uses for the
  // arith, memref, vector, cf and nvvm ops in the kernels.
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadDialect<NVVM::NVVMDialect>();

  std::string diagnostics;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  if (failed(lowerToNVVM(*copy)))
    return llvm::createStringError("lowering the kernels to NVVM failed:\n" +
                                   diagnostics);
  OwningOpRef<ModuleOp> kernels = kernelsAsModule(*copy);
  auto ptx = compileToObject(*kernels, codegenTargetFor(target),
                             /*assembly=*/true);
  if (!ptx)
    return ptx.takeError();
  return (*ptx)->getBuffer().str();
}

} // namespace nvptx
} // namespace tisa
