//===- Passes.h - tisa transforms -------------------------------*- C++ -*-===//
#ifndef TISA_TRANSFORMS_PASSES_H
#define TISA_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmSVE/IR/ArmSVEDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace tisa {

#define GEN_PASS_DECL
#include "tisa/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "tisa/Transforms/Passes.h.inc"

/// tisa.apply -> the description's intrinsic (the pattern of
/// -tisa-legalize-instructions).
void populateTisaLegalizeInstructionsPatterns(
    mlir::RewritePatternSet &patterns);

/// What `tisa gen FILE.mlir` runs first: -tisa-bufferize (Passes.td), which
/// leaves a module without tensors as it is.
void addTisaBufferizePasses(mlir::OpPassManager &pm);

/// Whether any value or function of `module` is a tensor.
bool usesTensors(mlir::ModuleOp module);

/// What runs between tensorization and LLVM lowering, on every path
/// (tisa gen gemm|conv2d, tisa gen FILE.mlir): the generators' scratch
/// buffers out of loops, their large staging copies as loops LLVM keeps
/// rolled (-tisa-roll-copies), plain contractions in register tiles of the
/// target's vectors (`plain`, see plainTileOptions) or their loops in a
/// vectorizable order, register tiling, canonicalization and CSE, then the
/// instructions' legalization.
void addTisaRegisterLevelPasses(mlir::OpPassManager &pm,
                                const TisaTilePlainPassOptions &plain = {});

} // namespace tisa

#endif // TISA_TRANSFORMS_PASSES_H
