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

LogicalResult checkPacks(ComputeOp op);

struct TensorizePass
    : public WithTensorizeInputs<
          tisa::impl::TisaTensorizePassBase<TensorizePass>> {
  using WithTensorizeInputs::WithTensorizeInputs;
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (llvm::isa<PackOp, ComputeOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (auto compute = dyn_cast<ComputeOp>(op);
          compute && failed(checkPacks(compute)))
        return signalPassFailure();
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

};

/// The packs that write `op`'s buffer in this function have its plan and
/// schedule: two schedules can pack to one layout (the buffer's type) and
/// still differ inside it, so a mismatch computed wrong results.
LogicalResult checkPacks(ComputeOp op) {
  linalg::LinalgOp mine = op.getContraction();
  for (Operation *user : op.getBuffer().getUsers()) {
    auto pack = dyn_cast<PackOp>(user);
    if (!pack)
      continue;
    linalg::LinalgOp theirs = pack.getContraction();
    for (StringRef name : {kPlanAttr.data(), kScheduleAttr.data()}) {
      Attribute a = mine->getAttr(name), b = theirs->getAttr(name);
      if (a == b)
        continue;
      InFlightDiagnostic diag = op.emitOpError()
                                << "reads a buffer packed with another "
                                << name << " (" << b << ", not " << a << ")";
      diag.attachNote(pack.getLoc()) << "packed here";
      return diag;
    }
  }
  return success();
}

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

/// The computation into a buffer of the accumulators (`accType`), then
/// `epilogue` on it as a loop nest of its own.
void emitUnfused(OpBuilder &b, Location loc, const KernelGenerator &kernel,
                 ComputeOperands operands, const Schedule &s,
                 const Epilogue &epilogue, Type accType) {
  auto program = cast<MemRefType>(accType);
  Value acc = memref::AllocOp::create(
      b, loc, MemRefType::get(program.getShape(), program.getElementType()),
      b.getI64IntegerAttr(64));
  operands.output = acc;
  kernel.emitCompute(b, loc, operands, s);
  epilogue.applyToBuffer(b, acc);
  memref::DeallocOp::create(b, loc, acc);
}

LogicalResult TensorizePass::lower(ComputeOp op) const {
  if (!llvm::all_of(op.getBody()->getArgumentTypes(), [](Type t) {
        return cast<MemRefType>(t).hasStaticShape();
      }))
    return op.emitOpError() << "has operands of run-time extent: run "
                               "-tisa-split-dynamic first";
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
  ComputeOperands operands;
  operands.input = op.getInput();
  operands.buffer = op.getBuffer();
  operands.output = op.getOutput();
  operands.overwrite = op.getOverwrite();
  if (!op.getRange().empty()) {
    operands.begin = op.getRange()[0];
    operands.end = op.getRange()[1];
  }
  operands.inputPadding = padding;
  if (std::optional<ArrayRef<int64_t>> loops = op.getActiveLoops())
    for (auto [l, v] : llvm::zip(*loops, op.getActive()))
      operands.active.push_back({unsigned(l), v});
  std::optional<Epilogue> epilogue;
  if (linalg::GenericOp generic = op.getEpilogueOp()) {
    SmallVector<Value> values(op.getEpilogueOperands());
    values.push_back(op.getOutput());
    epilogue.emplace(generic, values);
    std::string why;
    if (failed(appliesInRegisters(kernel, *epilogue, why))) {
      // Run apart, it would read accumulators other ranges compute.
      if (operands.begin)
        return op.emitOpError() << "has a range and an epilogue that cannot "
                                   "be applied in registers: "
                                << why;
      op.emitWarning() << "epilogue not applied in registers: " << why
                       << "; it runs after the computation";
      emitUnfused(b, op.getLoc(), kernel, operands, planned->schedule,
                  *epilogue, op.getBody()->getArgument(2).getType());
      op.erase();
      return success();
    }
    operands.epilogue = &*epilogue;
  }
  kernel.emitCompute(b, op.getLoc(), operands, planned->schedule);
  op.erase();
  return success();
}

} // namespace

std::unique_ptr<Pass>
createTisaTensorizePass(std::shared_ptr<const TensorizeInputs> inputs) {
  return std::make_unique<TensorizePass>(std::move(inputs));
}

} // namespace tisa
