//===- Passes.h - tisa passes -----------------------------------*- C++ -*-===//
#ifndef TISA_DIALECT_PASSES_H
#define TISA_DIALECT_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace tisa {
#define GEN_PASS_DECL
#include "tisa/Dialect/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tisa/Dialect/Passes.h.inc"
} // namespace tisa

#endif // TISA_DIALECT_PASSES_H
