//===- CodegenUtils.h - small IR builders every generator uses --*- C++ -*-===//
//
// Private to transforms/: constants, loop nests and affine helpers shared by
// the lane-dot (LaneDot*.cpp) and tile (Tile*.cpp) generators. Every file
// that includes it works in MLIR's namespace.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_CODEGENUTILS_H
#define TISA_TRANSFORMS_CODEGENUTILS_H

#include "tisa/Matcher/Matcher.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/AffineMap.h"

#include <optional>

namespace tisa {

using namespace mlir;

namespace codegen {

/// An index constant, and an integer constant of type `t`.
Value cIndex(OpBuilder &b, Location loc, int64_t v);
Value cInt(OpBuilder &b, Location loc, Type t, int64_t v);
/// The indices `map` gives for loop values `ivs` (one per program loop).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs);
/// A loop nest over `extents` (constant bounds, step 1); `body` gets the
/// induction variables.
void loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
              function_ref<void(OpBuilder &, Location, ValueRange)> body);
/// The coefficients of the loops in `e` and, last, its constant, when `e`
/// is a sum of loops times constants.
std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr e,
                                                       unsigned loops);
/// Whether the operand's last dimension is contiguous.
bool isIdentityStride(const ProgramOperand &o);
/// The loops of a projected permutation `map` other than `besides`, in the
/// map's order (a packed operand's outer loops).
SmallVector<unsigned> loopsBesides(AffineMap map, ArrayRef<unsigned> besides);

} // namespace codegen

using codegen::applyMap;
using codegen::cIndex;
using codegen::cInt;
using codegen::isIdentityStride;
using codegen::linearCoefficients;
using codegen::loopNest;
using codegen::loopsBesides;

} // namespace tisa

#endif // TISA_TRANSFORMS_CODEGENUTILS_H
