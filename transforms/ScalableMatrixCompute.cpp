//===- ScalableMatrixCompute.cpp - the SVE matrix-multiply computation ----===//
//
// The loop nest of include/tisa/Transforms/ScalableMatrixKernel.h. What
// depends on the vector length is an SSA value: vscale, the columns an
// accumulator covers (2 * vscale), the column loop's step, the panel's
// chunks and every mask. A row pair's two rows are one accumulator's
// 64-bit halves in turn, so interleaving two rows (zip1/zip2 of 64-bit
// elements) gives two accumulators and de-interleaving two accumulators
// (uzp1/uzp2) gives two rows.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "ScalableLoops.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Transforms/Epilogue.h"
#include "tisa/Transforms/ScalableMatrixKernel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmSVE/IR/ArmSVEDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {

/// One emitCompute call: its operands and the values every level reads.
class ScalableMatrixKernel::Compute {
public:
  Compute(const ScalableMatrixKernel &m, OpBuilder &b,
          const ComputeOperands &operands, const Schedule &s);
  void emit(OpBuilder &b, Location loc);

private:
  /// The row block at `ivs` (the row loop at its first row) of `rows` rows:
  /// its panel, then its columns.
  void block(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows);
  /// The block's row pairs of A, each reduction step a 16-byte segment.
  void packPanel(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                 int64_t rows);
  /// Elements [c0, c0 + one vector) of A's row `row` at the reduction
  /// indices of `at` as 64-bit units: zeros past the group loop's extent,
  /// outside a zero border, or where `valid` is false.
  Value rowChunk(OpBuilder &b, Location loc, SmallVector<Value> at, Value row,
                 Value c0, Value valid) const;
  /// The register tile of `rows` x `vectors` accumulators at column `col`:
  /// its accumulators through every reduction step, stored.
  void columns(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows,
               int64_t vectors, Value col);
  SmallVector<Value> initialAccumulators(OpBuilder &b, Location loc,
                                         ArrayRef<Value> ivs, int64_t rows,
                                         int64_t vectors, Value col) const;
  /// One reduction step `step` of the tile.
  SmallVector<Value> step(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                          int64_t pairs, int64_t vectors, Value col,
                          Value step, ArrayRef<Value> acc) const;
  /// The row pair's segment of step `step` of pair `p`, in every segment.
  Value replicated(OpBuilder &b, Location loc, int64_t p, Value step) const;
  void store(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows,
             int64_t vectors, Value col, ArrayRef<Value> acc) const;
  /// Rows 0 and 1 of the accumulators `lo` and `hi` (the next columns).
  std::pair<Value, Value> splitRows(OpBuilder &b, Location loc, Value lo,
                                    Value hi) const;
  /// The accumulators of rows `r0` and `r1`: the first and the next
  /// columns.
  std::pair<Value, Value> joinRows(OpBuilder &b, Location loc, Value r0,
                                   Value r1) const;
  /// The first column of accumulator j of the tile at `col`.
  Value column(OpBuilder &b, Location loc, Value col, int64_t j) const;
  /// C's indices of row `i` of the tile at column `c`.
  SmallVector<Value> outputAt(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                              int64_t i, Value c) const;
  /// The mask of a row of accumulators j (and j + 1 when `both`) at `col`:
  /// the columns up to n's extent that they cover.
  Value rowMask(OpBuilder &b, Location loc, Value col, int64_t j,
                bool both) const;

  const ScalableMatrixKernel &m;
  const Schedule &s;
  Value input, buffer, output, begin, end;
  bool overwrite;
  const Epilogue *epilogue;
  ArrayRef<int64_t> padding;
  int64_t tm, tn;
  VectorType aType, bType, accType, units, twoUnits;

  Value packed, panel, vscale, perAcc;
  /// Per accumulator of the current tile: the packed input's mask.
  SmallVector<Value> bMasks;
};

