//===- DecomposeQuantized.cpp - -tisa-decompose-quantized ----------------===//
//
// Linalg's quantized contractions (quantized_matmul, quantized_batch_matmul,
// the *_q convolutions) on memrefs become the plain contraction plus its
// zero-point terms, by the repair algebra of docs/matcher.md with run-time
// biases:
//   C += sum A B - zb * sum_red A - za * sum_red B + R za zb   (wrapping),
// the sums over the reduction loops, R their trip count.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace tisa {
#define GEN_PASS_DEF_TISADECOMPOSEQUANTIZEDPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// Every linalg op computing C += (cast(A) - cast(za)) * (cast(B) - cast(zb))
/// with signed casts and scalar zero points (operands 2 and 3).
bool isQuantizedContraction(Operation *op) {
  return isa<linalg::QuantizedMatmulOp, linalg::QuantizedBatchMatmulOp,
             linalg::Conv2DNhwcHwcfQOp, linalg::Conv2DNhwcFhwcQOp,
             linalg::Conv2DNchwFchwQOp, linalg::Conv2DNgchwGfchwQOp,
             linalg::Conv2DNhwgcGfhwcQOp, linalg::Conv3DNdhwcDhwcfQOp,
             linalg::DepthwiseConv2DNhwcHwcQOp,
             linalg::DepthwiseConv2DNhwcHwcmQOp>(op);
}

/// `v` sign-extended (or truncated) to `to`, as linalg's cast_signed.
Value castSigned(OpBuilder &b, Location loc, Value v, Type to) {
  unsigned from = v.getType().getIntOrFloatBitWidth();
  unsigned width = to.getIntOrFloatBitWidth();
  if (from < width)
    return arith::ExtSIOp::create(b, loc, to, v);
  if (from > width)
    return arith::TruncIOp::create(b, loc, to, v);
  return v;
}

/// The loops of a quantized contraction and their trip counts.
struct Loops {
  SmallVector<utils::IteratorType> kinds;
  SmallVector<Value> sizes; // index values
  SmallVector<int64_t> static_;

  bool reduction(unsigned l) const {
    return kinds[l] == utils::IteratorType::reduction;
  }
};

/// sums[p] = sum over the reduction loops of cast(x), p being the parallel
/// loops `map` (x's indexing map) reads, in loop order: a row sum of A for a
/// GEMM, a window sum of the input or a filter sum for a convolution.
/// Returns the buffer (the caller frees it) and its map in the loop space.
std::pair<Value, AffineMap> sumsOf(OpBuilder &b, Location loc, Value x,
                                   AffineMap map, const Loops &loops,
                                   Type acc) {
  MLIRContext *ctx = b.getContext();
  // The sub-space: x's parallel loops, then every reduction loop.
  SmallVector<unsigned> parallel, space;
  for (unsigned l = 0; l < loops.kinds.size(); ++l)
    if (!loops.reduction(l) && map.isFunctionOfDim(l))
      parallel.push_back(l);
  space = parallel;
  for (unsigned l = 0; l < loops.kinds.size(); ++l)
    if (loops.reduction(l))
      space.push_back(l);
  SmallVector<AffineExpr> rename(loops.kinds.size(),
                                 getAffineConstantExpr(0, ctx));
  SmallVector<utils::IteratorType> kinds;
  for (auto [i, l] : llvm::enumerate(space)) {
    rename[l] = getAffineDimExpr(i, ctx);
    kinds.push_back(loops.kinds[l]);
  }
  AffineMap in = map.replaceDimsAndSymbols(rename, {}, space.size(), 0);
  SmallVector<AffineExpr> outExprs, fullExprs;
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  for (auto [i, l] : llvm::enumerate(parallel)) {
    outExprs.push_back(getAffineDimExpr(i, ctx));
    fullExprs.push_back(getAffineDimExpr(l, ctx));
    shape.push_back(loops.static_[l]);
    if (ShapedType::isDynamic(loops.static_[l]))
      dynamic.push_back(loops.sizes[l]);
  }
  Value sums = memref::AllocOp::create(b, loc, MemRefType::get(shape, acc),
                                       dynamic, b.getI64IntegerAttr(64));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(acc));
  linalg::FillOp::create(b, loc, zero, sums);
  AffineMap out = AffineMap::get(space.size(), 0, outExprs, ctx);
  SmallVector<Value> ins = {x};
  SmallVector<AffineMap> maps = {in};
  // A convolution's input alone does not give the filter's extents (it is
  // read at oh + kh): a window operand of the reduction loops' shape does,
  // as for linalg's pooling ops; its elements are never read.
  if (!inversePermutation(concatAffineMaps({in, out}, ctx))) {
    SmallVector<int64_t> windowShape;
    SmallVector<Value> windowDynamic;
    SmallVector<AffineExpr> windowExprs;
    for (unsigned i = parallel.size(); i < space.size(); ++i) {
      windowShape.push_back(loops.static_[space[i]]);
      if (ShapedType::isDynamic(loops.static_[space[i]]))
        windowDynamic.push_back(loops.sizes[space[i]]);
      windowExprs.push_back(getAffineDimExpr(i, ctx));
    }
    ins.push_back(memref::AllocOp::create(
        b, loc, MemRefType::get(windowShape, b.getI8Type()), windowDynamic));
    maps.push_back(AffineMap::get(space.size(), 0, windowExprs, ctx));
  }
  maps.push_back(out);
  linalg::GenericOp::create(
      b, loc, ins, ValueRange{sums}, maps, kinds,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value wide = castSigned(nb, nl, args[0], acc);
        linalg::YieldOp::create(nb, nl,
                                ValueRange{arith::AddIOp::create(
                                    nb, nl, args.back(), wide)});
      });
  if (ins.size() > 1)
    memref::DeallocOp::create(b, loc, ins[1]);
  return {sums, AffineMap::get(loops.kinds.size(), 0, fullExprs, ctx)};
}

