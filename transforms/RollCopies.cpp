//===- RollCopies.cpp - -tisa-roll-copies ---------------------------------===//
//
// A large zero-padded copy a generator stages (a tile block's A padded to
// whole tiles, a convolution's input with its border) is a loop nest of
// constant trip counts, which LLVM unrolls completely: an AMX block of 4 rows
// of 1024 bf16 became 1,536 vector moves, and the machine scheduler's cost
// grows with the square of a block's length. Each such linalg.copy or
// linalg.fill becomes its loops here, the outer ones marked not to be
// unrolled (the innermost is still vectorized). No call: in an AMX kernel a
// call would reload the tile configuration.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Codegen.h"
#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace tisa {
#define GEN_PASS_DEF_TISAROLLCOPIESPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// Whether `op` writes a static memref of rank 2 or more and at least
/// `minBytes`.
bool large(linalg::LinalgOp op, int64_t minBytes) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return false;
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!out || out.getRank() < 2 || !out.hasStaticShape() ||
      !out.getElementType().isIntOrFloat())
    return false;
  return out.getNumElements() * out.getElementType().getIntOrFloatBitWidth() /
             8 >=
         minBytes;
}

struct RollCopiesPass : public impl::TisaRollCopiesPassBase<RollCopiesPass> {
  using TisaRollCopiesPassBase::TisaRollCopiesPassBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::CopyOp, linalg::FillOp>(op) && large(op, minBytes))
        ops.push_back(op);
    });
    MLIRContext *ctx = &getContext();
    auto unroll = LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true), {},
                                            {}, {}, {}, {}, {});
    auto rolled = LLVM::LoopAnnotationAttr::get(
        ctx, {}, {}, {}, unroll, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
    IRRewriter rewriter(ctx);
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops))
        continue; // left to convert-linalg-to-loops, as before
      for (Operation *loop : ArrayRef(*loops).drop_back())
        loop->setAttr(kLoopAnnotationAttr, rolled);
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
} // namespace tisa
