//===- Contraction.h - a kernel spec as a linalg contraction -----*- C++ -*-===//
//
// Shared by the CPU library builder (KernelLibrary.cpp) and the GPU one
// (GpuKernelLibrary.cpp): the MLIR element type of a kernel element kind, the
// operand shapes of a spec (conv2d's input padded), and the spec's
// contraction as a linalg.generic.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_CONTRACTION_H
#define TISA_KERNELS_CONTRACTION_H

#include "tisa/Kernels/Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace tisa {

mlir::Type kernelElementType(mlir::MLIRContext *ctx, ElementKind k);

/// Shapes of the program's operands (the convolution's input is padded); a
/// run-time extent (KernelSpec::runTimeRows) is dynamic.
struct ProgramShapes {
  llvm::SmallVector<int64_t> in, weights, out;
};
ProgramShapes programShapes(const KernelSpec &s);

/// The contraction of `s` as a linalg.generic on `in`, `weights`, `out`.
mlir::linalg::GenericOp buildKernelContraction(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               const KernelSpec &s,
                                               mlir::Value in,
                                               mlir::Value weights,
                                               mlir::Value out);

} // namespace tisa

#endif // TISA_KERNELS_CONTRACTION_H
