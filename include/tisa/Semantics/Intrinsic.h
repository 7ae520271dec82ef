//===- Intrinsic.h - the LLVM intrinsic a description lowers to -*- C++ -*-===//
#ifndef TISA_SEMANTICS_INTRINSIC_H
#define TISA_SEMANTICS_INTRINSIC_H

#include "mlir/IR/Diagnostics.h"
#include "tisa/Semantics/Description.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Intrinsics.h"

namespace tisa {

/// The lowering intrinsic, checked against the operands' registers.
struct ResolvedIntrinsic {
  llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
  llvm::FunctionType *type = nullptr;
  /// For each lowering argument, the half-open range of intrinsic parameters it
  /// fills (a warp fragment spreads over several registers; everything else
  /// fills one).
  llvm::SmallVector<std::pair<unsigned, unsigned>> params;
};

/// LLVM type of one element of a register.
llvm::Type *toLLVMElementType(mlir::Type type, llvm::LLVMContext &ctx);

/// Looks the intrinsic up in LLVM and checks that the registers fit its
/// signature; reports a mismatch through `emitError`.
mlir::FailureOr<ResolvedIntrinsic> resolveLoweringIntrinsic(
    const Description &d, llvm::LLVMContext &ctx,
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

} // namespace tisa

#endif // TISA_SEMANTICS_INTRINSIC_H
