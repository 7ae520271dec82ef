//===- TisaDialect.cpp - the tisa dialect ---------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Dialect/TisaAttrs.h"
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
  registerAttributes();
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

namespace {

/// The region of tisa.pack and tisa.compute: one block whose arguments are
/// the contraction's operands (two inputs, then the output, memrefs) and
/// whose only op is that contraction on them.
LogicalResult verifyContractionRegion(Operation *op, Region &region) {
  Block &body = region.front();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(), llvm::IsaPred<MemRefType>))
    return op->emitOpError()
           << "region must take the contraction's three operands (two "
              "inputs, then the output) as memref arguments";
  auto contraction = dyn_cast<linalg::LinalgOp>(
      body.empty() ? nullptr : &body.front());
  if (!contraction || !llvm::hasSingleElement(body))
    return op->emitOpError()
           << "region must hold exactly one linalg op, the contraction";
  if (contraction.getNumDpsInputs() != 2 || contraction.getNumDpsInits() != 1 ||
      contraction.getDpsInputs()[0] != body.getArgument(0) ||
      contraction.getDpsInputs()[1] != body.getArgument(1) ||
      contraction.getDpsInits()[0] != body.getArgument(2))
    return op->emitOpError()
           << "the contraction must read the region's arguments 0 and 1 and "
              "write argument 2";
  return success();
}

/// An input of the contraction whose type is `type`: 0, 1, or -1.
int inputOfType(Block &body, Type type) {
  for (int i = 0; i < 2; ++i)
    if (body.getArgument(i).getType() == type)
      return i;
  return -1;
}

} // namespace

LogicalResult PackOp::verify() {
  if (failed(verifyContractionRegion(*this, getProgram())))
    return failure();
  if (inputOfType(*getBody(), getSource().getType()) < 0)
    return emitOpError() << "source type " << getSource().getType()
                         << " is not the type of an input of the contraction";
  return success();
}

/// Whether two memref types differ at most in their layouts (a buffer of a
/// contraction's output may be any view of its shape).
bool sameShapeAndElements(Type a, Type b) {
  auto x = dyn_cast<MemRefType>(a), y = dyn_cast<MemRefType>(b);
  return x && y && x.getShape() == y.getShape() &&
         x.getElementType() == y.getElementType();
}

/// The epilogue region: one block of (accumulators, operands..., output)
/// holding one all-parallel linalg.generic on them in that order.
LogicalResult verifyEpilogueRegion(ComputeOp op, Type accumulators) {
  Block &block = op.getEpilogue().front();
  SmallVector<Type> expected;
  llvm::append_range(expected, op.getEpilogueOperands().getTypes());
  expected.push_back(op.getOutput().getType());
  // The accumulators are never in memory: their layout does not matter.
  Type acc = block.getNumArguments() ? block.getArgument(0).getType() : Type();
  if (!sameShapeAndElements(acc, accumulators) ||
      SmallVector<Type>(llvm::drop_begin(block.getArgumentTypes())) != expected)
    return op.emitOpError()
           << "epilogue region must take the contraction's output shape and "
              "element type, the epilogue operands' types and the output "
              "type, in that order";
  auto generic = op.getEpilogueOp();
  if (!generic || !llvm::hasSingleElement(block))
    return op.emitOpError()
           << "epilogue region must hold exactly one linalg.generic";
  SmallVector<Value> inputs(block.getArguments().drop_back());
  if (generic.getNumDpsInits() != 1 ||
      generic.getDpsInits()[0] != block.getArguments().back() ||
      SmallVector<Value>(generic.getDpsInputs()) != inputs)
    return op.emitOpError()
           << "the epilogue's linalg.generic must read the region's arguments "
              "in order and write the last one";
  if (generic.getNumLoops() != generic.getNumParallelLoops())
    return op.emitOpError() << "the epilogue's linalg.generic must be "
                               "elementwise (every loop parallel)";
  if (!op.getOverwrite())
    return op.emitOpError()
           << "an epilogue needs overwrite: the accumulators start at zero";
  return success();
}

