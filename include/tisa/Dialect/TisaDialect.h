//===- TisaDialect.h - the tisa dialect -------------------------*- C++ -*-===//
#ifndef TISA_DIALECT_TISADIALECT_H
#define TISA_DIALECT_TISADIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "tisa/Dialect/TisaDialect.h.inc"

#endif // TISA_DIALECT_TISADIALECT_H
