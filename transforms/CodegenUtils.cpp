//===- CodegenUtils.cpp - small IR builders every generator uses ----------===//

#include "CodegenUtils.h"
#include "tisa/Semantics/Instruction.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {
namespace codegen {

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value cInt(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

bool contiguousAlong(Value operand, AffineMap map, unsigned loop) {
  auto type = dyn_cast<MemRefType>(operand.getType());
  if (!type || map.getNumResults() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return false;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last || last.getPosition() != loop)
    return false;
  return llvm::none_of(map.getResults().drop_back(), [&](AffineExpr e) {
    return e.isFunctionOfDim(loop);
  });
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

namespace {
/// Partial sums a vector holds: LLVM legalizes the vector to the target's
/// registers (one zmm of i32 on AVX-512, four q registers on NEON).
constexpr int64_t kSumLanes = 16;

/// The loop alone on `src`'s contiguous last dimension (coefficient 1, in
/// no other dimension): consecutive values of it are one vector. -1 if none.
int lastDimLoop(const Contraction &c, unsigned in, Value src) {
  auto type = dyn_cast<MemRefType>(src.getType());
  AffineMap map = c.operands[in].map;
  if (!type || !type.isLastDimUnitStride() || map.getNumResults() == 0 ||
      type.getRank() != int64_t(map.getNumResults()))
    return -1;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last)
    return -1;
  for (AffineExpr e : map.getResults().drop_back())
    if (e.isFunctionOfDim(last.getPosition()))
      return -1;
  return last.getPosition();
}

/// The reduction loop a sum can read a vector of at a time (lastDimLoop).
int vectorLoop(const Contraction &c, unsigned in, Value src) {
  int l = lastDimLoop(c, in, src);
  return l >= 0 && c.loops[l].reduction ? l : -1;
}

/// `width` elements of `src` from `at`, the first `count` of them (a mask
/// past them, zeros there), widened to i32 as the program does.
Value loadWidened(OpBuilder &b, Location loc, const Contraction &c,
                  unsigned in, Value src, ValueRange at, int64_t width,
                  int64_t count) {
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  auto vec = VectorType::get({width}, elt);
  Value v;
  if (count == width) {
    v = vector::LoadOp::create(b, loc, vec, src, at);
  } else {
    Value mask = vector::CreateMaskOp::create(
        b, loc, VectorType::get({width}, b.getI1Type()),
        ValueRange{cIndex(b, loc, count)});
    Value zeros = arith::ConstantOp::create(
        b, loc, vec, DenseElementsAttr::get(vec, b.getZeroAttr(elt)));
    v = vector::MaskedLoadOp::create(b, loc, vec, src, at, mask, zeros);
  }
  auto wide = VectorType::get({width}, b.getI32Type());
  return c.arith.factorSigned[in]
             ? Value(arith::ExtSIOp::create(b, loc, wide, v))
             : Value(arith::ExtUIOp::create(b, loc, wide, v));
}

/// A vector of `width` i32 `v`.
Value splatI32(OpBuilder &b, Location loc, int64_t width, int64_t v) {
  auto t = VectorType::get({width}, b.getI32Type());
  return arith::ConstantOp::create(
      b, loc, t, DenseElementsAttr::get(t, b.getI32IntegerAttr(int32_t(v))));
}

/// The chunk of `width` elements of loop `l` from `ivs[l]` (`count` of them
/// inside the loop's extent, fewer than `width` only for the last chunk),
/// widened to i32 and added to `sum`; 0 where `inside` says false.
Value addChunk(OpBuilder &b, Location loc, const Contraction &c, unsigned in,
               Value src, MutableArrayRef<Value> ivs, int64_t width,
               int64_t count, Value sum,
               function_ref<Value(OpBuilder &, MutableArrayRef<Value>)> inside) {
  SmallVector<Value> at = applyMap(b, loc, c.operands[in].map, ivs);
  Value in_ = inside ? inside(b, at) : Value();
  Value v = loadWidened(b, loc, c, in, src, at, width, count);
  if (in_)
    v = arith::SelectOp::create(b, loc, in_, v, splatI32(b, loc, width, 0));
  return arith::AddIOp::create(b, loc, sum, v);
}

/// Whether the sums run across the last of `loops` in vectors: it is alone
/// on `src`'s contiguous last dimension, as on `out`'s (a GEMM's weights
/// [K][N]: the column sums of 16 columns at a time).
bool sumsAcrossLast(const Contraction &c, unsigned in, Value src,
                    ArrayRef<unsigned> loops, Value out) {
  auto outType = dyn_cast<MemRefType>(out.getType());
  return !loops.empty() && outType && outType.isLastDimUnitStride() &&
         outType.getRank() == int64_t(loops.size()) &&
         lastDimLoop(c, in, src) == int(loops.back());
}

/// out[outer..., j : j + count] = factor * the sums of `width` consecutive
/// values of the last loop from `ivs`, over every reduction loop.
void storeSumsAcross(OpBuilder &b, Location loc, const Contraction &c,
                     ArrayRef<int64_t> extent, unsigned in, Value src,
                     SmallVectorImpl<Value> &ivs, unsigned lane, int64_t width,
                     int64_t count, int64_t factor, Value out,
                     ValueRange outer) {
  Value mask;
  if (count < width)
    mask = vector::CreateMaskOp::create(
        b, loc, VectorType::get({width}, b.getI1Type()),
        ValueRange{cIndex(b, loc, count)});
  SmallVector<unsigned> reductions;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.reduction)
      reductions.push_back(l);
  std::function<Value(OpBuilder &, unsigned, Value)> reduce =
      [&](OpBuilder &b, unsigned level, Value sum) -> Value {
    if (level == reductions.size()) {
      SmallVector<Value> at = applyMap(b, loc, c.operands[in].map, ivs);
      return arith::AddIOp::create(
          b, loc, sum, loadWidened(b, loc, c, in, src, at, width, count));
    }
    auto loop = scf::ForOp::create(
        b, loc, cIndex(b, loc, 0), cIndex(b, loc, extent[reductions[level]]),
        cIndex(b, loc, 1), ValueRange{sum},
        [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
          ivs[reductions[level]] = iv;
          scf::YieldOp::create(b, loc, reduce(b, level + 1, args[0]));
        });
    return loop.getResult(0);
  };
  Value sum = reduce(b, 0, splatI32(b, loc, width, 0));
  sum = arith::MulIOp::create(b, loc, sum, splatI32(b, loc, width, factor));
  SmallVector<Value> at(outer);
  at.push_back(ivs[lane]);
  if (mask)
    vector::MaskedStoreOp::create(b, loc, out, at, mask, sum);
  else
    vector::StoreOp::create(b, loc, sum, out, at);
}

/// The sums across the last of `loops` (sumsAcrossLast), the other loops
/// one at a time.
void emitSumsAcross(OpBuilder &b, Location loc, const Contraction &c,
                    ArrayRef<int64_t> extent, unsigned in, Value src,
                    ArrayRef<unsigned> loops, int64_t factor, Value out) {
  unsigned lane = loops.back();
  int64_t width =
      std::min<int64_t>(kSumLanes, llvm::PowerOf2Ceil(extent[lane]));
  int64_t full = extent[lane] / width * width;
  SmallVector<int64_t> extents;
  for (unsigned l : loops.drop_back())
    extents.push_back(extent[l]);
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange outer) {
    SmallVector<Value> ivs(c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, iv] : llvm::zip(loops.drop_back(), outer))
      ivs[l] = iv;
    if (full)
      scf::ForOp::create(
          b, loc, cIndex(b, loc, 0), cIndex(b, loc, full),
          cIndex(b, loc, width), ValueRange{},
          [&](OpBuilder &b, Location loc, Value j, ValueRange) {
            ivs[lane] = j;
            storeSumsAcross(b, loc, c, extent, in, src, ivs, lane, width,
                            width, factor, out, outer);
            scf::YieldOp::create(b, loc);
          });
    if (full < extent[lane]) {
      ivs[lane] = cIndex(b, loc, full);
      storeSumsAcross(b, loc, c, extent, in, src, ivs, lane, width,
                      extent[lane] - full, factor, out, outer);
    }
  });
}
} // namespace

