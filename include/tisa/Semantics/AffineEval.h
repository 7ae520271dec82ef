//===- AffineEval.h - affine maps evaluated on integers ---------*- C++ -*-===//
//
// The value of an affine map at an integer point, computed on int64_t.
// `AffineMap::compose(ArrayRef<int64_t>)` gives the same numbers by building,
// uniquing and simplifying constant expressions in the MLIRContext, which
// costs microseconds per point: loading the descriptions (every layout's
// injectivity over every element), the evaluator and the generators walk
// thousands of points.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_SEMANTICS_AFFINEEVAL_H
#define TISA_SEMANTICS_AFFINEEVAL_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

namespace tisa {

/// `e` at dimension values `dims`. Symbols are not allowed, and the divisor
/// of a floordiv, ceildiv or mod must be positive, as for
/// `AffineMap::compose` (a layout is checked for that when it is loaded).
int64_t valueAt(mlir::AffineExpr e, llvm::ArrayRef<int64_t> dims);

/// Every result of `map` at `dims` (map.getNumDims() values).
llvm::SmallVector<int64_t> valueAt(mlir::AffineMap map,
                                   llvm::ArrayRef<int64_t> dims);

} // namespace tisa

#endif // TISA_SEMANTICS_AFFINEEVAL_H
