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

/// How a conv2d's program reduces over a filter row. `Pixels`: loops (n, oh,
/// ow, f, kh, kw, c), as linalg.conv_2d_nhwc_hwcf. `TapRows`: kw and c as one
/// reduction loop t of s * c elements, (n, oh, ow, f, kh, t): in a dense
/// NHWC image the taps of one filter row are s * c contiguous elements, so
/// the input is read through a view [n][h][ow][s*c] whose rows overlap
/// (strides h*w*c, w*c, stride*c, 1) and the filter [r][s][c][f] as
/// [r][s*c][f]. With few channels (ResNet-50's first layer: c = 3) the
/// instruction's groups then cover a row of 21 taps instead of each pixel's
/// 3 channels. A GEMM has one form.
enum class ConvForm { Pixels, TapRows };

/// Shapes of the program's operands (the convolution's input is padded); a
/// run-time extent (KernelSpec::runTimeRows) is dynamic.
struct ProgramShapes {
  llvm::SmallVector<int64_t> in, weights, out;
};
ProgramShapes programShapes(const KernelSpec &s,
                            ConvForm form = ConvForm::Pixels);

/// The program's input type in `form` (its zero border included): dense, or
/// TapRows's view of the dense padded image (static extents only).
mlir::MemRefType programInputType(const KernelSpec &s, mlir::Type element,
                                  ConvForm form);

/// The contraction of `s` as a linalg.generic on `in`, `weights`, `out`.
mlir::linalg::GenericOp
buildKernelContraction(mlir::OpBuilder &b, mlir::Location loc,
                       const KernelSpec &s, mlir::Value in,
                       mlir::Value weights, mlir::Value out,
                       ConvForm form = ConvForm::Pixels);

} // namespace tisa

#endif // TISA_KERNELS_CONTRACTION_H