void emitReductionSums(
    OpBuilder &b, Location loc, const Contraction &c, ArrayRef<int64_t> extent,
    unsigned in, Value src, ArrayRef<unsigned> loops, int64_t factor,
    Value out,
    function_ref<Value(OpBuilder &, MutableArrayRef<Value>)> inside,
    bool insideAlongLast) {
  Type i32 = b.getI32Type();
  Value zero = cInt(b, loc, i32, 0);
  linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{out});
  if (!inside && sumsAcrossLast(c, in, src, loops, out))
    return emitSumsAcross(b, loc, c, extent, in, src, loops, factor, out);
  SmallVector<int64_t> extents;
  for (unsigned l : loops)
    extents.push_back(extent[l]);
  // The loop along the operand's contiguous last dimension, if there is
  // one the border does not cross, is read a vector at a time, innermost:
  // one load and one add per 16 elements (the row sums of an s8 x s8 GEMM's
  // A took a fifth of a 97x131x67 call one element at a time).
  int vl = inside && insideAlongLast ? -1 : vectorLoop(c, in, src);
  int64_t width =
      vl < 0 ? 1
             : std::min<int64_t>(kSumLanes, llvm::PowerOf2Ceil(extent[vl]));
  SmallVector<unsigned> reductions;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.reduction && int(l) != vl)
      reductions.push_back(l);
  if (vl >= 0)
    reductions.push_back(vl);
  bool isSigned = c.arith.factorSigned[in];
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange outer) {
    SmallVector<Value> ivs(c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, iv] : llvm::zip(loops, outer))
      ivs[l] = iv;
    // A nest of reductions carrying the sum (a vector of partial sums
    // when the innermost loop is read in vectors).
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
      unsigned l = reductions[level];
      bool vector = int(l) == vl;
      int64_t step = vector ? width : 1;
      int64_t full = extent[l] / step * step;
      if (vector && full == 0) {
        ivs[l] = cIndex(b, loc, 0);
        return addChunk(b, loc, c, in, src, ivs, width, extent[l], sum,
                        inside);
      }
      auto loop = scf::ForOp::create(
          b, loc, cIndex(b, loc, 0), cIndex(b, loc, full),
          cIndex(b, loc, step), ValueRange{sum},
          [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
            ivs[l] = iv;
            scf::YieldOp::create(
                b, loc,
                vector ? addChunk(b, loc, c, in, src, ivs, width, width,
                                  args[0], inside)
                       : reduce(b, level + 1, args[0]));
          });
      Value result = loop.getResult(0);
      if (vector && full < extent[l]) {
        ivs[l] = cIndex(b, loc, full);
        result = addChunk(b, loc, c, in, src, ivs, width, extent[l] - full,
                          result, inside);
      }
      return result;
    };
    Value init = vl < 0 ? zero : splatI32(b, loc, width, 0);
    Value sum = reduce(b, 0, init);
    if (vl >= 0)
      sum = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, sum);
    sum = arith::MulIOp::create(b, loc, sum, cInt(b, loc, i32, factor));
    memref::StoreOp::create(b, loc, sum, out, SmallVector<Value>(outer));
  });
}

