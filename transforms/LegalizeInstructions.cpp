//===- LegalizeInstructions.cpp - tisa.apply to its intrinsic -------------===//
//
// The description's lowering, applied late: up to here the instruction is a
// pure op on register values; here it becomes the LLVM intrinsic call with
// the operands in the lowering's order and bitcasts where the register types
// and the intrinsic's parameter types differ (vector<64xi8> passed as
// vector<16xi32>).
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"
#include "tisa/Dialect/TisaDialect.h"

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

/// `v` as type `t`: itself, or a vector.bitcast of it.
Value castTo(PatternRewriter &rewriter, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  return vector::BitCastOp::create(rewriter, loc, t, v);
}

/// One-dimensional fixed vectors of the same size in bits.
bool bitcastable(Type a, Type b) {
  auto va = dyn_cast<VectorType>(a), vb = dyn_cast<VectorType>(b);
  return va && vb && va.getRank() == 1 && vb.getRank() == 1 &&
         !va.isScalable() && !vb.isScalable() &&
         va.getNumElements() * va.getElementTypeBitWidth() ==
             vb.getNumElements() * vb.getElementTypeBitWidth();
}

/// Why `op` cannot become its intrinsic call, or "".
std::string whyNotLowered(ApplyOp op) {
  FunctionType signature = op.getSignature();
  for (auto [k, t] : llvm::enumerate(signature.getInputs())) {
    Type have = op.getRegisters()[op.getOrder()[k]].getType();
    if (have != t && !bitcastable(have, t))
      return llvm::formatv("register {0} is {1}, which does not bitcast to "
                           "the intrinsic's parameter {2} ({3})",
                           op.getOrder()[k], have, k, t);
  }
  Type result = signature.getResult(0);
  if (result != op.getType() && !bitcastable(result, op.getType()))
    return llvm::formatv("the intrinsic returns {0}, which does not bitcast "
                         "to the accumulator's {1}",
                         result, op.getType());
  return "";
}

struct LowerApply : OpRewritePattern<ApplyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ApplyOp op,
                                PatternRewriter &rewriter) const override {
    if (std::string why = whyNotLowered(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    FunctionType signature = op.getSignature();
    Location loc = op.getLoc();
    SmallVector<Value> args;
    for (auto [k, t] : llvm::enumerate(signature.getInputs()))
      args.push_back(
          castTo(rewriter, loc, op.getRegisters()[op.getOrder()[k]], t));
    Value r = LLVM::CallIntrinsicOp::create(rewriter, loc,
                                            signature.getResult(0),
                                            op.getIntrinsicAttr(), args)
                  .getResult(0);
    rewriter.replaceOp(op, castTo(rewriter, loc, r, op.getType()));
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
