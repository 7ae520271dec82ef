//===- AffineEval.cpp - affine maps evaluated on integers -----------------===//

#include "tisa/Semantics/AffineEval.h"

#include "mlir/IR/AffineExpr.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir;

namespace tisa {

int64_t valueAt(AffineExpr e, ArrayRef<int64_t> dims) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    assert(d.getPosition() < dims.size() && "a dimension without a value");
    return dims[d.getPosition()];
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  assert(bin && "symbols have no value here");
  int64_t lhs = valueAt(bin.getLHS(), dims);
  int64_t rhs = valueAt(bin.getRHS(), dims);
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return lhs + rhs;
  case AffineExprKind::Mul:
    return lhs * rhs;
  default:
    break;
  }
  assert(rhs > 0 && "floordiv, ceildiv and mod need a positive divisor");
  switch (e.getKind()) {
  case AffineExprKind::FloorDiv:
    return llvm::divideFloorSigned(lhs, rhs);
  case AffineExprKind::CeilDiv:
    return llvm::divideCeilSigned(lhs, rhs);
  default: // Mod: never negative, as MLIR's
    return lhs - rhs * llvm::divideFloorSigned(lhs, rhs);
  }
}

SmallVector<int64_t> valueAt(AffineMap map, ArrayRef<int64_t> dims) {
  assert(map.getNumSymbols() == 0 && dims.size() == map.getNumDims() &&
         "one value per dimension and no symbols");
  SmallVector<int64_t> out;
  out.reserve(map.getNumResults());
  for (AffineExpr e : map.getResults())
    out.push_back(valueAt(e, dims));
  return out;
}

} // namespace tisa