ScalableMatrixKernel::Compute::Compute(const ScalableMatrixKernel &m,
                                       OpBuilder &b,
                                       const ComputeOperands &operands,
                                       const Schedule &s)
    : m(m), s(s), input(operands.input), buffer(operands.buffer),
      output(operands.output), begin(operands.begin), end(operands.end),
      overwrite(operands.overwrite), epilogue(operands.epilogue),
      padding(operands.inputPadding), tm(m.registerTile(s).first),
      tn(m.registerTile(s).second), aType(m.d->registers[m.aReg].type),
      bType(m.d->registers[m.bReg].type), accType(m.d->registers[2].type),
      units(VectorType::get({2}, b.getI64Type(), {true})),
      twoUnits(VectorType::get({4}, b.getI64Type(), {true})) {}

void ScalableMatrixKernel::Compute::emit(OpBuilder &b, Location loc) {
  Type bElt = bType.getElementType();
  int64_t eltBytes = bElt.getIntOrFloatBitWidth() / 8;
  packed = memref::ViewOp::create(
      b, loc, MemRefType::get({m.packedBytes(s) / eltBytes}, bElt), buffer,
      cIndex(b, loc, 0), ValueRange{});
  // The panel of one row block: 2 units of 64 bits per pair and step.
  panel = memref::AllocOp::create(
      b, loc,
      MemRefType::get({tm / m.segRows * m.steps() * 2}, b.getI64Type()),
      b.getI64IntegerAttr(64));
  vscale = vector::VectorScaleOp::create(b, loc);
  perAcc = arith::MulIOp::create(b, loc, vscale, cIndex(b, loc, m.segCols));
  Value lo = begin ? begin : cIndex(b, loc, 0);
  Value hi = end ? end : cIndex(b, loc, m.partitionTiles(s));
  scalable::rowBlockTiles(
      b, loc, lo, hi, m.extent, m.parallelLoops, tm,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows) {
        block(b, loc, ivs, rows);
      });
  memref::DeallocOp::create(b, loc, panel);
}

void ScalableMatrixKernel::Compute::block(OpBuilder &b, Location loc,
                                          ArrayRef<Value> ivs, int64_t rows) {
  packPanel(b, loc, ivs, rows);
  scalable::columnBlocks(
      b, loc, m.extent[m.laneLoop], perAcc, tn,
      [&](OpBuilder &b, Location loc, int64_t vectors, Value col) {
        columns(b, loc, ivs, rows, vectors, col);
      });
}

Value ScalableMatrixKernel::Compute::rowChunk(OpBuilder &b, Location loc,
                                              SmallVector<Value> at, Value row,
                                              Value c0, Value valid) const {
  at[m.rowLoop] = row;
  at[m.groupLoop] = c0;
  SmallVector<Value> idx = applyMap(b, loc, m.c.operands[m.aInput].map, at);
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
      b, loc, cIndex(b, loc, m.extent[m.groupLoop]), c0);
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

