//===- SplitPadded.cpp - run-time extents of the packed input in blocks ---===//
//
// -tisa-split-dynamic's split along a loop the packed input or the
// reduction depends on (a GEMM's N and K): a loop over whole blocks of
// runTimeBlock iterations. Each block's pack or compute is the static kernel
// of that block on its own part of the packed buffer (block i of the loop
// at i times the block's bytes). The last block may be partial: it runs on
// zero-padded copies of the operands the loop indexes, and a partial
// output is copied back. A reduction's blocks accumulate: an overwriting
// compute zeroes its output first.
//
//===----------------------------------------------------------------------===//

#include "SplitDynamic.h"

#include "CodegenUtils.h"

namespace tisa {
namespace split {
namespace {

/// One operand of the op the loop indexes.
struct Viewed {
  unsigned number; ///< operand number in the op
  unsigned dim;
  bool output;
};

/// `type` with `size` in `dim` and a layout any view of that shape casts
/// to: dynamic offset and strides, but a unit innermost stride kept (the
/// packs read contiguous lanes).
MemRefType blockType(MemRefType type, unsigned dim, int64_t size) {
  SmallVector<int64_t> shape(type.getShape()), strides;
  shape[dim] = size;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  bool unit = !strides.empty() && strides.back() == 1;
  SmallVector<int64_t> dynamic(shape.size(), ShapedType::kDynamic);
  if (unit)
    dynamic.back() = 1;
  auto layout = StridedLayoutAttr::get(type.getContext(),
                                       ShapedType::kDynamic, dynamic);
  return MemRefType::get(shape, type.getElementType(), layout,
                         type.getMemorySpace());
}

/// The operand number of a tisa.pack's or tisa.compute's packed buffer.
unsigned bufferOperand(Operation *op) {
  if (auto pack = dyn_cast<PackOp>(op))
    return pack.getBufferMutable().getOperandNumber();
  return cast<ComputeOp>(op).getBufferMutable().getOperandNumber();
}

/// `compute` needs only the first `size` iterations of `loop` (the rest of
/// its block is padding): tisa.compute's `active`.
void setActive(OpBuilder &b, ComputeOp compute, unsigned loop, Value size) {
  SmallVector<int64_t> loops(compute.getActiveLoops().value_or(
      ArrayRef<int64_t>()));
  SmallVector<Value> values(compute.getActive());
  loops.push_back(loop);
  values.push_back(size);
  compute.getActiveMutable().assign(values);
  compute.setActiveLoops(b.getDenseI64ArrayAttr(loops));
}

class PaddedLoop {
public:
  PaddedLoop(Operation *op, const PlannedKernel &planned, unsigned loop,
             const RunTimeLoop &blocks);

  /// Replaces `op` by the loop over its blocks.
  void split(Operation *op) const;

private:
  /// Zero-initialized (inputs) staging buffers of a block's shape, one per
  /// viewed operand, for the last block.
  SmallVector<Value> allocStaging(OpBuilder &b, Location loc,
                                  Operation *op) const;
  /// The block at `start` of `size` (== blockSize when `whole`).
  void block(OpBuilder &b, Location loc, Operation *op, Value start,
             Value size, Value whole, ArrayRef<Value> staging,
             Value bufferAt) const;
  /// Operand `v` of the block: its view, or the staging copy.
  Value view(OpBuilder &b, Location loc, Operation *op, const Viewed &v,
             Value staging, Value start, Value size, Value whole) const;
  /// The bytes of one block's part of the packed buffer.
  Value blockBytes(OpBuilder &b, Location loc, Operation *op) const;
  /// Zeroes the output an accumulating split starts from: the iterations
  /// of the loops `compute` has active, all of the others.
  void zeroActiveOutput(OpBuilder &b, Location loc, ComputeOp compute) const;
  /// The op's operands as the program's arguments (null where absent).
  SmallVector<Value, 3> programOperands(Operation *op) const;

