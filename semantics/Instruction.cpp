//===- Instruction.cpp - a description's instruction as a tisa.apply ------===//

#include "tisa/Semantics/Instruction.h"
#include "tisa/Semantics/Intrinsic.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/TypeFromLLVM.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tisa {

FailureOr<FunctionType>
loweringSignature(const Description &d, MLIRContext *ctx,
                  llvm::function_ref<InFlightDiagnostic()> emitError) {
  llvm::LLVMContext llvmCtx;
  FailureOr<ResolvedIntrinsic> intrinsic =
      resolveLoweringIntrinsic(d, llvmCtx, emitError);
  if (failed(intrinsic))
    return failure();
  ctx->loadDialect<LLVM::LLVMDialect>(); // struct results are LLVM types
  LLVM::TypeFromLLVMIRTranslator fromLLVM(*ctx);
  // A warp fragment (one lane's elements) may spread over several
  // consecutive parameters; buildApply and lowerApply split it.
  SmallVector<Type> params;
  for (auto [first, last] : intrinsic->params)
    for (unsigned p = first; p < last; ++p)
      params.push_back(
          fromLLVM.translateType(intrinsic->type->getParamType(p)));
  return FunctionType::get(
      ctx, params, fromLLVM.translateType(intrinsic->type->getReturnType()));
}

namespace {
Value i16Constant(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI16Type(),
                                  b.getI16IntegerAttr(v));
}

Value i64Constant(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(v));
}

/// A tile intrinsic's leading operands: rows and bytes per row (i16), then
/// `rest`.
SmallVector<Value> tileOperands(OpBuilder &b, Location loc,
                                const OperandRegister &r,
                                ArrayRef<Value> rest = {}) {
  SmallVector<Value> ops = {i16Constant(b, loc, tileRows(r)),
                            i16Constant(b, loc, tileBytesPerRow(r))};
  ops.append(rest.begin(), rest.end());
  return ops;
}

/// A vector segment's rows: `rows` equal parts of `r`'s elements.
VectorType segmentRowType(const OperandRegister &r, int64_t rows) {
  return VectorType::get({r.type.getNumElements() / rows},
                         r.type.getElementType(), {r.type.isScalable()});
}

/// `ptr` + `row` x `rowBytes` bytes.
Value rowPointer(OpBuilder &b, Location loc, Value ptr, Value rowBytes,
                 int64_t row) {
  if (row == 0)
    return ptr;
  Value offset = LLVM::MulOp::create(b, loc, rowBytes, i64Constant(b, loc, row));
  return LLVM::GEPOp::create(b, loc, ptr.getType(), b.getI8Type(), ptr,
                             ValueRange{offset});
}

/// Bits of a scalar or fixed vector type (0 for anything else).
int64_t bitsOf(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.isScalable() ? 0 : v.getNumElements() * v.getElementTypeBitWidth();
  return t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 0;
}

/// The concatenation of `parts` (equal vector types, a power of two of
/// them), pairwise.
Value concatenate(OpBuilder &b, Location loc, SmallVector<Value> parts) {
  while (parts.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      int64_t n = cast<VectorType>(parts[i].getType()).getNumElements();
      SmallVector<int32_t> mask(2 * n);
      for (int64_t e = 0; e < 2 * n; ++e)
        mask[e] = int32_t(e);
      next.push_back(LLVM::ShuffleVectorOp::create(b, loc, parts[i],
                                                   parts[i + 1], mask));
    }
    parts = std::move(next);
  }
  return parts.front();
}
} // namespace

bool canSegment(const OperandRegister &r, int64_t rows, int64_t cols) {
  return r.cls == RegisterClass::Vector && !r.type.isScalable() &&
         rows >= 1 && llvm::isPowerOf2_64(uint64_t(rows)) &&
         r.type.getRank() == 1 && r.type.getNumElements() == rows * cols;
}

/// One lane's elements of a warp fragment.
VectorType laneType(const OperandRegister &r) {
  return VectorType::get({r.type.getDimSize(1)}, r.type.getElementType());
}

