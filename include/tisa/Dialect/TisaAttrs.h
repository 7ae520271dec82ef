//===- TisaAttrs.h - #tisa.plan, #tisa.loop, #tisa.schedule -----*- C++ -*-===//
#ifndef TISA_DIALECT_TISAATTRS_H
#define TISA_DIALECT_TISAATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#define GET_ATTRDEF_CLASSES
#include "tisa/Dialect/TisaAttrs.h.inc"

#endif // TISA_DIALECT_TISAATTRS_H
