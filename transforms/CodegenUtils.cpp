//===- CodegenUtils.cpp - small IR builders every generator uses ----------===//

#include "CodegenUtils.h"
#include "tisa/Semantics/Instruction.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tisa {
namespace codegen {

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value cInt(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

/// The indices `map` gives for loop values `ivs` (one per program loop).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults())
    out.push_back(affine::expandAffineExpr(b, loc, e, ivs, {}));
  return out;
}

/// A loop nest over `extents` (constant bounds, step 1); `body` gets the
/// induction variables.
void loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
              function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t e : extents) {
    lbs.push_back(cIndex(b, loc, 0));
    ubs.push_back(cIndex(b, loc, e));
    steps.push_back(cIndex(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// The coefficients of the loops in `e` and, last, its constant, when `e`
/// is a sum of loops times constants.
std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr e,
                                                       unsigned loops) {
  // Upstream's flattening: [dims..., locals for floordiv/mod..., constant].
  SmallVector<int64_t> flat;
  if (failed(getFlattenedAffineExpr(e, loops, /*numSymbols=*/0, &flat)) ||
      flat.size() != loops + 1)
    return std::nullopt;
  return flat;
}

bool isIdentityStride(const ProgramOperand &o) {
  return !o.strides.empty() && o.strides.back() == 1;
}

SmallVector<unsigned> loopsBesides(AffineMap map, ArrayRef<unsigned> besides) {
  SmallVector<unsigned> loops;
  for (AffineExpr e : map.getResults()) {
    unsigned l = cast<AffineDimExpr>(e).getPosition();
    if (!llvm::is_contained(besides, l))
      loops.push_back(l);
  }
  return loops;
}

LogicalResult refuse(std::string &why, const Twine &reason) {
  why = reason.str();
  return failure();
}

Value paddedCopy(OpBuilder &b, Location loc, Value src,
                 ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets) {
  auto srcType = cast<MemRefType>(src.getType());
  Type elt = srcType.getElementType();
  Value buffer = memref::AllocOp::create(b, loc, MemRefType::get(shape, elt),
                                         b.getI64IntegerAttr(64));
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{buffer});
  SmallVector<OpFoldResult> at, sizes, zeros, ones;
  bool whole = true;
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t offset = offsets.empty() ? 0 : offsets[d];
    int64_t size = std::min(srcType.getDimSize(d), shape[d] - offset);
    whole &= size == srcType.getDimSize(d);
    at.push_back(b.getIndexAttr(offset));
    sizes.push_back(b.getIndexAttr(size));
    zeros.push_back(b.getIndexAttr(0));
    ones.push_back(b.getIndexAttr(1));
  }
  Value interior =
      memref::SubViewOp::create(b, loc, buffer, at, sizes, ones);
  Value from = whole ? src
                     : memref::SubViewOp::create(b, loc, src, zeros, sizes,
                                                 ones)
                           .getResult();
  linalg::CopyOp::create(b, loc, from, interior);
  return buffer;
}

LogicalResult readLoweringSignature(const Description &d, MLIRContext *ctx,
                                    FunctionType &out, std::string &why) {
  FailureOr<FunctionType> resolved =
      loweringSignature(d, ctx, [&]() { return emitError(d.loc); });
  if (failed(resolved))
    return refuse(why, "its lowering intrinsic " + d.lowering.intrinsic +
                           " does not resolve");
  out = *resolved;
  return success();
}

SmallVector<Value> splitIndex(OpBuilder &b, Location loc, Value t,
                              ArrayRef<int64_t> radices) {
  SmallVector<Value> digits;
  for (int64_t radix : radices) {
    Value r = cIndex(b, loc, radix);
    digits.push_back(arith::RemUIOp::create(b, loc, t, r));
    t = arith::DivUIOp::create(b, loc, t, r);
  }
  return digits;
}

