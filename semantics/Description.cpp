//===- Description.cpp - schema and semantics checks of a description ----===//
//
// Every check of a description file lives here, and each failure is a located
// diagnostic that names what is wrong and the offending value. The dialect's
// attribute verifier and the loader both call parseDescription, so a file
// `tisa-opt` accepts is exactly a file `tisa isa verify` accepts.
//
//===----------------------------------------------------------------------===//

#include "tisa/Semantics/Description.h"
#include "tisa/Semantics/Intrinsic.h"
#include "tisa/Semantics/Layout.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/LLVMContext.h"

using namespace mlir;

namespace tisa {

llvm::StringRef stringifyTargetArch(TargetArch arch) {
  switch (arch) {
  case TargetArch::X86_64:
    return "x86_64";
  case TargetArch::AArch64:
    return "aarch64";
  case TargetArch::NVPTX:
    return "nvptx64";
  }
  llvm_unreachable("unknown target");
}

llvm::StringRef stringifyRegisterClass(RegisterClass cls) {
  switch (cls) {
  case RegisterClass::Vector:
    return "vector";
  case RegisterClass::AMXTile:
    return "amx.tile";
  case RegisterClass::WarpFragment:
    return "warp.fragment";
  }
  llvm_unreachable("unknown register class");
}

ArrayRef<int64_t> Description::operandShape(unsigned i) const {
  return cast<RankedTensorType>(func.getArgumentTypes()[i]).getShape();
}

Type Description::operandElementType(unsigned i) const {
  return cast<RankedTensorType>(func.getArgumentTypes()[i]).getElementType();
}

bool Description::isScalable() const {
  return llvm::any_of(
      registers, [](const OperandRegister &r) { return r.type.isScalable(); });
}

std::string Description::featureString() const {
  return llvm::join(features, ",");
}

//===----------------------------------------------------------------------===//
// Body: a multiply-accumulate the matcher can read
//===----------------------------------------------------------------------===//

namespace {
/// Peels an optional widening cast off `v`; returns the value beneath and the
/// kind of cast.
std::pair<Value, MulAcc::Ext> peelExt(Value v) {
  if (auto op = v.getDefiningOp<arith::ExtSIOp>())
    return {op.getIn(), MulAcc::Ext::Sign};
  if (auto op = v.getDefiningOp<arith::ExtUIOp>())
    return {op.getIn(), MulAcc::Ext::Zero};
  if (auto op = v.getDefiningOp<arith::ExtFOp>())
    return {op.getIn(), MulAcc::Ext::Float};
  return {v, MulAcc::Ext::None};
}

llvm::RoundingMode toLLVM(arith::RoundingMode mode) {
  switch (mode) {
  case arith::RoundingMode::to_nearest_even:
    return llvm::RoundingMode::NearestTiesToEven;
  case arith::RoundingMode::downward:
    return llvm::RoundingMode::TowardNegative;
  case arith::RoundingMode::upward:
    return llvm::RoundingMode::TowardPositive;
  case arith::RoundingMode::toward_zero:
    return llvm::RoundingMode::TowardZero;
  case arith::RoundingMode::to_nearest_away:
    return llvm::RoundingMode::NearestTiesToAway;
  }
  llvm_unreachable("unknown arith::RoundingMode");
}

/// Peels a narrowing `arith.truncf` off a factor that is widened again by
/// arith.extf (`ext`): the factor is read in the truncation's format.
std::optional<MulAcc::Narrowing> peelNarrowing(Value &v, MulAcc::Ext ext) {
  auto trunc = v.getDefiningOp<arith::TruncFOp>();
  if (ext != MulAcc::Ext::Float || !trunc)
    return std::nullopt;
  MulAcc::Narrowing n;
  n.type = cast<FloatType>(trunc.getType());
  if (std::optional<arith::RoundingMode> mode = trunc.getRoundingmode())
    n.rounding = toLLVM(*mode);
  v = trunc.getIn();
  return n;
}
/// Records why a body is not a multiply-accumulate, blaming `at`. No
/// diagnostic: the matcher reads bodies inside passes that run on several
/// threads, where capturing diagnostics would take other threads' too.
LogicalResult notMulAcc(NotMulAcc &reason, Operation *at, const Twine &why) {
  reason.at = at;
  reason.why = why.str();
  return failure();
}
} // namespace

FailureOr<MulAcc> readMulAcc(linalg::LinalgOp op, NotMulAcc &reason) {
  if (op.getNumDpsInits() != 1)
    return notMulAcc(reason, op,
                     "the body must produce exactly one accumulator, found " +
                         Twine(op.getNumDpsInits()) + " outs operands");
  if (op.getNumDpsInputs() != 2)
    return notMulAcc(reason, op,
                     "the body must multiply exactly two inputs, found " +
                         Twine(op.getNumDpsInputs()) + " ins operands");
  Block &block = *op.getBlock();
  auto yield = cast<linalg::YieldOp>(block.getTerminator());
  if (yield.getNumOperands() != 1)
    return notMulAcc(reason, yield, "the body must yield one value");
  BlockArgument acc = block.getArgument(2);

  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!add || !isa<arith::AddIOp, arith::AddFOp>(add))
    return notMulAcc(reason, yield, 
        "the body is not a multiply-accumulate: the yielded value must be an "
        "arith.addi or arith.addf of the accumulator and a product");
  Value product;
  if (add->getOperand(0) == acc)
    product = add->getOperand(1);
  else if (add->getOperand(1) == acc)
    product = add->getOperand(0);
  else
    return notMulAcc(reason, add, "the body is not a multiply-accumulate: neither "
                          "operand of the addition "
                          "is the accumulator block argument");

