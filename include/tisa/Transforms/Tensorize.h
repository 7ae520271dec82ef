//===- Tensorize.h - code generation for a tensorize plan -------*- C++ -*-===//
//
// Applies a TensorizePlan to a linalg contraction on memrefs by emitting loops
// (scf), vector loads and stores, and the description's lowering. The pieces
// are separate so that a kernel library can expose them separately: packing of
// the operand the plan relays out (once per weight tensor) and the computation
// on already-packed data.
//
// A KernelGenerator generates one register class; getKernelGenerator picks
// it from the plan's registers: LaneDotKernel (below) for
// "lane-dot" instructions, whose accumulator is a vector of L lanes each
// adding a dot product of g elements (vpdpbusd/vpdpbusds in xmm/ymm/zmm,
// vpdpwssd, vdpbf16ps; NEON sdot/udot), with one input broadcast and the
// other packed, as the matcher plans them for GEMM, batched GEMM,
// matrix-vector products and NHWC/HWCF convolutions; TileKernel
// (TileKernel.h) for AMX tiles and NEON matrix segments; ScalableDotKernel
// and ScalableMatrixKernel for SVE's dot products and matrix multiplies.
// Warp fragments (Tensor Cores) have a kernel builder of their own
// (WarpMmaKernel.h).
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_TENSORIZE_H
#define TISA_TRANSFORMS_TENSORIZE_H

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Matcher/Matcher.h"
#include "tisa/Transforms/Epilogue.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <memory>

namespace tisa {

struct Target;

/// How emitCompute arranges the loops around the instruction: the register
/// tile, cache blocking of the lane loop, the loop order, and which loop is
/// split into tiles that threads share. The plan and the target give a
/// default; `tisa tune` searches around it. Every field is a performance
/// choice: any schedule computes the same result.
struct Schedule {
  /// Unroll (register tile) factor per program loop, in iterations of that
  /// loop (lanes registers for the lane loop); 1 = none.
  llvm::SmallVector<int64_t> unroll;
  /// No register tile: every loop unrolled once.
  static Schedule untiled(size_t loops) {
    Schedule s;
    s.unroll.assign(loops, 1);
    return s;
  }
  /// Lanes per cache block of the lane loop (a multiple of the register
  /// tile's lanes); 0: no blocking. A block's packed panel should fit in L2.
  int64_t laneBlock = 0;
  /// The lane loop outside the other parallel loops (each packed panel is
  /// read once, the broadcast operand many times) instead of innermost.
  bool lanesOuter = false;
  /// Lanes per panel of the packed operand (a multiple of the instruction's
  /// lanes); 0: one panel of every lane. Within a panel the reduction runs
  /// contiguously, so a register tile as wide as the panel reads its packed
  /// operand front to back instead of a few vectors per reduction step at a
  /// stride of the whole lane extent (TLB misses, 4 KiB aliasing). The
  /// packed layout depends on it: pack and compute take the same schedule.
  int64_t panel = 0;
  /// The innermost parallel loop besides the lanes (conv2d: ow) runs fused
  /// with the one around it (oh), unrolled by the inner loop's factor, so a
  /// register tile of rows is not cut short at the end of every image row
  /// (7 columns in tiles of 6 leave a remainder of 1 per row; 49 fused
  /// positions leave 1 in all). The outer loop's own factor must be 1.
  bool fuse = false;
  /// Rows per tile on the border columns (0: none). When the input has a
  /// zero border (conv2d padding) on the dimension the innermost parallel
  /// loop besides the lanes indexes (ow), the columns whose filter taps the
  /// border cuts (ow = 0 and 6 of a 7-wide 3x3 pad-1 layer) run as tiles of
  /// `edge` rows of the loop around it (oh), so every tile runs exactly the
  /// taps its rows need; the other columns keep the register tile. Unfused
  /// rows only; without such a border it changes nothing.
  int64_t edge = 0;
  /// Instruction steps per iteration of a tile kernel's innermost reduction
  /// loop (1: none): its loop overhead shared by that many steps. Tile
  /// kernels only.
  int64_t reductionUnroll = 1;
  /// AMX tile kernels: reduction steps whose B tiles are held in tile
  /// registers (0: none). The n blocks then run outermost; each one's B
  /// tiles of the first `hold` steps are loaded once and held while the m
  /// blocks run under them, every step unrolled, the other steps' B tiles
  /// loaded one at a time per block; n is not padded to whole register
  /// tiles (its last block is narrower).
  int64_t hold = 0;
  /// Lane-dot kernels: the register tile's row loop ends in two tiles of
  /// nearly even rows instead of a full tile and its remainder (6 + 2 rows
  /// as 4 + 4), so the last rows have accumulators enough to hide the
  /// instruction's latency. Without a remainder it changes nothing.
  bool evenRows = false;

