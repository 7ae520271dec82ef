//===- ScalableDotKernel.h - code generation for scalable (SVE) dots -*- C++ -*-===//
//
// A scalable lane-dot instruction (SVE sdot, udot) computes, in each 128-bit
// segment of a vector whose length only run time knows (VL = 4 * vscale
// 32-bit lanes),
//   acc[n] += sum_k a[n, k] * b[n, k],  n < 4 lanes, k < g (the group).
// The matcher maps n and the segment loop to one program loop (the segments
// its more significant digit, so a vector holds VL consecutive values of
// it: the lane loop) and k to one reduction loop (the group loop). One input
// is broadcast (g consecutive elements, one 32-bit lane, replicated), the
// other packed once so that a vector of VL lanes at any column is one
// contiguous load whatever VL is:
//   packed[B's other loops...][k / g][n rounded up to 4][g]
// (the layout does not depend on the vector length, so one packed buffer
// serves every machine). The computation:
//   for other parallel loops, row blocks of tm rows (the range's tiles)
//     for n from 0 in steps of tn * VL (VL read at run time)
//       C[i][j] = 0 or C (masked: lanes past n's extent are off)
//       for other reduction loops (filter taps), k groups
//         B[j] = load (masked), A[i] = broadcast, C[i][j] = instruction
//       store C (masked)
// so one binary is correct at every vector length: the column step, the
// masks and the number of column blocks are computed from vscale. The last
// row block has fewer rows (its own copy of the column loop); a partial last
// group reads A with a mask; a conv2d's zero border is read from a padded
// copy of its input made per call.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_SCALABLEDOTKERNEL_H
#define TISA_TRANSFORMS_SCALABLEDOTKERNEL_H

#include "tisa/Transforms/Tensorize.h"

namespace tisa {

class ScalableDotKernel final : public KernelGenerator {
public:
  /// Checks that the plan is a scalable lane-dot plan this generator
  /// supports, or says why not (one line).
  static mlir::FailureOr<ScalableDotKernel>
  get(const Contraction &c, const TensorizePlan &plan, std::string &why);
  /// Whether `plan` is for this generator: a scalable instruction of one
  /// lane loop and one group loop (whose segment loop the plan adds).
  static bool handles(const TensorizePlan &plan);

  const TensorizePlan &plan() const override { return plan_; }
  unsigned packedInput() const override { return bInput; }
  int64_t packedBytes(const Schedule &s) const override;
  std::string packedLayoutText(const Schedule &s) const override;
  /// tm rows x tn vectors of accumulators within the target's vector
  /// registers, counted at the target's vector length.
  ScheduleEstimate estimate(const Target &target,
                            llvm::ArrayRef<int64_t> inputShape = {},
                            llvm::ArrayRef<int64_t> inputPadding = {}) const override;
  ScheduleSpace space() const override;
  mlir::LogicalResult verify(const Schedule &s, const Target *target,
                             std::string &why) const override;
  /// The other parallel loops times the row blocks.
  int64_t partitionTiles(const Schedule &s) const override;
  void emitPack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                mlir::Value buffer, const Schedule &s) const override;
  void emitCompute(mlir::OpBuilder &b, mlir::Location loc,
                   const ComputeOperands &operands,
                   const Schedule &s) const override;
  /// Epilogues whose operands run along the lanes contiguously or not at
  /// all: applied to each accumulator vector before its masked store.
  mlir::LogicalResult canFuse(const Epilogue &epilogue,
                              std::string &why) const override;

private:
  ScalableDotKernel() = default;
  class Compute;
  mlir::LogicalResult readInstruction(std::string &why);
  mlir::LogicalResult readOperands(std::string &why);
  /// A signedness repair: bias on the broadcast input only (see
  /// sumFactor).
  mlir::LogicalResult readRepair(std::string &why);
  /// The packed data's bytes (the repair's sums follow them).
  int64_t dataBytes() const;
  /// The repair's sums in `buffer`: memref<lanesPadded x i32>.
  mlir::Value sumsView(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value buffer) const;
  /// Register tile (rows, vectors) of `s`.
  std::pair<int64_t, int64_t> registerTile(const Schedule &s) const;
  /// Groups of the group loop (the last one partial when g does not divide
  /// its extent).
  int64_t groups() const;
  /// The lane loop's extent rounded up to whole segments.
  int64_t lanesPadded() const;
  /// Rows of the row loop (1 without one).
  int64_t rows() const;
  /// Vector registers a register tile may use on `target`.
  int64_t registerBudget(const Target &target) const;

  Contraction c;
  TensorizePlan plan_;
  const Description *d = nullptr;
  mlir::FunctionType signature;
  /// Instruction registers of the broadcast and the packed input.
  unsigned aReg = 0, bReg = 1;
  /// Program inputs broadcast (A) and packed (B).
  unsigned aInput = 0, bInput = 1;
  unsigned laneLoop = 0, groupLoop = 0;
  /// Lanes per segment, elements per group.
  int64_t segLanes = 4, group = 4;
  /// A repair (u8 x s8 on sdot): the broadcast input's bytes are flipped
  /// (xor 0x80) and every accumulator starts from sumFactor (minus its
  /// bias) times its column's sum of the packed input, stored after the
  /// packed data; 0 without one.
  int64_t sumFactor = 0;
  llvm::SmallVector<int64_t> extent;
  /// B's other loops (in its map's order); the parallel loops besides the
  /// lanes (program order: the last is the row loop a register tile
  /// unrolls); the reduction loops besides the group loop (program order).
  llvm::SmallVector<unsigned> bOuter, parallelLoops, reductionLoops;
};

} // namespace tisa

#endif // TISA_TRANSFORMS_SCALABLEDOTKERNEL_H
