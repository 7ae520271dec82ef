//===- Epilogue.h - a fused epilogue, applied in registers ------*- C++ -*-===//
//
// The elementwise consumer of a contraction's output (bias, ReLU, clamp,
// residual add, requantization, a narrower output type) as a code generator
// applies it: to a vector of accumulators still in registers, before the one
// store of the result. It is the linalg.generic of a tisa.compute's epilogue
// region (made by -tisa-fuse-epilogue); its scalar body is applied lane by
// lane as the same ops on vectors.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_EPILOGUE_H
#define TISA_TRANSFORMS_EPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <string>

namespace tisa {

class Epilogue {
public:
  /// `op` reads the accumulators (input 0), then the operands `values`
  /// stands for, and writes the output, the last of `values`.
  Epilogue(mlir::linalg::GenericOp op, mlir::ValueRange values);

  /// Whether `op` can be applied to accumulators in registers (its input
  /// `accIndex`): elementwise
  /// (every loop parallel), the accumulators read through a permutation and
  /// written through the same map, a body of scalar arith and math ops
  /// without memory effects (no linalg.index), memref or scalar operands;
  /// else why (one line).
  static mlir::LogicalResult check(mlir::linalg::GenericOp op,
                                   std::string &why, unsigned accIndex = 0);

  /// Whether accumulators held in vectors along dimension `dim` of the
  /// contraction's output can be applied: every memref operand and the
  /// output read that dimension as their innermost one, with unit stride, or
  /// not at all (a bias per column broadcast to every row); else why.
  mlir::LogicalResult checkLanes(unsigned dim, std::string &why) const;

  /// Applies the epilogue to `acc`, a vector of the accumulators at index
  /// `at` of the contraction's output and the next ones along dimension
  /// `dim`, and stores the result to the output's lanes under `mask`
  /// (vector<L x i1>): operands along `dim` are loaded under the same mask,
  /// the others loaded once and broadcast.
  void apply(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
             mlir::ArrayRef<mlir::Value> at, unsigned dim,
             mlir::Value mask) const;

  /// Applies the epilogue to one accumulator `acc` (a scalar) at index `at`
  /// of the contraction's output and stores the result to the output;
  /// operands are loaded at their indices, and `outside` maps the values
  /// of the enclosing function the body uses (capturedValues()).
  void applyScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                   mlir::ArrayRef<mlir::Value> at,
                   const mlir::IRMapping &outside) const;

  /// The values defined outside the generic that its body uses (a zero
  /// point passed to the enclosing function), in a stable order.
  llvm::SmallVector<mlir::Value> capturedValues() const;

  /// The same, unfused: the generic on `accumulators` (a buffer of the
  /// contraction's output) in place of the region's first argument.
  void applyToBuffer(mlir::OpBuilder &b, mlir::Value accumulators) const;

  mlir::Value output() const { return values.back(); }
  mlir::linalg::GenericOp generic() const { return op; }

private:
  /// The generic's loop indices for index `at` of the accumulators.
  llvm::SmallVector<mlir::Value> loopIndices(mlir::ArrayRef<mlir::Value> at) const;
  /// The lanes of operand `i` (region argument i + 1) as a vector of
  /// `shape`'s lanes (fixed or scalable).
  mlir::Value operandLanes(mlir::OpBuilder &b, mlir::Location loc, unsigned i,
                           llvm::ArrayRef<mlir::Value> loops, unsigned lane,
                           mlir::VectorType shape, mlir::Value mask) const;

  mutable mlir::linalg::GenericOp op;
  llvm::SmallVector<mlir::Value> values;
};

} // namespace tisa

#endif // TISA_TRANSFORMS_EPILOGUE_H