  /// "unroll=1x5x1,block=240,order=lanes-inner,panel=80,fuse=1" text, stable
  /// (cache keys); parse() reads it back.
  std::string text() const;
  static mlir::FailureOr<Schedule> parse(llvm::StringRef text,
                                         std::string &why);
  /// As the attribute -tisa-select-plan records (#tisa.schedule), and back
  /// (the attribute's verifier has checked every field's range).
  ScheduleAttr attr(mlir::MLIRContext *ctx) const;
  static Schedule fromAttr(ScheduleAttr attr);
  bool operator==(const Schedule &o) const {
    return unroll == o.unroll && laneBlock == o.laneBlock &&
           lanesOuter == o.lanesOuter && panel == o.panel &&
           fuse == o.fuse && edge == o.edge &&
           reductionUnroll == o.reductionUnroll && hold == o.hold &&
           evenRows == o.evenRows;
  }
};

/// A schedule and the cycles the target's cost model counts for it.
struct ScheduleEstimate {
  Schedule schedule;
  double cycles = 0;
  /// Why no register tile fits the target's registers ("" when one does);
  /// then `cycles` counts nothing and the plan is ranked last, unsupported.
  std::string infeasible;
};

/// What a schedule may choose for one kernel: which program loops are
/// parallel (unrollable), which carries the lanes, and how many there are.
struct ScheduleSpace {
  llvm::SmallVector<bool> parallel; ///< per program loop
  unsigned laneLoop = 0;
  int64_t lanes = 1, lanesPadded = 1;
  /// "parallel=1x1x0,lane=1,lanes=16,padded=512"; parse() reads it back.
  std::string text() const;
  static mlir::FailureOr<ScheduleSpace> parse(llvm::StringRef text);
};

/// What one emitCompute call computes (see there).
struct ComputeOperands {
  mlir::Value input, buffer, output;
  bool overwrite = false;
  mlir::Value begin, end;
  llvm::ArrayRef<int64_t> inputPadding;
  /// tisa.compute's `active`: (program loop, iterations that matter); a
  /// generator may skip the iterations past them (padding).
  llvm::SmallVector<std::pair<unsigned, mlir::Value>> active;
  /// Applied to the accumulators before they are stored (canFuse must have
  /// accepted it); `output` is then the epilogue's output.
  const Epilogue *epilogue = nullptr;
};

/// A code generator for one register class: it checks that it supports a
/// plan, packs the operand the plan relays out (once per weight tensor) and
/// emits the computation on already-packed data. The kernel library's entry
/// points, `-tisa-tensorize` and the tuner use only this interface.
/// Implementations: LaneDotKernel (vector lanes: vpdpbusd, vdpbf16ps, NEON
/// dot) and TileKernel (AMX tiles).
class KernelGenerator {
public:
  virtual ~KernelGenerator();

