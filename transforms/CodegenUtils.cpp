//===- CodegenUtils.cpp - small IR builders every generator uses ----------===//

#include "CodegenUtils.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tisa {
namespace codegen {

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value cInt(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

/// The indices `map` gives for loop values `ivs` (one per program loop).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults())
    out.push_back(affine::expandAffineExpr(b, loc, e, ivs, {}));
  return out;
}

/// A loop nest over `extents` (constant bounds, step 1); `body` gets the
/// induction variables.
void loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
              function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t e : extents) {
    lbs.push_back(cIndex(b, loc, 0));
    ubs.push_back(cIndex(b, loc, e));
    steps.push_back(cIndex(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// The coefficients of the loops in `e` and, last, its constant, when `e`
/// is a sum of loops times constants.
std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr e,
                                                       unsigned loops) {
  // Upstream's flattening: [dims..., locals for floordiv/mod..., constant].
  SmallVector<int64_t> flat;
  if (failed(getFlattenedAffineExpr(e, loops, /*numSymbols=*/0, &flat)) ||
      flat.size() != loops + 1)
    return std::nullopt;
  return flat;
}

bool isIdentityStride(const ProgramOperand &o) {
  return !o.strides.empty() && o.strides.back() == 1;
}

SmallVector<unsigned> loopsBesides(AffineMap map, ArrayRef<unsigned> besides) {
  SmallVector<unsigned> loops;
  for (AffineExpr e : map.getResults()) {
    unsigned l = cast<AffineDimExpr>(e).getPosition();
    if (!llvm::is_contained(besides, l))
      loops.push_back(l);
  }
  return loops;
}

} // namespace codegen
} // namespace tisa
