//===- TileKernel.h - code generation for tile-register instructions -*- C++ -*-===//
//
// A tile instruction (AMX tdpbusd, tdpbf16ps, ...; NEON smmla, ummla,
// bfmmla on matrix segments held in vector registers) computes
//   C[m, n] += sum_k A[m, k] * B[k, n],  m < M, n < N, k < K
// on three 2-D registers: AMX tiles, or vectors whose elements are the rows
// of a small matrix (smmla: A 2 x 8 bytes, B 8 x 2 transposed, C 2 x 2
// words), loaded row by row. The matcher maps m, n and k to one program loop
// each. A is read in place, one tile row per step of the m loop at a
// constant stride, its k elements contiguous; B is packed once into the
// description's register image, one contiguous tile per (panel, k step):
//   packed[B's other loops...][n / N][k / K][tile rows][tile bytes];
// C is a row-major tile. The computation keeps a register tile of
// tm x tn accumulators (within the register file the target states) across
// every reduction loop, fed by tm A tiles and tn B tiles per step:
//   for other parallel loops, m blocks        (the range entry's tiles)
//     for n blocks
//       C[i][j] = 0 (or the output)
//       for other reduction loops (filter taps), k steps
//         A[i] = load, B[j] = load, C[i][j] = instruction(A[i], B[j], C[i][j])
//       store C
// Matrix segments read A from a copy packed per call into the register
// image instead (see packA), so that each A register is one contiguous
// load, and a register tile's A registers one contiguous run; their B
// panels are ordered so that one step's B registers are one run too.
// Remainders are padding, so every tile has the description's one shape
// and an AMX tile configuration never changes (LLVM loads it once per
// function); matrix segments (vectors, no configuration) run m's and n's
// last blocks with only their rows and panels (shortRows, shortPanels). B's
// panels and k steps are zero-filled when packed; an A whose
// extents are not whole register tiles (or a conv2d's border) is read from
// a zero-padded copy made per call; a block of C that leaves C is computed
// in a register tile's worth of scratch and its valid part copied.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_TILEKERNEL_H
#define TISA_TRANSFORMS_TILEKERNEL_H

#include "tisa/Transforms/Tensorize.h"

namespace mlir::scf {
struct LoopNest;
} // namespace mlir::scf

namespace tisa {

class TileKernel final : public KernelGenerator {
public:
  /// Checks that the plan is a tile plan this generator supports, or says
  /// why not (one line).
  static mlir::FailureOr<TileKernel>
  get(const Contraction &c, const TensorizePlan &plan, std::string &why);

