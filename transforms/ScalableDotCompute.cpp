//===- ScalableDotCompute.cpp - the scalable lane-dot computation ---------===//
//
// The loop nest of include/tisa/Transforms/ScalableDotKernel.h. What
// depends on the vector length is an SSA value: VL = 4 * vector.vscale
// lanes, the column loop's step (tn * VL), and the masks of each column
// vector (vector.create_mask of the lanes left), so loads past n's extent
// read zeros and stores past it write nothing.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "ScalableLoops.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Transforms/Epilogue.h"
#include "tisa/Transforms/ScalableDotKernel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {

/// One emitCompute call: its operands and the values every level reads.
class ScalableDotKernel::Compute {
public:
  Compute(const ScalableDotKernel &m, OpBuilder &b, Location loc,
          const ComputeOperands &operands, const Schedule &s);
  void emit(OpBuilder &b, Location loc);

private:
  /// The row block at `ivs` (its first row in the row loop) of `rows` rows.
  void block(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows);
  /// The register tile of `rows` x `vectors` at column `col`: its
  /// accumulators through every reduction step, stored.
  void columns(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows,
               int64_t vectors, Value col);
  /// C's indices of the tile's accumulator (i, j).
  SmallVector<Value> outputAt(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                              Value col, int64_t i, int64_t j) const;
  /// The tile's accumulators before the reduction: zeros or C, plus a
  /// repair's compensation.
  SmallVector<Value> initialAccumulators(OpBuilder &b, Location loc,
                                         ArrayRef<Value> ivs, int64_t rows,
                                         int64_t vectors, Value col) const;
  /// The reduction nest carrying `acc`: its results.
  SmallVector<Value> reduce(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                            int64_t rows, int64_t vectors, Value col,
                            ArrayRef<Value> acc);
  /// One step at group `g` (partial: the last, shorter group).
  SmallVector<Value> step(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                          int64_t rows, int64_t vectors, Value g, bool partial,
                          ArrayRef<Value> acc) const;
  /// A's group at `ivs` (group loop at its first element) in every lane.
  Value broadcast(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                  bool partial) const;
  /// The lanes of `type` before `limit` columns from column `col`, a column
  /// being `per` elements: a mask of its shape.
  Value mask(OpBuilder &b, Location loc, Value col, int64_t limit,
             int64_t per, VectorType type) const;
  /// The first column of vector j of the tile at `col`.
  Value column(OpBuilder &b, Location loc, Value col, int64_t j) const;
  /// A zero-filled copy of `input` with its border (`padding`), made with
  /// scalable vectors: the fill over the whole buffer, then each of the
  /// input's rows (its contiguous last dimension) at its place.
  Value paddedInput(OpBuilder &b, Location loc);
  /// `n` contiguous elements of `from` at `fromAt` (null: zeros) stored to
  /// `to` at `toAt` (both positions' last index advancing), in masked
  /// scalable vectors of 16 x vscale elements.
  void byteRows(OpBuilder &b, Location loc, Value from, ValueRange fromAt,
                Value to, ValueRange toAt, int64_t n);
  /// Picks the tap loop (`fusedTap`) whose groups continue the group
  /// loop's in both A and the packed B, and views A with those two
  /// dimensions as one (`aFlat`).
  void fuseTapWithGroups(OpBuilder &b, Location loc);
  /// The reduction loops the nest runs (all but a fused tap).
  SmallVector<unsigned> reductionLoops() const;
  /// Whole groups the group loop runs: the group loop's, times a fused
  /// tap's extent.
  int64_t wholeGroups() const;

  const ScalableDotKernel &m;
  const Schedule &s;
  Value input, buffer, output, begin, end;
  bool overwrite;
  const Epilogue *epilogue;
  ArrayRef<int64_t> padding;
  int64_t tm, tn;
  VectorType aType, bType, accType;

  Value a, packed, sums, vl, copy;
  /// A filter tap loop (conv2d's kw) run as more groups of the group loop:
  /// with NHWC input read densely, the channels of the next tap follow the
  /// last channel of this one in A, and its packed groups follow this one's
  /// in B (one loop of KW x C/g groups instead of KW loops of C/g).
  std::optional<unsigned> fusedTap;
  Value aFlat;
  unsigned flatDim = 0;
  int64_t flatRow = 0;
  /// Per column vector of the current tile: the packed and the output
  /// masks.
  SmallVector<Value> bMasks, cMasks;
  /// The group loops of the current tile, unrolled once it is stored.
  SmallVector<scf::ForOp> groupLoops;
};

