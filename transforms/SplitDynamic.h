//===- SplitDynamic.h - -tisa-split-dynamic's pieces ------------*- C++ -*-===//
//
// Private to transforms/: the two ways -tisa-split-dynamic runs a loop of
// run-time extent in static blocks (RunTimeLoop::padded), and what both do
// to a block's copy of a tisa.pack or tisa.compute.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_SPLITDYNAMIC_H
#define TISA_TRANSFORMS_SPLITDYNAMIC_H

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tisa {
namespace split {

using namespace mlir;

/// `v` at [start, start + size) along `dim`, whole in the others.
Value subviewAlong(OpBuilder &b, Location loc, Value v, unsigned dim,
                   OpFoldResult start, OpFoldResult size);

/// Marks the contraction of a block's copy as planned with `loop` (and the
/// loops marked before) of run-time extent, as the program was.
void markRunTime(OpBuilder &b, linalg::LinalgOp contraction, unsigned loop);

/// A block's copy of a tisa.pack or tisa.compute whose operands are already
/// the block's: its program's arguments take the extent of `size`
/// iterations in the dimensions `blocks` gives (per argument: inputs,
/// output; a window's extent in a window), the input it passes as it is
/// the operand's type exactly (`operandArg`: that argument), and a
/// compute's epilogue region the types of its operands.
void retypeBlock(Operation *copy, const RunTimeLoop &blocks,
                 unsigned operandArg, int64_t size);

/// Splits `op` (a tisa.compute) along a loop whose blocks are rows (full
/// blocks, then the remainder's binary digits), when `loop` is one; else
/// nothing. Failure after an error on `op`.
LogicalResult splitRows(ComputeOp op, const PlannedKernel &planned,
                        unsigned loop, const RunTimeLoop &blocks);

/// Splits `op` (a tisa.pack or tisa.compute) along a loop the packed input
/// or the reduction depends on: whole blocks, the last one on zero-padded
/// copies, each block on its own part of the packed buffer. Failure after
/// an error on `op`.
LogicalResult splitPadded(Operation *op, const PlannedKernel &planned,
                          unsigned loop, const RunTimeLoop &blocks);

} // namespace split
} // namespace tisa

#endif // TISA_TRANSFORMS_SPLITDYNAMIC_H
