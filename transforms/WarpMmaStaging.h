//===- WarpMmaStaging.h - a warp-fragment kernel's view of the problem --*- C++ -*-===//
//
// Shared by the warp-fragment kernel generator's parts (WarpMmaKernel.cpp):
// the implicit GEMM a contraction becomes (Geometry), and the copy of each
// reduction slice of an input from global to shared memory (SliceStager):
// element by element with predicated loads, or with cp.async in chunks of up
// to 16 bytes where an input's slice rows are contiguous in memory, zero
// filled past the edges and inside a convolution's padding.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_WARPMMASTAGING_H
#define TISA_TRANSFORMS_WARPMMASTAGING_H

#include "tisa/Transforms/WarpMmaKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace tisa {

/// The instruction's loops by role (indices into the description's loops).
struct Roles {
  unsigned m = 0, n = 0, k = 0;
};

/// The problem as the kernel sees it: an implicit GEMM. Each instruction
/// role (m, n, k) takes a group of program loops, outer to inner, flattened
/// into one index: m the parallel loops only instruction A's input reads, n
/// those only B's reads, k the reductions (a convolution's m is its output
/// pixels, k its window and channels).
struct Geometry {
  Roles instr;
  int64_t im = 0, in = 0, ik = 0; ///< instruction extents
  llvm::SmallVector<unsigned> loops[3]; ///< program loops of m, n, k
  int64_t extent[3] = {1, 1, 1};        ///< M, N, K: their products
  int64_t M() const { return extent[0]; }
  int64_t N() const { return extent[1]; }
  int64_t K() const { return extent[2]; }
};

/// One input's reduction slice in shared memory: `rows` lines of BK
/// elements (k innermost), or, transposed, BK lines of `rows` (the row
/// role innermost: where the operand's own rows run that way, as a
/// row-major B's n does).
struct SliceLayout {
  unsigned input = 0;   ///< the program input
  unsigned rowRole = 0; ///< 0: m (instruction A), 1: n (B)
  int64_t rows = 0;
  bool transposed = false;
};

/// Copies slices of the program's inputs into shared memory, and addresses
/// program operands at points of the implicit GEMM.
class SliceStager {
public:
  SliceStager(mlir::OpBuilder &b, mlir::Location loc, const Contraction &c,
              const Geometry &g, llvm::ArrayRef<PaddedOperand> padded,
              mlir::ValueRange args, mlir::Value tid, int64_t threads,
              int64_t blockK)
      : b(b), loc(loc), c(c), g(g), padded(padded), args(args), tid(tid),
        threads(threads), BK(blockK) {}

  /// Elements per cp.async chunk of slices laid out as `l` (16 bytes at
  /// most, whole chunks inside the operand's innermost dimension), or 0
  /// when the slice's lines are not contiguous in memory.
  int64_t asyncChunk(const SliceLayout &l) const;
  /// Elements a slice laid out as `l` needs in shared memory (chunks of
  /// every thread, some past the slice, zero-filled).
  int64_t sliceElements(const SliceLayout &l) const;
  /// All threads copy a slice of `l.input` into `shared` at `offset`: its
  /// element (r, col) is the input at flattened indices rowBase + r of the
  /// row role and kBase + col of the reduction (0 outside). By cp.async
  /// when asyncChunk(l): the copies' tokens are appended to `tokens`.
  void stage(mlir::Value shared, mlir::Value offset, const SliceLayout &l,
             mlir::Value rowBase, mlir::Value kBase,
             llvm::SmallVectorImpl<mlir::Value> &tokens);

  /// The program point at flattened index `flat0` of role `role0` and
  /// `flat1` of `role1` (C's element: roles 0 and 1; a slice element: its
  /// row role and 2), and whether it lies inside the problem.
  mlir::Value pointOf(unsigned role0, mlir::Value flat0, unsigned role1,
                      mlir::Value flat1, llvm::SmallVector<mlir::Value> &point);
  /// The indices of program operand `operand` at `point`, and whether they
  /// lie inside its buffer (null: always).
  llvm::SmallVector<mlir::Value>
  programIndices(unsigned operand, llvm::ArrayRef<mlir::Value> point,
                 mlir::Value &insideBuffer);

private:
  mlir::Value index(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value zero(mlir::Type t) {
    return mlir::arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
  }
  /// `flat` < the extent of `role`.
  mlir::Value below(mlir::Value flat, unsigned role);
  /// The program loops of `role` at the flattened index `flat`, set in
  /// `point` (one value per program loop).
  void split(unsigned role, mlir::Value flat,
             llvm::SmallVector<mlir::Value> &point);
  /// Program operand `operand` at `point` if `guard` holds (and the point
  /// lies inside a padded operand's buffer), else 0.
  mlir::Value readProgram(unsigned operand, llvm::ArrayRef<mlir::Value> point,
                          mlir::Value guard, mlir::Type t);
  std::pair<mlir::Value, mlir::Value>
  slicePosition(const SliceLayout &l, mlir::Value e, int64_t along);
  void stageElements(mlir::Value shared, mlir::Value offset,
                     const SliceLayout &l, mlir::Value rowBase,
                     mlir::Value kBase);
  void stageAsync(mlir::Value shared, mlir::Value offset, const SliceLayout &l,
                  mlir::Value rowBase, mlir::Value kBase,
                  llvm::SmallVectorImpl<mlir::Value> &tokens);

  mlir::OpBuilder &b;
  mlir::Location loc;
  const Contraction &c;
  const Geometry &g;
  llvm::ArrayRef<PaddedOperand> padded;
  mlir::ValueRange args;
  mlir::Value tid;
  int64_t threads, BK;
};

} // namespace tisa

#endif // TISA_TRANSFORMS_WARPMMASTAGING_H
