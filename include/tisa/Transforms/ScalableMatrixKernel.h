//===- ScalableMatrixKernel.h - code generation for SVE matrix multiply -*- C++ -*-===//
//
// A scalable matrix-multiply instruction (SVE smmla, ummla, usmmla, bfmmla)
// computes, in each 128-bit segment of a vector whose length only run time
// knows,
//   acc[i][j] += sum_k a[i][k] * b[k][j],  i, j < 2, k < g (8 bytes of k)
// with a's segment 2 rows of g elements, b's 2 columns of g elements and
// acc's a 2x2 block, row-major. The matcher maps i to one program loop (the
// rows), j and the segment loop to one (the columns: the segments are its
// more significant digit, so a vector's segments hold consecutive column
// pairs) and k to one reduction loop (the group loop). Then:
//   - B is packed once, as the scalable dot products pack it, with groups
//     of g:  packed[B's other loops...][k / g][n rounded up to 2][g]; the
//     two columns of a segment are 2 g contiguous elements, and a vector of
//     any length at an even column is one contiguous load.
//   - A is packed per row block (a panel that stays in L1): each pair of
//     rows, each reduction step, as the 16 bytes of one segment, so one
//     load replicated to every segment (ld1rq) feeds a row pair:
//     panel[pair][step][2][g]. With taps (a convolution) whose rows move
//     one dimension of A alone, A is paired once per call instead: every
//     position with its partner a row further (the input column `stride`
//     on), paired[A's dims...][k / g][2][g], so a pair at any tap is one
//     segment (each input row's positions whose pair lies inside it paired
//     as streams of the row's bytes, the others one by one). Either way a
//     zero border and the rows past the last are zeros: the steps need no
//     bounds (taps of a dimension the rows do not move that read only the
//     border, a conv2d's kh or kw, are skipped per tile).
//   - The computation, per tile of the range (row blocks of the other
//     parallel loops): the panel (GEMMs), then for the columns in steps of tn
//     vectors (VL read at run time; a narrower tile at the end):
//       C = 0 or C (rows interleaved into 2x2 blocks, masked)
//       for the taps, the groups: B[j] = load (masked), A[p] = ld1rq,
//         C[p][j] = mma
//     (a paired A's last tap, a conv2d's kw, runs in the group loop: its
//     steps follow the groups' in both the pairing and B; fusableTap)
//       two accumulators of a row pair de-interleaved into its two rows,
//       stored (masked), or through the epilogue.
//   - A signedness repair on A (s8 x u8 on ummla, u8 x s8 on smmla): the
//     panel holds A's bytes flipped (xor 0x80), zeros of a border included,
//     and B's column sums times the bias, taken when packing, start the
//     accumulators, as for the scalable dot products.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_SCALABLEMATRIXKERNEL_H
#define TISA_TRANSFORMS_SCALABLEMATRIXKERNEL_H

#include "tisa/Transforms/Tensorize.h"

namespace tisa {

class ScalableMatrixKernel final : public KernelGenerator {
public:
  /// Checks that the plan is a scalable matrix-multiply plan this generator
  /// supports, or says why not (one line).
  static mlir::FailureOr<ScalableMatrixKernel>
  get(const Contraction &c, const TensorizePlan &plan, std::string &why);
  /// Whether `plan` is for this generator: a scalable instruction of three
  /// loops (rows, columns, reduction).
  static bool handles(const TensorizePlan &plan);

  const TensorizePlan &plan() const override { return plan_; }
  unsigned packedInput() const override { return bInput; }
  int64_t packedBytes(const Schedule &s) const override;
  std::string packedLayoutText(const Schedule &s) const override;
  /// Row pairs x accumulators along the columns within the target's vector
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
  /// Epilogues whose operands run along the columns contiguously or not at
  /// all: applied to each de-interleaved row vector before its store.
  mlir::LogicalResult canFuse(const Epilogue &epilogue,
                              std::string &why) const override;

private:
  ScalableMatrixKernel() = default;
  class Compute;
  mlir::LogicalResult readInstruction(std::string &why);
  mlir::LogicalResult readOperands(std::string &why);
  mlir::LogicalResult readLoops(std::string &why);
  /// A signedness repair on A (scalable::repairOnA): flipped in the panel.
  mlir::LogicalResult readRepair(std::string &why);
  /// The packed data's bytes (a repair's sums follow them).
  int64_t dataBytes() const;
  /// Register tile of `s`: rows (even) and accumulators along the columns.
  std::pair<int64_t, int64_t> registerTile(const Schedule &s) const;
  /// Groups of the group loop (the last zero-padded).
  int64_t groups() const;
  /// Reduction steps of one output element: the other reduction loops
  /// times groups().
  int64_t steps() const;
  /// The column loop's extent rounded up to whole column pairs.
  int64_t lanesPadded() const;
  /// Rows of the row loop.
  int64_t rows() const { return extent[rowLoop]; }
  /// Vector registers a register tile may use on `target`.
  int64_t registerBudget(const Target &target) const;
  /// Sets fusableTap where the pairing allows it.
  void readFusedTap();
  /// Units of 64 bits of A paired once per call (pairDim).
  int64_t pairedUnits() const;

  Contraction c;
  TensorizePlan plan_;
  const Description *d = nullptr;
  mlir::FunctionType signature;
  /// Instruction registers of A (rows) and B (columns).
  unsigned aReg = 0, bReg = 1;
  /// Program inputs read as A (the panel) and packed (B).
  unsigned aInput = 0, bInput = 1;
  unsigned rowLoop = 0, laneLoop = 0, groupLoop = 0;
  /// Rows and columns of a segment's block, elements per group.
  int64_t segRows = 2, segCols = 2, group = 8;
  /// A repair (s8 x u8 on ummla, u8 x s8 on smmla): A's bytes are flipped
  /// (xor 0x80) in the panel, and every accumulator starts from sumFactor
  /// times its column's sum of B, stored after the packed data; 0 without
  /// one.
  int64_t sumFactor = 0;
  /// A's dimension that moves by `pairStride` from one row to the next,
  /// when A is paired once per call: with reduction loops besides the group
  /// (a convolution's taps, which would make a panel an im2col per row
  /// block) and the row loop in that dimension alone (a conv2d's input
  /// column, ow * stride + kw). None: a panel per row block.
  std::optional<unsigned> pairDim;
  int64_t pairStride = 0;
  /// The tap (a conv2d's kw) whose steps can run in one loop with the
  /// groups': with A paired, the last of B's taps when it moves A's last
  /// dimension before the groups' alone, with coefficient 1. Its value
  /// t * groups + g is then one index into both, so the group loop can run
  /// extent * groups steps (3 taps of 8 groups: a loop of 24 instead of 3
  /// of 8), those of a tile's taps inside A's border a range of them.
  std::optional<unsigned> fusableTap;
  llvm::SmallVector<int64_t> extent;
  /// B's other loops (its parallel ones, then the reduction ones); the
  /// parallel loops besides the columns (program order, the row loop
  /// last); the reduction loops besides the group loop (B's order).
  llvm::SmallVector<unsigned> bOuter, parallelLoops, reductionLoops;
};

} // namespace tisa

#endif // TISA_TRANSFORMS_SCALABLEMATRIXKERNEL_H
