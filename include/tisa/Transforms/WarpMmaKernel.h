//===- WarpMmaKernel.h - GEMM kernels on warp-fragment instructions -*- C++ -*-===//
//
// Code generation for instructions whose registers are warp fragments (PTX
// mma.sync): a GEMM plan becomes a `gpu.module` holding one `gpu.func`
// kernel. A thread block computes a BM x BN tile of C; it stages A's BM x BK
// and B's BK x BN slices of each reduction step in shared memory (zero past
// the edges: remainders by predication), and each warp multiplies a WM x WN
// warp tile of instruction fragments out of it. Every lane reads its
// fragment elements through per-lane offset tables derived from the
// description's own layout maps, so any mma description (any shape, any
// element type) is generated with no code change. The instruction is a
// tisa.apply on per-lane fragments (vector<perLane x T>).
//
// The same kernel IR is lowered two ways: to PTX (tisa::nvptx::emitPtx) and
// for the host by -tisa-gpu-to-host, where blocks and threads become loops
// and each mma runs on the warp-level reference (targets/nvptx/WarpMma.h).
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_WARPMMAKERNEL_H
#define TISA_TRANSFORMS_WARPMMAKERNEL_H

#include "tisa/Matcher/Matcher.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tisa {

/// The thread-block and warp tiling of a warp-fragment GEMM kernel.
struct WarpMmaSchedule {
  int64_t warpsM = 2, warpsN = 2; ///< warps of a block along m and n
  int64_t tileM = 2, tileN = 4;   ///< instruction fragments per warp
  int64_t kSteps = 2;             ///< instruction k steps per staged slice
  /// Read fragments with ldmatrix where their layout is its layout.
  bool ldmatrix = true;
};

/// The default tiling for a problem: two by two warps of 2 x 4 fragments
/// and two k steps per slice, each cut down to what the problem fills (a
/// 1 x 1 x 1 GEMM gets one warp of one fragment).
WarpMmaSchedule defaultWarpMmaSchedule(const Contraction &c,
                                       const TensorizePlan &plan);

/// What a launch needs to know about a generated kernel.
struct WarpMmaLaunch {
  std::string kernel;     ///< the gpu.func's name
  std::string module;     ///< the gpu.module's name
  int64_t blockThreads = 0;
  /// Blocks along x and y: of m and n, or of n and m when n has more.
  int64_t gridX = 0, gridY = 0;
  int64_t blockM = 0, blockN = 0; ///< rows of m and columns of n per block
  /// Per program input: the alignment in bytes its address must have
  /// (cp.async copies 4, 8 or 16 bytes at a time).
  int64_t inputAlignment[2] = {1, 1};
  int64_t sharedBytes = 0;      ///< static shared memory per block
  /// The implicit GEMM: "m <- f(21), n <- n.oh.ow(63), k <- kh.kw.c(171)"
  /// (the program loops each instruction loop runs over, flattened).
  std::string loops;
};

/// A program input the kernel reads from a buffer smaller than the
/// contraction's view of it (a convolution's zero-padded input): the
/// kernel's argument holds the `shape` elements that start at `low` in the
/// view; reads outside them are zero (predicated, never loaded).
struct PaddedOperand {
  unsigned operand = 0;
  llvm::SmallVector<int64_t> low, shape;
};

/// Why `plan` cannot be generated as a warp-fragment GEMM ("" when it can).
std::string whyNotWarpMmaGemm(const Contraction &c, const TensorizePlan &plan);

/// Appends to `module` a gpu.module `<name>_kernels` holding the kernel
/// `name`(ins0, ins1, outs0) for the contraction `c` under `plan`: a GEMM,
/// or any contraction whose parallel loops each belong to one input (a
/// convolution: an implicit GEMM). The arguments are row-major static
/// memrefs of the operands' shapes (`padded` ones: their buffers' shapes).
/// C is accumulated into, as the linalg op does.
///
/// With an `epilogue` (an elementwise linalg.generic reading the
/// contraction's output as its input 0, Epilogue::check) the third argument
/// is the epilogue's output instead, which each accumulator is applied to
/// and stored in (not added to), and the epilogue's other inputs, then the
/// values of the enclosing function its body uses, follow as arguments of
/// their types (memrefs static).
mlir::FailureOr<WarpMmaLaunch>
buildWarpMmaKernel(mlir::ModuleOp module, llvm::StringRef name,
                   const Contraction &c, const TensorizePlan &plan,
                   const WarpMmaSchedule &schedule, std::string &why,
                   llvm::ArrayRef<PaddedOperand> padded = {},
                   mlir::linalg::GenericOp epilogue = {});

} // namespace tisa

#endif // TISA_TRANSFORMS_WARPMMAKERNEL_H
