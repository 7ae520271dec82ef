//===- SplitPackPass.cpp - -tisa-split-pack -------------------------------===//
//
// A planned contraction becomes a buffer, the tisa.pack of its planned
// operand, the tisa.compute on the packed buffer, and the buffer's release:
// the same two ops a kernel library's entries are made of.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/PlanSelection.h"
#include "tisa/Transforms/Passes.h"

namespace tisa {
#define GEN_PASS_DEF_TISASPLITPACKPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

struct SplitPackPass
    : public WithTensorizeInputs<
          tisa::impl::TisaSplitPackPassBase<SplitPackPass>> {
  using WithTensorizeInputs::WithTensorizeInputs;
  void runOnOperation() override {
    if (failed(forEachPlanned(getOperation(), *inputs, "", "not tensorized: ",
                              split)))
      signalPassFailure();
  }

  /// The packed buffer: of the static kernel's bytes, or of a size run
  /// time computes when the packed input has run-time extents.
  static Value allocBuffer(OpBuilder &b, Location loc, linalg::LinalgOp op,
                           const PlannedKernel &planned) {
    auto align = b.getI64IntegerAttr(64);
    if (runTimePackedLoops(planned).empty())
      return memref::AllocOp::create(
          b, loc,
          planned.kernel->packedBufferType(b.getContext(), planned.schedule),
          align);
    SmallVector<Value> operands(op->getOperands());
    Value bytes = packedBufferBytes(b, loc, planned, [&](unsigned l) {
      return loopExtent(b, loc, planned.contraction, operands, l);
    });
    // Static loops in blocks (filters blocked for L2): a static size.
    if (std::optional<int64_t> known = getConstantIntValue(bytes))
      return memref::AllocOp::create(
          b, loc, MemRefType::get({*known}, b.getI8Type()), align);
    auto type = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
    return memref::AllocOp::create(b, loc, type, ValueRange{bytes}, align);
  }

  /// buffer, tisa.pack, tisa.compute, dealloc in place of `op`, whose plan
  /// and schedule both ops' copies carry.
  static void split(linalg::LinalgOp op, PlannedKernel &planned) {
    const KernelGenerator &kernel = *planned.kernel;
    recordPlan(op, planned.contraction, kernel.plan(), planned.schedule);
    OpBuilder b(op);
    Location loc = op.getLoc();
    unsigned packed = kernel.packedInput();
    Value buffer = allocBuffer(b, loc, op, planned);
    buildPack(b, loc, op, op.getDpsInputs()[packed], buffer);
    buildCompute(b, loc, op, op.getDpsInputs()[1 - packed], buffer,
                 op.getDpsInits()[0], /*overwrite=*/false);
    memref::DeallocOp::create(b, loc, buffer);
    op->erase();
  }

};

} // namespace

std::unique_ptr<Pass>
createTisaSplitPackPass(std::shared_ptr<const TensorizeInputs> inputs) {
  return std::make_unique<SplitPackPass>(std::move(inputs));
}

} // namespace tisa
