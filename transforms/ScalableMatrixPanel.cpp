//===- ScalableMatrixPanel.cpp - A's row pairs for SVE matrix multiplies --===//
//
// A step of an SVE matrix multiply reads a pair of A's rows, g elements of
// each, as one 16-byte segment replicated to every segment (ld1rq). Two
// layouts give such segments:
//   - a panel per row block (A without reduction loops besides its group,
//     a GEMM's): panel[pair][step][2][g], made when the block starts, read
//     by every column block of it;
//   - A paired once per call (a convolution: its taps would make the
//     panel an im2col, one chunk per pair and tap): every position of A
//     with its partner one row further (a conv2d's input column and the one
//     `stride` to its right), paired[A's dims...][k / g][2][g], so a pair at
//     any tap is one segment. A zero border is zeros of the pairing; it is
//     made over A's program extents, so the steps need no bounds.
// Both build 64-bit units (one row's g elements) by interleaving two rows'
// chunks of one vector each (zip1/zip2), stored under a mask of the units
// left.
//
//===----------------------------------------------------------------------===//

#include "ScalableLoops.h"
#include "ScalableMatrixCompute.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmSVE/IR/ArmSVEDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {

void ScalableMatrixKernel::Compute::prepareA(OpBuilder &b, Location loc) {
  assert((padding.empty() || padding.back() == 0) && "the groups unpadded");
  if (m.pairDim)
    return packPairs(b, loc);
  // The panel of one row block: 2 units of 64 bits per pair and step.
  panel = memref::AllocOp::create(
      b, loc,
      MemRefType::get({tm / m.segRows * m.steps() * 2}, b.getI64Type()),
      b.getI64IntegerAttr(64));
}

Value ScalableMatrixKernel::Compute::chunkAt(OpBuilder &b, Location loc,
                                             SmallVector<Value> idx,
                                             Value valid) const {
  // A zero border: the input holds the operand without it.
  auto type = cast<MemRefType>(input.getType());
  Value zero = cIndex(b, loc, 0);
  for (unsigned d = 0; d + 1 < idx.size(); ++d) {
    if (!padding.empty() && padding[d])
      idx[d] = arith::SubIOp::create(b, loc, idx[d],
                                     cIndex(b, loc, padding[d]));
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idx[d], zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx[d],
                              cIndex(b, loc, type.getDimSize(d))));
    valid = arith::AndIOp::create(b, loc, valid, inside);
  }
  for (unsigned d = 0; d + 1 < idx.size(); ++d)
    idx[d] = arith::SelectOp::create(b, loc, valid, idx[d], zero);
  Value left = arith::SubIOp::create(
      b, loc, cIndex(b, loc, m.extent[m.groupLoop]), idx.back());
  Value count = arith::SelectOp::create(b, loc, valid, left, zero);
  Value zeros = arith::ConstantOp::create(b, loc, aType, b.getZeroAttr(aType));
  Value v = vector::MaskedLoadOp::create(
      b, loc, aType, input, idx, scalable::maskOf(b, loc, count, aType), zeros);
  // A repair's bias on every byte, zeros included: a border's zero then
  // contributes its bias times B, which the column sums take back (past k
  // and past the last row, B is zero or the row is not stored).
  if (m.sumFactor)
    v = codegen::flipSignBits(b, loc, v);
  return vector::BitCastOp::create(b, loc, units, v);
}

void ScalableMatrixKernel::Compute::storePair(OpBuilder &b, Location loc,
                                              Value r0, Value r1, Value to,
                                              Value unit, Value left) const {
  Value z = vector::InterleaveOp::create(b, loc, r0, r1);
  Value half = arith::MulIOp::create(b, loc, vscale, cIndex(b, loc, 2));
  for (int64_t h = 0; h < 2; ++h) {
    Value part = vector::ScalableExtractOp::create(b, loc, units, z, h * 2);
    Value at =
        h ? arith::AddIOp::create(b, loc, unit, half).getResult() : unit;
    Value count =
        h ? arith::SubIOp::create(b, loc, left, half).getResult() : left;
    vector::MaskedStoreOp::create(b, loc, to, ValueRange{at},
                                  scalable::maskOf(b, loc, count, units), part);
  }
}