LogicalResult ComputeOp::verify() {
  if (failed(verifyContractionRegion(*this, getProgram())))
    return failure();
  Block &body = *getBody();
  if (!getEpilogue().empty()) {
    if (failed(verifyEpilogueRegion(*this, body.getArgument(2).getType())))
      return failure();
  } else if (!getEpilogueOperands().empty()) {
    return emitOpError() << "epilogue operands without an epilogue region";
  } else if (!sameShapeAndElements(getOutput().getType(),
                                   body.getArgument(2).getType())) {
    return emitOpError() << "output type " << getOutput().getType()
                         << " does not have the shape and element type of the "
                            "contraction's output, "
                         << body.getArgument(2).getType();
  }
  if (!getRange().empty() && getRange().size() != 2)
    return emitOpError() << "range takes two values (begin, end), not "
                         << getRange().size();
  ArrayRef<int64_t> activeLoops =
      getActiveLoops() ? *getActiveLoops() : ArrayRef<int64_t>();
  if (activeLoops.size() != getActive().size())
    return emitOpError() << "active has " << getActive().size()
                         << " values but active_loops names "
                         << activeLoops.size() << " loops";
  int64_t loops = getContraction().getNumLoops();
  for (auto [i, l] : llvm::enumerate(activeLoops)) {
    if (l < 0 || l >= loops)
      return emitOpError() << "active_loops entry " << l
                           << " is not a loop of the contraction (it has "
                           << loops << ")";
    if (llvm::is_contained(activeLoops.take_front(i), l))
      return emitOpError() << "active_loops names loop " << l
                           << " twice: one active extent per loop";
  }
  auto input = cast<MemRefType>(getInput().getType());
  std::optional<ArrayRef<int64_t>> padding = getInputPadding();
  if (!padding) {
    if (inputOfType(body, input) < 0)
      return emitOpError() << "input type " << input
                           << " is not the type of an input of the contraction";
    return success();
  }
  if (int64_t(padding->size()) != input.getRank())
    return emitOpError() << "input_padding has " << padding->size()
                         << " entries but the input has rank "
                         << input.getRank();
  if (llvm::any_of(*padding, [](int64_t p) { return p < 0; }))
    return emitOpError() << "input_padding entries must be >= 0";
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
  if (attr.getName() == kUnrollAttr || attr.getName() == kByElementAttr) {
    auto factor = dyn_cast<IntegerAttr>(attr.getValue());
    if (!factor || factor.getValue().getSExtValue() < 1)
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a positive integer, not "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == kPtxAttr) {
    if (!isa<ApplyOp>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << kPtxAttr
                             << "' is a PTX mnemonic (a string) on a tisa.apply";
    return success();
  }
  if (attr.getName() == kRunTimeLoopsAttr) {
    auto loops = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!loops || !linalgOp ||
        llvm::any_of(loops.asArrayRef(), [&](int64_t l) {
          return l < 0 || l >= int64_t(linalgOp.getNumLoops());
        }))
      return op->emitError() << "'" << kRunTimeLoopsAttr
                             << "' must be loop numbers (array<i64>) on a "
                                "linalg op, not "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == kLoopBlocksAttr) {
    auto pairs = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    bool valid = pairs && linalgOp && pairs.size() % 2 == 0;
    for (size_t i = 0; valid && i < size_t(pairs.size()); i += 2)
      valid = pairs[i] >= 0 && pairs[i] < int64_t(linalgOp.getNumLoops()) &&
              pairs[i + 1] > 0;
    if (!valid)
      return op->emitError() << "'" << kLoopBlocksAttr
                             << "' must be pairs of a loop number and a "
                                "positive block size (array<i64>) on a "
                                "linalg op, not "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() == kPlanAttr || attr.getName() == kScheduleAttr) {
    bool plan = attr.getName() == kPlanAttr;
    bool typed = plan ? isa<PlanAttr>(attr.getValue())
                      : isa<ScheduleAttr>(attr.getValue());
    if (!typed || !isa<linalg::LinalgOp>(op))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a " << (plan ? "#tisa.plan" : "#tisa.schedule")
                             << " on a linalg op, not " << attr.getValue();
    return success();
  }
  if (attr.getName() != kInstructionAttrName)
    return op->emitError() << "unknown tisa attribute '"
                           << attr.getName().getValue()
                           << "' (the tisa dialect defines '"
                           << kInstructionAttrName << "', '" << kLoopAttr
                           << "', '" << kUnrollAttr << "', '"
                           << kByElementAttr << "', '" << kPtxAttr << "', '"
                           << kPlanAttr << "' and '" << kScheduleAttr
                           << "')";
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError() << "'" << kInstructionAttrName
                           << "' belongs on the func.func that states the "
                              "instruction's semantics";
  return parseDescription(func);
}

} // namespace tisa