  virtual const TensorizePlan &plan() const = 0;
  /// The program input (0 or 1) that is packed ahead of the computation.
  virtual unsigned packedInput() const = 0;
  /// Bytes of the buffer `emitPack` fills for schedule `s`: the packed
  /// operand and, when a repair needs it, the compensation that depends only
  /// on that operand.
  virtual int64_t packedBytes(const Schedule &s) const = 0;
  /// memref<packedBytes x i8>.
  mlir::MemRefType packedBufferType(mlir::MLIRContext *ctx,
                                    const Schedule &s) const;
  /// "[n/80=7][k/4=64][80][4] + 128 * sums (i32)"-style description.
  virtual std::string packedLayoutText(const Schedule &s) const = 0;

  /// The schedule with the fewest counted cycles on `target`, and that
  /// count (see each implementation): the one cost model that ranks plans
  /// (rankPlans) and picks the default schedule. With the input's shape and
  /// padding as emitCompute will get them, the count knows which filter taps
  /// each tile skips.
  virtual ScheduleEstimate
  estimate(const Target &target, llvm::ArrayRef<int64_t> inputShape = {},
           llvm::ArrayRef<int64_t> inputPadding = {}) const = 0;
  /// estimate()'s schedule.
  Schedule defaultSchedule(const Target &target,
                           llvm::ArrayRef<int64_t> inputShape = {},
                           llvm::ArrayRef<int64_t> inputPadding = {}) const {
    return estimate(target, inputShape, inputPadding).schedule;
  }
  virtual ScheduleSpace space() const = 0;
  /// Checks `s` against this kernel (sizes, multiples) and, given a
  /// target, against its registers, or says why not. Without a target (a
  /// pass after -tisa-select-plan given none) the register tile is taken as
  /// stated: one that does not fit spills, it does not compute wrong.
  virtual mlir::LogicalResult verify(const Schedule &s, const Target *target,
                                     std::string &why) const = 0;
  /// The number of tiles emitCompute's [begin, end) range counts.
  virtual int64_t partitionTiles(const Schedule &s) const = 0;

  /// Packs program input `packedInput()` (the memref `src`, of the program's
  /// shape) into `buffer` (of packedBufferType) in the layout of `s`.
  virtual void emitPack(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value src, mlir::Value buffer,
                        const Schedule &s) const = 0;
  /// The computation: reads the other program input from `input` (of the
  /// program's shape), the packed one from `buffer`, and writes `output`:
  /// output = input x packed when `overwrite`, output += ... otherwise
  /// (linalg's semantics), or with an `epilogue`, output = epilogue(input x
  /// packed) with the accumulators never stored. With `begin`/`end` (index
  /// values), only the partition tiles [begin, end) of `s` are computed, so
  /// threads can share the work; the broadcast operand's padded copy and
  /// sums are per call. With `inputPadding` (one entry per dimension),
  /// `input` is the program's input without a zero border: dimension d of the
  /// program operand is inputPadding[d] zeros, `input`'s elements, then zeros
  /// up to the operand's extent (conv2d's padding), which the kernel never
  /// reads from memory.
  virtual void emitCompute(mlir::OpBuilder &b, mlir::Location loc,
                           const ComputeOperands &operands,
                           const Schedule &s) const = 0;
  /// Whether emitCompute applies `epilogue` to accumulators in registers;
  /// else why (then -tisa-tensorize runs it after the computation).
  virtual mlir::LogicalResult canFuse(const Epilogue &epilogue,
                                      std::string &why) const;
};

/// Whether `kernel` applies `epilogue` to accumulators in registers: a body
/// of ops it can run on vectors (Epilogue::check) and operands its register
/// class reads (KernelGenerator::canFuse); else why.
mlir::LogicalResult appliesInRegisters(const KernelGenerator &kernel,
                                       const Epilogue &epilogue,
                                       std::string &why);

/// Vector lanes: each accumulator lane adds a dot product of g elements; one
/// input broadcast, the other packed (transforms/Tensorize.cpp).
class LaneDotKernel final : public KernelGenerator {
public:
  LaneDotKernel(LaneDotKernel &&);
  ~LaneDotKernel() override;

