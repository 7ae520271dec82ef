//===- ArithmeticFlags.cpp - flags a description's semantics may not carry ===//

#include "tisa/Semantics/Description.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace tisa {

/// The semantics state what the hardware computes, which is defined for
/// every input: an overflow flag (nsw, nuw: overflow is undefined) or a
/// fast-math flag (NaNs or infinities assumed away, reassociation allowed)
/// says less, and the evaluator and the matcher ignored them. Saturation,
/// accumulation order and NaN handling are the metadata's.
LogicalResult refuseUndefinedArithmetic(linalg::GenericOp generic) {
  WalkResult walk = generic.getRegion().walk([&](Operation *op) {
    if (auto flags = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op);
        flags && flags.getOverflowAttr().getValue() !=
                     arith::IntegerOverflowFlags::none) {
      op->emitError() << op->getName()
                      << " carries overflow flags, which make overflow "
                         "undefined; the instruction's arithmetic wraps (or "
                         "saturates, as 'saturation' says): drop them";
      return WalkResult::interrupt();
    }
    if (auto fm = dyn_cast<arith::ArithFastMathInterface>(op);
        fm && fm.getFastMathFlagsAttr() &&
        fm.getFastMathFlagsAttr().getValue() != arith::FastMathFlags::none) {
      op->emitError() << op->getName()
                      << " carries fast-math flags; the instruction's "
                         "floating-point behaviour is the 'fp' metadata's "
                         "(accumulation, rounding, denormals, nan): drop them";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace tisa
