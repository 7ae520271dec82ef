//===- KernelEpilogue.h - a kernel's --epilogue ------------------*- C++ -*-===//
//
// Private to kernels/: the epilogue of a KernelSpec as IR (for the library
// builder), as C (the struct its entries take) and as a value (for the
// reference).
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_KERNELEPILOGUE_H
#define TISA_KERNELS_KERNELEPILOGUE_H

#include "tisa/Kernels/Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <random>

namespace tisa {

/// The epilogue's operands in the IR (null where the epilogue has none):
/// memrefs of the bias ([channels]), the residual (the output's shape) and
/// the scales ([channels], f32), and the zero point (i32).
struct EpilogueValues {
  mlir::Value bias, residual, scale, zeroPoint;
};

/// The epilogue of `spec` as an elementwise linalg.generic from `acc` (the
/// accumulators, of the output's shape) into `out`.
mlir::linalg::GenericOp buildEpilogue(mlir::OpBuilder &b, mlir::Location loc,
                                      const KernelSpec &spec, mlir::Value acc,
                                      const EpilogueValues &values,
                                      mlir::Value out);

/// The C definition of `tisa_epilogue`, the struct the entries of a kernel
/// with an epilogue take after the output.
std::string epilogueStructText();

/// The epilogue applied to the accumulator `x`: integers as the kernel's s32
/// arithmetic (wrapping) and f32 requantization, floats in double (their
/// rounding to bf16 is the caller's).
double epilogueReference(const EpilogueSpec &e, double x, double bias,
                         double residual, float scale, int32_t zeroPoint,
                         bool isFloat);

struct KernelData;
enum class Fill;

/// Fills `d`'s epilogue operands for `spec` from `rng`: bias and residual
/// of the accumulators' magnitude, scales that put results across the
/// output type's range (and, with Fill::Extreme, some that saturate), a zero
/// point of the output type. Nothing without an epilogue.
void fillEpilogue(const KernelSpec &spec, KernelData &d, std::mt19937_64 &rng,
                  Fill how, bool padded);

/// Output `o` (logical) after the epilogue, from the accumulator `acc` (its
/// s32 bits, or its f32 value with error `bound`): the output's value as
/// 4 bytes of `bits` (an integer, or an f32) and its new bound.
void applyEpilogueAt(const KernelSpec &spec, const KernelData &d, int64_t o,
                     uint32_t &bits, double &bound);

} // namespace tisa

#endif // TISA_KERNELS_KERNELEPILOGUE_H
