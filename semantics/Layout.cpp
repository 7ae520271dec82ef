//===- Layout.cpp - semantic operands <-> register images -----------------===//

#include "tisa/Semantics/Layout.h"
#include "tisa/Semantics/AffineEval.h"

#include "llvm/ADT/BitVector.h"
#include <cassert>

using namespace mlir;

namespace tisa {

int64_t TensorValue::elementsPerSegment() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  for (int64_t s : shape)
    if (s <= 0)
      return;
  SmallVector<int64_t> idx(shape.size(), 0);
  while (true) {
    fn(idx);
    int d = static_cast<int>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

namespace {
unsigned elementBytes(const OperandRegister &reg) {
  return reg.type.getElementTypeBitWidth() / 8;
}

/// Register elements per segment (a scalable register's known-minimum size is
/// one segment).
int64_t registerElements(const OperandRegister &reg) {
  return reg.type.getNumElements();
}
} // namespace

size_t registerImageBytes(const Description &d, unsigned i, unsigned segments) {
  const OperandRegister &reg = d.registers[i];
  return registerElements(reg) * elementBytes(reg) * segments;
}

int64_t registerElementIndex(const Description &d, unsigned i,
                             ArrayRef<int64_t> idx) {
  const OperandRegister &reg = d.registers[i];
  SmallVector<int64_t> r = valueAt(reg.layout, idx);
  int64_t linear = 0;
  for (auto [k, v] : llvm::enumerate(r))
    linear = linear * reg.type.getDimSize(k) + v;
  return linear;
}

std::vector<uint8_t> packOperand(const Description &d, unsigned i,
                                 const TensorValue &value) {
  const OperandRegister &reg = d.registers[i];
  unsigned bytes = elementBytes(reg);
  int64_t perSegment = registerElements(reg) * bytes;
  std::vector<uint8_t> image(registerImageBytes(d, i, value.segments), 0);
  int64_t n = value.elementsPerSegment();
  for (unsigned s = 0; s < value.segments; ++s) {
    int64_t linear = 0;
    forEachIndex(value.shape, [&](ArrayRef<int64_t> idx) {
      uint64_t bits = value.bits[s * n + linear++];
      int64_t at = s * perSegment + registerElementIndex(d, i, idx) * bytes;
      for (unsigned b = 0; b < bytes; ++b)
        image[at + b] = static_cast<uint8_t>(bits >> (8 * b));
    });
  }
  return image;
}

TensorValue zeroOperand(const Description &d, unsigned i, unsigned segments) {
  TensorValue v;
  v.shape.assign(d.operandShape(i).begin(), d.operandShape(i).end());
  v.bitWidth = d.operandElementType(i).getIntOrFloatBitWidth();
  v.segments = segments;
  v.bits.assign(v.elementsPerSegment() * segments, 0);
  return v;
}

TensorValue unpackOperand(const Description &d, unsigned i,
                          ArrayRef<uint8_t> image, unsigned segments) {
  const OperandRegister &reg = d.registers[i];
  unsigned bytes = elementBytes(reg);
  int64_t perSegment = registerElements(reg) * bytes;
  TensorValue v = zeroOperand(d, i, segments);
  int64_t n = v.elementsPerSegment();
  for (unsigned s = 0; s < segments; ++s) {
    int64_t linear = 0;
    forEachIndex(v.shape, [&](ArrayRef<int64_t> idx) {
      int64_t at = s * perSegment + registerElementIndex(d, i, idx) * bytes;
      uint64_t bits = 0;
      for (unsigned b = 0; b < bytes; ++b)
        bits |= static_cast<uint64_t>(image[at + b]) << (8 * b);
      v.bits[s * n + linear++] = bits;
    });
  }
  return v;
}

/// The first floordiv, ceildiv or mod in `map` whose divisor is not a
/// positive constant, or null (the layout's value would be undefined).
static AffineExpr badDivisor(AffineMap map) {
  AffineExpr bad;
  for (AffineExpr e : map.getResults())
    e.walk([&](AffineExpr x) {
      auto bin = dyn_cast<AffineBinaryOpExpr>(x);
      if (bad || !bin || bin.getKind() == AffineExprKind::Add ||
          bin.getKind() == AffineExprKind::Mul)
        return;
      auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
      if (!c || c.getValue() <= 0)
        bad = x;
    });
  return bad;
}

/// The first semantic index of operand `i` (row-major) that the layout puts
/// at register element `linear`.
static SmallVector<int64_t> firstAt(const Description &d, unsigned i,
                                    int64_t linear) {
  SmallVector<int64_t> first;
  forEachIndex(d.operandShape(i), [&](ArrayRef<int64_t> idx) {
    if (first.empty() && registerElementIndex(d, i, idx) == linear)
      first.assign(idx.begin(), idx.end());
  });
  return first;
}

LogicalResult
checkLayoutInjective(const Description &d, unsigned i,
                     llvm::function_ref<InFlightDiagnostic()> emitError) {
  const OperandRegister &reg = d.registers[i];
  if (reg.type.getElementTypeBitWidth() % 8 != 0)
    return emitError() << "registers[" << i << "]: elements of "
                       << reg.type.getElementTypeBitWidth()
                       << " bits are not supported (whole bytes only)";
  // Composing a division by 0 or a negative constant is undefined.
  if (AffineExpr bad = badDivisor(reg.layout)) {
    std::string expr, divisor;
    llvm::raw_string_ostream(expr) << bad;
    llvm::raw_string_ostream(divisor) << cast<AffineBinaryOpExpr>(bad).getRHS();
    return emitError() << "the layout of registers[" << i << "] divides by "
                       << divisor << " in '" << expr
                       << "': floordiv, ceildiv and mod need a positive "
                          "constant";
  }
  // Each element's register index, marked as it is taken; the first
  // semantic index at a collision's place is found again only for the error.
  llvm::BitVector taken(registerElements(reg));
  LogicalResult result = success();
  forEachIndex(d.operandShape(i), [&](ArrayRef<int64_t> idx) {
    if (failed(result))
      return;
    SmallVector<int64_t> r = valueAt(reg.layout, idx);
    int64_t linear = 0;
    for (auto [k, v] : llvm::enumerate(r)) {
      if (v < 0 || v >= reg.type.getDimSize(k)) {
        auto diag = emitError() << "registers[" << i
                                << "]: the layout puts semantic element (";
        llvm::interleaveComma(idx, diag);
        diag << ") at register index (";
        llvm::interleaveComma(r, diag);
        diag << "), outside " << reg.type;
        result = failure();
        return;
      }
      linear = linear * reg.type.getDimSize(k) + v;
    }
    if (!taken.test(linear)) {
      taken.set(linear);
      return;
    }
    auto diag = emitError() << "registers[" << i
                            << "]: the layout puts semantic elements (";
    llvm::interleaveComma(firstAt(d, i, linear), diag);
    diag << ") and (";
    llvm::interleaveComma(idx, diag);
    diag << ") in the same register element " << linear;
    result = failure();
  });
  return result;
}

} // namespace tisa