Value loadRegister(OpBuilder &b, Location loc, const OperandRegister &r,
                   Value ptr, Value rowBytes, int64_t rows) {
  if (r.cls == RegisterClass::WarpFragment)
    return LLVM::LoadOp::create(b, loc, laneType(r), ptr, /*alignment=*/1);
  if (r.cls == RegisterClass::Vector && rows > 1)
    return loadSegments(b, loc, r, ptr, 1, rowBytes, rows).front();
  if (r.cls == RegisterClass::Vector)
    return LLVM::LoadOp::create(b, loc, r.type, ptr, /*alignment=*/1);
  if (!rowBytes)
    rowBytes = i64Constant(b, loc, tileBytesPerRow(r));
  return LLVM::CallIntrinsicOp::create(
             b, loc, LLVM::LLVMX86AMXType::get(b.getContext()),
             b.getStringAttr("llvm.x86.tileloadd64.internal"),
             tileOperands(b, loc, r, {ptr, rowBytes}))
      .getResult(0);
}

void storeRegister(OpBuilder &b, Location loc, const OperandRegister &r,
                   Value ptr, Value v, Value rowBytes, int64_t rows) {
  if (r.cls == RegisterClass::WarpFragment) {
    LLVM::StoreOp::create(b, loc, v, ptr, /*alignment=*/1);
    return;
  }
  if (r.cls == RegisterClass::Vector && rows > 1) {
    storeSegments(b, loc, r, ptr, v, rowBytes, rows);
    return;
  }
  if (r.cls == RegisterClass::Vector) {
    LLVM::StoreOp::create(b, loc, v, ptr, /*alignment=*/1);
    return;
  }
  if (!rowBytes)
    rowBytes = i64Constant(b, loc, tileBytesPerRow(r));
  LLVM::CallIntrinsicOp::create(
      b, loc, TypeRange{}, b.getStringAttr("llvm.x86.tilestored64.internal"),
      tileOperands(b, loc, r, {ptr, rowBytes, v}), LLVM::FastmathFlagsAttr());
}

/// Elements [from, from + n) of `a` then, with `second`, [from, from + n) of
/// `second`: one shuffle (zip1/zip2 for two 64-bit halves).
Value pick(OpBuilder &b, Location loc, Value a, Value second, int64_t from,
           int64_t n) {
  int64_t len = cast<VectorType>(a.getType()).getNumElements();
  SmallVector<int32_t> mask;
  for (int64_t e = 0; e < n; ++e)
    mask.push_back(int32_t(from + e));
  if (second)
    for (int64_t e = 0; e < n; ++e)
      mask.push_back(int32_t(len + from + e));
  return LLVM::ShuffleVectorOp::create(b, loc, a, second ? second : a, mask);
}

void storeSegments(OpBuilder &b, Location loc, const OperandRegister &r,
                   Value ptr, ValueRange vs, Value rowBytes, int64_t rows) {
  assert(r.cls == RegisterClass::Vector && rows > 1 && rowBytes &&
         r.type.getNumElements() % rows == 0 && (vs.size() == 1 || vs.size() == 2) &&
         "one or two vector segments");
  int64_t n = segmentRowType(r, rows).getNumElements();
  Value second = vs.size() == 2 ? vs[1] : Value();
  // The last row first: the first row's shuffle is then the last use of
  // the segments, and LLVM's lane insert (its form of zip1 on halves)
  // needs no copy of them.
  for (int64_t i = rows - 1; i >= 0; --i)
    LLVM::StoreOp::create(b, loc, pick(b, loc, vs[0], second, i * n, n),
                          rowPointer(b, loc, ptr, rowBytes, i),
                          /*alignment=*/1);
}

SmallVector<Value> loadSegments(OpBuilder &b, Location loc,
                                const OperandRegister &r, Value ptr,
                                int64_t count, Value rowBytes, int64_t rows) {
  assert(r.cls == RegisterClass::Vector && rows > 1 && rowBytes &&
         r.type.getNumElements() % rows == 0 && (count == 1 || count == 2) &&
         "one or two vector segments");
  int64_t n = segmentRowType(r, rows).getNumElements();
  auto joined = VectorType::get({n * count}, r.type.getElementType());
  SmallVector<Value> rowValues;
  for (int64_t i = 0; i < rows; ++i)
    rowValues.push_back(LLVM::LoadOp::create(
        b, loc, joined, rowPointer(b, loc, ptr, rowBytes, i), /*alignment=*/1));
  if (count == 1)
    return {concatenate(b, loc, std::move(rowValues))};
  // Segment j: its part of every row; two rows in one shuffle.
  assert(rows % 2 == 0 && "side-by-side segments of an even number of rows");
  SmallVector<Value> segments;
  for (int64_t j = 0; j < count; ++j) {
    SmallVector<Value> parts;
    for (int64_t i = 0; i + 1 < rows; i += 2)
      parts.push_back(pick(b, loc, rowValues[i], rowValues[i + 1], j * n, n));
    segments.push_back(concatenate(b, loc, std::move(parts)));
  }
  return segments;
}