Value elementOrZero(OpBuilder &b, Location loc, Value src, AffineMap map,
                    MutableArrayRef<Value> ivs, ArrayRef<BoundedIndex> bounded,
                    Value zero) {
  Value inside;
  for (const BoundedIndex &x : bounded) {
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                     x.index, cIndex(b, loc, x.extent));
    inside = inside ? Value(arith::AndIOp::create(b, loc, inside, in)) : in;
  }
  for (const BoundedIndex &x : bounded)
    ivs[x.loop] = arith::MinSIOp::create(b, loc, x.index,
                                         cIndex(b, loc, x.extent - 1));
  Value v = memref::LoadOp::create(b, loc, src, applyMap(b, loc, map, ivs));
  return arith::SelectOp::create(b, loc, inside, v, zero);
}

Value widen(OpBuilder &b, Location loc, Value v, bool isSigned) {
  Type i32 = b.getI32Type();
  if (v.getType() == i32)
    return v;
  return isSigned ? Value(arith::ExtSIOp::create(b, loc, i32, v))
                  : Value(arith::ExtUIOp::create(b, loc, i32, v));
}

void emitReductionSums(
    OpBuilder &b, Location loc, const Contraction &c, ArrayRef<int64_t> extent,
    unsigned in, Value src, ArrayRef<unsigned> loops, int64_t factor,
    Value out,
    function_ref<Value(OpBuilder &, MutableArrayRef<Value>)> inside) {
  Type i32 = b.getI32Type();
  Value zero = cInt(b, loc, i32, 0);
  linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{out});
  SmallVector<int64_t> extents;
  for (unsigned l : loops)
    extents.push_back(extent[l]);
  SmallVector<unsigned> reductions;
  SmallVector<int64_t> redExtents;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.reduction) {
      reductions.push_back(l);
      redExtents.push_back(extent[l]);
    }
  bool isSigned = c.arith.factorSigned[in];
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange outer) {
    SmallVector<Value> ivs(c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, iv] : llvm::zip(loops, outer))
      ivs[l] = iv;
    // A nest of reductions carrying the sum.
    std::function<Value(OpBuilder &, unsigned, Value)> reduce =
        [&](OpBuilder &b, unsigned level, Value sum) -> Value {
      if (level == reductions.size()) {
        SmallVector<Value> at = applyMap(b, loc, c.operands[in].map, ivs);
        Value in = inside ? inside(b, at) : Value();
        Value v = widen(b, loc, memref::LoadOp::create(b, loc, src, at),
                        isSigned);
        if (in)
          v = arith::SelectOp::create(b, loc, in, v, cInt(b, loc, i32, 0));
        return arith::AddIOp::create(b, loc, sum, v);
      }
      auto loop = scf::ForOp::create(
          b, loc, cIndex(b, loc, 0), cIndex(b, loc, redExtents[level]),
          cIndex(b, loc, 1), ValueRange{sum},
          [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
            ivs[reductions[level]] = iv;
            scf::YieldOp::create(b, loc, reduce(b, level + 1, args[0]));
          });
      return loop.getResult(0);
    };
    Value sum = reduce(b, 0, cInt(b, loc, i32, 0));
    sum = arith::MulIOp::create(b, loc, sum, cInt(b, loc, i32, factor));
    memref::StoreOp::create(b, loc, sum, out, SmallVector<Value>(outer));
  });
}

/// xor 0x80 in every byte of an integer or integer vector.
Value flipSignBits(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  Type elt = getElementTypeOrSelf(t);
  unsigned bits = elt.getIntOrFloatBitWidth();
  APInt pattern = APInt::getSplat(bits, APInt(8, 0x80));
  TypedAttr attr = b.getIntegerAttr(elt, pattern);
  if (auto vt = dyn_cast<VectorType>(t))
    attr = DenseElementsAttr::get(vt, attr);
  Value mask = arith::ConstantOp::create(b, loc, t, attr);
  return arith::XOrIOp::create(b, loc, v, mask);
}

} // namespace codegen
} // namespace tisa