  /// Checks that the code generator supports the plan and precomputes the
  /// layouts, or says why not (one line).
  static mlir::FailureOr<LaneDotKernel>
  get(const Contraction &c, const TensorizePlan &plan, std::string &why);

  const TensorizePlan &plan() const override;
  unsigned packedInput() const override;
  int64_t packedBytes(const Schedule &s) const override;
  std::string packedLayoutText(const Schedule &s) const override;
  /// The register tile (and fused rows) with the fewest counted cycles on
  /// `target`, remainder tiles included; panels as wide as that tile; lane
  /// blocks whose panels fill half of L2 when the packed operand does not fit
  /// and is reused (docs/codegen.md, "Schedules and tuning"); edge tiles.
  ScheduleEstimate estimate(const Target &target,
                            llvm::ArrayRef<int64_t> inputShape = {},
                            llvm::ArrayRef<int64_t> inputPadding = {}) const override;
  ScheduleSpace space() const override;
  mlir::LogicalResult verify(const Schedule &s, const Target *target,
                             std::string &why) const override;
  /// The outermost loop with enough register tiles (or lane blocks) to share
  /// between threads.
  int64_t partitionTiles(const Schedule &s) const override;
  void emitPack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                mlir::Value buffer, const Schedule &s) const override;
  /// Reads a padded input in place: loops over filter taps skip the taps
  /// that would read only the border.
  void emitCompute(mlir::OpBuilder &b, mlir::Location loc,
                   const ComputeOperands &operands,
                   const Schedule &s) const override;
  /// Any epilogue whose operands run along the lanes contiguously or not at
  /// all: applied to each accumulator register before its masked store.
  mlir::LogicalResult canFuse(const Epilogue &epilogue,
                              std::string &why) const override;

private:
  struct Impl;
  explicit LaneDotKernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// The generator of the register class `plan` uses, or failure with why
/// (one line, starting with the description's name). A contraction with
/// loops only run time knows (dynamic extents) gets the generator of the
/// same contraction with runTimeBlock's extent in their place, when each such loop
/// can run in static blocks (runTimeLoopBlocks); such a generator packs
/// and estimates, and emitCompute runs on the blocks -tisa-split-dynamic
/// makes.
mlir::FailureOr<std::unique_ptr<KernelGenerator>>
getKernelGenerator(const Contraction &c, const TensorizePlan &plan,
                   std::string &why);

/// The block a loop of run-time extent runs in (and is planned at, as its
/// extent): kNominalExtent for the rows of a register tile (a loop the
/// instruction takes, or, when it takes one parallel loop only, the
/// innermost parallel loop it does not: a GEMM's M, a convolution's output
/// columns), 1 for an outer one (a convolution's batch and output rows:
/// each is a kernel of its own, and the schedule is chosen for one).
int64_t runTimeBlock(const Contraction &c, const TensorizePlan &plan,
                     unsigned loop);

/// The cycles `kernel` (a generator for contraction `c`) counts for its
/// default schedule on `target` (KernelGenerator::estimate, with the input's
/// shape and padding when given), brought to kNominalExtent iterations of
/// every loop of run-time extent: plans and forms of one computation compare
/// in the same units whatever blocks their generators count.
double countedCycles(const Contraction &c, const KernelGenerator &kernel,
                     const Target &target,
                     llvm::ArrayRef<int64_t> inputShape = {},
                     llvm::ArrayRef<int64_t> inputPadding = {});

/// A static loop run in blocks (ProgramLoop::block).
struct LoopBlock {
  unsigned loop;
  int64_t size;
};

/// When some window loop of `c` (a convolution's output rows or columns)
/// has a run-time extent and the packed input is larger than the target's
/// L2 block budget (l2BlockFraction of L2): its static parallel loop that
/// the output shares (the filters), in blocks of the largest power of two
/// up to kNominalExtent whose packed bytes fit the budget (at least the
/// cost model's minFilterBlock). The blocks of output rows then each read one block of
/// filters, which stays in L2, where each would otherwise stream all of
/// them (a 7x7 image of 512 filters of 3x3x512 ran at 0.42x the static
/// kernel).
std::optional<LoopBlock> filterBlock(const Contraction &c,
                                     unsigned packedInput,
                                     const Target &target);

/// `c` with the extents of `loops`, and of the operand dimensions they
/// index (alone or in a window), dynamic, and the strides over such
/// dimensions (a static block's program, as -tisa-split-dynamic found it).
Contraction withRunTimeExtents(const Contraction &c,
                               llvm::ArrayRef<int64_t> loops);

/// How an operand's dimension follows a loop of run-time extent: the loop
/// alone (stride 1, no halo), or a window (a convolution's output rows in
/// its input: the loop times `stride` plus loops of static extent that add
/// up to `halo`).
struct LoopWindow {
  int64_t stride = 1;
  int64_t halo = 0;
  /// The dimension's extent for `iterations` of the loop.
  int64_t extent(int64_t iterations) const {
    return (iterations - 1) * stride + 1 + halo;
  }
};

/// How a loop of run-time extent runs in static blocks of runTimeBlock
/// iterations.
struct RunTimeLoop {
  /// Per operand (input 0, input 1, output): the dimension the loop
  /// indexes (alone or as a window), or none.
  llvm::SmallVector<std::optional<unsigned>, 3> dims;
  /// Per operand: how that dimension follows the loop.
  llvm::SmallVector<LoopWindow, 3> windows;
  /// A loop the packed input or the reduction depends on (a GEMM's N, K):
  /// every block is a whole block, the last one zero-padded, each with its
  /// own part of the packed buffer, and a reduction's blocks accumulate.
  /// Else (a GEMM's M, a convolution's batch, output rows and columns) the
  /// blocks are rows: full blocks, then the remainder's binary digits.
  bool padded = false;
};

/// Whether a loop with a dynamic extent runs in static blocks: when every
/// operand that depends on it has it in one dimension, alone or (a
/// parallel loop the packed input does not depend on: a convolution's
/// output rows) as a window with loops of static extent. Failure says why
/// not.
mlir::FailureOr<RunTimeLoop> runTimeLoopBlocks(const Contraction &c,
                                               unsigned packedInput,
                                               unsigned loop,
                                               std::string &why);

/// The window of `loop` in dimension `dim` of operand `o` of `c` (every
/// other loop it adds static), or none.
std::optional<LoopWindow> loopWindow(const Contraction &c,
                                     const ProgramOperand &o, unsigned dim,
                                     unsigned loop);

/// Ranks `result`'s plans with the code generators' cost model: a plan a
/// generator takes costs its default schedule's counted cycles on `target`
/// (for an input of `inputShape` with `inputPadding`, as defaultSchedule) plus
/// the matcher's relayout and repair overhead, and records that schedule;
/// such plans come first, cheapest first, except that plans within the
/// target's tie window of each other keep the matcher's order (fewer issues,
/// fewer bytes relaid out). Plans no generator takes follow in the matcher's
/// order with the reason recorded.
void rankPlans(MatchResult &result, const Target &target,
               llvm::ArrayRef<int64_t> inputShape = {},
               llvm::ArrayRef<int64_t> inputPadding = {});

/// The best plan of `result` that a generator supports (plans are ranked
/// best first), or failure with the reason the best one was skipped; with no
/// plan at all, the rejection of an instruction `target` executes, else of
/// one for its architecture (not "targets aarch64" on an x86 machine).
mlir::FailureOr<std::unique_ptr<KernelGenerator>> selectKernel(const MatchResult &result,
                                            std::string &why,
                                            const Target *target = nullptr);

} // namespace tisa

#endif // TISA_TRANSFORMS_TENSORIZE_H