/// for c0 in [0, k) step one vector of A's elements: `body(c0, the c0's
/// first step, its units left in a row of `groups` steps)`.
static void forEachChunk(
    OpBuilder &b, Location loc, Value vscale, int64_t perVscale, int64_t k,
    int64_t group, int64_t groups,
    function_ref<void(OpBuilder &, Location, Value, Value, Value)> body) {
  Value chunk = arith::MulIOp::create(b, loc, vscale, cIndex(b, loc, perVscale));
  scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, k), chunk, ValueRange{},
      [&](OpBuilder &b, Location loc, Value c0, ValueRange) {
        Value step0 = arith::DivUIOp::create(b, loc, c0, cIndex(b, loc, group));
        Value left = affine::makeComposedAffineApply(
                         b, loc,
                         (getAffineConstantExpr(groups, b.getContext()) -
                          getAffineDimExpr(0, b.getContext())) *
                             2,
                         {step0})
                         .getResult();
        body(b, loc, c0, step0, left);
        scf::YieldOp::create(b, loc);
      });
}

void ScalableMatrixKernel::Compute::packPanel(OpBuilder &b, Location loc,
                                              ArrayRef<Value> ivs,
                                              int64_t rows) {
  // panel[pair][step][2 rows][g]: per pair and outer step (the other
  // reduction loops), A's two rows read through its map.
  if (!panel)
    return;
  int64_t pairs = llvm::divideCeil(rows, m.segRows);
  SmallVector<int64_t> extents = {pairs};
  for (unsigned l : m.reductionLoops)
    extents.push_back(m.extent[l]);
  int64_t groups = m.groups();
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    SmallVector<Value> at(ivs);
    Value outer = cIndex(b, loc, 0);
    for (auto [l, v] : llvm::zip(m.reductionLoops, iv.drop_front())) {
      at[l] = v;
      outer = affine::makeComposedAffineApply(b, loc, d0 * m.extent[l] + d1,
                                              {outer, v})
                  .getResult();
    }
    Value p = iv[0];
    // The pair's first unit: ((p * outer steps + outer) * groups) * 2.
    Value base = affine::makeComposedAffineApply(
                     b, loc, (d0 * (m.steps() / groups) + d1) * groups * 2,
                     {p, outer})
                     .getResult();
    Value row0 = affine::makeComposedAffineApply(
                     b, loc, d0 + d1 * m.segRows, {ivs[m.rowLoop], p})
                     .getResult();
    Value row1 = arith::AddIOp::create(b, loc, row0, cIndex(b, loc, 1));
    Value first = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    // The pair's second row exists unless the block's rows are odd.
    Value second = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt,
        arith::MulIOp::create(b, loc, p, cIndex(b, loc, m.segRows)),
        cIndex(b, loc, rows - 1));
    auto rowAt = [&](OpBuilder &b, Location loc, Value row, Value c0) {
      SmallVector<Value> r(at);
      r[m.rowLoop] = row;
      r[m.groupLoop] = c0;
      return applyMap(b, loc, m.c.operands[m.aInput].map, r);
    };
    forEachChunk(b, loc, vscale, aType.getDimSize(0), m.extent[m.groupLoop],
                 m.group, groups,
                 [&](OpBuilder &b, Location loc, Value c0, Value step0,
                     Value left) {
                   Value unit = affine::makeComposedAffineApply(
                                    b, loc, d0 + d1 * 2, {base, step0})
                                    .getResult();
                   storePair(b, loc,
                             chunkAt(b, loc, rowAt(b, loc, row0, c0), first),
                             chunkAt(b, loc, rowAt(b, loc, row1, c0), second),
                             panel, unit, left);
                 });
  });
}

void ScalableMatrixKernel::Compute::packPairs(OpBuilder &b, Location loc) {
  // paired[A's dims...][k / g][2][g] over A's program extents: each
  // position and its partner pairStride further along pairDim (zeros past
  // the end, and on a zero border).
  ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
  paired = memref::AllocOp::create(
      b, loc, MemRefType::get({m.pairedUnits()}, b.getI64Type()),
      b.getI64IntegerAttr(64));
  SmallVector<int64_t> extents(shape.drop_back());
  Value rows = positionRows(b, loc);
  if (!rows)
    return loopNest(b, loc, extents,
                    [&](OpBuilder &b, Location loc, ValueRange iv) {
                      pairPosition(b, loc, iv);
                    });
  // Per row of positions: those whose pair lies inside the input as one
  // stream of bytes, the others (a border, a partner past the end) one by
  // one.
  int64_t width = extents.back();
  loopNest(b, loc, ArrayRef<int64_t>(extents).drop_back(),
           [&](OpBuilder &b, Location loc, ValueRange rowIv) {
             auto [first, end] = streamRange(b, loc, rowIv);
             auto each = [&](Value lo, Value hi) {
               scf::ForOp::create(
                   b, loc, lo, hi, cIndex(b, loc, 1), ValueRange{},
                   [&](OpBuilder &b, Location loc, Value w, ValueRange) {
                     SmallVector<Value> iv(rowIv);
                     iv.push_back(w);
                     pairPosition(b, loc, iv);
                     scf::YieldOp::create(b, loc);
                   });
             };
             each(cIndex(b, loc, 0), first);
             streamRow(b, loc, rows, rowIv, first, end);
             each(end, cIndex(b, loc, width));
           });
}

