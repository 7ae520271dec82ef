//===- LaneDotCompute.h - one lane-dot computation's state --*- C++ -*-===//
//
// Private to transforms/: the class behind LaneDotKernel::emitCompute,
// whose levels are emitted by LaneDotCompute.cpp (the register nest) and
// LaneDotPartition.cpp (cache blocks and the range's blocks around it).
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_LANEDOTCOMPUTE_H
#define TISA_TRANSFORMS_LANEDOTCOMPUTE_H

#include "LaneDotKernelImpl.h"

namespace tisa {

/// The state one emitCompute call shares between the levels of its nest.
/// The loop indices (ivs, lane, tile starts) and the current block (offset,
/// span) are set by the enclosing level before an inner one is emitted.
class LaneDotKernel::Impl::Compute {
public:
  Compute(const Impl &m, OpBuilder &b, Location loc,
          const ComputeOperands &operands, const Schedule &s);
  /// The whole nest, then the temporaries freed.
  void emit(OpBuilder &b, Location loc);

private:
  // Set-up, in the order the IR is created.
  void prepareInput(OpBuilder &b, Location loc);
  void prepareZeroRow(OpBuilder &b, Location loc);
  void prepareEdges();
  void prepareOperands(OpBuilder &b, Location loc);
  void prepareActive(OpBuilder &b, Location loc,
                     ArrayRef<std::pair<unsigned, Value>> active);

  VectorType laneVec(Type t) const { return VectorType::get({m.lanes}, t); }
  Value column(OpBuilder &b, Location loc, Value p) const;
  Value step(OpBuilder &b, Location loc, Value acc, bool partial = false);
  Value reduce(OpBuilder &b, Location loc, unsigned level, Value acc);
  void selectRow(OpBuilder &b, Location loc);
  void registerBody(OpBuilder &b, Location loc);
  Value subtractSums(OpBuilder &b, Location loc, Value acc, Value sums,
                     ArrayRef<unsigned> loops);
  void setIndex(OpBuilder &b, Location loc, unsigned l, Value i);
  StringAttr kindOf(OpBuilder &b, unsigned l) const {
    return b.getStringAttr(l == m.laneLoop ? "lanes" : "parallel");
  }
  void tapBounds(OpBuilder &b, Location loc);
  void tileRows(OpBuilder &b, Location loc, SmallVectorImpl<Value> &lo,
                SmallVectorImpl<Value> &hi);
  void points(OpBuilder &b, Location loc, unsigned level);
  void parallel(OpBuilder &b, Location loc, unsigned level);
  void evenRows(OpBuilder &b, Location loc, unsigned level, int64_t size,
                int64_t full, int64_t tail);
  void fullTiles(OpBuilder &b, Location loc, unsigned level, int64_t size,
                 int64_t count, Value active);
  void tile(OpBuilder &b, Location loc, unsigned level, int64_t start,
            int64_t length);
  Value spanIndex(OpBuilder &b, Location loc, unsigned l, Value i) const;
  Value activeInSpan(OpBuilder &b, Location loc, unsigned l) const;
  void columns(OpBuilder &b, Location loc);
  void columnPiece(OpBuilder &b, Location loc, int64_t from, int64_t to,
                   const Schedule &sch);
  void blockLoop(OpBuilder &b, Location loc, unsigned l, int64_t size,
                 int64_t whole, Value base, Value lo, Value hi,
                 function_ref<void(OpBuilder &, Location, Value)> body);
  std::pair<Value, Value> rangeOf(OpBuilder &b, Location loc, unsigned i);
  void emitBorderTiles(OpBuilder &b, Location loc, const BlockLevel &bl,
                       int64_t whole);
  void emitBlocks(OpBuilder &b, Location loc, unsigned i);

  const Impl &m;
  const Description &d;
  MLIRContext *ctx;
  Value input, buffer, output, begin, end;
  bool overwrite;
  const Epilogue *epilogue;
  const Schedule &s;
  Type i32, elt, groupInt;
  VectorType accVec;
  SmallVector<Value> temporaries;

  // The broadcast input as given: with `inputPadding`, without its zero
  // border. It is read in place, a row of the group dimension at a time,
  // with a row of zeros standing in for rows outside; or from a padded copy
  // when its group dimension is itself bordered, or when rows are so short
  // (fewer than 4 groups: C = 3) that choosing each row would cost more than
  // copying (ResNet-50's first layer: 233 -> 330 GOPS). A partial last group
  // is read with a mask either way.
  const ProgramOperand &bc;
  MemRefType inputType;
  unsigned rank;
  Border border;
  bool copy, inPlaceBorder;
  Value bcMem;
  // A copy's rows end in whole groups, zero past the input: its last group is
  // read like the others (a masked load there ran 17% slower on
  // ResNet-50's first layer, where LLVM rematerialized the mask each step).
  bool maskLastGroup;
  // Rows outside the input read this one.
  MemRefType rowType;
  Value zeroRow;
  // Tap loops run per tile only over the taps where a row of the tile reads
  // inside the input, as the vendors count the work.
  SmallVector<TapDim> tapDims;
  unsigned numLoops;
  SmallVector<Value> tapLow, tapHigh;
  // Schedule::edge: the columns of the innermost parallel loop besides the
  // lanes are interior in [edgeLow, edgeHigh) (every tap inside the input);
  // the others run with `edgeSchedule`, in tiles of rows of the loop around.
  int64_t edgeLow = 0, edgeHigh = 0;
  Schedule edgeSchedule;
  bool edges = false;
  const Schedule *cur; // the schedule of the columns being emitted
  // While the border columns are emitted, the inner loop counts them: its
  // index p stands for column p below edgeLow, p + edgeHigh - edgeLow above.
  bool borderColumns = false;
  Value bcSums, data, pkSums;
  // tisa.compute's `active`: the lanes and the groups of the group loop that
  // matter (null: all); the tile loops stop after them.
  Value activeLanes, activeGroups;
  int64_t panel;

  SmallVector<Value> ivs;
  Value lane;  // first lane of the current register
  Value bcRow; // in place with a border: the broadcast row of this step
  // The group loop being emitted runs a multiple of `lanes` full steps: its
  // broadcast groups are tagged for -tisa-by-element.
  bool byElementLoop = false;

  // Parallel loops: tile loops over each loop's span (offset by the
  // enclosing blocks).
  SmallVector<Value> offset;
  SmallVector<int64_t> span;
  SmallVector<unsigned> order;
  std::optional<std::pair<unsigned, unsigned>> fusedPair;
  SmallVector<Value> tileStart;
  SmallVector<int64_t> tileLength;
  // Which columns columns() emits: the interior, the border or both.
  enum class Columns { All, Interior, Border };
  Columns which = Columns::All;
  SmallVector<BlockLevel> blocks;
  SmallVector<Value> blockIndex; // the current block of each level
};

} // namespace tisa

#endif // TISA_TRANSFORMS_LANEDOTCOMPUTE_H
