//===- Contraction.cpp - a linalg operation read as a contraction ---------===//
//
// The program side of the matcher: loops with their kind and extent, the three
// operands with their access maps and memory strides, and the
// multiply-accumulate normalised so that equivalent bodies compare equal
// (`extsi i8 -> i32; muli i32` and `extsi i8 -> i16; muli i16; extsi i32`
// compute the same exact product).
//
//===----------------------------------------------------------------------===//

#include "MatcherImpl.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa {

unsigned ProgramOperand::elementBytes() const {
  return std::max<unsigned>(1, elementType.getIntOrFloatBitWidth() / 8);
}

int64_t Contraction::macs() const {
  int64_t total = 1;
  for (const ProgramLoop &l : loops) {
    if (l.extent == kDynamic)
      return kDynamic;
    total *= l.extent;
  }
  return total;
}

namespace {

/// Loop names of the named ops people write, in the op's loop order.
llvm::SmallVector<StringRef> namedLoopNames(StringRef opName) {
  return llvm::StringSwitch<llvm::SmallVector<StringRef>>(opName)
      .Case("linalg.matmul", {"m", "n", "k"})
      .Case("linalg.batch_matmul", {"b", "m", "n", "k"})
      .Case("linalg.matvec", {"m", "k"})
      .Case("linalg.vecmat", {"n", "k"})
      .Case("linalg.dot", {"k"})
      .Case("linalg.conv_2d_nhwc_hwcf",
            {"n", "oh", "ow", "f", "kh", "kw", "c"})
      .Case("linalg.conv_2d_nhwc_fhwc",
            {"n", "oh", "ow", "f", "kh", "kw", "c"})
      .Case("linalg.conv_2d_nchw_fchw",
            {"n", "f", "oh", "ow", "c", "kh", "kw"})
      .Case("linalg.conv_2d", {"oh", "ow", "kh", "kw"})
      .Case("linalg.conv_1d_nwc_wcf", {"n", "ow", "f", "kw", "c"})
      .Default({});
}

llvm::SmallVector<StringRef> namedOperandNames(StringRef opName) {
  if (opName.starts_with("linalg.conv"))
    return {"input", "filter", "output"};
  return {"A", "B", "C"};
}

bool isSupportedElement(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth() >= 4 && i.getWidth() <= 64;
  return isa<FloatType>(t);
}

} // namespace

