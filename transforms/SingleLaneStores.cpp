//===- SingleLaneStores.cpp - -tisa-single-lane-stores ---------------------===//
//
// A masked store whose mask is a constant with one lane set is a scalar
// store of that lane. Written so, it also avoids a miscompilation of LLVM
// 22's X86 backend: a masked store of a truncated vector (an epilogue's s32
// lanes stored as u8) with one constant lane set becomes a store of the
// untruncated element, 4 bytes where 1 was meant
// (llvm/llvm-project#179489, fixed after LLVM 22).
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace tisa {
#define GEN_PASS_DEF_TISASINGLELANESTORESPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// The one lane `mask` (a constant) sets, if it sets exactly one.
std::optional<int64_t> singleLane(Value mask) {
  if (auto constantMask = mask.getDefiningOp<vector::ConstantMaskOp>()) {
    ArrayRef<int64_t> sizes = constantMask.getMaskDimSizes();
    if (sizes.size() == 1 && sizes[0] == 1)
      return 0;
    return std::nullopt;
  }
  DenseElementsAttr bits;
  if (!matchPattern(mask, m_Constant(&bits)))
    return std::nullopt;
  std::optional<int64_t> lane;
  for (auto [i, set] : llvm::enumerate(bits.getValues<bool>())) {
    if (!set)
      continue;
    if (lane)
      return std::nullopt;
    lane = int64_t(i);
  }
  return lane;
}

struct ScalarizeSingleLaneStore : OpRewritePattern<vector::MaskedStoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MaskedStoreOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    std::optional<int64_t> lane = singleLane(op.getMask());
    if (type.getRank() != 1 || !lane || op.getIndices().empty())
      return rewriter.notifyMatchFailure(op, "not one constant lane");
    Location loc = op.getLoc();
    Value element = vector::ExtractOp::create(rewriter, loc,
                                              op.getValueToStore(),
                                              ArrayRef<int64_t>{*lane});
    SmallVector<Value> at(op.getIndices());
    at.back() = arith::AddIOp::create(
        rewriter, loc, at.back(),
        arith::ConstantIndexOp::create(rewriter, loc, *lane));
    rewriter.replaceOpWithNewOp<memref::StoreOp>(op, element, op.getBase(), at);
    return success();
  }
};

struct SingleLaneStoresPass
    : public impl::TisaSingleLaneStoresPassBase<SingleLaneStoresPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ScalarizeSingleLaneStore>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
} // namespace tisa