  MulAcc result;
  result.isFloat = isa<arith::AddFOp>(add);
  result.accType = acc.getType();
  auto [mulValue, productExt] = peelExt(product);
  result.productExt = productExt;
  Operation *mul = mulValue.getDefiningOp();
  if (!mul || !isa<arith::MulIOp, arith::MulFOp>(mul))
    return notMulAcc(reason, add, 
        "the body is not a multiply-accumulate: the value added to the "
        "accumulator must be an arith.muli or arith.mulf (optionally widened)");
  if (isa<arith::MulFOp>(mul) != result.isFloat)
    return notMulAcc(reason, mul, "the multiplication and the accumulation mix integer "
                          "and floating point");
  result.mulType = mul->getResult(0).getType();

  auto [lhs, lhsExt] = peelExt(mul->getOperand(0));
  auto [rhs, rhsExt] = peelExt(mul->getOperand(1));
  result.lhsNarrowing = peelNarrowing(lhs, lhsExt);
  result.rhsNarrowing = peelNarrowing(rhs, rhsExt);
  auto lhsArg = dyn_cast<BlockArgument>(lhs);
  auto rhsArg = dyn_cast<BlockArgument>(rhs);
  if (!lhsArg || !rhsArg || lhsArg.getOwner() != &block ||
      rhsArg.getOwner() != &block || lhsArg.getArgNumber() >= 2 ||
      rhsArg.getArgNumber() >= 2 ||
      lhsArg.getArgNumber() == rhsArg.getArgNumber())
    return notMulAcc(reason, mul, 
        "the body is not a multiply-accumulate: each factor must be one of the "
        "two "
        "inputs, optionally widened by arith.extsi/extui/extf (a float "
        "input optionally narrowed by arith.truncf first)");
  result.lhsInput = lhsArg.getArgNumber();
  result.rhsInput = rhsArg.getArgNumber();
  result.lhsExt = lhsExt;
  result.rhsExt = rhsExt;
  result.lhsType = lhs.getType();
  result.rhsType = rhs.getType();

  // Anything else in the body would be silently ignored by the evaluator and
  // the matcher.
  unsigned expected = 2 + (lhsExt != MulAcc::Ext::None) +
                      (rhsExt != MulAcc::Ext::None) +
                      result.lhsNarrowing.has_value() +
                      result.rhsNarrowing.has_value() +
                      (productExt != MulAcc::Ext::None) + 1;
  if (block.getOperations().size() != expected) {
    for (Operation &other : block.without_terminator())
      if (&other != add && &other != mul && other.getNumResults() == 1 &&
          other.getResult(0).use_empty())
        return notMulAcc(reason, &other, 
            "the body is not a multiply-accumulate: this operation is unused");
    return notMulAcc(reason, op, "the body is not a multiply-accumulate: it holds "
                        "operations besides the "
                        "casts, one multiplication and one addition");
  }
  if (result.isFloat &&
      (lhsExt == MulAcc::Ext::Sign || lhsExt == MulAcc::Ext::Zero ||
       rhsExt == MulAcc::Ext::Sign || rhsExt == MulAcc::Ext::Zero))
    return notMulAcc(reason, mul, 
        "integer extension feeding a floating-point multiplication");
  return result;
}