void ScalableMatrixKernel::Compute::pairPosition(OpBuilder &b, Location loc,
                                                 ValueRange iv) const {
  ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
  int64_t groups = m.groups();
  Value base = pairedUnit(b, loc, iv);
  Value first = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  // The partner: inside A's program extent (a border beyond is zeros).
  Value partnerAt = arith::AddIOp::create(b, loc, iv[*m.pairDim],
                                          cIndex(b, loc, m.pairStride));
  Value second =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, partnerAt,
                            cIndex(b, loc, shape[*m.pairDim]));
  forEachChunk(
      b, loc, vscale, aType.getDimSize(0), m.extent[m.groupLoop], m.group,
      groups,
      [&](OpBuilder &b, Location loc, Value c0, Value step0, Value left) {
        SmallVector<Value> idx(iv);
        idx.push_back(c0);
        SmallVector<Value> partner(idx);
        partner[*m.pairDim] = partnerAt;
        Value unit = affine::makeComposedAffineApply(
                         b, loc,
                         getAffineDimExpr(0, b.getContext()) +
                             getAffineDimExpr(1, b.getContext()) * 2,
                         {base, step0})
                         .getResult();
        storePair(b, loc, chunkAt(b, loc, idx, first),
                  chunkAt(b, loc, partner, second), paired, unit, left);
      });
}

Value ScalableMatrixKernel::Compute::pairedUnit(OpBuilder &b, Location loc,
                                               ValueRange position) const {
  // (position flattened over A's program extents) * groups * 2.
  ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
  Value flat = cIndex(b, loc, 0);
  for (auto [d, v] : llvm::enumerate(position))
    flat = affine::makeComposedAffineApply(
               b, loc,
               getAffineDimExpr(0, b.getContext()) * shape[d] +
                   getAffineDimExpr(1, b.getContext()),
               {flat, v})
               .getResult();
  return arith::MulIOp::create(b, loc, flat, cIndex(b, loc, m.groups() * 2));
}

Value ScalableMatrixKernel::Compute::positionRows(OpBuilder &b,
                                                  Location loc) const {
  // The input with its last position dimension and the groups' as one,
  // when a position's groups are whole and follow the last position's.
  auto type = cast<MemRefType>(input.getType());
  int64_t k = m.extent[m.groupLoop];
  if (type.getRank() < 2 || k % m.group ||
      type.getDimSize(type.getRank() - 1) != k ||
      m.c.operands[m.aInput].shape.back() != k)
    return {};
  return scalable::collapseLastTwo(b, loc, input);
}

std::pair<Value, Value>
ScalableMatrixKernel::Compute::streamRange(OpBuilder &b, Location loc,
                                           ValueRange rowIv) const {
  // Positions along the last dimension inside the input, their partners
  // too (with the pair along it, the partners s further; else the row's
  // partner row inside the input); none where the row is on a border.
  auto type = cast<MemRefType>(input.getType());
  ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
  unsigned last = shape.size() - 2;
  int64_t first = padOf(last), end = padOf(last) + type.getDimSize(last);
  if (*m.pairDim == last)
    end = std::min(end, shape[last]) - m.pairStride;
  if (end <= first)
    return {cIndex(b, loc, 0), cIndex(b, loc, 0)};
  Value inside = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  auto within = [&](Value v, int64_t lo, int64_t hi) {
    Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v,
                                     cIndex(b, loc, lo));
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v,
                                     cIndex(b, loc, hi));
    return arith::AndIOp::create(b, loc, ge, lt).getResult();
  };
  for (unsigned d = 0; d < last; ++d) {
    int64_t lo = padOf(d), hi = padOf(d) + type.getDimSize(d);
    inside = arith::AndIOp::create(b, loc, inside, within(rowIv[d], lo, hi));
    if (d == *m.pairDim)
      inside = arith::AndIOp::create(
          b, loc, inside,
          within(arith::AddIOp::create(b, loc, rowIv[d],
                                       cIndex(b, loc, m.pairStride)),
                 lo, std::min(hi, shape[d])));
  }
  Value zero = cIndex(b, loc, 0);
  return {arith::SelectOp::create(b, loc, inside, cIndex(b, loc, first), zero),
          arith::SelectOp::create(b, loc, inside, cIndex(b, loc, end), zero)};
}

