//===- RelayoutNchw.cpp - -tisa-relayout-nchw -----------------------------===//
//
// An NCHW convolution reads its input's channels at a stride of a whole
// image, so no dot-product instruction can take groups of them, and writes
// its output's channels at the same stride. On memrefs, the input and the
// output are transposed to NHWC around the convolution, which becomes a
// linalg.generic with the op's own body and indexing maps, their results
// permuted; the filter keeps its FCHW layout (the plan packs it, as any
// layout). The tensorizing passes then generate the NHWC kernel.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace tisa {
#define GEN_PASS_DEF_TISARELAYOUTNCHWPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// NCHW -> NHWC, and back.
constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

/// A buffer holding `v` (NCHW) transposed to NHWC, which the caller frees.
Value transposedToNhwc(OpBuilder &b, Location loc, Value v) {
  auto type = cast<MemRefType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  for (int64_t d : kToNhwc) {
    shape.push_back(type.getDimSize(d));
    if (type.isDynamicDim(d))
      dynamic.push_back(memref::DimOp::create(b, loc, v, d));
  }
  Value nhwc = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, type.getElementType()), dynamic,
      b.getI64IntegerAttr(64));
  linalg::TransposeOp::create(b, loc, v, nhwc, kToNhwc);
  return nhwc;
}

/// `map`'s results in the order `permutation` gives.
AffineMap permuteResults(AffineMap map, ArrayRef<int64_t> permutation) {
  SmallVector<AffineExpr> results;
  for (int64_t r : permutation)
    results.push_back(map.getResult(r));
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

struct RelayoutNchwConv : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(
          op, "on tensors: bufferize first (tisa gen FILE.mlir does)");
    Location loc = op.getLoc();
    Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
    Value output = op.getDpsInits()[0];
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    rewriter.setInsertionPoint(op);
    Value in = transposedToNhwc(rewriter, loc, input);
    // The convolution accumulates into the output: it starts from it.
    Value out = transposedToNhwc(rewriter, loc, output);
    auto conv = linalg::GenericOp::create(
        rewriter, loc, ValueRange{in, filter}, ValueRange{out},
        ArrayRef<AffineMap>{permuteResults(maps[0], kToNhwc), maps[1],
                            permuteResults(maps[2], kToNhwc)},
        op.getIteratorTypesArray());
    // The op's own body: the same casts, product and sum.
    rewriter.inlineRegionBefore(op->getRegion(0), conv.getRegion(),
                                conv.getRegion().end());
    linalg::TransposeOp::create(rewriter, loc, out, output, kToNchw);
    memref::DeallocOp::create(rewriter, loc, in);
    memref::DeallocOp::create(rewriter, loc, out);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RelayoutNchwPass
    : public tisa::impl::TisaRelayoutNchwPassBase<RelayoutNchwPass> {
  void runOnOperation() override {
    // One walk, no folding: the rest of the function stays as it is.
    RewritePatternSet patterns(&getContext());
    patterns.add<RelayoutNchwConv>(&getContext());
    walkAndApplyPatterns(getOperation(),
                         FrozenRewritePatternSet(std::move(patterns)));
  }
};

} // namespace
} // namespace tisa
