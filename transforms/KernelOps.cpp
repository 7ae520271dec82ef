//===- KernelOps.cpp - building tisa.pack and tisa.compute ----------------===//
//
// A planned contraction's two halves as ops, each around its own clone of the
// contraction (which names the plan and schedule both must agree on).
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/PlanSelection.h"

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
      b, loc, input, buffer, output, range, ValueRange{}, overwrite,
      inputPadding.empty() ? DenseI64ArrayAttr()
                           : b.getDenseI64ArrayAttr(inputPadding));
  cloneInto(b, op.getProgram(), contraction);
  return op;
}

} // namespace tisa