/// The contraction without zero points: C += cast(A) * cast(B); an NCHW
/// convolution as the named op, which -tisa-relayout then runs on NHWC
/// copies.
void buildPlainContraction(OpBuilder &b, Location loc, linalg::LinalgOp op,
                           ArrayRef<AffineMap> maps, const Loops &loops,
                           Type acc) {
  Value a = op.getDpsInputs()[0], x = op.getDpsInputs()[1];
  if (auto q = dyn_cast<linalg::Conv2DNchwFchwQOp>(op.getOperation())) {
    linalg::Conv2DNchwFchwOp::create(b, loc, TypeRange{}, ValueRange{a, x},
                                     ValueRange{op.getDpsInits()[0]},
                                     q.getStrides(), q.getDilations());
    return;
  }
  linalg::GenericOp::create(
      b, loc, ValueRange{a, x}, ValueRange{op.getDpsInits()[0]},
      ArrayRef<AffineMap>{maps[0], maps[1], maps[4]}, loops.kinds,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value p = arith::MulIOp::create(nb, nl, castSigned(nb, nl, args[0], acc),
                                        castSigned(nb, nl, args[1], acc));
        linalg::YieldOp::create(
            nb, nl, ValueRange{arith::AddIOp::create(nb, nl, args[2], p)});
      });
}

/// Why `op`, a quantized contraction, cannot be decomposed; empty if it can.
std::string whyNotDecomposable(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return "on tensors: bufferize first (tisa gen FILE.mlir does)";
  auto isInteger = [](Value v) {
    return isa<IntegerType>(getElementTypeOrSelf(v.getType()));
  };
  SmallVector<Value> inputs = op.getDpsInputs();
  if (!isInteger(op.getDpsInits()[0]) || !llvm::all_of(inputs, isInteger))
    return "its inputs, zero points and output are not all integers";
  for (Value zp : llvm::drop_begin(inputs, 2))
    if (isa<ShapedType>(zp.getType()))
      return "a zero point is not a scalar";
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto kinds = op.getIteratorTypesArray();
  // Each input reads every reduction loop (else its sum would need that
  // loop's trip count as a factor).
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned l = 0; l < kinds.size(); ++l)
      if (kinds[l] == utils::IteratorType::reduction &&
          !maps[i].isFunctionOfDim(l))
        return "an input does not read every reduction loop";
  return "";
}

