//===- TensorizePass.cpp - -tisa-tensorize --------------------------------===//
//
// Applies each contraction's plan and schedule (its tisa.plan and
// tisa.schedule attributes, from -tisa-select-plan or by hand; without them
// the best supported plan and the target's default schedule): the pack of
// the planned operand, then the computation around the instruction.
//
//===----------------------------------------------------------------------===//

#include "PlanSelection.h"
#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tisa {
#define GEN_PASS_DEF_TISATENSORIZEPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

struct TensorizePass
    : public tisa::impl::TisaTensorizePassBase<TensorizePass> {
  using TisaTensorizePassBase::TisaTensorizePassBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    TisaTensorizePassBase::getDependentDialects(registry);
    // Descriptions are parsed into this context.
    registerDescriptionDialects(registry);
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    auto loaded = TensorizeInputs::loadWith(ctx, "tisa-tensorize", isa, isaDirs,
                                            target, targetDir);
    if (succeeded(loaded))
      inputs = *loaded;
    return success(succeeded(loaded));
  }

  void runOnOperation() override {
    if (failed(forEachPlanned(getOperation(), *inputs, "", "not tensorized: ",
                              apply)))
      signalPassFailure();
  }

  /// The pack of the planned operand, then the computation, in place of
  /// `op`.
  static void apply(linalg::LinalgOp op, PlannedKernel &planned) {
    const KernelGenerator &kernel = *planned.kernel;
    const Schedule &schedule = planned.schedule;
    OpBuilder b(op);
    Location loc = op.getLoc();
    unsigned packed = kernel.packedInput();
    Value buffer = memref::AllocOp::create(
        b, loc, kernel.packedBufferType(b.getContext(), schedule),
        b.getI64IntegerAttr(64));
    kernel.emitPack(b, loc, op.getDpsInputs()[packed], buffer, schedule);
    kernel.emitCompute(b, loc, op.getDpsInputs()[1 - packed], buffer,
                       op.getDpsInits()[0], /*overwrite=*/false, schedule);
    memref::DeallocOp::create(b, loc, buffer);
    op->erase();
  }

  std::shared_ptr<TensorizeInputs> inputs;
};

} // namespace
} // namespace tisa