//===----------------------------------------------------------------------===//
// Metadata block
//===----------------------------------------------------------------------===//

namespace {

/// The most elements of a semantic operand or a register (an AMX tile holds
/// 1024 bytes, a 2048-bit SVE vector 256): the checks visit each.
constexpr int64_t kMaxOperandElements = int64_t(1) << 16;

/// Reads one dictionary with a fixed set of keys, reporting unknown, missing
/// and mistyped ones.
class DictReader {
public:
  DictReader(Operation *op, DictionaryAttr dict, StringRef what)
      : op(op), dict(dict), what(what.str()) {}

  /// Unknown keys are errors: a typo must not silently drop a property.
  LogicalResult checkKeys(ArrayRef<StringRef> allowed) {
    for (NamedAttribute entry : dict) {
      if (!llvm::is_contained(allowed, entry.getName().getValue()))
        return error() << "unknown key '" << entry.getName().getValue()
                       << "' in " << what
                       << " (allowed: " << llvm::join(allowed, ", ") << ")";
    }
    return success();
  }

  template <typename AttrT>
  FailureOr<AttrT> get(StringRef key, StringRef expected) {
    Attribute attr = dict.get(key);
    if (!attr)
      return error() << "missing key '" << key << "' in " << what;
    auto typed = dyn_cast<AttrT>(attr);
    if (!typed)
      return error() << "key '" << key << "' in " << what << " must be "
                     << expected << ", got " << attr;
    return typed;
  }

  template <typename AttrT>
  FailureOr<std::optional<AttrT>> getOptional(StringRef key,
                                              StringRef expected) {
    if (!dict.get(key))
      return std::optional<AttrT>();
    FailureOr<AttrT> value = get<AttrT>(key, expected);
    if (failed(value))
      return failure();
    return std::optional<AttrT>(*value);
  }

  FailureOr<std::string> getString(StringRef key) {
    FailureOr<StringAttr> s = get<StringAttr>(key, "a string");
    if (failed(s))
      return failure();
    if (s->getValue().empty())
      return error() << "key '" << key << "' in " << what
                     << " must not be empty";
    return s->getValue().str();
  }

  /// A string from a closed set.
  FailureOr<unsigned> getChoice(StringRef key, ArrayRef<StringRef> choices) {
    FailureOr<std::string> s = getString(key);
    if (failed(s))
      return failure();
    for (auto [i, c] : llvm::enumerate(choices))
      if (c == *s)
        return static_cast<unsigned>(i);
    return error() << "key '" << key << "' in " << what << " is '" << *s
                   << "', expected one of: " << llvm::join(choices, ", ");
  }

  /// The raw value of `key`, null when absent.
  Attribute lookup(StringRef key) const { return dict.get(key); }