void ScalableMatrixKernel::Compute::packPanel(OpBuilder &b, Location loc,
                                              ArrayRef<Value> ivs,
                                              int64_t rows) {
  // panel[pair][outer step][k / g][2 rows][g]: per pair and outer step
  // (the other reduction loops), A's two rows in chunks of one vector,
  // interleaved in 64-bit units (one unit = one row's g elements of a step)
  // and stored under a mask of the steps left.
  assert((padding.empty() || padding.back() == 0) && "the groups unpadded");
  int64_t pairs = llvm::divideCeil(rows, m.segRows);
  SmallVector<int64_t> extents = {pairs};
  for (unsigned l : m.reductionLoops)
    extents.push_back(m.extent[l]);
  int64_t groups = m.groups();
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    SmallVector<Value> at(ivs);
    Value outer = cIndex(b, loc, 0);
    AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
               d1 = getAffineDimExpr(1, b.getContext());
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
    Value chunk = arith::MulIOp::create(
        b, loc, vscale,
        cIndex(b, loc, aType.getDimSize(0)));
    scf::ForOp::create(
        b, loc, cIndex(b, loc, 0), cIndex(b, loc, m.extent[m.groupLoop]), chunk,
        ValueRange{},
        [&](OpBuilder &b, Location loc, Value c0, ValueRange) {
          Value z = vector::InterleaveOp::create(
              b, loc, rowChunk(b, loc, at, row0, c0, first),
              rowChunk(b, loc, at, row1, c0, second));
          Value step0 = arith::DivUIOp::create(b, loc, c0,
                                               cIndex(b, loc, m.group));
          Value unit = affine::makeComposedAffineApply(b, loc, d0 + d1 * 2,
                                                       {base, step0})
                           .getResult();
          Value left = affine::makeComposedAffineApply(
                           b, loc, (getAffineConstantExpr(groups, b.getContext()) - d0) * 2,
                           {step0})
                           .getResult();
          Value half = arith::MulIOp::create(b, loc, vscale, cIndex(b, loc, 2));
          for (int64_t h = 0; h < 2; ++h) {
            Value part = vector::ScalableExtractOp::create(b, loc, units, z,
                                                           h * 2);
            Value at = h ? arith::AddIOp::create(b, loc, unit, half).getResult()
                         : unit;
            Value count = h ? arith::SubIOp::create(b, loc, left, half).getResult()
                            : left;
            vector::MaskedStoreOp::create(b, loc, panel, ValueRange{at},
                                          scalable::maskOf(b, loc, count, units),
                                          part);
          }
          scf::YieldOp::create(b, loc);
        });
  });
}

Value ScalableMatrixKernel::Compute::column(OpBuilder &b, Location loc,
                                            Value col, int64_t j) const {
  if (!j)
    return col;
  return arith::AddIOp::create(
      b, loc, col, arith::MulIOp::create(b, loc, perAcc, cIndex(b, loc, j)));
}

SmallVector<Value> ScalableMatrixKernel::Compute::outputAt(
    OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t i, Value c) const {
  SmallVector<Value> at(ivs);
  at[m.rowLoop] = arith::AddIOp::create(b, loc, at[m.rowLoop], cIndex(b, loc, i));
  at[m.laneLoop] = c;
  return applyMap(b, loc, m.c.operands[2].map, at);
}

Value ScalableMatrixKernel::Compute::rowMask(OpBuilder &b, Location loc,
                                             Value col, int64_t j,
                                             bool both) const {
  Value covered = both ? arith::MulIOp::create(b, loc, perAcc, cIndex(b, loc, 2))
                             .getResult()
                       : perAcc;
  Value left = arith::SubIOp::create(b, loc, cIndex(b, loc, m.extent[m.laneLoop]),
                                     column(b, loc, col, j));
  return scalable::maskOf(b, loc,
                          arith::MinSIOp::create(b, loc, left, covered),
                          accType);
}

std::pair<Value, Value>
ScalableMatrixKernel::Compute::splitRows(OpBuilder &b, Location loc, Value lo,
                                         Value hi) const {
  Value z = ub::PoisonOp::create(b, loc, twoUnits);
  z = vector::ScalableInsertOp::create(
      b, loc, vector::BitCastOp::create(b, loc, units, lo), z, 0);
  z = vector::ScalableInsertOp::create(
      b, loc, vector::BitCastOp::create(b, loc, units, hi), z, 2);
  auto rows = vector::DeinterleaveOp::create(b, loc, z);
  return {vector::BitCastOp::create(b, loc, accType, rows.getRes1()),
          vector::BitCastOp::create(b, loc, accType, rows.getRes2())};
}

std::pair<Value, Value>
ScalableMatrixKernel::Compute::joinRows(OpBuilder &b, Location loc, Value r0,
                                        Value r1) const {
  Value z = vector::InterleaveOp::create(
      b, loc, vector::BitCastOp::create(b, loc, units, r0),
      vector::BitCastOp::create(b, loc, units, r1));
  auto half = [&](int64_t h) -> Value {
    return vector::BitCastOp::create(
        b, loc, accType,
        vector::ScalableExtractOp::create(b, loc, units, z, h * 2));
  };
  return {half(0), half(1)};
}

