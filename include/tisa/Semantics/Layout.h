//===- Layout.h - semantic operands <-> register images ---------*- C++ -*-===//
//
// A register image is the bytes a register holds, in memory order: a vector's
// lanes, an AMX tile's rows (row-major, bytes_per_row apart), or a warp
// fragment's lanes one after another. The layout maps of a description say
// where each semantic element lives in that image.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_SEMANTICS_LAYOUT_H
#define TISA_SEMANTICS_LAYOUT_H

#include "mlir/IR/Diagnostics.h"
#include "tisa/Semantics/Description.h"
#include <cstdint>
#include <vector>

namespace tisa {

/// Concrete values of one semantic operand: raw element bits, row-major,
/// `segments` copies of the semantic shape one after another (segments > 1 only
/// for scalable descriptions).
struct TensorValue {
  llvm::SmallVector<int64_t> shape;
  unsigned bitWidth = 0;
  unsigned segments = 1;
  std::vector<uint64_t> bits;

  int64_t elementsPerSegment() const;
};

/// Bytes in the register image of operand `i` (all segments).
size_t registerImageBytes(const Description &d, unsigned i, unsigned segments);

/// Register index (linearised over the register's shape) of semantic index
/// `idx` of operand `i`.
int64_t registerElementIndex(const Description &d, unsigned i,
                             llvm::ArrayRef<int64_t> idx);

std::vector<uint8_t> packOperand(const Description &d, unsigned i,
                                 const TensorValue &value);
TensorValue unpackOperand(const Description &d, unsigned i,
                          llvm::ArrayRef<uint8_t> image, unsigned segments);

/// An all-zero value of operand `i`'s semantic shape.
TensorValue zeroOperand(const Description &d, unsigned i, unsigned segments);

/// The layout of operand `i` must put every semantic element at its own place
/// inside the register.
mlir::LogicalResult
checkLayoutInjective(const Description &d, unsigned i,
                     llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// Calls `fn` on every index of `shape` in row-major order.
void forEachIndex(llvm::ArrayRef<int64_t> shape,
                  llvm::function_ref<void(llvm::ArrayRef<int64_t>)> fn);

} // namespace tisa

#endif // TISA_SEMANTICS_LAYOUT_H