std::string detail::typeText(Type t, bool isSigned) {
  if (auto i = dyn_cast<IntegerType>(t))
    return (isSigned ? "s" : "u") + std::to_string(i.getWidth());
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string detail::narrowingText(const MulAcc::Narrowing &n) {
  std::string rounding;
  switch (n.rounding) {
  case llvm::RoundingMode::TowardZero:
    rounding = "truncated";
    break;
  case llvm::RoundingMode::NearestTiesToEven:
    rounding = "rounded to nearest even";
    break;
  case llvm::RoundingMode::NearestTiesToAway:
    rounding = "rounded to nearest, ties away";
    break;
  case llvm::RoundingMode::TowardPositive:
    rounding = "rounded up";
    break;
  case llvm::RoundingMode::TowardNegative:
    rounding = "rounded down";
    break;
  default:
    rounding = "rounded";
    break;
  }
  return typeText(n.type, true) + " (" + rounding + ")";
}

NormalArith normalizeArith(const MulAcc &m) {
  NormalArith n;
  n.isFloat = m.isFloat;
  n.factorType[0] = m.lhsInput == 0 ? m.lhsType : m.rhsType;
  n.factorType[1] = m.lhsInput == 0 ? m.rhsType : m.lhsType;
  MulAcc::Ext ext0 = m.lhsInput == 0 ? m.lhsExt : m.rhsExt;
  MulAcc::Ext ext1 = m.lhsInput == 0 ? m.rhsExt : m.lhsExt;
  n.factorNarrowing[0] = m.lhsInput == 0 ? m.lhsNarrowing : m.rhsNarrowing;
  n.factorNarrowing[1] = m.lhsInput == 0 ? m.rhsNarrowing : m.lhsNarrowing;
  n.factorSigned[0] = ext0 != MulAcc::Ext::Zero;
  n.factorSigned[1] = ext1 != MulAcc::Ext::Zero;
  n.accType = m.accType;
  unsigned w0 = n.factorType[0].getIntOrFloatBitWidth();
  unsigned w1 = n.factorType[1].getIntOrFloatBitWidth();
  unsigned wm = m.mulType.getIntOrFloatBitWidth();
  unsigned wa = m.accType.getIntOrFloatBitWidth();
  if (!m.isFloat) {
    // An n-bit by m-bit product needs at most n + m bits; a widening of the
    // product keeps it exact when it extends with the product's signedness.
    bool anySigned = n.factorSigned[0] || n.factorSigned[1];
    bool productExtOk =
        m.productExt == MulAcc::Ext::None ||
        (m.productExt == MulAcc::Ext::Sign && anySigned) ||
        (m.productExt == MulAcc::Ext::Zero && !anySigned);
    n.exactProduct = wm >= w0 + w1 && wa >= wm && productExtOk;
  } else {
    // Exact when the multiplication's significand holds both factors' (as
    // read: a narrowed factor has the narrower significand).
    auto sig = [](Type t) {
      return APFloat::semanticsPrecision(cast<FloatType>(t).getFloatSemantics());
    };
    auto factorSig = [&](unsigned i) {
      return sig(n.factorNarrowing[i] ? Type(n.factorNarrowing[i]->type)
                                      : n.factorType[i]);
    };
    bool productExtOk = m.productExt == MulAcc::Ext::None ||
                        m.productExt == MulAcc::Ext::Float;
    n.exactProduct = sig(m.mulType) >= factorSig(0) + factorSig(1) &&
                     wa >= wm && productExtOk;
  }
  auto factorText = [&](unsigned i) {
    std::string t = detail::typeText(n.factorType[i], n.factorSigned[i]);
    if (n.factorNarrowing[i])
      t += " read as " + detail::narrowingText(*n.factorNarrowing[i]);
    return t;
  };
  n.text = llvm::formatv("{0} x {1} -> {2}", factorText(0), factorText(1),
                         detail::typeText(n.accType, true));
  if (!n.exactProduct)
    n.text += llvm::formatv(" (product {0} in {1})",
                            m.isFloat ? "rounded" : "wrapped",
                            detail::typeText(m.mulType, true));
  return n;
}

FailureOr<Contraction> readContraction(linalg::LinalgOp op, std::string &why) {
  Contraction c;
  c.op = op;
  c.opName = op->getName().getStringRef().str();
  // linalg's quantized contractions: two inputs and two scalar zero points.
  SmallVector<Value> inputs = op.getDpsInputs();
  if (inputs.size() == 4 && op.getNumDpsInits() == 1 &&
      llvm::none_of(llvm::drop_begin(inputs, 2), [](Value v) {
        return isa<ShapedType>(v.getType());
      })) {
    why = c.opName + " is not a contraction as it stands: its zero points "
                     "make it one plus sums of its inputs (tisa gen and "
                     "-tisa-decompose-quantized split it so)";
    return failure();
  }
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) {
    why = llvm::formatv("{0} is not a contraction: it has {1} inputs and {2} "
                        "outputs (a contraction multiplies 2 inputs into 1 "
                        "output)",
                        c.opName, op.getNumDpsInputs(), op.getNumDpsInits());
    return failure();
  }
  NotMulAcc notMulAcc;
  FailureOr<MulAcc> m = readMulAcc(op, notMulAcc);
  if (failed(m)) {
    why = c.opName + " is not a contraction: " + notMulAcc.why;
    return failure();
  }
  c.mulAcc = *m;
  for (Type t : {c.mulAcc.lhsType, c.mulAcc.rhsType, c.mulAcc.accType}) {
    if (!isSupportedElement(t)) {
      std::string s;
      llvm::raw_string_ostream os(s);
      t.print(os);
      why = c.opName + ": unsupported element type " + s +
            " (the matcher handles integers of 4 to 64 bits and floats)";
      return failure();
    }
  }
  c.arith = normalizeArith(c.mulAcc);

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  llvm::SmallVector<StringRef> names = namedLoopNames(c.opName);
  if (names.size() != ranges.size())
    names.clear();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<std::string> roleNames;
  if (names.empty()) {
    // Name loops by role: k reduces; m indexes only the first input, n only
    // the second, b both (a batch); repeated roles are numbered.
    for (unsigned i = 0; i < ranges.size(); ++i) {
      bool in0 = maps[0].isFunctionOfDim(i);
      bool in1 = maps[1].isFunctionOfDim(i);
      if (iters[i] == utils::IteratorType::reduction)
        roleNames.push_back("k");
      else
        roleNames.push_back(in0 && in1 ? "b" : in0 ? "m" : in1 ? "n" : "p");
    }
    // Number duplicates in loop order.
    llvm::StringMap<unsigned> total, seen;
    for (const std::string &n : roleNames)
      ++total[n];
    for (std::string &n : roleNames)
      if (total[n] > 1)
        n += std::to_string(seen[n]++);
  }
  for (auto [i, extent] : llvm::enumerate(ranges)) {
    ProgramLoop l;
    l.name = names.empty() ? roleNames[i] : names[i].str();
    l.reduction = iters[i] == utils::IteratorType::reduction;
    l.extent = ShapedType::isDynamic(extent) ? kDynamic : extent;
    if (l.extent == 0) {
      why = llvm::formatv("{0}: loop {1} has no iterations, so there is "
                          "nothing to compute",
                          c.opName, l.name);
      return failure();
    }
    c.loops.push_back(l);
  }

  llvm::SmallVector<StringRef> operandNames = namedOperandNames(c.opName);
  for (unsigned i = 0; i < 3; ++i) {
    OpOperand &operand = op->getOpOperand(i);
    auto type = dyn_cast<ShapedType>(operand.get().getType());
    if (!type || !type.hasRank()) {
      why = llvm::formatv("{0}: operand {1} is not a ranked tensor or memref",
                          c.opName, i);
      return failure();
    }
    ProgramOperand po;
    bool named = !names.empty() || c.opName != "linalg.generic";
    po.name = named ? operandNames[i].str()
                    : (i < 2 ? "ins" + std::to_string(i) : "outs0");
    po.map = maps[i];
    po.elementType = type.getElementType();
    po.shape.assign(type.getShape().begin(), type.getShape().end());
    if (auto memref = dyn_cast<MemRefType>(type)) {
      int64_t offset;
      if (failed(memref.getStridesAndOffset(po.strides, offset)))
        po.strides.assign(type.getRank(), kDynamic);
    } else {
      po.strides.assign(type.getRank(), 1);
      for (int d = type.getRank() - 2; d >= 0; --d)
        po.strides[d] = (po.strides[d + 1] == kDynamic ||
                         ShapedType::isDynamic(po.shape[d + 1]))
                            ? kDynamic
                            : po.strides[d + 1] * po.shape[d + 1];
    }
    c.operands.push_back(std::move(po));
  }
  return c;
}

} // namespace tisa
