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

#include "ScalableLoops.h"
#include "ScalableMatrixCompute.h"
#include "tisa/Semantics/Instruction.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmSVE/IR/ArmSVEDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {

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
  vscale = vector::VectorScaleOp::create(b, loc);
  perAcc = arith::MulIOp::create(b, loc, vscale, cIndex(b, loc, m.segCols));
  prepareA(b, loc);
  Value lo = begin ? begin : cIndex(b, loc, 0);
  Value hi = end ? end : cIndex(b, loc, m.partitionTiles(s));
  scalable::rowBlockTiles(
      b, loc, lo, hi, m.extent, m.parallelLoops, tm,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows) {
        block(b, loc, ivs, rows);
      });
  memref::DeallocOp::create(b, loc, panel ? panel : paired);
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

SmallVector<Value> ScalableMatrixKernel::Compute::step(
    OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t pairs,
    int64_t vectors, Value col, ArrayRef<Value> taps, Value tapFlat, Value g,
    ArrayRef<Value> acc) const {
  // B: packed[B's parallel loops][taps][k / g][column][g] of every
  // accumulator.
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext()),
             d2 = getAffineDimExpr(2, b.getContext());
  Value outer = cIndex(b, loc, 0);
  for (unsigned l : m.bOuter)
    if (!m.c.loops[l].reduction)
      outer = affine::makeComposedAffineApply(b, loc, d0 * m.extent[l] + d1,
                                              {outer, ivs[l]})
                  .getResult();
  int64_t outerSteps = m.steps() / m.groups();
  Value row = affine::makeComposedAffineApply(
                  b, loc,
                  ((d0 * outerSteps + d1) * m.groups() + d2) * m.lanesPadded(),
                  {outer, tapFlat, g})
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
    Value aReg = replicated(b, loc, ivs, p, taps, tapFlat, g);
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

std::optional<unsigned>
ScalableMatrixKernel::Compute::borderDim(unsigned l) const {
  AffineMap map = m.c.operands[m.aInput].map;
  ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
  auto type = cast<MemRefType>(input.getType());
  unsigned loops = m.c.loops.size();
  // A repair's column sums cover every tap: its border taps must run (their
  // flipped zeros times B cancel them).
  for (unsigned d = 0; !m.sumFactor && d + 1 < map.getNumResults(); ++d) {
    std::optional<SmallVector<int64_t>> coef =
        linearCoefficients(map.getResult(d), loops);
    if (!coef || (*coef)[l] <= 0 || (*coef)[m.rowLoop] != 0)
      continue;
    if (padOf(d) == 0 && type.getDimSize(d) >= shape[d])
      continue; // no border on this dimension
    // The tile's other loops in the dimension must be parallel (each tap
    // loop but `l` must leave it alone).
    bool alone = true;
    for (unsigned j = 0; j < loops; ++j)
      alone &= j == l || (*coef)[j] == 0 || !m.c.loops[j].reduction;
    if (alone)
      return d;
  }
  return std::nullopt;
}

std::pair<Value, Value>
ScalableMatrixKernel::Compute::tapBounds(OpBuilder &b, Location loc,
                                         ArrayRef<Value> ivs,
                                         unsigned l) const {
  std::optional<unsigned> d = borderDim(l);
  if (!d)
    return {cIndex(b, loc, 0), cIndex(b, loc, m.extent[l])};
  AffineMap map = m.c.operands[m.aInput].map;
  auto type = cast<MemRefType>(input.getType());
  return tapRange(b, loc, *linearCoefficients(map.getResult(*d), m.c.loops.size()),
                  l, ivs, padOf(*d), type.getDimSize(*d), m.extent[l]);
}

SmallVector<Value> ScalableMatrixKernel::Compute::reduce(
    OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t pairs,
    int64_t vectors, Value col, ArrayRef<Value> acc) {
  // The taps in loops of their own, but a fused one (at 0 here: its steps
  // are the group loop's, t * groups + g for its taps t in tapBounds).
  ArrayRef<unsigned> looped(m.reductionLoops);
  std::optional<unsigned> fused = m.fusableTap;
  if (fused)
    looped = looped.drop_back();
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned l : looped) {
    auto [lo, hi] = tapBounds(b, loc, ivs, l);
    lbs.push_back(lo);
    ubs.push_back(hi);
  }
  steps.assign(ubs.size(), cIndex(b, loc, 1));
  Value first = cIndex(b, loc, 0), last = cIndex(b, loc, m.groups());
  int64_t trips = m.groups();
  if (fused) {
    auto [lo, hi] = tapBounds(b, loc, ivs, *fused);
    AffineExpr d0 = getAffineDimExpr(0, b.getContext());
    first = affine::makeComposedAffineApply(b, loc, d0 * m.groups(), {lo});
    last = affine::makeComposedAffineApply(b, loc, d0 * m.groups(), {hi});
    trips *= m.extent[*fused];
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, acc,
      [&](OpBuilder &b, Location loc, ValueRange taps, ValueRange carried) {
        SmallVector<Value> tapValues(taps);
        if (fused)
          tapValues.push_back(cIndex(b, loc, 0));
        Value tapFlat = cIndex(b, loc, 0);
        for (auto [l, v] : llvm::zip(m.reductionLoops, tapValues))
          tapFlat = affine::makeComposedAffineApply(
                        b, loc,
                        getAffineDimExpr(0, b.getContext()) * m.extent[l] +
                            getAffineDimExpr(1, b.getContext()),
                        {tapFlat, v})
                        .getResult();
        auto groups = scf::ForOp::create(
            b, loc, first, last, cIndex(b, loc, 1), carried,
            [&](OpBuilder &b, Location loc, Value g, ValueRange values) {
              SmallVector<Value> in(values);
              scf::YieldOp::create(b, loc,
                                   step(b, loc, ivs, pairs, vectors, col,
                                        tapValues, tapFlat, g, in));
            });
        groupLoops.push_back({groups, trips});
        return scf::ValueVector(groups.getResults().begin(),
                                groups.getResults().end());
      });
  return SmallVector<Value>(nest.results);
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
  SmallVector<Value> acc =
      reduce(b, loc, ivs, pairs, vectors, col,
             initialAccumulators(b, loc, ivs, rows, vectors, col));
  store(b, loc, ivs, rows, vectors, col, acc);
  // Groups per iteration (after the stores: the unroll moves the uses of
  // the loops' results).
  for (auto [loop, trips] : groupLoops) {
    int64_t unroll = std::min(s.reductionUnroll, trips);
    if (unroll > 1 && failed(loopUnrollByFactor(loop, unroll)))
      emitWarning(loc) << "the group loop could not be unrolled by " << unroll;
  }
  groupLoops.clear();
}

void ScalableMatrixKernel::emitCompute(OpBuilder &b, Location loc,
                                       const ComputeOperands &operands,
                                       const Schedule &s) const {
  assert((!operands.epilogue || operands.overwrite) &&
         "an epilogue starts from zero");
  Compute(*this, b, operands, s).emit(b, loc);
}

} // namespace tisa
