//===- Epilogue.cpp - a fused epilogue, applied in registers --------------===//

#include "tisa/Transforms/Epilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tisa {

namespace {

bool isScalar(Type t) { return t.isIntOrIndexOrFloat(); }

/// Why `inner` (an op of the body) cannot run on vectors, or "".
std::string unsupportedOp(Operation &inner) {
  StringRef dialect = inner.getName().getDialectNamespace();
  std::string name = inner.getName().getStringRef().str();
  if (dialect != "arith" && dialect != "math")
    return "its body uses " + name + " (only arith and math ops are applied "
           "in registers)";
  if (inner.getNumRegions() || !isMemoryEffectFree(&inner))
    return "its body's " + name + " has regions or memory effects";
  // Lanes past the row's end hold zeros: an integer division there would
  // divide by zero (undefined; a trap where it is scalarized).
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(inner))
    return "its body divides integers (" + name +
           "), which masked-off lanes would do by zero";
  for (Type t : llvm::concat<const Type>(inner.getOperandTypes(),
                                         inner.getResultTypes()))
    if (!isScalar(t))
      return "its body's " + name + " is not on scalars";
  return "";
}

} // namespace

Epilogue::Epilogue(linalg::GenericOp op, ValueRange values)
    : op(op), values(values.begin(), values.end()) {}

LogicalResult Epilogue::check(linalg::GenericOp op, std::string &why,
                              unsigned accIndex) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (op.getNumLoops() != op.getNumParallelLoops())
    return fail("it reduces (only elementwise ops are fused)");
  if (op.getNumDpsInits() != 1 || op.getNumDpsInputs() < 1)
    return fail("it does not read the accumulators and write one output");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[accIndex].isPermutation() || maps.back() != maps[accIndex])
    return fail("it does not write each accumulator in place of where it "
                "reads it (the same permutation for both)");
  for (OpOperand *operand : op.getDpsInputOperands()) {
    Type t = operand->get().getType();
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!isa<MemRefType>(t) && !isScalar(t))
      return fail("operand #" + Twine(operand->getOperandNumber()) +
                  " is neither a memref nor a scalar");
    if (!map.isProjectedPermutation())
      return fail("operand #" + Twine(operand->getOperandNumber()) +
                  " is not read at loop indices (a projected permutation)");
  }
  if (!isa<MemRefType>(op.getDpsInputs()[accIndex].getType()) ||
      !isa<MemRefType>(op.getDpsInits()[0].getType()))
    return fail("the accumulators or the output are not memrefs");
  for (Operation &inner : op.getBody()->without_terminator()) {
    std::string reason = unsupportedOp(inner);
    if (!reason.empty())
      return fail(reason);
  }
  return success();
}

LogicalResult Epilogue::checkLanes(unsigned dim, std::string &why) const {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned lane = maps[0].getDimPosition(dim);
  for (auto [i, map] : llvm::enumerate(maps)) {
    auto type = dyn_cast<MemRefType>(op->getOperand(i).getType());
    if (i == 0 || !type)
      continue;
    std::optional<unsigned> at = map.getResultPosition(
        getAffineDimExpr(lane, op.getContext()));
    if (!at)
      continue;
    if (*at + 1 != map.getNumResults() || !type.isLastDimUnitStride()) {
      why = "operand #" + std::to_string(i) +
            " does not run along the accumulator lanes contiguously (its "
            "innermost dimension, unit stride)";
      return failure();
    }
  }
  return success();
}

SmallVector<Value> Epilogue::loopIndices(ArrayRef<Value> at) const {
  AffineMap acc = op.getIndexingMapsArray()[0];
  SmallVector<Value> loops(op.getNumLoops());
  for (unsigned r = 0; r < acc.getNumResults(); ++r)
    loops[acc.getDimPosition(r)] = at[r];
  return loops;
}

/// A vector of `t` with `shape`'s lanes (fixed or scalable).
static VectorType lanesOf(VectorType shape, Type t) {
  return VectorType::get(shape.getShape(), t, shape.getScalableDims());
}

