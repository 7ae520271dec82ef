//===- TisaDialect.cpp - the tisa dialect ---------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/Description.h"

using namespace mlir;

#include "tisa/Dialect/TisaDialect.cpp.inc"

#define GET_OP_CLASSES
#include "tisa/Dialect/TisaOps.cpp.inc"

namespace tisa {

void TisaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tisa/Dialect/TisaOps.cpp.inc"
      >();
}

LogicalResult ApplyOp::verify() {
  int64_t n = getRegisters().size();
  int64_t acc = int64_t(getAccumulator());
  if (acc < 0 || acc >= n)
    return emitOpError() << "accumulator " << acc << " is not one of its "
                         << n << " registers";
  if (getRegisters()[acc].getType() != getResult().getType())
    return emitOpError() << "the result has type " << getResult().getType()
                         << " but the accumulator register has "
                         << getRegisters()[acc].getType();
  if (!getIntrinsic().starts_with("llvm."))
    return emitOpError() << "intrinsic '" << getIntrinsic()
                         << "' is not an LLVM intrinsic name (llvm.*)";
  FunctionType signature = getSignature();
  if (int64_t(signature.getNumInputs()) != int64_t(getOrder().size()))
    return emitOpError() << "the signature has " << signature.getNumInputs()
                         << " parameters but order names "
                         << getOrder().size();
  if (signature.getNumResults() != 1)
    return emitOpError() << "the signature must have one result";
  std::optional<ArrayRef<int64_t>> immediates = getImmediates();
  if (immediates && immediates->size() != getOrder().size())
    return emitOpError() << "immediates has " << immediates->size()
                         << " entries but order " << getOrder().size();
  for (auto [k, j] : llvm::enumerate(getOrder())) {
    if (j == -1 && !immediates)
      return emitOpError() << "order[" << k
                           << "] = -1 takes an immediate, but there are none";
    if (j < -1 || j >= n)
      return emitOpError() << "order[" << k << "] = " << j
                           << " is not one of its " << n
                           << " registers (or -1, an immediate)";
  }
  return success();
}

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
  if (attr.getName() == kPlanAttr || attr.getName() == kScheduleAttr) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a string, not " << attr.getValue();
    return success();
  }
  if (attr.getName() != kInstructionAttrName)
    return op->emitError() << "unknown tisa attribute '"
                           << attr.getName().getValue()
                           << "' (the tisa dialect defines '"
                           << kInstructionAttrName << "', '" << kLoopAttr
                           << "', '" << kUnrollAttr << "', '" << kPlanAttr
                           << "' and '" << kScheduleAttr << "')";
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'" << kInstructionAttrName
                           << "' belongs on the func.func that states the "
                              "instruction's semantics";
  return parseDescription(func);
}

} // namespace tisa
