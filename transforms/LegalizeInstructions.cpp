//===- LegalizeInstructions.cpp - tisa.apply to its intrinsic -------------===//
//
// The description's lowering, applied late: up to here the instruction is a
// pure op on register values; here it becomes the LLVM intrinsic call with
// the operands in the lowering's order and bitcasts where the register types
// and the intrinsic's parameter types differ (vector<64xi8> passed as
// vector<16xi32>). The lowering itself is the one the verifier's probe uses
// (tisa::lowerApply).
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"
#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/Instruction.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"

namespace tisa {
#define GEN_PASS_DEF_TISALEGALIZEINSTRUCTIONSPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

struct LowerApply : OpRewritePattern<ApplyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ApplyOp op,
                                PatternRewriter &rewriter) const override {
    if (std::string why = whyNotLowered(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    rewriter.replaceOp(op, lowerApply(rewriter, op));
    return success();
  }
};

struct LegalizeInstructionsPass
    : public impl::TisaLegalizeInstructionsPassBase<LegalizeInstructionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTisaLegalizeInstructionsPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    WalkResult left = getOperation()->walk([](ApplyOp op) {
      op.emitError() << "tisa-legalize-instructions: cannot lower '"
                     << op.getInstruction() << "' to " << op.getIntrinsic()
                     << ": " << whyNotLowered(op);
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void populateTisaLegalizeInstructionsPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerApply>(patterns.getContext());
}

} // namespace tisa