Value zeroRegister(OpBuilder &b, Location loc, const OperandRegister &r) {
  if (r.cls == RegisterClass::Vector)
    return LLVM::ZeroOp::create(b, loc, r.type);
  return LLVM::CallIntrinsicOp::create(
             b, loc, LLVM::LLVMX86AMXType::get(b.getContext()),
             b.getStringAttr("llvm.x86.tilezero.internal"),
             tileOperands(b, loc, r))
      .getResult(0);
}

int64_t tileRows(const OperandRegister &r) { return r.type.getDimSize(0); }

int64_t tileBytesPerRow(const OperandRegister &r) {
  return r.type.getDimSize(1) * r.type.getElementTypeBitWidth() / 8;
}

ApplyOp buildApply(OpBuilder &b, Location loc, const Description &d,
                   FunctionType signature, ValueRange registers) {
  SmallVector<int64_t> order, immediates;
  bool anyImmediate = false;
  unsigned next = 0;
  for (const LoweringArg &a : d.lowering.args) {
    const OperandRegister &r = d.registers[a.operand];
    bool isRegister = a.kind == LoweringArg::Operand;
    // A warp fragment names its operand once per parameter it fills.
    unsigned params = 1;
    if (isRegister && r.cls == RegisterClass::WarpFragment) {
      int64_t need = bitsOf(registers[a.operand].getType()), got = 0;
      for (params = 0; got < need; ++params)
        got += bitsOf(signature.getInput(next + params));
    }
    for (unsigned p = 0; p < params; ++p, ++next) {
      order.push_back(isRegister ? int64_t(a.operand) : -1);
      immediates.push_back(isRegister                    ? 0
                           : a.kind == LoweringArg::Rows ? tileRows(r)
                                                         : tileBytesPerRow(r));
    }
    anyImmediate |= !isRegister;
  }
  unsigned acc = d.accumulatorOperand();
  return ApplyOp::create(
      b, loc, registers[acc].getType(), b.getStringAttr(d.name),
      b.getStringAttr(d.lowering.intrinsic), b.getDenseI64ArrayAttr(order),
      TypeAttr::get(signature), b.getI64IntegerAttr(acc),
      anyImmediate ? b.getDenseI64ArrayAttr(immediates) : DenseI64ArrayAttr(),
      registers);
}

namespace {

/// Vectors of the same size in bits, both fixed or both scalable (then the
/// same size per vscale).
bool bitcastable(Type a, Type b) {
  auto va = dyn_cast<VectorType>(a), vb = dyn_cast<VectorType>(b);
  return va && vb && va.getRank() == 1 && vb.getRank() == 1 &&
         va.isScalable() == vb.isScalable() &&
         va.getNumElements() * va.getElementTypeBitWidth() ==
             vb.getNumElements() * vb.getElementTypeBitWidth();
}

Value castTo(OpBuilder &b, Location loc, Value v, Type t) {
  if (v.getType() == t)
    return v;
  return LLVM::BitcastOp::create(b, loc, t, v);
}

} // namespace

