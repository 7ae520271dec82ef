//===- Pipeline.cpp - the passes every code generation path runs ----------===//

#include "tisa/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace tisa {

void addTisaRegisterLevelPasses(mlir::OpPassManager &pm) {
  pm.addNestedPass<mlir::func::FuncOp>(createTisaRegisterTilePass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createTisaLegalizeInstructionsPass());
}

} // namespace tisa
