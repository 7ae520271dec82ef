//===- Pipeline.cpp - the passes every code generation path runs ----------===//

#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace tisa {

void addTisaTensorizePasses(mlir::OpPassManager &pm,
                            std::shared_ptr<const TensorizeInputs> inputs,
                            llvm::StringRef schedule, bool fuseEpilogues) {
  // Quantized contractions become plain ones plus their zero-point terms;
  // operands no instruction reads in place (NCHW, a transposed A) get copies
  // that it can.
  pm.addNestedPass<mlir::func::FuncOp>(createTisaDecomposeQuantizedPass());
  pm.addNestedPass<mlir::func::FuncOp>(createTisaRelayoutPass());
  // A convolution with few channels reduces over a filter row's taps.
  pm.addNestedPass<mlir::func::FuncOp>(createTisaTapRowsPass(inputs, schedule));
  pm.addNestedPass<mlir::func::FuncOp>(
      createTisaSelectPlanPass(inputs, schedule, /*warnUnplanned=*/false));
  pm.addNestedPass<mlir::func::FuncOp>(createTisaSplitPackPass(inputs));
  // Elementwise consumers (bias, activation, requantization) run on the
  // accumulators in registers.
  if (fuseEpilogues)
    pm.addNestedPass<mlir::func::FuncOp>(createTisaFuseEpiloguePass());
  // Loops of run-time extent (after fusion: each block takes its share of
  // the epilogue) run as static blocks.
  pm.addNestedPass<mlir::func::FuncOp>(createTisaSplitDynamicPass(inputs));
  // Its blocks, each in a function of its own (LLVM's compile time).
  pm.addPass(createTisaOutlineKernelsPass(inputs));
  pm.addNestedPass<mlir::func::FuncOp>(createTisaTensorizePass(inputs));
}

TisaTilePlainPassOptions plainTileOptions(const Target &target) {
  TisaTilePlainPassOptions options;
  // Fixed-length vectors: on AArch64 NEON's 128 bits whatever SVE's length
  // (tisa's SVE code is vector-length agnostic; LLVM lowers fixed-length
  // vectors to NEON).
  options.vectorBits = target.arch == TargetArch::AArch64
                           ? std::min(target.vectorBits, 128u)
                           : target.vectorBits;
  options.vectorRegisters = target.vectorRegistersOrAssumed();
  options.spareRegisters = target.cost.spareRegistersWithPacked;
  options.maxRows = target.cost.maxTileRows;
  options.maxVectors = target.cost.maxTileRegisters;
  return options;
}

void addTisaRegisterLevelPasses(mlir::OpPassManager &pm,
                                const TisaTilePlainPassOptions &plain) {
  // Scratch buffers the generators made inside loops: one per call.
  pm.addNestedPass<mlir::func::FuncOp>(createTisaHoistScratchPass());
  // Their large staging copies, as loops LLVM keeps rolled.
  pm.addNestedPass<mlir::func::FuncOp>(createTisaRollCopiesPass());
  // Contractions no instruction took: register tiles of vectors, else loops
  // LLVM vectorizes.
  pm.addNestedPass<mlir::func::FuncOp>(createTisaTilePlainPass(plain));
  pm.addNestedPass<mlir::func::FuncOp>(createTisaOrderPlainLoopsPass());
  pm.addNestedPass<mlir::func::FuncOp>(createTisaRegisterTilePass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addNestedPass<mlir::func::FuncOp>(createTisaSingleLaneStoresPass());
  pm.addNestedPass<mlir::func::FuncOp>(createTisaByElementPass());
  pm.addPass(createTisaLegalizeInstructionsPass());
}

} // namespace tisa
