//===- Relayout.cpp - -tisa-relayout --------------------------------------===//
//
// Contractions whose operands no instruction can read in place get copies
// in a layout it can, around a linalg.generic with the op's own body:
// - an NCHW convolution reads its input's channels at a stride of a whole
//   image and writes its output's channels at the same stride: input and
//   output are transposed to NHWC (the filter keeps FCHW; the plan packs it
//   as any layout);
// - a lane-dot puts its lanes along the loop the output is contiguous in
//   and broadcasts groups of the other input along the reduction: when that
//   input does not run along a reduction loop in memory (A^T B, or B of a
//   C stored transposed, C[n][m] += A[m][k] B[k][n]), it is copied with its
//   reduction dimensions innermost.
// The tensorizing passes then generate the copies' kernel.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace tisa {
#define GEN_PASS_DEF_TISARELAYOUTPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// NCHW -> NHWC, and back.
constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

/// A buffer holding `v` transposed by `permutation` (result dimension i is
/// v's dimension permutation[i]), which the caller frees.
Value transposed(OpBuilder &b, Location loc, Value v,
                 ArrayRef<int64_t> permutation) {
  auto type = cast<MemRefType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  for (int64_t d : permutation) {
    shape.push_back(type.getDimSize(d));
    if (type.isDynamicDim(d))
      dynamic.push_back(memref::DimOp::create(b, loc, v, d));
  }
  Value copy = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, type.getElementType()), dynamic,
      b.getI64IntegerAttr(64));
  linalg::TransposeOp::create(b, loc, v, copy, permutation);
  return copy;
}

/// A linalg.generic with `op`'s iterators and body (moved out of `op`).
linalg::GenericOp genericWithBodyOf(RewriterBase &rewriter, Location loc,
                                    linalg::LinalgOp op, ValueRange inputs,
                                    ValueRange outputs,
                                    ArrayRef<AffineMap> maps) {
  auto generic = linalg::GenericOp::create(rewriter, loc, inputs, outputs,
                                           maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op->getRegion(0), generic.getRegion(),
                              generic.getRegion().end());
  return generic;
}

/// `map`'s results in the order `permutation` gives.
AffineMap permuteResults(AffineMap map, ArrayRef<int64_t> permutation) {
  SmallVector<AffineExpr> results;
  for (int64_t r : permutation)
    results.push_back(map.getResult(r));
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

/// Whether a copy can pay off: static shapes (the generators take no
/// dynamic extents yet) and inputs of at most 16 bits (every tensor
/// instruction of the CPU targets multiplies narrower elements than its
/// accumulator; an f32 or i32 contraction has none).
bool worthCopying(linalg::LinalgOp op) {
  if (op.hasDynamicShape())
    return false;
  return llvm::all_of(op.getDpsInputs(), [](Value v) {
    Type t = getElementTypeOrSelf(v.getType());
    return t.isIntOrFloat() && t.getIntOrFloatBitWidth() <= 16;
  });
}

struct RelayoutNchwConv : public OpRewritePattern<linalg::Conv2DNchwFchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNchwFchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(
          op, "on tensors: bufferize first (tisa gen FILE.mlir does)");
    if (!worthCopying(op))
      return rewriter.notifyMatchFailure(
          op, "dynamic extents or 32-bit inputs: no kernel would read the "
              "copies");
    Location loc = op.getLoc();
    Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
    Value output = op.getDpsInits()[0];
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    rewriter.setInsertionPoint(op);
    Value in = transposed(rewriter, loc, input, kToNhwc);
    // The convolution accumulates into the output: it starts from it.
    Value out = transposed(rewriter, loc, output, kToNhwc);
    genericWithBodyOf(rewriter, loc, op, ValueRange{in, filter},
                      ValueRange{out},
                      {permuteResults(maps[0], kToNhwc), maps[1],
                       permuteResults(maps[2], kToNhwc)});
    linalg::TransposeOp::create(rewriter, loc, out, output, kToNchw);
    memref::DeallocOp::create(rewriter, loc, in);
    memref::DeallocOp::create(rewriter, loc, out);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Whether dimension `d` of an operand read through `map` is a reduction.
bool isReductionResult(linalg::LinalgOp op, AffineMap map, unsigned d) {
  auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
  return dim && op.getIteratorTypesArray()[dim.getPosition()] ==
                    utils::IteratorType::reduction;
}

/// The input a lane-dot plan broadcasts: the one not indexed by the loop
/// along which the output is contiguous (where the lanes go), when exactly
/// one is; else input 0.
unsigned broadcastInput(ArrayRef<AffineMap> maps) {
  AffineMap out = maps[2];
  if (out.getNumResults() == 0)
    return 0;
  auto lanes = dyn_cast<AffineDimExpr>(out.getResults().back());
  if (!lanes)
    return 0;
  bool in0 = maps[0].isFunctionOfDim(lanes.getPosition());
  bool in1 = maps[1].isFunctionOfDim(lanes.getPosition());
  return in0 && !in1 ? 1 : 0;
}

struct RelayoutReductionOuterInput
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
        op->getNumRegions() != 1 || isa<linalg::Conv2DNchwFchwOp>(op))
      return rewriter.notifyMatchFailure(op, "not a contraction on memrefs");
    if (!worthCopying(op))
      return rewriter.notifyMatchFailure(
          op, "dynamic extents or 32-bit inputs: no kernel would read the "
              "copy");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (!llvm::all_of(maps,
                      [](AffineMap m) { return m.isProjectedPermutation(); }))
      return rewriter.notifyMatchFailure(op, "an operand is not read along "
                                             "loops alone (a convolution)");
    if (llvm::any_of(ArrayRef(maps).take_front(2),
                     [](AffineMap m) { return m.getNumResults() == 0; }))
      return rewriter.notifyMatchFailure(op, "an input is a scalar");
    unsigned in = broadcastInput(maps);
    AffineMap a = maps[in];
    if (isReductionResult(op, a, a.getNumResults() - 1))
      return rewriter.notifyMatchFailure(
          op, "the broadcast input runs along a reduction loop in memory");
    // The input with its reduction dimensions innermost, in their order.
    SmallVector<int64_t> permutation;
    for (unsigned d = 0; d < a.getNumResults(); ++d)
      if (!isReductionResult(op, a, d))
        permutation.push_back(d);
    size_t parallel = permutation.size();
    for (unsigned d = 0; d < a.getNumResults(); ++d)
      if (isReductionResult(op, a, d))
        permutation.push_back(d);
    if (permutation.size() == parallel)
      return rewriter.notifyMatchFailure(
          op, "the broadcast input reads no reduction loop");
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> inputs(op.getDpsInputs());
    Value copy = transposed(rewriter, loc, inputs[in], permutation);
    inputs[in] = copy;
    maps[in] = permuteResults(a, permutation);
    genericWithBodyOf(rewriter, loc, op, inputs,
                      ValueRange{op.getDpsInits()[0]}, maps);
    memref::DeallocOp::create(rewriter, loc, copy);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RelayoutPass : public tisa::impl::TisaRelayoutPassBase<RelayoutPass> {
  void runOnOperation() override {
    // One walk, no folding: the rest of the function stays as it is.
    RewritePatternSet patterns(&getContext());
    patterns.add<RelayoutNchwConv, RelayoutReductionOuterInput>(&getContext());
    walkAndApplyPatterns(getOperation(),
                         FrozenRewritePatternSet(std::move(patterns)));
  }
};

} // namespace
} // namespace tisa
