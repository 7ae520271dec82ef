//===- OrderPlainLoops.cpp - -tisa-order-plain-loops ------------------------===//
//
// Plain code (a contraction no instruction took) is lowered to loops in its
// iterator order. Written as a GEMM usually is, (m, n, k), that puts the
// reduction innermost and reads B at a stride of N, which LLVM cannot
// vectorize well. This pass moves the loop of the output's contiguous last
// dimension innermost when every operand it indexes is contiguous along it.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"

#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace tisa {
#define GEN_PASS_DEF_TISAORDERPLAINLOOPSPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// The loop to move innermost in `op`: the one of the output's last
/// dimension, contiguous in every operand it indexes; none if `op` is not a
/// plain contraction on memrefs or that loop is innermost already.
std::optional<unsigned> loopToMoveInnermost(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0)
    return std::nullopt;
  OpOperand *out = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(out);
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!last || last.getPosition() + 1 == op.getNumLoops())
    return std::nullopt;
  unsigned loop = last.getPosition();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.isFunctionOfDim(loop) &&
        !codegen::contiguousAlong(operand.get(), map, loop))
      return std::nullopt;
  }
  return loop;
}

struct OrderPlainLoopsPass
    : impl::TisaOrderPlainLoopsPassBase<OrderPlainLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, unsigned>> moves;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<unsigned> loop = loopToMoveInnermost(op))
        moves.push_back({op, *loop});
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, loop] : moves) {
      SmallVector<unsigned> order;
      for (unsigned l = 0; l < op.getNumLoops(); ++l)
        if (l != loop)
          order.push_back(l);
      order.push_back(loop);
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order)))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace tisa