  InFlightDiagnostic error() {
    return op->emitError() << kInstructionAttrName << ": ";
  }

private:
  Operation *op;
  DictionaryAttr dict;
  std::string what;
};

FailureOr<TargetArch> parseTarget(DictReader &r) {
  FailureOr<unsigned> t =
      r.getChoice("target", {"x86_64", "aarch64", "nvptx64"});
  if (failed(t))
    return failure();
  return static_cast<TargetArch>(*t);
}

LogicalResult parseFeatures(DictReader &r, Description &d) {
  FailureOr<ArrayAttr> list =
      r.get<ArrayAttr>("features", "an array of strings like \"+avx512vnni\"");
  if (failed(list))
    return failure();
  for (Attribute a : *list) {
    auto s = dyn_cast<StringAttr>(a);
    if (!s || s.getValue().size() < 2 ||
        (s.getValue()[0] != '+' && s.getValue()[0] != '-'))
      return r.error() << "each feature must be a string starting with '+' or "
                          "'-' (an LLVM target "
                          "feature), got "
                       << a;
    d.features.push_back(s.getValue().str());
  }
  if (d.features.empty())
    return r.error() << "'features' must name at least one LLVM target feature";
  return success();
}

LogicalResult parseRegisters(Operation *op, DictReader &r, Description &d) {
  FailureOr<ArrayAttr> list =
      r.get<ArrayAttr>("registers", "an array with one dictionary per operand");
  if (failed(list))
    return failure();
  unsigned numArgs = d.func.getNumArguments();
  if (list->size() != numArgs)
    return r.error() << "'registers' has " << list->size()
                     << " entries but the semantics take " << numArgs
                     << " operands";
  for (auto [i, a] : llvm::enumerate(*list)) {
    auto dict = dyn_cast<DictionaryAttr>(a);
    std::string what = "registers[" + std::to_string(i) + "]";
    if (!dict)
      return r.error() << what << " must be a dictionary, got " << a;
    DictReader rr(op, dict, what);
    if (failed(rr.checkKeys({"class", "type", "layout"})))
      return failure();
    OperandRegister reg;
    if (dict.get("class")) {
      FailureOr<unsigned> cls =
          rr.getChoice("class", {"vector", "amx.tile", "warp.fragment"});
      if (failed(cls))
        return failure();
      reg.cls = static_cast<RegisterClass>(*cls);
    }
    FailureOr<TypeAttr> type = rr.get<TypeAttr>("type", "a vector type");
    if (failed(type))
      return failure();
    reg.type = dyn_cast<VectorType>(type->getValue());
    if (!reg.type)
      return rr.error() << "'type' in " << what
                        << " must be a vector type, got " << type->getValue();
    FailureOr<AffineMapAttr> layout =
        rr.get<AffineMapAttr>("layout", "an affine_map");
    if (failed(layout))
      return failure();
    reg.layout = layout->getValue();
    if (reg.type.getNumElements() > kMaxOperandElements)
      return rr.error() << what << " (" << reg.type << ") has more than "
                        << kMaxOperandElements << " elements";

    auto tensorType = dyn_cast<RankedTensorType>(d.func.getArgumentTypes()[i]);
    Type elem = tensorType.getElementType();
    if (reg.type.getElementType() != elem)
      return rr.error() << what << " holds " << reg.type.getElementType()
                        << " elements but operand " << i << " is "
                        << tensorType;
    unsigned wantRank = reg.cls == RegisterClass::Vector ? 1 : 2;
    if (reg.type.getRank() != wantRank)
      return rr.error() << what << ": a " << stringifyRegisterClass(reg.cls)
                        << " register must be a rank-" << wantRank
                        << " vector, got " << reg.type;
    if (reg.cls != RegisterClass::Vector && reg.type.isScalable())
      return rr.error() << what << ": only 'vector' registers may be scalable";
    if (reg.cls == RegisterClass::WarpFragment && reg.type.getDimSize(0) != 32)
      return rr.error() << what
                        << ": a warp fragment has 32 lanes (dimension 0), got "
                        << reg.type.getDimSize(0);
    if (reg.layout.getNumSymbols() != 0 ||
        reg.layout.getNumDims() != tensorType.getRank() ||
        reg.layout.getNumResults() != reg.type.getRank())
      return rr.error() << what << ": the layout must map the "
                        << tensorType.getRank()
                        << " semantic indices of operand " << i << " to the "
                        << reg.type.getRank() << " register indices, got "
                        << AffineMapAttr::get(reg.layout);
    d.registers.push_back(reg);
  }
  // Scalable registers: the semantics describe one 128-bit segment, so every
  // register must be scalable with exactly 128 bits per vscale.
  if (d.isScalable()) {
    for (auto [i, reg] : llvm::enumerate(d.registers)) {
      unsigned bits =
          reg.type.getNumElements() * reg.type.getElementTypeBitWidth();
      if (!reg.type.isScalable() || bits != 128)
        return r.error()
               << "registers[" << i << "] is " << reg.type
               << ": when one register is scalable, all must be scalable with "
                  "128 bits "
                  "per vscale (the semantics describe one 128-bit segment)";
    }
  }
  for (auto [i, reg] : llvm::enumerate(d.registers))
    if (failed(checkLayoutInjective(d, i, [&]() { return r.error(); })))
      return failure();
  return success();
}

/// `by_element = i`: an input register of a flat vector class.
LogicalResult parseByElement(DictReader &lr, Description &d) {
  FailureOr<std::optional<IntegerAttr>> i = lr.getOptional<IntegerAttr>(
      "by_element", "the index of the input register with a by-element form");
  if (failed(i))
    return failure();
  if (!*i)
    return success();
  int64_t r = (*i)->getInt();
  if (r != 0 && r != 1)
    return lr.error() << "by_element names register " << r
                      << "; it must be an input register (0 or 1)";
  const auto &reg = d.registers[r];
  if (reg.cls != RegisterClass::Vector || reg.type.getRank() != 1)
    return lr.error() << "by_element names register " << r
                      << ", which is not a flat vector register";
  d.lowering.byElement = unsigned(r);
  return success();
}

LogicalResult parseLowering(Operation *op, DictReader &r, Description &d) {
  FailureOr<DictionaryAttr> dict = r.get<DictionaryAttr>(
      "lowering", "a dictionary {intrinsic = \"...\", operands = [...]}");
  if (failed(dict))
    return failure();
  DictReader lr(op, *dict, "'lowering'");
  if (failed(lr.checkKeys({"intrinsic", "operands", "by_element"})))
    return failure();
  FailureOr<std::string> name = lr.getString("intrinsic");
  if (failed(name))
    return failure();
  d.lowering.intrinsic = *name;
  FailureOr<ArrayAttr> operands = lr.get<ArrayAttr>(
      "operands", "an array of operand indices or {rows = i}/{colsb = i}");
  if (failed(operands))
    return failure();
  unsigned numArgs = d.registers.size();
  llvm::SmallVector<unsigned> uses(numArgs, 0);
  for (Attribute a : *operands) {
    LoweringArg arg;
    if (auto i = dyn_cast<IntegerAttr>(a)) {
      arg.kind = LoweringArg::Operand;
      arg.operand = i.getInt();
      if (i.getInt() < 0 || i.getInt() >= numArgs)
        return lr.error() << "lowering operand " << i.getInt()
                          << " is out of range (the semantics "
                          << "take " << numArgs << " operands)";
      ++uses[arg.operand];
    } else if (auto shape = dyn_cast<DictionaryAttr>(a)) {
      if (shape.size() != 1)
        return lr.error()
               << "a shape argument is {rows = i} or {colsb = i}, got " << a;
      NamedAttribute entry = *shape.begin();
      auto idx = dyn_cast<IntegerAttr>(entry.getValue());
      StringRef kind = entry.getName().getValue();
      if ((kind != "rows" && kind != "colsb") || !idx)
        return lr.error()
               << "a shape argument is {rows = i} or {colsb = i}, got " << a;
      arg.kind = kind == "rows" ? LoweringArg::Rows : LoweringArg::ColsBytes;
      if (idx.getInt() < 0 || idx.getInt() >= numArgs)
        return lr.error() << "shape argument " << a << " names operand "
                          << idx.getInt() << ", out of range";
      arg.operand = idx.getInt();
      if (d.registers[arg.operand].cls != RegisterClass::AMXTile)
        return lr.error() << "shape argument " << a << " needs operand "
                          << arg.operand << " to be an amx.tile register";
    } else {
      return lr.error() << "lowering operands are operand indices or {rows = "
                           "i}/{colsb = i}, got "
                        << a;
    }
    d.lowering.args.push_back(arg);
  }
  for (unsigned i = 0; i < numArgs; ++i)
    if (uses[i] != 1)
      return lr.error() << "operand " << i << " is passed to the intrinsic "
                        << uses[i]
                        << " times; each operand must be passed exactly once";
  return parseByElement(lr, d);
}

/// `input_denormals`: "keep" or "zero" for every operand, or an array of
/// three in body order (ins 0, ins 1, accumulator).
LogicalResult parseInputDenormals(DictReader &fr, FloatBehaviour &fp) {
  StringRef key = "input_denormals";
  if (auto list = dyn_cast_or_null<ArrayAttr>(fr.lookup(key))) {
    auto choice = [](Attribute a) -> std::optional<bool> {
      auto s = dyn_cast<StringAttr>(a);
      if (s && (s.getValue() == "keep" || s.getValue() == "zero"))
        return s.getValue() == "zero";
      return std::nullopt;
    };
    if (list.size() != fp.denormalsAreZero.size())
      return fr.error() << "key '" << key << "' in 'fp' lists "
                        << list.size()
                        << " operands; it needs 3 (ins 0, ins 1, accumulator)";
    for (auto [i, a] : llvm::enumerate(list)) {
      std::optional<bool> zero = choice(a);
      if (!zero)
        return fr.error() << "key '" << key << "' in 'fp': operand " << i
                          << " is " << a << ", expected \"keep\" or \"zero\"";
      fp.denormalsAreZero[i] = *zero;
    }
    return success();
  }
  FailureOr<unsigned> all = fr.getChoice(key, {"keep", "zero"});
  if (failed(all))
    return failure();
  fp.denormalsAreZero.fill(*all == 1);
  return success();
}

LogicalResult parseFloatBehaviour(Operation *op, DictReader &r,
                                  Description &d) {
  FailureOr<DictionaryAttr> dict = r.get<DictionaryAttr>("fp", "a dictionary");
  if (failed(dict))
    return failure();
  DictReader fr(op, *dict, "'fp'");
  if (failed(fr.checkKeys({"accumulation", "rounding", "input_denormals",
                           "output_denormals", "nan"})))
    return failure();
  FloatBehaviour fp;
  FailureOr<unsigned> acc =
      fr.getChoice("accumulation", {"sequential", "reverse", "pairwise",
                                    "unordered", "even-odd-fused"});
  FailureOr<unsigned> rounding =
      fr.getChoice("rounding", {"nearest-even", "odd"});
  FailureOr<unsigned> out = fr.getChoice("output_denormals", {"keep", "flush"});
  FailureOr<unsigned> nan = fr.getChoice("nan", {"propagate", "default"});
  if (failed(acc) || failed(rounding) || failed(out) || failed(nan) ||
      failed(parseInputDenormals(fr, fp)))
    return failure();
  fp.accumulation = static_cast<Accumulation>(*acc);
  fp.rounding = static_cast<Rounding>(*rounding);
  fp.flushOutputDenormals = *out == 1;
  fp.defaultNaN = *nan == 1;
  if (fp.accumulation == Accumulation::Pairwise ||
      fp.accumulation == Accumulation::EvenOddFused) {
    // Pairs are formed along the innermost reduction dimension; it must have an
    // even extent.
    auto iters = d.body.getIteratorTypesArray();
    int64_t innerExtent = -1;
    SmallVector<int64_t> ranges = d.body.getStaticLoopRanges();
    for (auto [it, size] : llvm::zip(iters, ranges))
      if (it == utils::IteratorType::reduction)
        innerExtent = size;
    if (innerExtent % 2 != 0)
      return fr.error()
             << "'" << *fr.getString("accumulation")
             << "' accumulation needs an even innermost reduction extent, got "
             << innerExtent;
  }
  d.fp = fp;
  return success();
}

/// The semantics: `func.func` whose body is exactly one linalg.generic over the
/// arguments and a return of its result.
LogicalResult parseSemantics(func::FuncOp func, Description &d) {
  if (func.isExternal())
    return func.emitError(
        "a description needs a body: one linalg.generic stating the semantics");
  if (func.getNumArguments() != 3)
    return func.emitError("the semantics take three operands (two inputs and "
                          "the accumulator), got ")
           << func.getNumArguments();
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError("operand ")
             << i << " must be a statically shaped tensor, got " << t;
    if (llvm::is_contained(tensor.getShape(), 0))
      return func.emitError("operand ")
             << i << " has an empty dimension (" << t
             << "): an instruction computes at least one element";
    // The checks visit every element (an AMX tile holds 1024 bytes; a file
    // of 2^26 lanes ran out of memory before the cheap checks ran).
    if (tensor.getNumElements() > kMaxOperandElements)
      return func.emitError("operand ")
             << i << " has " << tensor.getNumElements()
             << " elements; a description's operands have at most "
             << kMaxOperandElements;
  }
  Block &entry = func.getBody().front();
  auto ops = entry.without_terminator();
  if (std::distance(ops.begin(), ops.end()) != 1 ||
      !isa<linalg::GenericOp>(*ops.begin()))
    return func.emitError(
        "the body must be exactly one linalg.generic followed by func.return");
  auto generic = cast<linalg::GenericOp>(*ops.begin());
  // The generic's own invariants first (its attributes may be misspelt): the
  // function's attributes are verified before the ops inside it.
  if (failed(mlir::verify(generic)))
    return failure();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  if (ret.getNumOperands() != 1 || ret.getOperand(0) != generic->getResult(0))
    return ret.emitError(
        "the function must return the linalg.generic's result");
  if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
    return generic.emitError(
        "the semantics must read two inputs and accumulate into one output");
  for (unsigned i = 0; i < 3; ++i) {
    Value operand = generic->getOperand(i);
    if (operand != entry.getArgument(i))
      return generic.emitError("operand ")
             << i << " of the linalg.generic must be function argument " << i
             << " (inputs first, accumulator last)";
  }
  NotMulAcc notMulAcc;
  FailureOr<MulAcc> mulAcc = readMulAcc(generic, notMulAcc);
  if (failed(mulAcc))
    return notMulAcc.at->emitError(notMulAcc.why);
  if (failed(refuseUndefinedArithmetic(generic)))
    return failure();
  // A loop the accumulator does not index is a reduction, and one it does
  // is not (a reduction declared "parallel" verified and was matched).
  AffineMap accMap = generic.getIndexingMapsArray()[2];
  for (auto [l, it] : llvm::enumerate(generic.getIteratorTypesArray())) {
    bool reduces = !accMap.isFunctionOfDim(l);
    if (reduces != (it == utils::IteratorType::reduction))
      return generic.emitError("loop d")
             << l << " is " << (reduces ? "not " : "")
             << "indexed by the accumulator, so it must be declared \""
             << (reduces ? "reduction" : "parallel") << "\"";
  }
  // The accumulator is read: accumulate-into semantics are part of every
  // description.
  for (AffineMap map : generic.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return generic.emitError("indexing map ")
             << AffineMapAttr::get(map)
             << " is not a projected permutation: describe the instruction's "
                "logical "
             << "operands and put the register arrangement in the 'layout' "
                "maps";
  d.func = func;
  d.body = generic;
  d.mulAcc = *mulAcc;
  return success();
}

} // namespace