void ScalableMatrixKernel::Compute::streamRow(OpBuilder &b, Location loc,
                                              Value rows, ValueRange rowIv,
                                              Value first, Value end) const {
  ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
  unsigned last = shape.size() - 2;
  int64_t k = m.extent[m.groupLoop];
  // The row's and its partner row's indices in the input, and the stream's
  // first element in each.
  SmallVector<Value> at, partnerAt;
  for (unsigned d = 0; d < last; ++d) {
    at.push_back(arith::SubIOp::create(b, loc, rowIv[d],
                                       cIndex(b, loc, padOf(d))));
    partnerAt.push_back(d == *m.pairDim
                            ? arith::AddIOp::create(
                                  b, loc, at.back(),
                                  cIndex(b, loc, m.pairStride))
                                  .getResult()
                            : at.back());
  }
  AffineExpr d0 = getAffineDimExpr(0, b.getContext());
  Value x0 = affine::makeComposedAffineApply(b, loc, (d0 - padOf(last)) * k,
                                             {first});
  Value partnerX0 = x0;
  if (*m.pairDim == last)
    partnerX0 = arith::AddIOp::create(b, loc, x0,
                                      cIndex(b, loc, m.pairStride * k));
  Value len = affine::makeComposedAffineApply(
      b, loc,
      (getAffineDimExpr(1, b.getContext()) - d0) * k, {first, end});
  SmallVector<Value> start(rowIv);
  start.push_back(first);
  Value unit0 = pairedUnit(b, loc, start);
  Value chunk =
      arith::MulIOp::create(b, loc, vscale, cIndex(b, loc, aType.getDimSize(0)));
  Value zeros = arith::ConstantOp::create(b, loc, aType, b.getZeroAttr(aType));
  scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), len, chunk, ValueRange{},
      [&](OpBuilder &b, Location loc, Value o, ValueRange) {
        Value count = arith::SubIOp::create(b, loc, len, o);
        Value mask = scalable::maskOf(b, loc, count, aType);
        auto load = [&](SmallVector<Value> idx, Value x) {
          idx.push_back(arith::AddIOp::create(b, loc, x, o));
          Value v = vector::MaskedLoadOp::create(b, loc, aType, rows, idx,
                                                 mask, zeros);
          if (m.sumFactor)
            v = codegen::flipSignBits(b, loc, v);
          return vector::BitCastOp::create(b, loc, units, v).getResult();
        };
        // Elements o on are units o / g on, two per unit of the pairing
        // (o and count are whole units: unsigned divisions, shifts).
        Value perUnit = cIndex(b, loc, m.group / 2);
        Value unit = arith::AddIOp::create(
            b, loc, unit0, arith::DivUIOp::create(b, loc, o, perUnit));
        Value left = arith::DivUIOp::create(b, loc, count, perUnit);
        storePair(b, loc, load(at, x0), load(partnerAt, partnerX0), paired,
                  unit, left);
        scf::YieldOp::create(b, loc);
      });
}

Value ScalableMatrixKernel::Compute::replicated(OpBuilder &b, Location loc,
                                                ArrayRef<Value> ivs, int64_t p,
                                                ArrayRef<Value> taps,
                                                Value tapFlat, Value g) const {
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  Value at, from = panel;
  int64_t groups = m.groups();
  if (panel) {
    // ((p * outer steps + tap) * groups + g) * 2
    at = affine::makeComposedAffineApply(
             b, loc, ((d0 + p * (m.steps() / groups)) * groups + d1) * 2,
             {tapFlat, g})
             .getResult();
  } else {
    // The pair's first row at these taps, in A's program extents.
    SmallVector<Value> r(ivs);
    r[m.rowLoop] = arith::AddIOp::create(b, loc, r[m.rowLoop],
                                         cIndex(b, loc, p * m.segRows));
    for (auto [l, v] : llvm::zip(m.reductionLoops, taps))
      r[l] = v;
    r[m.groupLoop] = cIndex(b, loc, 0);
    SmallVector<Value> idx = applyMap(b, loc, m.c.operands[m.aInput].map, r);
    ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
    Value flat = cIndex(b, loc, 0);
    for (unsigned d = 0; d + 1 < idx.size(); ++d)
      flat = affine::makeComposedAffineApply(b, loc, d0 * shape[d] + d1,
                                             {flat, idx[d]})
                 .getResult();
    at = affine::makeComposedAffineApply(b, loc, (d0 * groups + d1) * 2,
                                         {flat, g})
             .getResult();
    from = paired;
  }
  // One 128-bit load replicated to every segment (ld1rq).
  Value v = vector::LoadOp::create(
      b, loc, VectorType::get({2}, b.getI64Type()), from, ValueRange{at});
  v = vector::ScalableInsertOp::create(
      b, loc, v, ub::PoisonOp::create(b, loc, units), 0);
  v = arm_sve::DupQLaneOp::create(b, loc, v, 0);
  return vector::BitCastOp::create(b, loc, aType, v);
}

} // namespace tisa