Value rowMajorIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> extent,
                    ArrayRef<unsigned> loops, ValueRange values) {
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  Value at = cIndex(b, loc, 0);
  for (auto [l, v] : llvm::zip(loops, values))
    at = affine::makeComposedAffineApply(b, loc, d0 * extent[l] + d1, {at, v})
             .getResult();
  return at;
}

Value spansFit(OpBuilder &b, Location loc, ArrayRef<Span> spans) {
  Value all;
  for (const Span &s : spans) {
    Value fits =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, s.first,
                              cIndex(b, loc, s.bound - s.size));
    all = all ? arith::AndIOp::create(b, loc, all, fits) : fits;
  }
  return all;
}

SmallVector<Value> loadRows(OpBuilder &b, Location loc, Value src,
                            AffineMap map, MutableArrayRef<Value> ivs,
                            unsigned loop, Value first, int64_t count,
                            VectorType type) {
  SmallVector<Value> rows;
  for (int64_t i = 0; i < count; ++i) {
    ivs[loop] = arith::AddIOp::create(b, loc, first, cIndex(b, loc, i));
    rows.push_back(
        vector::LoadOp::create(b, loc, type, src, applyMap(b, loc, map, ivs)));
  }
  return rows;
}

SmallVector<Value> zipTranspose(OpBuilder &b, Location loc,
                                ArrayRef<Value> rows) {
  // Element (r, n) starts in vector r at n. A round on vectors i and i + d
  // (bit d of the index clear) interleaves them: n's top bit becomes bit d
  // of the vector index, the other bits of n move up one, and bit d of the
  // old index becomes the lowest bit of the position. After rounds of
  // d = R/2, ..., 1 the position holds (the low bits of n, r), the vector
  // index n's top log2 R bits: the transpose, row-major.
  int64_t r = rows.size();
  int64_t w = cast<VectorType>(rows.front().getType()).getNumElements();
  assert(llvm::isPowerOf2_64(r) && w % r == 0 && "rows must divide");
  SmallVector<int64_t> low, high;
  for (int64_t i = 0; i < w / 2; ++i) {
    low.append({i, w + i});
    high.append({w / 2 + i, w + w / 2 + i});
  }
  SmallVector<Value> v(rows);
  for (int64_t d = r / 2; d >= 1; d /= 2) {
    SmallVector<Value> next(r);
    for (int64_t i = 0; i < r; ++i) {
      if (i & d)
        continue;
      next[i] = vector::ShuffleOp::create(b, loc, v[i], v[i + d], low);
      next[i + d] = vector::ShuffleOp::create(b, loc, v[i], v[i + d], high);
    }
    v = std::move(next);
  }
  return v;
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

FailureOr<DotRoles> dotRoles(const Contraction &c, const TensorizePlan &plan,
                             unsigned laneLoop, std::string &why) {
  bool broadcast[2];
  for (unsigned j = 0; j < 2; ++j) {
    const ProgramOperand &operand = c.operands[plan.programInputOf[j]];
    OperandPlan::Access access = plan.operands[j].access;
    broadcast[j] = !operand.map.isFunctionOfDim(laneLoop);
    if (broadcast[j] && access != OperandPlan::Access::Broadcast) {
      why = "the broadcast input " + operand.name + " needs a relayout first (" +
            plan.operands[j].detail +
            "); only one read in place is generated so far";
      return failure();
    }
    if (!broadcast[j] && access != OperandPlan::Access::Packed &&
        access != OperandPlan::Access::Direct) {
      why = "operand " + operand.name +
            " needs a strided or gathered access; only broadcast and packed "
            "inputs are generated so far";
      return failure();
    }
  }
  if (broadcast[0] == broadcast[1]) {
    why = "the plan does not broadcast one input and pack the other";
    return failure();
  }
  if (plan.operands[2].access != OperandPlan::Access::Direct) {
    why = "the output needs a relayout; only a direct accumulator is "
          "generated so far";
    return failure();
  }
  DotRoles roles;
  roles.broadcast = broadcast[0] ? 0 : 1;
  roles.lanes = 1 - roles.broadcast;
  roles.broadcastInput = plan.programInputOf[roles.broadcast];
  roles.lanesInput = plan.programInputOf[roles.lanes];
  return roles;
}

Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> coef,
                  ArrayRef<Value> ivs, ArrayRef<unsigned> skip) {
  unsigned loops = coef.size() - 1;
  AffineExpr p = getAffineConstantExpr(coef[loops], b.getContext());
  SmallVector<OpFoldResult> operands;
  for (unsigned j = 0; j < loops; ++j) {
    if (coef[j] == 0 || llvm::is_contained(skip, j))
      continue;
    p = p + getAffineDimExpr(operands.size(), b.getContext()) * coef[j];
    operands.push_back(ivs[j]);
  }
  return affine::makeComposedAffineApply(
             b, loc, AffineMap::get(operands.size(), 0, p), operands)
      .getResult();
}

std::pair<Value, Value> tapRange(OpBuilder &b, Location loc,
                                 ArrayRef<int64_t> coef, unsigned l,
                                 ArrayRef<Value> ivs, int64_t low,
                                 int64_t size, int64_t extent) {
  // at = the dimension's index with the tap at 0; taps with
  // low <= at + c * t < low + size.
  Value at = linearIndex(b, loc, coef, ivs, {l});
  auto bound = [&](int64_t edge) {
    Value v = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, cIndex(b, loc, edge), at),
        cIndex(b, loc, coef[l]));
    v = arith::MaxSIOp::create(b, loc, v, cIndex(b, loc, 0));
    return arith::MinSIOp::create(b, loc, v, cIndex(b, loc, extent))
        .getResult();
  };
  return {bound(low), bound(low + size)};
}

} // namespace codegen
} // namespace tisa