  const PlannedKernel &planned;
  unsigned loop;
  RunTimeLoop blocks; ///< per operand: the dimension the loop indexes
  SmallVector<Viewed> viewed;
  unsigned operandArg; ///< the program argument the op's input or source is
  bool slicesBuffer;   ///< whether each block has its part of the buffer
  bool accumulates;    ///< a reduction's blocks
  int64_t blockSize;
};

PaddedLoop::PaddedLoop(Operation *op, const PlannedKernel &planned,
                       unsigned loop, const RunTimeLoop &blocks)
    : planned(planned), loop(loop), blocks(blocks) {
  unsigned packed = planned.kernel->packedInput();
  blockSize = runTimeBlock(planned.contraction, planned.kernel->plan(), loop);
  slicesBuffer = blocks.dims[packed].has_value();
  accumulates = planned.contraction.loops[loop].reduction;
  if (auto pack = dyn_cast<PackOp>(op)) {
    operandArg = packed;
    viewed.push_back({pack.getSourceMutable().getOperandNumber(),
                      *blocks.dims[packed], false});
    return;
  }
  auto compute = cast<ComputeOp>(op);
  operandArg = 1 - packed;
  if (std::optional<unsigned> d = blocks.dims[operandArg])
    viewed.push_back({compute.getInputMutable().getOperandNumber(), *d, false});
  std::optional<unsigned> out = blocks.dims[2];
  if (!out)
    return;
  viewed.push_back({compute.getOutputMutable().getOperandNumber(), *out, true});
  if (linalg::GenericOp generic = compute.getEpilogueOp()) {
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    AffineExpr along = getAffineDimExpr(*out, op->getContext());
    for (auto [i, o] : llvm::enumerate(compute.getEpilogueOperandsMutable()))
      if (std::optional<unsigned> d = maps[i + 1].getResultPosition(along))
        viewed.push_back({o.getOperandNumber(), *d, false});
  }
}

void PaddedLoop::zeroActiveOutput(OpBuilder &b, Location loc,
                                  ComputeOp compute) const {
  Value out = compute.getOutput();
  // An outer split's partial block: only its active part is copied back.
  ArrayRef<int64_t> loops =
      compute.getActiveLoops().value_or(ArrayRef<int64_t>());
  for (auto [l, size] : llvm::zip(loops, compute.getActive())) {
    std::string why;
    FailureOr<RunTimeLoop> outer = runTimeLoopBlocks(
        planned.contraction, planned.kernel->packedInput(), l, why);
    if (succeeded(outer) && outer->dims[2])
      out = subviewAlong(b, loc, out, *outer->dims[2], b.getIndexAttr(0),
                         size);
  }
  Type elt = cast<MemRefType>(out.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, elt,
                                         cast<TypedAttr>(b.getZeroAttr(elt)));
  linalg::FillOp::create(b, loc, zero, out);
}

SmallVector<Value, 3> PaddedLoop::programOperands(Operation *op) const {
  SmallVector<Value, 3> operands(3);
  if (auto pack = dyn_cast<PackOp>(op)) {
    operands[operandArg] = pack.getSource();
    return operands;
  }
  auto compute = cast<ComputeOp>(op);
  if (!compute.getInputPadding())
    operands[operandArg] = compute.getInput();
  // With an epilogue the output is its result, of the accumulators' shape.
  operands[2] = compute.getOutput();
  return operands;
}

Value PaddedLoop::blockBytes(OpBuilder &b, Location loc, Operation *op) const {
  SmallVector<Value, 3> operands = programOperands(op);
  // The buffer's bytes with this loop's extent one block.
  return packedBufferBytes(b, loc, planned, [&](unsigned l) {
    return l == loop ? cIndex(b, loc, blockSize)
                     : loopExtent(b, loc, planned.contraction, operands, l);
  });
}

SmallVector<Value> PaddedLoop::allocStaging(OpBuilder &b, Location loc,
                                            Operation *op) const {
  SmallVector<Value> staging;
  for (const Viewed &v : viewed) {
    Value operand = op->getOperand(v.number);
    auto type = cast<MemRefType>(operand.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[v.dim] = blockSize;
    SmallVector<Value> sizes;
    for (auto [d, e] : llvm::enumerate(shape))
      if (e == ShapedType::kDynamic)
        sizes.push_back(memref::DimOp::create(b, loc, operand, d));
    Value s = memref::AllocOp::create(
        b, loc, MemRefType::get(shape, type.getElementType()), sizes,
        b.getI64IntegerAttr(64));
    staging.push_back(s);
  }
  return staging;
}

Value PaddedLoop::view(OpBuilder &b, Location loc, Operation *op,
                       const Viewed &v, Value staging, Value start,
                       Value size, Value whole) const {
  Value operand = op->getOperand(v.number);
  auto type = blockType(cast<MemRefType>(operand.getType()), v.dim, blockSize);
  bool copyIn = !v.output || !cast<ComputeOp>(op).getOverwrite();
  auto onWhole = [&](OpBuilder &b, Location loc) {
    Value part = subviewAlong(b, loc, operand, v.dim, start,
                              b.getIndexAttr(blockSize));
    scf::YieldOp::create(b, loc,
                         Value(memref::CastOp::create(b, loc, type, part)));
  };
  auto onPart = [&](OpBuilder &b, Location loc) {
    // Past the operand's end the block reads zeros, which contribute
    // nothing (an output's padding is never copied back); the copy below
    // writes the rest.
    if (!v.output) {
      Type elt = type.getElementType();
      Value zero = arith::ConstantOp::create(
          b, loc, elt, cast<TypedAttr>(b.getZeroAttr(elt)));
      Value padding = arith::SubIOp::create(
          b, loc, cIndex(b, loc, blockSize), size);
      linalg::FillOp::create(
          b, loc, zero, subviewAlong(b, loc, staging, v.dim, size, padding));
    }
    if (copyIn)
      linalg::CopyOp::create(
          b, loc, subviewAlong(b, loc, operand, v.dim, start, size),
          subviewAlong(b, loc, staging, v.dim, b.getIndexAttr(0), size));
    scf::YieldOp::create(b, loc,
                         Value(memref::CastOp::create(b, loc, type, staging)));
  };
  return scf::IfOp::create(b, loc, whole, onWhole, onPart).getResult(0);
}

void PaddedLoop::block(OpBuilder &b, Location loc, Operation *op, Value start,
                       Value size, Value whole, ArrayRef<Value> staging,
                       Value bufferAt) const {
  SmallVector<Value> views;
  for (auto [v, s] : llvm::zip(viewed, staging))
    views.push_back(view(b, loc, op, v, s, start, size, whole));
  Operation *copy = b.clone(*op);
  for (auto [v, value] : llvm::zip(viewed, views))
    copy->setOperand(v.number, value);
  if (slicesBuffer)
    copy->setOperand(bufferOperand(copy), bufferAt);
  if (auto compute = dyn_cast<ComputeOp>(copy)) {
    if (accumulates)
      compute.setOverwrite(false);
    setActive(b, compute, loop, size);
  }
  linalg::LinalgOp contraction =
      cast<linalg::LinalgOp>(copy->getRegion(0).front().front());
  markRunTime(b, contraction, loop);
  retypeBlock(copy, blocks, operandArg, blockSize);
  // A partial output goes back to its place.
  if (llvm::none_of(viewed, [](const Viewed &v) { return v.output; }))
    return;
  b.setInsertionPointAfter(copy);
  Value partial = arith::XOrIOp::create(
      b, loc, whole, arith::ConstantIntOp::create(b, loc, 1, 1));
  for (auto [i, v] : llvm::enumerate(viewed)) {
    if (!v.output)
      continue;
    Value from = staging[i], to = op->getOperand(v.number);
    unsigned dim = v.dim;
    scf::IfOp::create(b, loc, partial, [&](OpBuilder &b, Location loc) {
      linalg::CopyOp::create(
          b, loc, subviewAlong(b, loc, from, dim, b.getIndexAttr(0), size),
          subviewAlong(b, loc, to, dim, start, size));
      scf::YieldOp::create(b, loc);
    });
  }
}

void PaddedLoop::split(Operation *op) const {
  OpBuilder b(op);
  Location loc = op->getLoc();
  SmallVector<Value, 3> operands = programOperands(op);
  Value extent = loopExtent(b, loc, planned.contraction, operands, loop);
  Value blockExtent = cIndex(b, loc, blockSize);
  Value blocks = arith::CeilDivUIOp::create(b, loc, extent, blockExtent);
  auto compute = dyn_cast<ComputeOp>(op);
  if (compute && accumulates && compute.getOverwrite())
    zeroActiveOutput(b, loc, compute);
  SmallVector<Value> staging = allocStaging(b, loc, op);
  Value bytes = slicesBuffer ? blockBytes(b, loc, op) : Value();
  Value buffer = op->getOperand(bufferOperand(op));
  std::optional<int64_t> staticBytes = getConstantIntValue(bytes);
  scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), blocks, cIndex(b, loc, 1), ValueRange{},
      [&](OpBuilder &b, Location loc, Value i, ValueRange) {
        Value start = arith::MulIOp::create(b, loc, i, blockExtent);
        Value size = arith::MinUIOp::create(
            b, loc, blockExtent, arith::SubIOp::create(b, loc, extent, start));
        Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            size, blockExtent);
        Value bufferAt;
        if (slicesBuffer) {
          Value shift = arith::MulIOp::create(b, loc, i, bytes);
          auto type = MemRefType::get(
              {staticBytes.value_or(ShapedType::kDynamic)}, b.getI8Type());
          bufferAt = memref::ViewOp::create(
              b, loc, type, buffer, shift,
              staticBytes ? ValueRange{} : ValueRange{bytes});
        }
        block(b, loc, op, start, size, whole, staging, bufferAt);
        scf::YieldOp::create(b, loc);
      });
  for (Value s : staging)
    memref::DeallocOp::create(b, loc, s);
  op->erase();
}

} // namespace

LogicalResult splitPadded(Operation *op, const PlannedKernel &planned,
                          unsigned loop, const RunTimeLoop &blocks) {
  const Contraction &c = planned.contraction;
  auto compute = dyn_cast<ComputeOp>(op);
  if (compute && c.loops[loop].reduction && compute.getEpilogueOp())
    return op->emitOpError()
           << "reduction loop " << c.loops[loop].name
           << " has a run-time extent: its blocks accumulate in memory, so a "
              "fused epilogue cannot run on the accumulators";
  if (compute && compute.getInputPadding() &&
      blocks.dims[1 - planned.kernel->packedInput()])
    return op->emitOpError()
           << "loop " << c.loops[loop].name
           << " has a run-time extent and indexes an input given without its "
              "zero border";
  PaddedLoop(op, planned, loop, blocks).split(op);
  return success();
}

} // namespace split
} // namespace tisa