ScalableDotKernel::Compute::Compute(const ScalableDotKernel &m, OpBuilder &b,
                                    Location loc,
                                    const ComputeOperands &operands,
                                    const Schedule &s)
    : m(m), s(s), input(operands.input), buffer(operands.buffer),
      output(operands.output), begin(operands.begin), end(operands.end),
      overwrite(operands.overwrite), epilogue(operands.epilogue),
      padding(operands.inputPadding),
      tm(m.registerTile(s).first), tn(m.registerTile(s).second),
      aType(m.d->registers[m.aReg].type), bType(m.d->registers[m.bReg].type),
      accType(m.d->registers[2].type) {}

void ScalableDotKernel::Compute::emit(OpBuilder &b, Location loc) {
  // A conv2d's zero border: a padded copy per call.
  a = input;
  if (llvm::any_of(padding, [](int64_t p) { return p != 0; }))
    a = copy = paddedInput(b, loc);
  fuseTapWithGroups(b, loc);
  Type bElt = bType.getElementType();
  int64_t eltBytes = bElt.getIntOrFloatBitWidth() / 8;
  packed = memref::ViewOp::create(
      b, loc, MemRefType::get({m.packedBytes(s) / eltBytes}, bElt), buffer,
      cIndex(b, loc, 0), ValueRange{});
  if (m.sumFactor)
    sums = m.sumsView(b, loc, buffer);
  vl = arith::MulIOp::create(b, loc, vector::VectorScaleOp::create(b, loc),
                             cIndex(b, loc, m.segLanes));
  Value lo = begin ? begin : cIndex(b, loc, 0);
  Value hi = end ? end : cIndex(b, loc, m.partitionTiles(s));
  scalable::rowBlockTiles(
      b, loc, lo, hi, m.extent, m.parallelLoops, tm,
      [&](OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows) {
        block(b, loc, ivs, rows);
      });
  if (copy)
    memref::DeallocOp::create(b, loc, copy);
}

void ScalableDotKernel::Compute::byteRows(OpBuilder &b, Location loc,
                                          Value from, ValueRange fromAt,
                                          Value to, ValueRange toAt,
                                          int64_t n) {
  // `from` null: zeros. The step is a scalable vector of the element type.
  auto toType = cast<MemRefType>(to.getType());
  auto vec = VectorType::get({16}, toType.getElementType(), {true});
  Value step = arith::MulIOp::create(b, loc, vector::VectorScaleOp::create(b, loc),
                                     cIndex(b, loc, 16));
  Value zeros = arith::ConstantOp::create(b, loc, vec, b.getZeroAttr(vec));
  scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, n), step, ValueRange{},
      [&](OpBuilder &b, Location loc, Value i, ValueRange) {
        Value left = arith::SubIOp::create(b, loc, cIndex(b, loc, n), i);
        Value mask = vector::CreateMaskOp::create(
            b, loc, VectorType::get({16}, b.getI1Type(), {true}),
            ValueRange{left});
        auto shifted = [&](ValueRange at) {
          SmallVector<Value> out(at);
          out.back() = arith::AddIOp::create(b, loc, out.back(), i);
          return out;
        };
        Value v = from ? vector::MaskedLoadOp::create(b, loc, vec, from,
                                                      shifted(fromAt), mask,
                                                      zeros)
                             .getResult()
                       : zeros;
        vector::MaskedStoreOp::create(b, loc, to, shifted(toAt), mask, v);
        scf::YieldOp::create(b, loc);
      });
}

Value ScalableDotKernel::Compute::paddedInput(OpBuilder &b, Location loc) {
  ArrayRef<int64_t> shape = m.c.operands[m.aInput].shape;
  auto srcType = cast<MemRefType>(input.getType());
  Type elt = srcType.getElementType();
  Value buffer = memref::AllocOp::create(b, loc, MemRefType::get(shape, elt),
                                         b.getI64IntegerAttr(64));
  // Zeros everywhere: the buffer as one row.
  SmallVector<ReassociationIndices> all(1);
  for (unsigned d = 0; d < shape.size(); ++d)
    all[0].push_back(d);
  Value flat = memref::CollapseShapeOp::create(b, loc, buffer, all);
  byteRows(b, loc, Value(), {}, flat, ValueRange{cIndex(b, loc, 0)},
           cast<MemRefType>(flat.getType()).getDimSize(0));
  // The input's rows at their place; what falls past `shape` (the last
  // rows of a strided convolution's input that no output reads) is left
  // out.
  unsigned rank = shape.size();
  SmallVector<int64_t> rows;
  for (unsigned d = 0; d < rank; ++d)
    rows.push_back(std::min(srcType.getDimSize(d), shape[d] - padding[d]));
  int64_t rowLength = rows.back();
  rows.back() = 1;
  loopNest(b, loc, rows, [&](OpBuilder &b, Location loc, ValueRange iv) {
    SmallVector<Value> to;
    for (unsigned d = 0; d < rank; ++d)
      to.push_back(arith::AddIOp::create(b, loc, iv[d],
                                         cIndex(b, loc, padding[d])));
    byteRows(b, loc, input, iv, buffer, to, rowLength);
  });
  return buffer;
}