  const TensorizePlan &plan() const override { return plan_; }
  unsigned packedInput() const override { return bInput; }
  int64_t packedBytes(const Schedule &s) const override;
  std::string packedLayoutText(const Schedule &s) const override;
  /// 2 x 2 accumulator tiles (fewer when m or n has fewer tiles) within the
  /// target's tile registers: a tile load per instruction.
  ScheduleEstimate estimate(const Target &target,
                            llvm::ArrayRef<int64_t> inputShape = {},
                            llvm::ArrayRef<int64_t> inputPadding = {}) const override;
  ScheduleSpace space() const override;
  /// The register tile's accumulators and one step's A and B tiles fit the
  /// target's tile registers.
  mlir::LogicalResult verify(const Schedule &s, const Target *target,
                             std::string &why) const override;
  /// The other parallel loops times the m blocks.
  int64_t partitionTiles(const Schedule &s) const override;
  void emitPack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                mlir::Value buffer, const Schedule &s) const override;
  void emitCompute(mlir::OpBuilder &b, mlir::Location loc,
                   const ComputeOperands &operands,
                   const Schedule &s) const override;
  /// Epilogues whose operands run along C's rows contiguously or not at
  /// all: each block's tiles are stored to a scratch in L1 and its rows go
  /// through the epilogue as vectors.
  mlir::LogicalResult canFuse(const Epilogue &epilogue,
                              std::string &why) const override;

private:
  TileKernel() = default;
  struct CBlock;
  struct StepInputs;
  mlir::LogicalResult readInstruction(std::string &why);
  mlir::LogicalResult readLoops(std::string &why);
  mlir::LogicalResult readOperands(std::string &why);
  /// Segments: which dimension of A m indexes, and the residues (see packA).
  mlir::LogicalResult readSegmentA(std::string &why);
  /// Tile (or, for segments, vector) registers a register tile may use on
  /// `target` (the default schedule and verify agree on it).
  int64_t tileRegisterBudget(const Target &target) const;
  /// Rows of A and C tiles as loads see them: a segment's rows are read one
  /// by one; an AMX tile load takes its rows from the tile (1 here).
  int64_t segmentRows() const { return segments ? mI : 1; }
  /// Accumulators of one register-tile row stored (and loaded) together
  /// from column tile j of tn: matrix segments in pairs, one row of both per
  /// store; tiles one by one.
  int64_t cPairs(int64_t tn, int64_t j) const {
    return segments && j + 1 < tn ? 2 : 1;
  }
  /// The register tile of `s`: accumulators along m and n.
  std::pair<int64_t, int64_t> registerTile(const Schedule &s) const;
  /// Matrix segments: the accumulator rows of the last m block when m's
  /// segment rows do not fill whole register tiles; that block computes
  /// only those (the packed A keeps its layout of whole blocks). 0 when
  /// every block is whole, and for AMX tiles, which pad instead (one tile
  /// configuration per function).
  int64_t shortRows(const Schedule &s) const;
  /// Matrix segments: likewise the accumulators of n's last block when
  /// n's panels do not fill whole register tiles (the packed B keeps its
  /// groups of tn panels); 0 when they do, and for AMX tiles.
  int64_t shortPanels(const Schedule &s) const;
  /// The accumulators of one block: rows along m, columns along n (the
  /// register tile's, or fewer in a last, short block).
  struct BlockShape {
    int64_t rows = 1, cols = 1;
  };
  /// Extents of each program loop rounded up to whole register tiles (m, n)
  /// and instruction steps (k).
  llvm::SmallVector<int64_t> paddedExtents(const Schedule &s) const;
  /// Extents of program operand `i` when its loops run to `loopExtents`.
  llvm::SmallVector<int64_t>
  operandExtents(unsigned i, llvm::ArrayRef<int64_t> loopExtents) const;
  int64_t kSteps() const;
  /// The cost model's cycles of schedule `s` (estimate()).
  double countCycles(const Target &target, const Schedule &s) const;
  /// The cost model's cycles of packA (matrix segments): each register
  /// about two accumulators' moves, as the SVE matrix kernel's panel; 0 for
  /// AMX tiles.
  double packACycles(const Target &target, const Schedule &s) const;
  /// The cost model's cycles of copying matrix segments' edge blocks
  /// through the scratch (CostModel::edgeElementCycles); 0 for AMX tiles.
  double edgeCycles(const Target &target, const Schedule &s) const;
  /// Whether B's tiles can be held in registers across the m blocks
  /// (Schedule::hold): AMX tiles, and B indexed only by n, k and the other
  /// reduction loops.
  bool canHoldB() const;
  /// Instruction steps of one block's reduction: k steps times the other
  /// reduction loops' extents.
  int64_t reductionSteps() const;
  /// Tile registers of a tm x tn register tile: its accumulators, tm A
  /// tiles and tn B tiles of a step, or with `hold` steps held, their B
  /// tiles and one for the other steps' B tiles, one at a time.
  int64_t registersNeeded(int64_t tm, int64_t tn, int64_t hold) const;
  int64_t panels(const Schedule &s) const;
  int64_t tileBytes(unsigned reg) const;
  /// The byte offset of B element (k, n) in its tile, as an affine map of
  /// (k, n) from the description's register layout.
  mlir::AffineMap bTileOffset() const;
  /// Whether the pack builds a register of B from its kI rows of nI
  /// elements (registerOfRows): matrix segments whose register is n-major
  /// with k contiguous, read from a B whose last dimension n alone indexes,
  /// contiguously.
  bool packsRegisterRows(mlir::Value src) const;
  /// A tile of the packed B: B's other loops' values, its n panel and k
  /// step, the element of the packed view where it starts, and B's zero.
  struct PackedTile {
    mlir::ValueRange outer;
    mlir::Value panel, step, tile, zero;
  };
  /// The element of the packed view holding (kk, nn) of the tile starting
  /// at `tile`.
  mlir::Value packedElement(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value tile, mlir::Value kk,
                            mlir::Value nn) const;
  /// B's element (kk, nn) of tile `t` (zero past B's extents) into `view`.
  void packElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                   mlir::Value view, const PackedTile &t, mlir::Value kk,
                   mlir::Value nn) const;
  /// The tile of B's other loops' values `outer`, n panel and k step.
  PackedTile packedTile(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ValueRange outer, mlir::Value panel,
                        mlir::Value step, mlir::Value zero,
                        const Schedule &s) const;
  /// Whether the pack transposes B's rows into kI registers at a time
  /// (packRowGroup): packsRegisterRows, kI a power of two and a register
  /// of kI x nI elements.
  bool packsRowGroups(mlir::Value src) const;
  /// Panels group * kI to group * kI + kI - 1 of k step `step`: inside B
  /// (and the panels), kI loads of kI * nI elements, a transpose
  /// (zipTranspose) and kI stores; else each panel by packRegister.
  /// ResNet-50 7x7x512's s8 filters on neoverse-v2: 0.43 instructions per
  /// byte instead of 1.67 (packRegister alone).
  void packRowGroup(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                    mlir::Value view, mlir::ValueRange outer, mlir::Value group,
                    mlir::Value step, mlir::Value zero,
                    const Schedule &s) const;
  /// Tile `t` into `view` as one register (registerOfRows) when it lies
  /// inside B, else element by element.
  void packRegister(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                    mlir::Value view, const PackedTile &t) const;
  /// The register of B whose rows start at (`ivs` with k = `k0`): kI
  /// vector loads and shuffles (inside B: no bounds).
  mlir::Value registerOfRows(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value src,
                             llvm::MutableArrayRef<mlir::Value> ivs,
                             mlir::Value k0) const;
  /// Which tile of the packed B holds (B's other loops linearized, n panel,
  /// k step): AMX tiles panel by panel, ((outer * panels + panel) * steps +
  /// step); matrix segments with the register tile's tn panels of a k step
  /// side by side, so one step's B registers are one contiguous run (load
  /// pairs): ((outer * panels / tn + panel / tn) * steps + step) * tn +
  /// panel mod tn.
  mlir::Value bTile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value outer,
                    mlir::Value panel, mlir::Value step,
                    const Schedule &s) const;
  /// Where the accumulators go: C, or `edge` when set (a register tile's
  /// worth of C: blocks that leave C are computed there and their valid
  /// part copied). With an epilogue every block goes through `edge`, and
  /// its rows through the epilogue into `c` (its output).
  struct CStore {
    mlir::Value c, edge;
    const Epilogue *epilogue = nullptr;
  };
  /// A as the steps read it (in place, or packed), and where the input
  /// lies in A's program extents: per dimension, the zeros of its border
  /// before it and its extent (a tap outside reads zeros: tapBounds).
  struct AOperand {
    mlir::Value value;
    llvm::SmallVector<int64_t> low, size;
  };
  /// The loop over the range's tiles (`begin`..`end`, or all of
  /// partitionTiles), the builder left in its body: its index.
  mlir::Value rangeLoop(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value begin, mlir::Value end,
                             const Schedule &s) const;
  /// Program loop values of range tile `t`: the other parallel loops and
  /// the m block's first row (n left 0).
  llvm::SmallVector<mlir::Value> tileIvs(mlir::OpBuilder &b,
                                         mlir::Location loc, mlir::Value t,
                                         const Schedule &s) const;
  /// The range's m blocks, then n in register tiles of tn panels.
  void emitTileLoop(mlir::OpBuilder &b, mlir::Location loc, const AOperand &a,
                    mlir::Value buffer, const CStore &out, bool overwrite,
                    const Schedule &s, mlir::Value begin,
                    mlir::Value end) const;
  /// Schedule::hold: n in register tiles outermost, each one's B tiles of
  /// the held steps loaded once and held over the range's m blocks.
  void emitHeldLoop(mlir::OpBuilder &b, mlir::Location loc, const AOperand &a,
                    mlir::Value buffer, const CStore &out, bool overwrite,
                    const Schedule &s, mlir::Value begin,
                    mlir::Value end) const;
  /// Calls `body` with each reduction step (the other reduction loops'
  /// values, then the k step), in loop order.
  void forEachStep(llvm::function_ref<void(llvm::ArrayRef<int64_t>)> body) const;
  /// The block at `ivs` (n: its first panel) of `shape`'s accumulators
  /// (the register tile's, or a short last block's), its reduction loops
  /// carrying them; with Schedule::hold every step unrolled instead, the
  /// first ones on `held` B tiles (tn per step, in forEachStep's order).
  void emitBlock(mlir::OpBuilder &b, mlir::Location loc,
                 llvm::ArrayRef<mlir::Value> ivs, BlockShape shape,
                 const AOperand &a, mlir::Value buffer, const CStore &out,
                 bool overwrite, const Schedule &s,
                 llvm::ArrayRef<mlir::Value> held) const;
  /// The range's n blocks at `ivs` (its m block), `rows` accumulator rows
  /// each, the last one short when shortPanels says so.
  void emitNBlocks(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::SmallVector<mlir::Value> ivs, int64_t rows,
                   const AOperand &a, mlir::Value buffer, const CStore &out,
                   bool overwrite, const Schedule &s) const;
  /// The block of C at `ivs` (the m block's first row, n in blocks of the
  /// register tile) of `shape`'s accumulators, through the edge scratch
  /// when it leaves C (or there is an epilogue).
  CBlock cBlock(mlir::OpBuilder &b, mlir::Location loc,
                llvm::ArrayRef<mlir::Value> ivs, BlockShape shape,
                const CStore &out) const;
  /// The address of accumulator tile (i, j) of `blk`.
  mlir::Value cTile(mlir::OpBuilder &b, mlir::Location loc, const CBlock &blk,
                    int64_t i, int64_t j) const;
  /// For an edge block, moves its valid part into the scratch or back
  /// (with an epilogue: every block, through it).
  void moveEdge(mlir::OpBuilder &b, mlir::Location loc, const CBlock &blk,
                const CStore &out, bool intoEdge) const;
  /// Matrix segments: A (`a.value`, where `a.low` and `a.size` place it in
  /// A's padded extents `aShape`; zeros outside, k excepted: it covers whole
  /// k steps) packed into the A
  /// register image, mI rows of A (rows p and p + s, s being how far one m
  /// moves in A's m dimension) as one register:
  ///   aPacked[A's other dims...][p mod R][m block][k step][member][mI x kI]
  /// with R = mI * s. Register P = p / R is member P - tm * block of its
  /// block's group, which holds the block's tm registers and the aShift
  /// more its taps reach: a block's registers of a step are adjacent, and
  /// its steps too, so A is one stream whatever the tap (a tap is a
  /// constant residue and first member). Only residues of p that a block
  /// can start at are stored.
  /// The shape of packA's copy of an A of padded extents `aShape`:
  /// [A's other dims...][residues][m blocks][k steps][members][mI x kI].
  llvm::SmallVector<int64_t> packedAShape(llvm::ArrayRef<int64_t> aShape,
                                          const Schedule &s) const;
  mlir::Value packA(mlir::OpBuilder &b, mlir::Location loc,
                    const AOperand &a, llvm::ArrayRef<int64_t> aShape,
                    const Schedule &s) const;
  /// Matrix segments: fully unrolls the loops of `nest` (emitBlock's
  /// reduction loops) whose taps move A's m dimension, up to
  /// kMaxTapUnroll iterations each, when a tap's loop of k steps runs
  /// `stepTrips` >= kMinStepTripsForTaps iterations.
  void unrollTapsOfA(mlir::Location loc, mlir::scf::LoopNest &nest,
                     int64_t stepTrips) const;
  /// The taps of reduction loop `l` that read A inside its input (a zero
  /// border's taps add nothing) for the block at `ivs`: [0, extent) unless
  /// A (matrix segments) has a border in a dimension that `l` moves and the
  /// block's other loops there (m excluded) are parallel.
  std::pair<mlir::Value, mlir::Value> tapBounds(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                llvm::ArrayRef<mlir::Value> ivs,
                                                unsigned l,
                                                const AOperand &a) const;
  static constexpr int64_t kMaxTapUnroll = 8;
  /// Segments: whether a register of A of a block of `rows` lies wholly in
  /// A's zero border at some value of the unrolled taps, where that test
  /// folds to a constant (one m block, every other loop that moves A's m
  /// dimension such a tap). Its instructions are then skipped (emitStep):
  /// ResNet-50's 7x7x512 runs its 7 columns as 4 pairs, the last outside
  /// the image at the last kw tap.
  bool outsideRegisters(const AOperand &a, int64_t rows,
                        const Schedule &s) const;
  /// Whether register r of a step whose first row is at position `first`
  /// of A's m dimension reads a row inside A: an i1.
  mlir::Value registerInside(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value first, int64_t r,
                             const AOperand &a) const;
  /// The loops' coefficients in A's m dimension, its constant last.
  llvm::SmallVector<int64_t> aMCoefficients() const;
  /// The k steps per iteration of the reduction loop.
  int64_t stepUnroll(const Schedule &s) const;
  /// LLVM unrolls a loop of two iterations completely; a tap's steps then
  /// join the unrolled taps' in one block whose loads lie past ldp's reach
  /// from its one base (56x56x64 s8 on neoverse-v2: 112 of 208 loads
  /// unpaired, 5,905,532 instructions against 5,583,744 with the taps in a
  /// loop; 28x28x128 and 14x14x256, 4 and 8 iterations, gain 2% and 7%
  /// from the unroll).
  static constexpr int64_t kMinStepTripsForTaps = 3;
  /// The reduction unroll of a matrix-segment tile of `accumulators`
  /// registers: the cost model's segment_long_reduction_unroll where the
  /// loop runs at least kMinLongUnrollTrips iterations of it and the tile
  /// leaves kMinFreeForLongUnroll vector registers, else its
  /// segment_reduction_unroll. On neoverse-v2 (8 against 4 steps) every 4x6
  /// tile of 32 steps or more counted 2.0-2.4% fewer instructions and
  /// llvm-mca's hot loop rose from 3.49 to 3.59 smmla per cycle (256^3,
  /// BERT, 14x14x256, 7x7x512); 14x2 (4 free) left 11% of the loads
  /// unpaired (28x28x128 bf16: 4.2% more instructions), and loops of 2 or
  /// 3 iterations lost the taps' unroll or LLVM's own (56x56x64: 5.9-12%).
  int64_t segmentUnroll(const Target &target, int64_t accumulators) const;
  /// (instructions, tile loads) of the contraction in m x n register tiles
  /// holding `hold` steps' B tiles: estimate's key.
  std::pair<int64_t, int64_t> tileCost(int64_t m, int64_t n,
                                       int64_t hold) const;
  /// The default schedule of an m x n register tile on `target`.
  Schedule tileSchedule(const Target &target, int64_t m, int64_t n,
                        int64_t hold) const;
  /// Segments: the tile of fewest cycles within the tie window of the
  /// fewest instructions replaces `s` (with its `cycles`) when those cycles
  /// are beyond the window.
  void fasterInTieWindow(const Target &target, Schedule &s,
                         double &cycles) const;
  static constexpr int64_t kMinLongUnrollTrips = 4;
  static constexpr int64_t kMinFreeForLongUnroll = 8;
  /// The address of the A register whose first row A's map gives at `at`
  /// (program loop values), in `a` (in place: a tile load with its row
  /// stride) or in the packed A of matrix segments.
  mlir::Value aTilePointer(mlir::OpBuilder &b, mlir::Location loc,
                           const StepInputs &in,
                           llvm::ArrayRef<mlir::Value> at,
                           const Schedule &s) const;
  /// B tiles `first`.. `first + count` of the register tile whose first
  /// panel is at[n], at one reduction step (`iv`: the other reduction
  /// loops, then the k step).
  llvm::SmallVector<mlir::Value> loadB(mlir::OpBuilder &b, mlir::Location loc,
                                       llvm::ArrayRef<mlir::Value> at,
                                       mlir::ValueRange iv,
                                       const StepInputs &in, const Schedule &s,
                                       int64_t first, int64_t count) const;
  /// Where a step's B tiles come from: `held` (tn of them), else loaded
  /// together, or one at a time (`oneAtATime`: a step not held in a block
  /// that holds others, one tile register left for them).
  struct StepB {
    llvm::ArrayRef<mlir::Value> held;
    bool oneAtATime = false;
  };
  /// The address of B tile j of the register tile whose first panel is
  /// at[n], at one reduction step (`iv`: the other reduction loops, then
  /// the k step).
  mlir::Value bTilePointer(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::ArrayRef<mlir::Value> at, mlir::ValueRange iv,
                           const StepInputs &in, const Schedule &s,
                           int64_t j) const;
  /// One reduction step of the block (StepInputs: its shape): rows A
  /// tiles, cols B tiles, rows x cols instructions on the `carried`
  /// accumulators.
  llvm::SmallVector<mlir::Value>
  emitStep(mlir::OpBuilder &b, mlir::Location loc,
           llvm::ArrayRef<mlir::Value> ivs, mlir::ValueRange iv,
           mlir::ValueRange carried, const StepInputs &in, const Schedule &s,
           const StepB &bIn) const;
  /// Copies the `rows` x `cols` corner of `edge` to C's block at `ivs`, or
  /// (`intoEdge`) the other way.
  void copyEdge(mlir::OpBuilder &b, mlir::Location loc,
                llvm::ArrayRef<mlir::Value> ivs, mlir::Value out,
                mlir::Value edge, mlir::Value rows, mlir::Value cols,
                bool intoEdge) const;
  /// A loop over `rows` rows of the block at `ivs`, the builder left in its
  /// body: the row and the block's program loop values at it.
  std::pair<mlir::Value, llvm::SmallVector<mlir::Value>>
  rowLoop(mlir::OpBuilder &b, mlir::Location loc,
          llvm::ArrayRef<mlir::Value> ivs, mlir::Value rows) const;
  /// The `rows` x `cols` corner of `edge` through the epilogue into its
  /// output's block at `ivs`, a row of accumulators at a time.
  void epilogueRows(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::ArrayRef<mlir::Value> ivs, const Epilogue &epilogue,
                    mlir::Value edge, mlir::Value rows, mlir::Value cols) const;

  Contraction c;
  TensorizePlan plan_;
  const Description *d = nullptr;
  mlir::FunctionType signature;
  /// Instruction registers: the in-place input, the packed input, C.
  unsigned aReg = 0, bReg = 1, cReg = 2;
  /// Vector registers holding matrix segments (NEON mmla), not AMX tiles.
  bool segments = false;
  /// Segments: the dimension of A that m indexes, how far one m moves in it,
  /// how many residues of a block's first row (mod mI * that) occur, and
  /// how many registers past a block's the other loops reach (packA).
  unsigned aMDim = 0;
  int64_t aMStride = 1, aResidues = 1, aShift = 0;
  /// Program inputs read in place (A) and packed (B).
  unsigned aInput = 0, bInput = 1;
  /// Program loops mapped to the instruction's m, n and k.
  unsigned mLoop = 0, nLoop = 0, kLoop = 0;
  /// The dimension of C that n indexes: a row of accumulators runs along it.
  unsigned outputRowDim() const { return *c.operands[2].dimOf(nLoop); }
  /// Instruction extents (elements).
  int64_t mI = 1, nI = 1, kI = 1;
  llvm::SmallVector<int64_t> extent;
  /// B's other loops (in its map's order), the other parallel loops and the
  /// other reduction loops (program order).
  llvm::SmallVector<unsigned> bOuter, outerParallel, outerReduction;
};

} // namespace tisa

#endif // TISA_TRANSFORMS_TILEKERNEL_H
