//===- KernelOps.cpp - building tisa.pack and tisa.compute ----------------===//
//
// A planned contraction's two halves as ops, each around its own clone of the
// contraction (which names the plan and schedule both must agree on).
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/PlanSelection.h"

#include "CodegenUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace tisa {

namespace {

/// Fills `region` with one block whose arguments are `contraction`'s
/// operands' types and whose only op is a clone of it on them.
void cloneInto(OpBuilder &b, Region &region, linalg::LinalgOp contraction) {
  SmallVector<Value> operands(contraction.getDpsInputs());
  operands.push_back(contraction.getDpsInits()[0]);
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (Value v : operands) {
    types.push_back(v.getType());
    locs.push_back(contraction.getLoc());
  }
  OpBuilder::InsertionGuard guard(b);
  Block *block = b.createBlock(&region, {}, types, locs);
  IRMapping map;
  map.map(operands, block->getArguments());
  b.clone(*contraction.getOperation(), map);
}

} // namespace

PackOp buildPack(OpBuilder &b, Location loc, linalg::LinalgOp contraction,
                 Value src, Value buffer) {
  auto op = PackOp::create(b, loc, src, buffer);
  cloneInto(b, op.getProgram(), contraction);
  return op;
}

ComputeOp buildCompute(OpBuilder &b, Location loc,
                       linalg::LinalgOp contraction, Value input, Value buffer,
                       Value output, bool overwrite, Value begin, Value end,
                       ArrayRef<int64_t> inputPadding) {
  SmallVector<Value> range;
  if (begin)
    range = {begin, end};
  auto op = ComputeOp::create(
      b, loc, input, buffer, output, range, ValueRange{}, ValueRange{},
      overwrite,
      inputPadding.empty() ? DenseI64ArrayAttr()
                           : b.getDenseI64ArrayAttr(inputPadding),
      DenseI64ArrayAttr());
  cloneInto(b, op.getProgram(), contraction);
  return op;
}

SmallVector<unsigned> runTimePackedLoops(const Contraction &c,
                                         const KernelGenerator &kernel) {
  const ProgramOperand &packed = c.operands[kernel.packedInput()];
  SmallVector<unsigned> loops;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.runsInBlocks() && packed.dimOf(l))
      loops.push_back(l);
  return loops;
}

Value loopExtent(OpBuilder &b, Location loc, const Contraction &c,
                 ArrayRef<Value> operands, unsigned loop) {
  for (auto [o, v] : llvm::zip(c.operands, operands))
    if (std::optional<unsigned> d = o.dimOf(loop); d && v)
      return b.createOrFold<memref::DimOp>(loc, v, *d); // static: a constant
  llvm_unreachable("no operand has the loop as a dimension");
}

int64_t packedBufferBytes(const Contraction &c, const KernelGenerator &kernel,
                          const Schedule &s) {
  int64_t bytes = kernel.packedBytes(s);
  for (unsigned l : runTimePackedLoops(c, kernel)) {
    if (c.loops[l].extent == kDynamic)
      return kDynamic;
    bytes *= llvm::divideCeil(c.loops[l].extent,
                              runTimeBlock(c, kernel.plan(), l));
  }
  return bytes;
}

Value packedBufferBytes(OpBuilder &b, Location loc, const Contraction &c,
                        const KernelGenerator &kernel, const Schedule &s,
                        function_ref<Value(unsigned)> extent) {
  Value bytes = cIndex(b, loc, kernel.packedBytes(s));
  for (unsigned l : runTimePackedLoops(c, kernel)) {
    int64_t block = runTimeBlock(c, kernel.plan(), l);
    // Folded: a loop whose extent is one block (a block of
    // -tisa-split-dynamic) or static (a loop run in static blocks) keeps
    // the bytes static.
    Value blocks = b.createOrFold<arith::CeilDivUIOp>(loc, extent(l),
                                                      cIndex(b, loc, block));
    bytes = b.createOrFold<arith::MulIOp>(loc, bytes, blocks);
  }
  return bytes;
}

} // namespace tisa
