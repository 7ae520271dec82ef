//===- TisaDialect.cpp - the tisa dialect ---------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/Description.h"

using namespace mlir;

#include "tisa/Dialect/TisaDialect.cpp.inc"

namespace tisa {

void TisaDialect::initialize() {}

LogicalResult TisaDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kLoopAttr) {
    auto kind = dyn_cast<StringAttr>(attr.getValue());
    if (!kind || !llvm::is_contained({"parallel", "lanes", "reduction"},
                                     kind.getValue()))
      return op->emitError() << "'" << kLoopAttr
                             << "' must be \"parallel\", \"lanes\" or "
                                "\"reduction\", not "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == kUnrollAttr) {
    auto factor = dyn_cast<IntegerAttr>(attr.getValue());
    if (!factor || factor.getValue().getSExtValue() < 1)
      return op->emitError() << "'" << kUnrollAttr
                             << "' must be a positive integer, not "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() != kInstructionAttrName)
    return op->emitError() << "unknown tisa attribute '"
                           << attr.getName().getValue()
                           << "' (the tisa dialect defines '"
                           << kInstructionAttrName << "', '" << kLoopAttr
                           << "' and '" << kUnrollAttr << "')";
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'" << kInstructionAttrName
                           << "' belongs on the func.func that states the "
                              "instruction's semantics";
  return parseDescription(func);
}

} // namespace tisa