void ScalableDotKernel::Compute::fuseTapWithGroups(OpBuilder &b,
                                                   Location loc) {
  // The innermost reduction loop besides the groups, when it is the packed
  // input's innermost outer loop (its groups follow in the pack), the
  // groups are whole, and in A it moves one element of the dimension just
  // before the contiguous last one, whose stride is that last one's extent.
  if (m.reductionLoops.empty() || m.bOuter.empty() ||
      m.extent[m.groupLoop] % m.group)
    return;
  unsigned tap = m.reductionLoops.back();
  if (m.bOuter.back() != tap)
    return;
  auto type = cast<MemRefType>(a.getType());
  unsigned rank = type.getRank();
  if (rank < 2 || type.getDimSize(rank - 1) != m.extent[m.groupLoop] ||
      !scalable::movesLastPosition(m.c, m.aInput, tap))
    return;
  aFlat = scalable::collapseLastTwo(b, loc, a);
  if (!aFlat)
    return;
  fusedTap = tap;
  flatDim = rank - 2;
  flatRow = type.getDimSize(rank - 1);
}

SmallVector<unsigned> ScalableDotKernel::Compute::reductionLoops() const {
  SmallVector<unsigned> loops(m.reductionLoops);
  if (fusedTap)
    loops.pop_back();
  return loops;
}

int64_t ScalableDotKernel::Compute::wholeGroups() const {
  return m.extent[m.groupLoop] / m.group *
         (fusedTap ? m.extent[*fusedTap] : 1);
}

void ScalableDotKernel::Compute::block(OpBuilder &b, Location loc,
                                       ArrayRef<Value> ivs, int64_t rows) {
  scalable::columnBlocks(
      b, loc, m.extent[m.laneLoop], vl, tn,
      [&](OpBuilder &b, Location loc, int64_t vectors, Value col) {
        columns(b, loc, ivs, rows, vectors, col);
      });
}

Value ScalableDotKernel::Compute::column(OpBuilder &b, Location loc, Value col,
                                         int64_t j) const {
  if (!j)
    return col;
  return arith::AddIOp::create(
      b, loc, col, arith::MulIOp::create(b, loc, vl, cIndex(b, loc, j)));
}

Value ScalableDotKernel::Compute::mask(OpBuilder &b, Location loc, Value col,
                                       int64_t limit, int64_t per,
                                       VectorType type) const {
  Value left = arith::SubIOp::create(b, loc, cIndex(b, loc, limit), col);
  if (per != 1)
    left = arith::MulIOp::create(b, loc, left, cIndex(b, loc, per));
  return scalable::maskOf(b, loc, left, type);
}

SmallVector<Value> ScalableDotKernel::Compute::outputAt(OpBuilder &b,
                                                     Location loc,
                                                     ArrayRef<Value> ivs,
                                                     Value col, int64_t i,
                                                     int64_t j) const {
  SmallVector<Value> at(ivs);
  if (!m.parallelLoops.empty()) {
    unsigned row = m.parallelLoops.back();
    at[row] = arith::AddIOp::create(b, loc, at[row], cIndex(b, loc, i));
  }
  at[m.laneLoop] = column(b, loc, col, j);
  return applyMap(b, loc, m.c.operands[2].map, at);
}

