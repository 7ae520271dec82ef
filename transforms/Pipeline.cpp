//===- Pipeline.cpp - the passes every code generation path runs ----------===//

#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace tisa {

void addTisaTensorizePasses(mlir::OpPassManager &pm,
                            std::shared_ptr<const TensorizeInputs> inputs,
                            llvm::StringRef schedule) {
  pm.addNestedPass<mlir::func::FuncOp>(
      createTisaSelectPlanPass(inputs, schedule));
  pm.addNestedPass<mlir::func::FuncOp>(createTisaSplitPackPass(inputs));
  pm.addNestedPass<mlir::func::FuncOp>(createTisaTensorizePass(inputs));
}

void addTisaRegisterLevelPasses(mlir::OpPassManager &pm) {
  pm.addNestedPass<mlir::func::FuncOp>(createTisaRegisterTilePass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createTisaLegalizeInstructionsPass());
}

} // namespace tisa