struct DecomposeQuantizedContraction
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isQuantizedContraction(op))
      return rewriter.notifyMatchFailure(op, "not a quantized contraction");
    std::string why = whyNotDecomposable(op);
    if (!why.empty())
      return rewriter.notifyMatchFailure(op, why);
    Value c = op.getDpsInits()[0];
    Type acc = cast<MemRefType>(c.getType()).getElementType();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Loops loops;
    loops.kinds = op.getIteratorTypesArray();
    loops.static_ = op.getStaticLoopRanges();
    for (Range r : op.createLoopRanges(rewriter, loc))
      loops.sizes.push_back(
          getValueOrCreateConstantIndexOp(rewriter, loc, r.size));
    buildPlainContraction(rewriter, loc, op, maps, loops, acc);
    Value za = op.getDpsInputs()[2], zb = op.getDpsInputs()[3];
    bool sumA = !matchPattern(zb, m_Zero()), sumB = !matchPattern(za, m_Zero());
    if (sumA || sumB)
      addZeroPointTerms(rewriter, loc, op, maps, loops, acc, sumA, sumB);
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// C += R za zb - zb * sums(A) - za * sums(B), the sums of an input whose
  /// zero-point partner is the constant 0 left out.
  static void addZeroPointTerms(OpBuilder &b, Location loc, linalg::LinalgOp op,
                                ArrayRef<AffineMap> maps, const Loops &loops,
                                Type acc, bool sumA, bool sumB) {
    Value za = castSigned(b, loc, op.getDpsInputs()[2], acc);
    Value zb = castSigned(b, loc, op.getDpsInputs()[3], acc);
    SmallVector<Value> sums;
    SmallVector<AffineMap> sumMaps;
    SmallVector<Value> factors; // what each sum is multiplied by
    for (unsigned i = 0; i < 2; ++i) {
      if (!(i == 0 ? sumA : sumB))
        continue;
      auto [buffer, map] =
          sumsOf(b, loc, op.getDpsInputs()[i], maps[i], loops, acc);
      sums.push_back(buffer);
      sumMaps.push_back(map);
      factors.push_back(i == 0 ? zb : za);
    }
    // R za zb, the same for every element.
    Value r = arith::ConstantIndexOp::create(b, loc, 1);
    for (unsigned l = 0; l < loops.kinds.size(); ++l)
      if (loops.reduction(l))
        r = b.createOrFold<arith::MulIOp>(loc, r, loops.sizes[l]);
    Value constant = arith::MulIOp::create(
        b, loc, b.createOrFold<arith::IndexCastOp>(loc, acc, r),
        arith::MulIOp::create(b, loc, za, zb));
    // Over the output's loops (the parallel ones), in the output's terms.
    SmallVector<unsigned> parallel;
    SmallVector<utils::IteratorType> kinds;
    SmallVector<AffineExpr> rename(loops.kinds.size(),
                                   getAffineConstantExpr(0, b.getContext()));
    for (unsigned l = 0; l < loops.kinds.size(); ++l)
      if (!loops.reduction(l)) {
        rename[l] = getAffineDimExpr(parallel.size(), b.getContext());
        parallel.push_back(l);
        kinds.push_back(utils::IteratorType::parallel);
      }
    SmallVector<AffineMap> updateMaps;
    for (AffineMap m : sumMaps)
      updateMaps.push_back(
          m.replaceDimsAndSymbols(rename, {}, parallel.size(), 0));
    updateMaps.push_back(
        maps[4].replaceDimsAndSymbols(rename, {}, parallel.size(), 0));
    linalg::GenericOp::create(
        b, loc, sums, ValueRange{op.getDpsInits()[0]}, updateMaps, kinds,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value v = arith::AddIOp::create(nb, nl, args.back(), constant);
          for (auto [i, f] : llvm::enumerate(factors))
            v = arith::SubIOp::create(nb, nl, v,
                                      arith::MulIOp::create(nb, nl, f, args[i]));
          linalg::YieldOp::create(nb, nl, ValueRange{v});
        });
    for (Value s : sums)
      memref::DeallocOp::create(b, loc, s);
  }
};

struct DecomposeQuantizedPass
    : public tisa::impl::TisaDecomposeQuantizedPassBase<
          DecomposeQuantizedPass> {
  void runOnOperation() override {
    // One walk, no folding: the rest of the function stays as it is.
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeQuantizedContraction>(&getContext());
    walkAndApplyPatterns(getOperation(),
                         FrozenRewritePatternSet(std::move(patterns)));
    getOperation().walk([](linalg::LinalgOp op) {
      if (isQuantizedContraction(op))
        op.emitWarning("not tensorized: a quantized contraction ")
            << whyNotDecomposable(op);
    });
  }
};

} // namespace
} // namespace tisa
