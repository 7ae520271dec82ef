//===- BufferizePass.cpp - -tisa-bufferize --------------------------------===//
//
// Linalg on tensors becomes linalg on memrefs through upstream passes, run as
// a pipeline of this pass's own so that a module on memrefs passes unchanged
// and the entries' tensor inputs are the caller's (never written).
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace tisa {
#define GEN_PASS_DEF_TISABUFFERIZEPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {

bool usesTensors(ModuleOp module) {
  auto tensor = [](Type t) { return isa<TensorType>(t); };
  WalkResult found = module.walk([&](Operation *op) {
    bool any = llvm::any_of(op->getResultTypes(), tensor);
    if (auto f = dyn_cast<func::FuncOp>(op))
      any |= llvm::any_of(f.getArgumentTypes(), tensor) ||
             llvm::any_of(f.getResultTypes(), tensor);
    return any ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found.wasInterrupted();
}

namespace {

/// The upstream passes: whole functions, tensors at their boundaries
/// included, become memrefs of the identity layout; a returned buffer
/// becomes an output argument the caller provides (MLIR's C interface then
/// takes one descriptor per memref, inputs first); intermediate buffers are
/// freed.
void buildBufferizePipeline(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  // Public functions too (they are the library's entries); a statically
  // shaped result is computed in the caller's buffer, not copied there.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // One-shot bufferization frees nothing: intermediate buffers (a tensor
  // between two ops, a copy for a conflict) get their deallocations here.
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createCanonicalizerPass());
}

/// The tensor arguments of public functions are the caller's inputs.
void markCallerInputs(ModuleOp module) {
  auto readOnly = BoolAttr::get(module.getContext(), false);
  module.walk([&](func::FuncOp f) {
    if (!f.isPublic() || f.isExternal())
      return;
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      if (isa<TensorType>(f.getArgument(i).getType()) &&
          !f.getArgAttr(i, bufferization::BufferizationDialect::
                               kWritableAttrName))
        f.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                     readOnly);
  });
}

struct BufferizePass
    : public tisa::impl::TisaBufferizePassBase<BufferizePass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildBufferizePipeline(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!usesTensors(module))
      return markAllAnalysesPreserved();
    markCallerInputs(module);
    OpPassManager pm(ModuleOp::getOperationName());
    buildBufferizePipeline(pm);
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};

} // namespace

void addTisaBufferizePasses(OpPassManager &pm) {
  pm.addPass(std::make_unique<BufferizePass>());
}

} // namespace tisa