SmallVector<Value> ScalableDotKernel::Compute::initialAccumulators(
    OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows,
    int64_t vectors, Value col) const {
  Value zero = arith::ConstantOp::create(b, loc, accType,
                                         b.getZeroAttr(accType));
  // A repair's compensation starts every accumulator of a column.
  SmallVector<Value> start(vectors, zero);
  if (m.sumFactor)
    for (int64_t j = 0; j < vectors; ++j)
      start[j] = vector::MaskedLoadOp::create(
          b, loc, accType, sums, ValueRange{column(b, loc, col, j)},
          cMasks[j], zero);
  SmallVector<Value> acc;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < vectors; ++j) {
      if (overwrite) {
        acc.push_back(start[j]);
        continue;
      }
      Value v = vector::MaskedLoadOp::create(b, loc, accType, output,
                                             outputAt(b, loc, ivs, col, i, j),
                                             cMasks[j], zero);
      acc.push_back(m.sumFactor ? arith::AddIOp::create(b, loc, v, start[j])
                                    .getResult()
                                : v);
    }
  return acc;
}

SmallVector<Value> ScalableDotKernel::Compute::reduce(
    OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows,
    int64_t vectors, Value col, ArrayRef<Value> acc) {
  // The other reduction loops, then the whole groups carrying the
  // accumulators; a partial last group after them.
  SmallVector<unsigned> outer = reductionLoops();
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned l : outer)
    ubs.push_back(cIndex(b, loc, m.extent[l]));
  lbs.assign(ubs.size(), cIndex(b, loc, 0));
  steps.assign(ubs.size(), cIndex(b, loc, 1));
  // A fused tap's groups continue the group loop's (the tap left at 0).
  int64_t whole = wholeGroups();
  bool partial = m.extent[m.groupLoop] % m.group != 0;
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, acc,
      [&](OpBuilder &b, Location loc, ValueRange red, ValueRange carried) {
        SmallVector<Value> at(ivs);
        for (auto [l, v] : llvm::zip(outer, red))
          at[l] = v;
        at[m.laneLoop] = col;
        auto groups = scf::ForOp::create(
            b, loc, cIndex(b, loc, 0), cIndex(b, loc, whole),
            cIndex(b, loc, 1), carried,
            [&](OpBuilder &b, Location loc, Value g, ValueRange values) {
              SmallVector<Value> in(values);
              scf::YieldOp::create(b, loc,
                                   step(b, loc, at, rows, vectors, g, false,
                                        in));
            });
        groupLoops.push_back(groups);
        SmallVector<Value> result(groups.getResults());
        if (partial)
          result = step(b, loc, at, rows, vectors, cIndex(b, loc, whole),
                        true, result);
        return scf::ValueVector(result.begin(), result.end());
      });
  return SmallVector<Value>(nest.results);
}

void ScalableDotKernel::Compute::columns(OpBuilder &b, Location loc,
                                         ArrayRef<Value> ivs, int64_t rows,
                                         int64_t vectors, Value col) {
  bMasks.clear();
  cMasks.clear();
  for (int64_t j = 0; j < vectors; ++j) {
    Value at = column(b, loc, col, j);
    bMasks.push_back(mask(b, loc, at, m.lanesPadded(), m.group, bType));
    cMasks.push_back(mask(b, loc, at, m.extent[m.laneLoop], 1, accType));
  }
  SmallVector<Value> acc = reduce(
      b, loc, ivs, rows, vectors, col,
      initialAccumulators(b, loc, ivs, rows, vectors, col));
  // Each accumulator stored under its column's mask, or through the
  // epilogue.
  unsigned laneDim = *m.c.operands[2].dimOf(m.laneLoop);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < vectors; ++j) {
      SmallVector<Value> at = outputAt(b, loc, ivs, col, i, j);
      Value v = acc[i * vectors + j];
      if (epilogue)
        epilogue->apply(b, loc, v, at, laneDim, cMasks[j]);
      else
        vector::MaskedStoreOp::create(b, loc, output, at, cMasks[j], v);
    }
  // Groups per iteration, the remainder in a loop of its own: A's next
  // groups are immediate offsets of one address. After the stores: the
  // unroll moves the uses of the loop's results to that loop.
  int64_t unroll = std::min(s.reductionUnroll, wholeGroups());
  for (scf::ForOp loop : groupLoops)
    if (unroll > 1 && failed(loopUnrollByFactor(loop, unroll)))
      emitWarning(loc) << "the group loop could not be unrolled by " << unroll;
  groupLoops.clear();
}

