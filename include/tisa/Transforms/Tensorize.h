//===- Tensorize.h - code generation for a tensorize plan -------*- C++ -*-===//
//
// Applies a TensorizePlan to a linalg contraction on memrefs by emitting loops
// (scf), vector loads and stores, and the description's lowering. The pieces
// are separate so that a kernel library can expose them separately: packing of
// the operand the plan relays out (once per weight tensor) and the computation
// on already-packed data.
//
// Supported today: "lane-dot" instructions, whose accumulator is a vector of
// L lanes each adding a dot product of g elements (vpdpbusd/vpdpbusds in
// xmm/ymm/zmm, vdpbf16ps; NEON sdot/udot have the shape, untested), with one
// input broadcast and the
// other packed, as the matcher plans them for GEMM, batched GEMM,
// matrix-vector products and NHWC/HWCF convolutions. AMX tiles, SVE segments
// and warp fragments are matched but not generated yet: `get` says so.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_TENSORIZE_H
#define TISA_TRANSFORMS_TENSORIZE_H

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Matcher/Matcher.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <memory>

namespace tisa {

class LaneDotKernel {
public:
  LaneDotKernel(LaneDotKernel &&);
  ~LaneDotKernel();

  /// Checks that the code generator supports the plan and precomputes the
  /// layouts, or says why not (one line).
  static mlir::FailureOr<LaneDotKernel>
  get(const Contraction &c, const TensorizePlan &plan, std::string &why);

  const TensorizePlan &plan() const;
  /// The program input (0 or 1) that is packed ahead of the computation.
  unsigned packedInput() const;
  /// Bytes of the buffer `emitPack` fills: the packed operand and, when a
  /// repair needs it, the compensation that depends only on that operand.
  int64_t packedBytes() const;
  /// memref<packedBytes x i8>.
  mlir::MemRefType packedBufferType(mlir::MLIRContext *ctx) const;
  /// "[K/4][N+pad][4] i8 (+ 128 * column sums)"-style description.
  std::string packedLayoutText() const;

  /// Packs program input `packedInput()` (the memref `src`, of the program's
  /// shape) into `buffer` (of packedBufferType).
  void emitPack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                mlir::Value buffer) const;
  /// The computation: reads the other program input from `input` (of the
  /// program's shape), the packed one from `buffer`, and writes `output`:
  /// output = input x packed when `overwrite`, output += ... otherwise
  /// (linalg's semantics).
  void emitCompute(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                   mlir::Value buffer, mlir::Value output,
                   bool overwrite) const;

private:
  struct Impl;
  explicit LaneDotKernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// The best plan of `result` that LaneDotKernel supports (plans are ranked
/// best first), or failure with the reason the best one was skipped.
mlir::FailureOr<LaneDotKernel> selectKernel(const MatchResult &result,
                                            std::string &why);

} // namespace tisa

#endif // TISA_TRANSFORMS_TENSORIZE_H
