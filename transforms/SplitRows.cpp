//===- SplitRows.cpp - run-time rows in blocks ----------------------------===//
//
// -tisa-split-dynamic's split along a loop of rows (a GEMM's M, a
// convolution's batch, output rows or columns): static computations on
// views along that loop (a convolution's input: the window the block's
// outputs read), full
// blocks of runTimeBlock in a loop, then the remainder by its binary
// digits. Every piece reads the same packed buffer with the same plan and
// schedule.
//
//===----------------------------------------------------------------------===//

#include "SplitDynamic.h"

#include "CodegenUtils.h"

namespace tisa {
namespace split {
namespace {

/// A loop of rows of a compute's contraction, and what it indexes.
class RowLoop {
public:
  RowLoop(ComputeOp op, const PlannedKernel &planned, unsigned loop,
          const RunTimeLoop &blocks);

  /// Replaces `op` by the blocks of its loop.
  void split(ComputeOp op) const;

private:
  void addEpilogueOperands(ComputeOp op);
  /// A copy of `op` on iterations [start, start + size) of the loop.
  ComputeOp block(OpBuilder &b, Location loc, ComputeOp op, Value start,
                  int64_t size) const;

  unsigned loop;
  /// Per argument of the program region (inputs, output): the dimension.
  RunTimeLoop blocks;
  /// An operand viewed along the loop.
  struct Viewed {
    unsigned number; ///< in the op
    unsigned dim;
    LoopWindow window;
  };
  SmallVector<Viewed> viewed;
  unsigned outputDim;
  unsigned inputArg; ///< the program argument the op's input is
  /// Iterations per block: runTimeBlock (kNominalExtent for a register
  /// tile's rows, 1 for an outer loop such as a convolution's batch).
  int64_t blockSize;
};

RowLoop::RowLoop(ComputeOp op, const PlannedKernel &planned, unsigned loop,
                 const RunTimeLoop &blocks)
    : loop(loop), blocks(blocks), outputDim(*blocks.dims[2]) {
  unsigned packed = planned.kernel->packedInput();
  blockSize = runTimeBlock(planned.contraction, planned.kernel->plan(), loop);
  inputArg = 1 - packed;
  if (std::optional<unsigned> in = blocks.dims[inputArg])
    viewed.push_back({op.getInputMutable().getOperandNumber(), *in,
                      blocks.windows[inputArg]});
  viewed.push_back(
      {op.getOutputMutable().getOperandNumber(), outputDim, LoopWindow()});
  addEpilogueOperands(op);
}

void RowLoop::addEpilogueOperands(ComputeOp op) {
  linalg::GenericOp generic = op.getEpilogueOp();
  if (!generic)
    return;
  // A fused epilogue's generic runs over the output's dimensions (its map
  // for the output is the identity).
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineExpr along = getAffineDimExpr(outputDim, op.getContext());
  for (auto [i, operand] : llvm::enumerate(op.getEpilogueOperandsMutable()))
    if (std::optional<unsigned> dim = maps[i + 1].getResultPosition(along))
      viewed.push_back({operand.getOperandNumber(), *dim, LoopWindow()});
}

ComputeOp RowLoop::block(OpBuilder &b, Location loc, ComputeOp op,
                         Value start, int64_t size) const {
  SmallVector<Value> views;
  for (const Viewed &v : viewed) {
    // A window starts at the block's first iteration times its stride.
    Value first = v.window.stride == 1
                      ? start
                      : arith::MulIOp::create(b, loc, start,
                                              cIndex(b, loc, v.window.stride))
                            .getResult();
    views.push_back(subviewAlong(b, loc, op->getOperand(v.number), v.dim,
                                 first,
                                 b.getIndexAttr(v.window.extent(size))));
  }
  auto copy = cast<ComputeOp>(b.clone(*op));
  for (auto [view, v] : llvm::zip(views, viewed))
    copy->setOperand(v.number, view);
  markRunTime(b, copy.getContraction(), loop);
  retypeBlock(copy, blocks, inputArg, size);
  return copy;
}

void RowLoop::split(ComputeOp op) const {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value extent = memref::DimOp::create(b, loc, op.getOutput(), outputDim);
  Value block = cIndex(b, loc, blockSize);
  Value full = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, extent, block), block);
  scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), full, block, ValueRange{},
      [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
        this->block(b, loc, op, iv, blockSize);
        scf::YieldOp::create(b, loc);
      });
  // The remainder (< blockSize, so below twice the largest power of two
  // under blockSize: a block need not be a power of two), largest digit
  // first: the digit 2^j starts after `full` and the digits above it.
  Value rest = arith::SubIOp::create(b, loc, extent, full);
  for (int64_t size = int64_t(llvm::bit_floor(uint64_t(blockSize - 1)));
       size >= 1; size /= 2) {
    Value digit = arith::AndIOp::create(b, loc, rest, cIndex(b, loc, size));
    Value present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          digit, cIndex(b, loc, 0));
    Value above = arith::AndIOp::create(b, loc, rest,
                                        cIndex(b, loc, ~(2 * size - 1)));
    Value start = arith::AddIOp::create(b, loc, full, above);
    scf::IfOp::create(b, loc, present, [&](OpBuilder &b, Location loc) {
      this->block(b, loc, op, start, size);
      scf::YieldOp::create(b, loc);
    });
  }
  op.erase();
}

} // namespace

LogicalResult splitRows(ComputeOp op, const PlannedKernel &planned,
                        unsigned loop, const RunTimeLoop &blocks) {
  if (!blocks.dims[2])
    return op.emitOpError()
           << "loop " << planned.contraction.loops[loop].name
           << " has a dynamic extent but does not index the output";
  unsigned input = 1 - planned.kernel->packedInput();
  // The program's input is its operand's after a zero border: a block of a
  // bordered dimension would need a border of its own.
  std::optional<ArrayRef<int64_t>> padding = op.getInputPadding();
  if (padding && blocks.dims[input] && (*padding)[*blocks.dims[input]] != 0)
    return op.emitOpError()
           << "loop " << planned.contraction.loops[loop].name
           << " has a run-time extent and indexes a dimension of the input "
              "given without its zero border; pass the input padded";
  RowLoop(op, planned, loop, blocks).split(op);
  return success();
}

} // namespace split
} // namespace tisa