SmallVector<Value> ScalableMatrixKernel::Compute::initialAccumulators(
    OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows,
    int64_t vectors, Value col) const {
  int64_t pairs = llvm::divideCeil(rows, m.segRows);
  Value zero =
      arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  // A repair's compensation starts every accumulator: its column's sums in
  // both rows of each block.
  SmallVector<Value> start(vectors, zero);
  if (m.sumFactor) {
    Value sums = scalable::columnSums(b, loc, buffer, m.dataBytes(),
                                      m.lanesPadded());
    for (int64_t j = 0; j < vectors; j += 2) {
      Value row = vector::MaskedLoadOp::create(
          b, loc, accType, sums, ValueRange{column(b, loc, col, j)},
          rowMask(b, loc, col, j, j + 1 < vectors), zero);
      auto [lo, hi] = joinRows(b, loc, row, row);
      start[j] = lo;
      if (j + 1 < vectors)
        start[j + 1] = hi;
    }
  }
  SmallVector<Value> acc;
  for (int64_t p = 0; p < pairs; ++p)
    acc.append(start);
  if (overwrite)
    return acc;
  // C's rows of each pair interleaved into its accumulators, two at a time.
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t j = 0; j < vectors; j += 2) {
      bool both = j + 1 < vectors;
      Value mask = rowMask(b, loc, col, j, both);
      Value c = column(b, loc, col, j);
      Value r[2] = {zero, zero};
      for (int64_t i = 0; i < 2 && p * 2 + i < rows; ++i)
        r[i] = vector::MaskedLoadOp::create(b, loc, accType, output,
                                            outputAt(b, loc, ivs, p * 2 + i, c),
                                            mask, zero);
      auto [lo, hi] = joinRows(b, loc, r[0], r[1]);
      for (int64_t h = 0; h < (both ? 2 : 1); ++h) {
        Value &a = acc[p * vectors + j + h];
        Value fromC = h ? hi : lo;
        a = m.sumFactor ? arith::AddIOp::create(b, loc, fromC, a).getResult()
                        : fromC;
      }
    }
  return acc;
}

Value ScalableMatrixKernel::Compute::replicated(OpBuilder &b, Location loc,
                                                int64_t p, Value step) const {
  // One 128-bit load replicated to every segment (ld1rq).
  Value at = affine::makeComposedAffineApply(
                 b, loc, (getAffineDimExpr(0, b.getContext()) + p * m.steps()) * 2,
                 {step})
                 .getResult();
  Value v = vector::LoadOp::create(
      b, loc, VectorType::get({2}, b.getI64Type()), panel, ValueRange{at});
  v = vector::ScalableInsertOp::create(
      b, loc, v, ub::PoisonOp::create(b, loc, units), 0);
  v = arm_sve::DupQLaneOp::create(b, loc, v, 0);
  return vector::BitCastOp::create(b, loc, aType, v);
}

