//===- DecomposeQuantized.cpp - -tisa-decompose-quantized ----------------===//
//
// linalg.quantized_matmul on memrefs becomes linalg.matmul plus its
// zero-point terms (the repair algebra of docs/matcher.md with run-time
// biases):
//   C += A B - zb * rows(A) - za * columns(B) + K za zb   (i32, wrapping).
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

/// A zeroed temporary of `extents` (each a dimension of `of`) elements of
/// `type`; the caller frees it.
Value zeroedBuffer(OpBuilder &b, Location loc, Value of,
                   ArrayRef<unsigned> dims, Type type) {
  auto shaped = cast<MemRefType>(of.getType());
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  for (unsigned d : dims) {
    shape.push_back(shaped.getDimSize(d));
    if (shaped.isDynamicDim(d))
      dynamic.push_back(memref::DimOp::create(b, loc, of, d));
  }
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, type), dynamic, b.getI64IntegerAttr(64));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  linalg::FillOp::create(b, loc, zero, buffer);
  return buffer;
}

/// sums[i] = sum over the other loop of cast(x), for a 2-d `x` whose
/// dimension `keep` is kept: the row sums of A (keep 0) or the column sums
/// of B (keep 1).
Value sumsOf(OpBuilder &b, Location loc, Value x, unsigned keep, Type acc) {
  Value sums = zeroedBuffer(b, loc, x, {keep}, acc);
  MLIRContext *ctx = b.getContext();
  // Loops (kept, summed); x is indexed (kept, summed) or (summed, kept).
  AffineExpr kept = getAffineDimExpr(0, ctx), summed = getAffineDimExpr(1, ctx);
  AffineMap in = AffineMap::get(2, 0,
                                keep == 0 ? ArrayRef<AffineExpr>{kept, summed}
                                          : ArrayRef<AffineExpr>{summed, kept},
                                ctx);
  AffineMap out = AffineMap::get(2, 0, {kept}, ctx);
  linalg::GenericOp::create(
      b, loc, ValueRange{x}, ValueRange{sums}, ArrayRef<AffineMap>{in, out},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                    utils::IteratorType::reduction},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value wide = castSigned(nb, nl, args[0], acc);
        linalg::YieldOp::create(nb, nl,
                                ValueRange{arith::AddIOp::create(
                                    nb, nl, args[1], wide)});
      });
  return sums;
}

struct DecomposeQuantizedMatmul
    : public OpRewritePattern<linalg::QuantizedMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::QuantizedMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(
          op, "on tensors: bufferize first (tisa gen FILE.mlir does)");
    Value a = op.getDpsInputs()[0], bIn = op.getDpsInputs()[1];
    Value za = op.getDpsInputs()[2], zb = op.getDpsInputs()[3];
    Value c = op.getDpsInits()[0];
    Type acc = cast<MemRefType>(c.getType()).getElementType();
    if (!isa<IntegerType>(acc))
      return rewriter.notifyMatchFailure(op, "the output is not an integer");
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    linalg::MatmulOp::create(rewriter, loc, ValueRange{a, bIn}, ValueRange{c});
    bool rows = !matchPattern(zb, m_Zero()), columns = !matchPattern(za, m_Zero());
    if (!rows && !columns) {
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> temporaries;
    if (rows)
      temporaries.push_back(sumsOf(rewriter, loc, a, 0, acc));
    if (columns)
      temporaries.push_back(sumsOf(rewriter, loc, bIn, 1, acc));
    Value zaWide = castSigned(rewriter, loc, za, acc);
    Value zbWide = castSigned(rewriter, loc, zb, acc);
    Value k = arith::IndexCastOp::create(
        rewriter, loc, acc, memref::DimOp::create(rewriter, loc, a, 1));
    // K za zb, the same for every element.
    Value constant = arith::MulIOp::create(
        rewriter, loc, k, arith::MulIOp::create(rewriter, loc, zaWide, zbWide));
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx);
    SmallVector<AffineMap> maps;
    if (rows)
      maps.push_back(AffineMap::get(2, 0, {m}, ctx));
    if (columns)
      maps.push_back(AffineMap::get(2, 0, {n}, ctx));
    maps.push_back(AffineMap::get(2, 0, {m, n}, ctx));
    linalg::GenericOp::create(
        rewriter, loc, temporaries, ValueRange{c}, maps,
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                      utils::IteratorType::parallel},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value v = arith::AddIOp::create(nb, nl, args.back(), constant);
          unsigned i = 0;
          if (rows)
            v = arith::SubIOp::create(
                nb, nl, v, arith::MulIOp::create(nb, nl, zbWide, args[i++]));
          if (columns)
            v = arith::SubIOp::create(
                nb, nl, v, arith::MulIOp::create(nb, nl, zaWide, args[i++]));
          linalg::YieldOp::create(nb, nl, ValueRange{v});
        });
    for (Value t : temporaries)
      memref::DeallocOp::create(rewriter, loc, t);
    rewriter.eraseOp(op);
    return success();
  }
};

struct DecomposeQuantizedPass
    : public tisa::impl::TisaDecomposeQuantizedPassBase<
          DecomposeQuantizedPass> {
  void runOnOperation() override {
    // One walk, no folding: the rest of the function stays as it is.
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeQuantizedMatmul>(&getContext());
    walkAndApplyPatterns(getOperation(), FrozenRewritePatternSet(std::move(patterns)));
    getOperation().walk([](linalg::QuantizedMatmulOp op) {
      op.emitWarning("not tensorized: a quantized matmul on tensors; "
                     "bufferize first (tisa gen FILE.mlir does)");
    });
  }
};

} // namespace
} // namespace tisa