Value ScalableDotKernel::Compute::broadcast(OpBuilder &b, Location loc,
                                            ArrayRef<Value> ivs,
                                            bool partial) const {
  // The group's g elements as one accumulator-wide integer, in every lane.
  Type elt = aType.getElementType();
  auto groupType = VectorType::get({m.group}, elt);
  SmallVector<Value> idx = applyMap(b, loc, m.c.operands[m.aInput].map, ivs);
  Value v;
  if (partial) {
    int64_t left = m.extent[m.groupLoop] % m.group;
    Value keep = vector::ConstantMaskOp::create(
        b, loc, VectorType::get({m.group}, b.getI1Type()),
        ArrayRef<int64_t>{left});
    Value zeros = arith::ConstantOp::create(b, loc, groupType,
                                            b.getZeroAttr(groupType));
    v = vector::MaskedLoadOp::create(b, loc, groupType, a, idx, keep, zeros);
  } else if (fusedTap) {
    // idx[flatDim] * its row + idx[last]: the group, past the tap's own
    // channels for the fused taps.
    SmallVector<Value> flat(ArrayRef<Value>(idx).take_front(flatDim));
    flat.push_back(affine::makeComposedAffineApply(
                       b, loc,
                       getAffineDimExpr(0, b.getContext()) * flatRow +
                           getAffineDimExpr(1, b.getContext()),
                       {idx[flatDim], idx.back()})
                       .getResult());
    v = vector::LoadOp::create(b, loc, groupType, aFlat, flat);
  } else {
    v = vector::LoadOp::create(b, loc, groupType, a, idx);
  }
  Type lane = b.getIntegerType(accType.getElementTypeBitWidth());
  v = vector::BitCastOp::create(b, loc, VectorType::get({1}, lane), v);
  v = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
  // A repair's bias: every byte's sign bit flipped.
  if (m.sumFactor)
    v = flipSignBits(b, loc, v);
  auto lanes = VectorType::get(accType.getShape(), lane,
                               accType.getScalableDims());
  v = vector::BroadcastOp::create(b, loc, lanes, v);
  return vector::BitCastOp::create(b, loc, aType, v);
}

SmallVector<Value>
ScalableDotKernel::Compute::step(OpBuilder &b, Location loc,
                                 ArrayRef<Value> ivs, int64_t rows,
                                 int64_t vectors, Value g, bool partial,
                                 ArrayRef<Value> acc) const {
  // B: packed[outer...][g][column][group] of every column vector.
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  Value outer = cIndex(b, loc, 0);
  for (unsigned l : m.bOuter)
    outer = affine::makeComposedAffineApply(b, loc, d0 * m.extent[l] + d1,
                                            {outer, ivs[l]})
                .getResult();
  Value row = affine::makeComposedAffineApply(
                  b, loc, (d0 * m.groups() + d1) * m.lanesPadded(), {outer, g})
                  .getResult();
  Value bZero = arith::ConstantOp::create(b, loc, bType, b.getZeroAttr(bType));
  SmallVector<Value> bRegs;
  Value col = ivs[m.laneLoop];
  for (int64_t j = 0; j < vectors; ++j) {
    Value at = arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, row, column(b, loc, col, j)),
        cIndex(b, loc, m.group));
    bRegs.push_back(vector::MaskedLoadOp::create(b, loc, bType, packed,
                                                 ValueRange{at}, bMasks[j],
                                                 bZero));
  }
  SmallVector<Value> next(acc);
  for (int64_t i = 0; i < rows; ++i) {
    SmallVector<Value> at(ivs);
    if (!m.parallelLoops.empty()) {
      unsigned r = m.parallelLoops.back();
      at[r] = arith::AddIOp::create(b, loc, at[r], cIndex(b, loc, i));
    }
    at[m.groupLoop] = arith::MulIOp::create(b, loc, g, cIndex(b, loc, m.group));
    Value aReg = broadcast(b, loc, at, partial);
    for (int64_t j = 0; j < vectors; ++j) {
      SmallVector<Value> regs(3);
      regs[m.aReg] = aReg;
      regs[m.bReg] = bRegs[j];
      regs[2] = acc[i * vectors + j];
      next[i * vectors + j] =
          buildApply(b, loc, *m.d, m.signature, regs).getResult();
    }
  }
  return next;
}

void ScalableDotKernel::emitCompute(OpBuilder &b, Location loc,
                                    const ComputeOperands &operands,
                                    const Schedule &s) const {
  assert((!operands.epilogue || operands.overwrite) &&
         "an epilogue starts from zero");
  Compute(*this, b, loc, operands, s).emit(b, loc);
}

LogicalResult ScalableDotKernel::canFuse(const Epilogue &epilogue,
                                         std::string &why) const {
  return epilogue.checkLanes(*c.operands[2].dimOf(laneLoop), why);
}

} // namespace tisa