SmallVector<Value> ScalableMatrixKernel::Compute::step(
    OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t pairs,
    int64_t vectors, Value col, Value step, ArrayRef<Value> acc) const {
  // B: packed[B's parallel loops][step][column][g] of every accumulator.
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  Value outer = cIndex(b, loc, 0);
  for (unsigned l : m.bOuter)
    if (!m.c.loops[l].reduction)
      outer = affine::makeComposedAffineApply(b, loc, d0 * m.extent[l] + d1,
                                              {outer, ivs[l]})
                  .getResult();
  Value row = affine::makeComposedAffineApply(
                  b, loc, (d0 * m.steps() + d1) * m.lanesPadded(),
                  {outer, step})
                  .getResult();
  Value bZero = arith::ConstantOp::create(b, loc, bType, b.getZeroAttr(bType));
  SmallVector<Value> bRegs;
  for (int64_t j = 0; j < vectors; ++j) {
    Value at = arith::MulIOp::create(
        b, loc, arith::AddIOp::create(b, loc, row, column(b, loc, col, j)),
        cIndex(b, loc, m.group));
    bRegs.push_back(vector::MaskedLoadOp::create(
        b, loc, bType, packed, ValueRange{at}, bMasks[j], bZero));
  }
  SmallVector<Value> next(acc);
  for (int64_t p = 0; p < pairs; ++p) {
    Value aReg = replicated(b, loc, p, step);
    for (int64_t j = 0; j < vectors; ++j) {
      SmallVector<Value> regs(3);
      regs[m.aReg] = aReg;
      regs[m.bReg] = bRegs[j];
      regs[2] = acc[p * vectors + j];
      next[p * vectors + j] =
          buildApply(b, loc, *m.d, m.signature, regs).getResult();
    }
  }
  return next;
}

void ScalableMatrixKernel::Compute::store(OpBuilder &b, Location loc,
                                          ArrayRef<Value> ivs, int64_t rows,
                                          int64_t vectors, Value col,
                                          ArrayRef<Value> acc) const {
  int64_t pairs = llvm::divideCeil(rows, m.segRows);
  unsigned laneDim = *m.c.operands[2].dimOf(m.laneLoop);
  Value zero =
      arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t j = 0; j < vectors; j += 2) {
      bool both = j + 1 < vectors;
      auto [r0, r1] = splitRows(b, loc, acc[p * vectors + j],
                                both ? acc[p * vectors + j + 1] : zero);
      Value mask = rowMask(b, loc, col, j, both);
      Value c = column(b, loc, col, j);
      Value r[2] = {r0, r1};
      for (int64_t i = 0; i < 2 && p * 2 + i < rows; ++i) {
        SmallVector<Value> at = outputAt(b, loc, ivs, p * 2 + i, c);
        if (epilogue)
          epilogue->apply(b, loc, r[i], at, laneDim, mask);
        else
          vector::MaskedStoreOp::create(b, loc, output, at, mask, r[i]);
      }
    }
}

void ScalableMatrixKernel::Compute::columns(OpBuilder &b, Location loc,
                                            ArrayRef<Value> ivs, int64_t rows,
                                            int64_t vectors, Value col) {
  bMasks.clear();
  for (int64_t j = 0; j < vectors; ++j) {
    Value left = arith::SubIOp::create(b, loc, cIndex(b, loc, m.lanesPadded()),
                                       column(b, loc, col, j));
    bMasks.push_back(scalable::maskOf(
        b, loc, arith::MulIOp::create(b, loc, left, cIndex(b, loc, m.group)),
        bType));
  }
  int64_t pairs = llvm::divideCeil(rows, m.segRows);
  SmallVector<Value> init =
      initialAccumulators(b, loc, ivs, rows, vectors, col);
  auto steps = scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, m.steps()), cIndex(b, loc, 1),
      init, [&](OpBuilder &b, Location loc, Value k, ValueRange values) {
        SmallVector<Value> in(values);
        scf::YieldOp::create(
            b, loc, step(b, loc, ivs, pairs, vectors, col, k, in));
      });
  store(b, loc, ivs, rows, vectors, col,
        SmallVector<Value>(steps.getResults()));
  // Steps per iteration (after the stores: the unroll moves the uses of
  // the loop's results).
  int64_t unroll = std::min(s.reductionUnroll, m.steps());
  if (unroll > 1 && failed(loopUnrollByFactor(steps, unroll)))
    emitWarning(loc) << "the step loop could not be unrolled by " << unroll;
}

void ScalableMatrixKernel::emitCompute(OpBuilder &b, Location loc,
                                       const ComputeOperands &operands,
                                       const Schedule &s) const {
  assert((!operands.epilogue || operands.overwrite) &&
         "an epilogue starts from zero");
  Compute(*this, b, operands, s).emit(b, loc);
}

} // namespace tisa
