//===- TensorizePass.cpp - -tisa-tensorize --------------------------------===//

#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tisa/Dialect/TisaDialect.h"

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
    state = std::make_shared<State>(*ctx);
    SmallVector<std::string> dirs(isaDirs.begin(), isaDirs.end());
    for (const std::string &dir : isaSearchPath(dirs))
      if (failed(state->set.loadDirectory(dir)))
        return failure();
    state->set.releaseDiagnostics();
    if (!isa.empty() && isa != "auto") {
      const Description *d = state->set.lookup(isa);
      if (!d)
        return emitError(UnknownLoc::get(ctx))
               << "tisa-tensorize: no instruction description named '" << isa
               << "'";
      state->descriptions.push_back(d);
    } else {
      for (const auto &d : state->set.descriptions())
        state->descriptions.push_back(d.get());
    }
    llvm::Expected<Target> t = loadTarget(target, targetDir);
    if (!t)
      return emitError(UnknownLoc::get(ctx))
             << "tisa-tensorize: " << llvm::toString(t.takeError());
    state->target = std::move(*t);
    return success();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    for (linalg::LinalgOp op : ops) {
      std::string why;
      FailureOr<Contraction> c = readContraction(op, why);
      if (failed(c))
        continue; // not a contraction: nothing to tensorize
      if (!op.hasPureBufferSemantics()) {
        op->emitWarning("not tensorized: the operands are tensors; "
                        "bufferize first (one-shot-bufferize)");
        continue;
      }
      MatchOptions options;
      options.target = &*state->target;
      MatchResult result = match(*c, state->descriptions, options);
      FailureOr<LaneDotKernel> kernel = selectKernel(result, why);
      if (failed(kernel)) {
        op->emitWarning("not tensorized: ") << why;
        continue;
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      unsigned packed = kernel->packedInput();
      Schedule schedule = kernel->defaultSchedule(*state->target);
      Value buffer = memref::AllocOp::create(
          b, loc, kernel->packedBufferType(b.getContext(), schedule),
          b.getI64IntegerAttr(64));
      kernel->emitPack(b, loc, op.getDpsInputs()[packed], buffer, schedule);
      kernel->emitCompute(b, loc, op.getDpsInputs()[1 - packed], buffer,
                          op.getDpsInits()[0], /*overwrite=*/false, schedule);
      memref::DeallocOp::create(b, loc, buffer);
      op->erase();
    }
  }

  struct State {
    explicit State(MLIRContext &ctx) : set(ctx, llvm::errs()) {}
    DescriptionSet set;
    std::vector<const Description *> descriptions;
    std::optional<Target> target;
  };
  std::shared_ptr<State> state;
};

} // namespace
} // namespace tisa
