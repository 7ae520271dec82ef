//===- TisaDialect.cpp - the tisa dialect ---------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/Description.h"

using namespace mlir;

#include "tisa/Dialect/TisaDialect.cpp.inc"

namespace tisa {

void TisaDialect::initialize() {}

LogicalResult TisaDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() != kInstructionAttrName)
    return op->emitError() << "unknown tisa attribute '"
                           << attr.getName().getValue()
                           << "' (the tisa dialect defines '"
                           << kInstructionAttrName << "')";
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'" << kInstructionAttrName
                           << "' belongs on the func.func that states the "
                              "instruction's semantics";
  return parseDescription(func);
}

} // namespace tisa
