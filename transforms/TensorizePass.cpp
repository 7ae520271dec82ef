//===- TensorizePass.cpp - -tisa-tensorize --------------------------------===//
//
// Lowers tisa.pack and tisa.compute through their contraction's plan and
// schedule (the tisa.plan and tisa.schedule its copy of the contraction
// carries): the register class's pack of the planned operand, and its
// computation around the instruction.
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

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
  explicit TensorizePass(std::shared_ptr<const TensorizeInputs> given)
      : inputs(std::move(given)) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    TisaTensorizePassBase::getDependentDialects(registry);
    // Descriptions are parsed into this context.
    registerDescriptionDialects(registry);
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    return TensorizeInputs::ensure(inputs, ctx, "tisa-tensorize", isa, isaDirs, target,
                                   targetDir);
  }


  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (llvm::isa<PackOp, ComputeOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      LogicalResult lowered = llvm::isa<PackOp>(op) ? lower(cast<PackOp>(op))
                                              : lower(cast<ComputeOp>(op));
      if (failed(lowered))
        return signalPassFailure();
    }
  }

  /// The plan and schedule of `op`'s contraction, checked against its
  /// packed buffer.
  FailureOr<PlannedKernel> plan(Operation *op, linalg::LinalgOp contraction,
                                Value buffer) const;
  LogicalResult lower(PackOp op) const;
  LogicalResult lower(ComputeOp op) const;

  std::shared_ptr<const TensorizeInputs> inputs;
};

FailureOr<PlannedKernel> TensorizePass::plan(Operation *op,
                                             linalg::LinalgOp contraction,
                                             Value buffer) const {
  if (!contraction->hasAttr(kPlanAttr) ||
      !contraction->hasAttr(kScheduleAttr))
    return op->emitOpError()
           << "its contraction has no " << kPlanAttr << " and "
           << kScheduleAttr
           << " (run -tisa-select-plan or -tisa-split-pack first): the pack "
              "and the computation must agree on them";
  std::string why;
  FailureOr<PlannedKernel> planned = planKernel(contraction, *inputs, "", why);
  if (failed(planned)) {
    if (why == "error") // reported on the contraction
      return failure();
    return op->emitOpError()
           << (why.empty() ? "its region's op is not a contraction"
                           : "its contraction has no plan: " + why);
  }
  MemRefType expected = planned->kernel->packedBufferType(
      op->getContext(), planned->schedule);
  if (buffer.getType() != expected)
    return op->emitOpError()
           << "buffer has type " << buffer.getType() << " but the plan's packed "
           << "layout " << planned->kernel->packedLayoutText(planned->schedule)
           << " needs " << expected;
  return planned;
}

LogicalResult TensorizePass::lower(PackOp op) const {
  FailureOr<PlannedKernel> planned =
      plan(op, op.getContraction(), op.getBuffer());
  if (failed(planned))
    return failure();
  const KernelGenerator &kernel = *planned->kernel;
  Type packedType = op.getBody()->getArgument(kernel.packedInput()).getType();
  if (op.getSource().getType() != packedType)
    return op.emitOpError() << "source has type " << op.getSource().getType()
                            << " but the plan packs input "
                            << kernel.packedInput() << ", of type "
                            << packedType;
  OpBuilder b(op);
  kernel.emitPack(b, op.getLoc(), op.getSource(), op.getBuffer(),
                  planned->schedule);
  op.erase();
  return success();
}

/// `input` is the program input `program` or, with `padding`, its interior.
LogicalResult checkInput(ComputeOp op, MemRefType input, MemRefType program,
                         ArrayRef<int64_t> padding) {
  if (padding.empty()) {
    if (input == program)
      return success();
  } else if (input.getElementType() == program.getElementType() &&
             input.getRank() == program.getRank() && input.hasStaticShape()) {
    bool inside = true;
    for (int64_t d = 0; d < input.getRank(); ++d)
      inside &= input.getDimSize(d) + padding[d] <= program.getDimSize(d);
    if (inside)
      return success();
  }
  return op.emitOpError() << "input has type " << input
                          << " but the plan reads the other input, of type "
                          << program
                          << (padding.empty() ? "" : ", in its zero border");
}

LogicalResult TensorizePass::lower(ComputeOp op) const {
  FailureOr<PlannedKernel> planned =
      plan(op, op.getContraction(), op.getBuffer());
  if (failed(planned))
    return failure();
  const KernelGenerator &kernel = *planned->kernel;
  unsigned other = 1 - kernel.packedInput();
  ArrayRef<int64_t> padding = op.getInputPadding().value_or(ArrayRef<int64_t>());
  auto program =
      cast<MemRefType>(op.getBody()->getArgument(other).getType());
  if (failed(checkInput(op, cast<MemRefType>(op.getInput().getType()), program,
                        padding)))
    return failure();
  OpBuilder b(op);
  Value begin, end;
  if (!op.getRange().empty()) {
    begin = op.getRange()[0];
    end = op.getRange()[1];
  }
  kernel.emitCompute(b, op.getLoc(), op.getInput(), op.getBuffer(),
                     op.getOutput(), op.getOverwrite(), planned->schedule,
                     begin, end, padding);
  op.erase();
  return success();
}

} // namespace

std::unique_ptr<Pass>
createTisaTensorizePass(std::shared_ptr<const TensorizeInputs> inputs) {
  return std::make_unique<TensorizePass>(std::move(inputs));
}

} // namespace tisa
