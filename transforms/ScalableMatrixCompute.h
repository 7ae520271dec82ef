//===- ScalableMatrixCompute.h - one SVE matrix-multiply computation -*- C++ -*-===//
//
// Private to transforms/: the state of one ScalableMatrixKernel::emitCompute
// call, shared by ScalableMatrixCompute.cpp (C) and ScalableMatrixPanel.cpp
// (A). Every file that includes it works in MLIR's namespace.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_SCALABLEMATRIXCOMPUTE_H
#define TISA_TRANSFORMS_SCALABLEMATRIXCOMPUTE_H

#include "CodegenUtils.h"
#include "tisa/Transforms/Epilogue.h"
#include "tisa/Transforms/ScalableMatrixKernel.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tisa {

/// One emitCompute call: its operands and the values every level reads.
/// The C side (columns, accumulators, stores) is ScalableMatrixCompute.cpp;
/// the A side (the panel per row block, or A paired once per call) is
/// ScalableMatrixPanel.cpp.
class ScalableMatrixKernel::Compute {
public:
  Compute(const ScalableMatrixKernel &m, OpBuilder &b,
          const ComputeOperands &operands, const Schedule &s);
  void emit(OpBuilder &b, Location loc);

private:
  /// The row block at `ivs` (the row loop at its first row) of `rows` rows:
  /// its panel, then its columns.
  void block(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows);

  // The A side.
  /// The panel's buffer, or A paired for the whole call.
  void prepareA(OpBuilder &b, Location loc);
  /// The block's row pairs of A in the panel, each reduction step a 16-byte
  /// segment.
  void packPanel(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                 int64_t rows);
  /// Every position of A and its partner `pairStride` further along the
  /// pair dimension, interleaved: paired[A's dims...][k / g][2][g].
  void packPairs(OpBuilder &b, Location loc);
  /// The zero border before A's dimension `d` (none without padding).
  int64_t padOf(unsigned d) const { return padding.empty() ? 0 : padding[d]; }
  /// The first 64-bit unit of `position` (in A's program extents) in the
  /// pairing.
  Value pairedUnit(OpBuilder &b, Location loc, ValueRange position) const;
  /// Position `iv` of A's program extents and its partner, paired.
  void pairPosition(OpBuilder &b, Location loc, ValueRange iv) const;
  /// The input with its last position dimension and the groups' collapsed
  /// into one, when a position's groups are whole and contiguous; null
  /// otherwise.
  Value positionRows(OpBuilder &b, Location loc) const;
  /// The positions [first, end) along the last dimension of the row at
  /// `rowIv` (the other positions' indices in A's program extents) that
  /// lie inside the input with their partners: empty on a border row.
  std::pair<Value, Value> streamRange(OpBuilder &b, Location loc,
                                      ValueRange rowIv) const;
  /// Positions [first, end) of the row at `rowIv` paired as one stream of
  /// `rows` (positionRows): no bounds per position.
  void streamRow(OpBuilder &b, Location loc, Value rows, ValueRange rowIv,
                 Value first, Value end) const;
  /// Elements [c0, c0 + one vector) of A at `idx` (A's operand indices, the
  /// last one c0) as 64-bit units: zeros past the group loop's extent,
  /// outside a zero border, or where `valid` is false.
  Value chunkAt(OpBuilder &b, Location loc, SmallVector<Value> idx,
                Value valid) const;
  /// Interleaves the chunks `r0` and `r1` and stores them at unit `unit`
  /// of `to`, under a mask of the `left` units of the row.
  void storePair(OpBuilder &b, Location loc, Value r0, Value r1, Value to,
                 Value unit, Value left) const;
  /// Pair `p`'s 16 bytes of reduction step (`taps`: the other reduction
  /// loops' values, flattened to `tapFlat`; group `g`), in every segment.
  Value replicated(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t p,
                   ArrayRef<Value> taps, Value tapFlat, Value g) const;

  // The C side.
  /// The register tile of `rows` x `vectors` accumulators at column `col`:
  /// its accumulators through every reduction step, stored.
  void columns(OpBuilder &b, Location loc, ArrayRef<Value> ivs, int64_t rows,
               int64_t vectors, Value col);
  SmallVector<Value> initialAccumulators(OpBuilder &b, Location loc,
                                         ArrayRef<Value> ivs, int64_t rows,
                                         int64_t vectors, Value col) const;
  /// The reduction: the other reduction loops (taps), then the groups in a
  /// loop of their own (unrolled by kunroll once the tile is stored), with
  /// the kernel's fusableTap's steps (those tapBounds leaves) if it has one.
  SmallVector<Value> reduce(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                            int64_t pairs, int64_t vectors, Value col,
                            ArrayRef<Value> acc);
  /// The values [lo, hi) of reduction loop `l` (a filter tap) at which the
  /// tile at `ivs` reads inside A: where `l` moves a dimension of A with a
  /// zero border that the rows do not move (a conv2d's kh: every row of a
  /// tile shares its oh), the taps that read only the border are skipped,
  /// as the vendors count the work; else (and with a repair, whose column
  /// sums take every tap) all of them.
  std::pair<Value, Value> tapBounds(OpBuilder &b, Location loc,
                                    ArrayRef<Value> ivs, unsigned l) const;
  /// The dimension of A with a zero border that tap `l` moves and the rows
  /// do not (tapBounds skips its border taps per tile), if any.
  std::optional<unsigned> borderDim(unsigned l) const;
  /// One reduction step: taps `taps` (flattened `tapFlat`), group `g`.
  SmallVector<Value> step(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                          int64_t pairs, int64_t vectors, Value col,
                          ArrayRef<Value> taps, Value tapFlat, Value g,
                          ArrayRef<Value> acc) const;
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

  Value packed, vscale, perAcc;
  /// A's row pairs: the panel of the current row block, or `paired`.
  Value panel, paired;
  /// Per accumulator of the current tile: the packed input's mask.
  SmallVector<Value> bMasks;
  /// The group loops of the current tile and their most trips, unrolled
  /// once it is stored.
  SmallVector<std::pair<scf::ForOp, int64_t>> groupLoops;
};

} // namespace tisa

#endif // TISA_TRANSFORMS_SCALABLEMATRIXCOMPUTE_H