FailureOr<Description> parseDescription(func::FuncOp func) {
  Description d(func.getLoc());
  auto dict = func->getAttrOfType<DictionaryAttr>(kInstructionAttrName);
  if (!dict)
    return func.emitError()
           << "'" << kInstructionAttrName << "' must be a dictionary";
  if (failed(parseSemantics(func, d)))
    return failure();

  Operation *op = func;
  DictReader r(op, dict, "the metadata block");
  if (failed(r.checkKeys({"name", "target", "features", "extension", "mnemonic",
                          "registers", "saturation", "fp", "lowering", "bounds",
                          "config", "reference"})))
    return failure();
  FailureOr<std::string> name = r.getString("name");
  FailureOr<std::string> extension = r.getString("extension");
  FailureOr<std::string> mnemonic = r.getString("mnemonic");
  FailureOr<std::string> reference = r.getString("reference");
  if (failed(name) || failed(extension) || failed(mnemonic) ||
      failed(reference))
    return failure();
  // The name reaches generated C headers and file names: a "*/" or a
  // newline in it broke the header.
  if (name->empty() || llvm::any_of(*name, [](char ch) {
        return !llvm::isAlnum(ch) && ch != '.' && ch != '_' && ch != '-';
      }))
    return r.error() << "'name' is '" << *name
                     << "': it may hold letters, digits, '.', '_' and '-' "
                        "only (it becomes part of generated C headers)";
  d.name = *name;
  d.extension = *extension;
  d.mnemonic = *mnemonic;
  d.reference = *reference;
  FailureOr<TargetArch> target = parseTarget(r);
  if (failed(target))
    return failure();
  d.target = *target;
  if (failed(parseFeatures(r, d)) || failed(parseRegisters(op, r, d)))
    return failure();

  if (d.mulAcc.isFloat) {
    if (dict.get("saturation"))
      return r.error() << "'saturation' applies to integer results; "
                          "floating-point behaviour goes "
                          "in 'fp'";
    if (failed(parseFloatBehaviour(op, r, d)))
      return failure();
  } else {
    if (dict.get("fp"))
      return r.error() << "'fp' applies to floating-point results; this "
                          "instruction accumulates "
                       << d.mulAcc.accType;
    FailureOr<unsigned> sat =
        r.getChoice("saturation", {"none", "signed", "unsigned"});
    if (failed(sat))
      return failure();
    d.saturation = static_cast<Saturation>(*sat);
  }

  bool hasTiles = llvm::any_of(d.registers, [](const OperandRegister &reg) {
    return reg.cls == RegisterClass::AMXTile;
  });
  FailureOr<std::optional<DictionaryAttr>> bounds =
      r.getOptional<DictionaryAttr>(
          "bounds", "a dictionary {rows = N, bytes_per_row = N}");
  if (failed(bounds))
    return failure();
  if (*bounds) {
    DictReader br(op, **bounds, "'bounds'");
    if (failed(br.checkKeys({"rows", "bytes_per_row"})))
      return failure();
    FailureOr<IntegerAttr> rows = br.get<IntegerAttr>("rows", "an integer");
    FailureOr<IntegerAttr> bytes =
        br.get<IntegerAttr>("bytes_per_row", "an integer");
    if (failed(rows) || failed(bytes))
      return failure();
    if (rows->getInt() <= 0 || bytes->getInt() <= 0)
      return br.error() << "'bounds' must be positive";
    d.bounds = ShapeBounds{static_cast<unsigned>(rows->getInt()),
                           static_cast<unsigned>(bytes->getInt())};
  } else if (hasTiles) {
    return r.error() << "amx.tile registers need 'bounds' (the tile's maximum "
                        "rows and bytes per row)";
  }
  if (hasTiles) {
    for (auto [i, reg] : llvm::enumerate(d.registers)) {
      if (reg.cls != RegisterClass::AMXTile)
        continue;
      int64_t rows = reg.type.getDimSize(0);
      int64_t bytes =
          reg.type.getDimSize(1) * reg.type.getElementTypeBitWidth() / 8;
      if (rows > d.bounds->rows || bytes > d.bounds->bytesPerRow)
        return r.error() << "registers[" << i << "] is " << rows << " rows x "
                         << bytes << " bytes, beyond the bounds of "
                         << d.bounds->rows << " rows x "
                         << d.bounds->bytesPerRow << " bytes";
    }
  }
  FailureOr<std::optional<unsigned>> config =
      [&]() -> FailureOr<std::optional<unsigned>> {
    if (!dict.get("config"))
      return std::optional<unsigned>();
    FailureOr<unsigned> c = r.getChoice("config", {"amx-palette1"});
    if (failed(c))
      return failure();
    return std::optional<unsigned>(*c);
  }();
  if (failed(config))
    return failure();
  if (*config)
    d.config = "amx-palette1";
  if (hasTiles && d.config.empty())
    return r.error() << "amx.tile registers need 'config' = \"amx-palette1\" "
                        "(tile configuration)";

  if (failed(parseLowering(op, r, d)))
    return failure();
  llvm::LLVMContext llvmContext;
  if (failed(resolveLoweringIntrinsic(d, llvmContext,
                                      [&]() { return r.error(); })))
    return failure();
  return d;
}

std::string denormalsAreZeroText(const FloatBehaviour &fp) {
  static const char *names[] = {"ins 0", "ins 1", "accumulator"};
  SmallVector<StringRef> zero;
  for (auto [i, z] : llvm::enumerate(fp.denormalsAreZero))
    if (z)
      zero.push_back(names[i]);
  if (zero.size() < 2)
    return llvm::join(zero, "");
  return (llvm::join(ArrayRef(zero).drop_back(), ", ") + " and " + zero.back())
      .str();
}

} // namespace tisa
