//===- Evaluator.h - run a description's semantics on values ----*- C++ -*-===//
//
// The evaluator executes the body of a description exactly as described: the
// widths and signedness of the casts, wrap-around or saturation, and for
// floating point the accumulation order, rounding, denormal and NaN behaviour
// of the `fp` block. It is the reference every differential check compares the
// hardware (or QEMU, or an emulator) against.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_SEMANTICS_EVALUATOR_H
#define TISA_SEMANTICS_EVALUATOR_H

#include "tisa/Semantics/Layout.h"
#include "llvm/ADT/APFloat.h"

namespace tisa {

/// Result of the instruction on operands {lhs input, rhs input, accumulator};
/// each operand holds the same number of segments.
TensorValue evaluate(const Description &d,
                     llvm::ArrayRef<TensorValue> operands);

/// Floating-point arithmetic under a description's `fp` block (shared with the
/// matcher's relaxation checks and the tests).
class FloatModel {
public:
  explicit FloatModel(const FloatBehaviour &behaviour) : b(behaviour) {}
  /// Reads operand `operand` (0, 1: inputs in body order; 2: the
  /// accumulator) under its denormals-are-zero rule.
  llvm::APFloat input(llvm::APFloat x, unsigned operand) const;
  llvm::APFloat extend(llvm::APFloat x, const llvm::fltSemantics &to) const;
  llvm::APFloat mul(llvm::APFloat x, const llvm::APFloat &y) const;
  llvm::APFloat add(llvm::APFloat x, const llvm::APFloat &y) const;
  /// acc + x * y with one rounding.
  llvm::APFloat fma(llvm::APFloat acc, const llvm::APFloat &x,
                    const llvm::APFloat &y) const;

private:
  llvm::APFloat finish(llvm::APFloat r, llvm::APFloat::opStatus status) const;
  FloatBehaviour b;
};

const llvm::fltSemantics &semanticsOf(mlir::Type floatType);

/// Two result element bit patterns agree: equal bits, or both NaN when the
/// description lets NaN payloads propagate (the payload then depends on the
/// hardware's operand order, which no description states).
bool resultBitsAgree(const Description &d, uint64_t x, uint64_t y);

} // namespace tisa

#endif // TISA_SEMANTICS_EVALUATOR_H