Value Epilogue::operandLanes(OpBuilder &b, Location loc, unsigned i,
                             ArrayRef<Value> loops, unsigned lane,
                             VectorType shape, Value mask) const {
  Value v = values[i];
  auto memref = dyn_cast<MemRefType>(v.getType());
  auto vec = lanesOf(shape, memref ? memref.getElementType() : v.getType());
  if (!memref)
    return vector::BroadcastOp::create(b, loc, vec, v);
  AffineMap map = op.getIndexingMapsArray()[i + 1];
  SmallVector<Value> at;
  bool alongLanes = false;
  for (unsigned r = 0; r < map.getNumResults(); ++r) {
    at.push_back(loops[map.getDimPosition(r)]);
    alongLanes |= map.getDimPosition(r) == lane;
  }
  if (!alongLanes)
    return vector::BroadcastOp::create(
        b, loc, vec, memref::LoadOp::create(b, loc, v, at));
  Value zeros = arith::ConstantOp::create(b, loc, vec, b.getZeroAttr(vec));
  return vector::MaskedLoadOp::create(b, loc, vec, v, at, mask, zeros);
}

void Epilogue::apply(OpBuilder &b, Location loc, Value acc, ArrayRef<Value> at,
                     unsigned dim, Value mask) const {
  auto shape = cast<VectorType>(acc.getType());
  unsigned lane = op.getIndexingMapsArray()[0].getDimPosition(dim);
  SmallVector<Value> loops = loopIndices(at);
  Block *body = op.getBody();
  IRMapping map;
  map.map(body->getArgument(0), acc);
  for (unsigned i = 1; i < body->getNumArguments(); ++i)
    if (!body->getArgument(i).use_empty())
      map.map(body->getArgument(i),
              operandLanes(b, loc, i - 1, loops, lane, shape, mask));
  auto toVector = [&](Value v) -> Value {
    Value mapped = map.lookupOrDefault(v);
    if (isa<VectorType>(mapped.getType()))
      return mapped;
    return vector::BroadcastOp::create(b, loc,
                                       lanesOf(shape, mapped.getType()), mapped);
  };
  for (Operation &inner : body->without_terminator()) {
    Attribute value;
    if (matchPattern(&inner, m_Constant(&value))) {
      auto type = lanesOf(shape, inner.getResult(0).getType());
      map.map(inner.getResult(0),
              arith::ConstantOp::create(
                  b, loc, type,
                  SplatElementsAttr::get(type, cast<TypedAttr>(value))));
      continue;
    }
    OperationState state(loc, inner.getName());
    for (Value v : inner.getOperands())
      state.addOperands(toVector(v));
    for (Type t : inner.getResultTypes())
      state.addTypes(lanesOf(shape, t));
    state.addAttributes(inner.getAttrs());
    Operation *vectorOp = b.create(state);
    map.map(inner.getResults(), vectorOp->getResults());
  }
  Value result = toVector(body->getTerminator()->getOperand(0));
  AffineMap out = op.getIndexingMapsArray().back();
  SmallVector<Value> outAt;
  for (unsigned r = 0; r < out.getNumResults(); ++r)
    outAt.push_back(loops[out.getDimPosition(r)]);
  vector::MaskedStoreOp::create(b, loc, output(), outAt, mask, result);
}

void Epilogue::applyScalar(OpBuilder &b, Location loc, Value acc,
                           ArrayRef<Value> at, const IRMapping &outside) const {
  SmallVector<Value> loops = loopIndices(at);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto indices = [&](AffineMap map) {
    SmallVector<Value> out;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      out.push_back(loops[map.getDimPosition(r)]);
    return out;
  };
  Block *body = op.getBody();
  IRMapping map = outside;
  map.map(body->getArgument(0), acc);
  for (unsigned i = 1; i < body->getNumArguments(); ++i) {
    Value v = values[i - 1];
    if (body->getArgument(i).use_empty())
      continue;
    map.map(body->getArgument(i),
            isa<MemRefType>(v.getType())
                ? Value(memref::LoadOp::create(b, loc, v, indices(maps[i])))
                : v);
  }
  for (Operation &inner : body->without_terminator())
    b.clone(inner, map);
  memref::StoreOp::create(
      b, loc, map.lookupOrDefault(body->getTerminator()->getOperand(0)),
      output(), indices(maps.back()));
}

SmallVector<Value> Epilogue::capturedValues() const {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(op->getRegion(0), used);
  return SmallVector<Value>(used.begin(), used.end());
}

void Epilogue::applyToBuffer(OpBuilder &b, Value accumulators) const {
  IRMapping map;
  Block *region = op->getBlock();
  map.map(region->getArgument(0), accumulators);
  for (unsigned i = 1; i < region->getNumArguments(); ++i)
    map.map(region->getArgument(i), values[i - 1]);
  b.clone(*op.getOperation(), map);
}

} // namespace tisa