namespace {

/// Which part of its register parameter `k` takes, and of how many: a
/// register wider than the parameter (a warp fragment) fills a run of
/// consecutive parameters, one equal part each; otherwise (0, 1).
std::pair<unsigned, unsigned> partOf(ApplyOp op, unsigned k) {
  ArrayRef<int64_t> order = op.getOrder();
  int64_t j = order[k];
  int64_t have = bitsOf(op.getRegisters()[j].getType());
  int64_t param = bitsOf(op.getSignature().getInput(k));
  if (param <= 0 || have <= param || have % param)
    return {0, 1};
  unsigned count = unsigned(have / param);
  unsigned start = k;
  while (start > 0 && order[start - 1] == j)
    --start;
  return {(k - start) % count, count};
}

/// Whether `have` splits into `count` equal parts, part `i` of which becomes
/// `param` (a warp fragment over several parameters: vector<8xf16> as four
/// vector<2xf16>, vector<16xi8> as four i32).
bool splits(Type have, unsigned count, Type param) {
  auto v = dyn_cast<VectorType>(have);
  return v && !v.isScalable() && v.getRank() == 1 &&
         v.getNumElements() % count == 0 &&
         bitsOf(have) == int64_t(count) * bitsOf(param) && bitsOf(param) > 0;
}

/// A struct of scalars or vectors that together make `acc` (an mma's D).
bool joins(Type result, Type acc) {
  auto st = dyn_cast<LLVM::LLVMStructType>(result);
  if (!st || st.getBody().empty())
    return false;
  Type first = st.getBody().front();
  return llvm::all_equal(st.getBody()) &&
         splits(acc, st.getBody().size(), first);
}

/// Part `index` of `count` of vector `v`, bitcast to `t`.
Value part(OpBuilder &b, Location loc, Value v, unsigned index, unsigned count,
           Type t) {
  auto vt = cast<VectorType>(v.getType());
  int64_t n = vt.getNumElements() / count;
  SmallVector<int32_t> mask;
  for (int64_t e = 0; e < n; ++e)
    mask.push_back(int32_t(index * n + e));
  Value slice = LLVM::ShuffleVectorOp::create(b, loc, v, v, mask);
  return castTo(b, loc, slice, t);
}

} // namespace

std::string whyNotLowered(ApplyOp op) {
  FunctionType signature = op.getSignature();
  for (auto [k, t] : llvm::enumerate(signature.getInputs())) {
    int64_t j = op.getOrder()[k];
    if (j < 0) {
      if (!isa<IntegerType>(t))
        return llvm::formatv("parameter {0} takes an immediate but is {1}", k,
                             t);
      continue;
    }
    Type have = op.getRegisters()[j].getType();
    unsigned count = partOf(op, k).second;
    // One register as one parameter of the same size (vector<4xi8> as an
    // i32) bitcasts too.
    if (count > 1 ? !splits(have, count, t)
                  : have != t && !bitcastable(have, t) && !splits(have, 1, t))
      return llvm::formatv("register {0} is {1}, which does not bitcast to "
                           "the intrinsic's parameter {2} ({3}){4}",
                           j, have, k, t,
                           count > 1 ? llvm::formatv(" as one of {0} equal "
                                                     "parts", count)
                                             .str()
                                     : "");
  }
  Type result = signature.getResult(0);
  if (result != op.getType() && !bitcastable(result, op.getType()) &&
      !joins(result, op.getType()))
    return llvm::formatv("the intrinsic returns {0}, which does not bitcast "
                         "to the accumulator's {1}",
                         result, op.getType());
  return "";
}

Value lowerApply(OpBuilder &b, ApplyOp op) {
  FunctionType signature = op.getSignature();
  Location loc = op.getLoc();
  SmallVector<Value> args;
  for (auto [k, t] : llvm::enumerate(signature.getInputs())) {
    int64_t j = op.getOrder()[k];
    if (j < 0)
      args.push_back(LLVM::ConstantOp::create(
          b, loc, t, b.getIntegerAttr(t, (*op.getImmediates())[k])));
    else if (auto [index, count] = partOf(op, k); count > 1)
      args.push_back(part(b, loc, op.getRegisters()[j], index, count, t));
    else
      args.push_back(castTo(b, loc, op.getRegisters()[j], t));
  }
  Value r = LLVM::CallIntrinsicOp::create(b, loc, signature.getResult(0),
                                          op.getIntrinsicAttr(), args)
                .getResult(0);
  if (!joins(r.getType(), op.getType()))
    return castTo(b, loc, r, op.getType());
  // An mma's D fields, in order, make the accumulator fragment.
  auto fields = cast<LLVM::LLVMStructType>(r.getType()).getBody();
  auto acc = cast<VectorType>(op.getType());
  auto partType = VectorType::get({acc.getNumElements() / int64_t(fields.size())},
                                  acc.getElementType());
  SmallVector<Value> parts;
  for (auto [i, t] : llvm::enumerate(fields))
    parts.push_back(castTo(
        b, loc,
        LLVM::ExtractValueOp::create(b, loc, r, ArrayRef<int64_t>{int64_t(i)}),
        partType));
  return concatenate(b, loc, std::move(parts));
}

} // namespace tisa
