//===- Matcher.h - which instructions implement a contraction, and how -*- C++ -*-===//
//
// The matcher changes no IR. For one `linalg` contraction it answers, per
// instruction description: can this instruction implement it, and if so how
// (a TensorizePlan), or why not (one line a person can read).
//
//   1. Arithmetic isomorphism: the program's body and the instruction's are the
//      same multiply-accumulate up to the order of the two factors: same
//      widths, same signedness (or a known exact repair), same accumulator,
//      same combiner. Floating-point differences in accumulation order,
//      rounding or denormal handling are relaxations, listed in the plan.
//   2. Memory isomorphism: every assignment of instruction loops to program
//      loops (parallel to parallel, reduction to reduction; a program loop
//      may be a fused run of adjacent loops, which is how im2col appears) is
//      checked operand by operand: the instruction's operand must not merge
//      program elements, the accumulator must correspond one to one, and the
//      register image must be loadable from the program's memory layout -
//      directly, by broadcast, with a row stride (AMX), or after packing.
//   3. Cost: instructions issued (with padding), bytes per instruction after
//      register tiling, bytes packed, and a cycle estimate for the target.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_MATCHER_MATCHER_H
#define TISA_MATCHER_MATCHER_H

#include "tisa/Dialect/TisaAttrs.h"
#include "tisa/Semantics/Description.h"
#include "tisa/Targets/Target.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace tisa {

/// Marks a static extent or stride the program leaves to run time.
inline constexpr int64_t kDynamic = mlir::ShapedType::kDynamic;
/// The extent costs and schedules assume for a loop only run time knows
/// (-tisa-split-dynamic then runs it in static blocks of this many).
inline constexpr int64_t kNominalExtent = 256;
/// The block of a convolution's output rows only run time knows, around a
/// register tile's rows of output columns (which then run in blocks of
/// kNominalExtent / kNominalWindowRows): blocks of several rows let a small
/// image's blocks fill register tiles of fused rows and columns. On Zen 5,
/// 7x7x512 u8 3x3 ran at 757 GOPS with 4 as with 8 (758), which compiles
/// 24 block shapes to 4's 21; rows of 2 (with columns of 256) ran at 694.
inline constexpr int64_t kNominalWindowRows = 4;

//===----------------------------------------------------------------------===//
// The program side
//===----------------------------------------------------------------------===//

struct ProgramLoop {
  std::string name; ///< "m", "k", "oh", ... for named ops; "d0", ... otherwise
  bool reduction = false;
  int64_t extent = kDynamic;
  /// When not 0: the loop runs in static blocks of this many iterations
  /// (-tisa-split-dynamic, each block on its own part of the packed
  /// buffer) and is planned as a loop of run-time extent in such blocks
  /// (tisa.loop_blocks).
  int64_t block = 0;
  /// Whether the loop runs in blocks: of run-time extent, or of a static
  /// extent over its block (a block of it, or a smaller remainder, is
  /// generated as the static loop it is).
  bool runsInBlocks() const {
    return extent == kDynamic || (block && extent > block);
  }
};

struct ProgramOperand {
  std::string name; ///< "A", "B", "C", "input", "filter", "output", "ins0"...
  mlir::AffineMap map;
  mlir::Type elementType;
  llvm::SmallVector<int64_t> shape;
  /// Element strides of the buffer: row-major for tensors, the layout's for
  /// memrefs; kDynamic where only run time knows.
  llvm::SmallVector<int64_t> strides;
  unsigned elementBytes() const;
  /// The dimension that program loop `loop` indexes alone, if one does.
  std::optional<unsigned> dimOf(unsigned loop) const {
    return map.getResultPosition(
        mlir::getAffineDimExpr(loop, map.getContext()));
  }
};

/// A multiply-accumulate reduced to what decides equivalence.
struct NormalArith {
  bool isFloat = false;
  mlir::Type factorType[2]; ///< element types of input 0 and 1 (as stored)
  bool factorSigned[2] = {true, true}; ///< integers: extended by extsi
  /// Floats read in a narrower format first (tf32 held in f32).
  std::optional<MulAcc::Narrowing> factorNarrowing[2];
  mlir::Type accType;
  /// The product is computed exactly in the accumulator's type (widening
  /// before the multiplication, and wide enough).
  bool exactProduct = false;
  std::string text; ///< "u8 x s8 -> s32", "bf16 x bf16 -> f32"
};

struct Contraction {
  mlir::Operation *op = nullptr;
  std::string opName; ///< "linalg.matmul"
  llvm::SmallVector<ProgramLoop> loops;
  /// ins 0, ins 1, outs 0.
  llvm::SmallVector<ProgramOperand, 3> operands;
  MulAcc mulAcc;
  NormalArith arith;
  /// Multiply-accumulates the operation performs (kDynamic if unknown).
  int64_t macs() const;
};

/// Reads a linalg operation as a contraction, or says (in `why`) why it is
/// not one: not two inputs and one output, a body that is not a
/// multiply-accumulate, unsupported element types, non-affine-projection
/// accesses.
mlir::FailureOr<Contraction> readContraction(mlir::linalg::LinalgOp op,
                                             std::string &why);

/// The same view of a description's body (its loops and operands).
NormalArith normalizeArith(const MulAcc &m);

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// One instruction loop and the program loops that feed it.
struct LoopAssignment {
  unsigned instrLoop = 0;
  std::string instrName; ///< "n", "k", or "seg" for the SVE segment loop
  bool reduction = false;
  /// Instruction extent (for a scalable segment loop: segments per vector,
  /// as the target says, 1 when unknown and `scalable` is set).
  int64_t instrExtent = 1;
  bool scalable = false;
  /// Program loops, outer to inner, fused into this instruction loop. Empty:
  /// the instruction loop is padding (only index 0 is used).
  llvm::SmallVector<unsigned, 3> programLoops;
  /// Another instruction loop whose program loop this one extends as the
  /// more significant digit (the SVE segment loop); -1 if none.
  int sharesWith = -1;
  int64_t programExtent = 1; ///< product of the fused extents (kDynamic)
  int64_t tiles() const;     ///< ceil(programExtent / tile), kDynamic if unknown
  int64_t paddedExtent() const;
};

/// How one operand gets into the instruction's register.
struct OperandPlan {
  enum class Access {
    Direct,    ///< plain vector/tile load of contiguous memory
    Broadcast, ///< a contiguous group replicated across the register
    Strided,   ///< AMX tile rows / warp lanes with a row stride, rows contiguous
    Packed,    ///< relayout first (linalg.pack), then Direct/Strided loads
    Gathered,  ///< relayout that is no tiling of the tensor (im2col style)
  };
  unsigned programOperand = 0;
  unsigned instrOperand = 0;
  Access access = Access::Direct;
  /// When Packed: the linalg.pack parameters on the program tensor.
  llvm::SmallVector<int64_t> outerDimsPerm, innerDimsPos, innerTiles;
  std::string packedShape; ///< "[K/4][N][4]"
  /// Contiguous bytes per load (whole register row, broadcast group, or run).
  int64_t runBytes = 0;
  /// Bytes brought into the register per instruction (before register reuse).
  int64_t bytesPerInstruction = 0;
  /// Bytes written by the relayout (0 when none); the operand's full size.
  int64_t packBytes = 0;
  std::string detail; ///< one line: "broadcast 4 bytes to 16 lanes", ...
};

/// Exact integer repair of a signedness difference: the instruction computes
/// sum (a + biasA)(b + biasB); the plan adds the compensation
///   - biasB * sum_red A - biasA * sum_red B - K * biasA * biasB
/// per output element. Biases are +128 (s8 -> u8) or -128 (u8 -> s8), applied
/// as xor 0x80 to the bytes.
struct Repair {
  int64_t bias[2] = {0, 0}; ///< per program input
  std::string text;
  /// Additions the compensation terms take (cost): one per iteration of the
  /// loops the summed operand depends on.
  int64_t compensationElements = 0;
};

/// What a plan costs on the target. The matcher fills the counts it knows
/// without a code generator and a lower bound of the cycles; rankPlans
/// (transforms/KernelGenerator.cpp) replaces the bound by the count of the code
/// generator's default schedule, so `tisa match`, plan selection, the default
/// schedule and the tuner's starting point use one cost model.
struct Cost {
  int64_t instructions = 0; ///< instruction issues including padding
  double utilization = 0;   ///< useful multiply-accumulates / issued lanes
  int64_t packBytes = 0;
  /// Cycles the relayouts and the repair's compensation add.
  double overheadCycles = 0;
  /// The estimate for the target: issues / issue rate + overhead from the
  /// matcher, the generator's counted cycles + overhead after rankPlans.
  double cycles = 0;
  /// After rankPlans: the default schedule `cycles` counts, or (empty
  /// schedule) why no code generator takes the plan.
  std::string schedule;
  std::string unsupported;
  bool counted() const { return !schedule.empty(); }
};

struct TensorizePlan {
  const Description *desc = nullptr;
  /// Program input feeding instruction input 0 (1 when the factors swap).
  unsigned programInputOf[2] = {0, 1};
  llvm::SmallVector<LoopAssignment> loops;
  llvm::SmallVector<OperandPlan, 3> operands; ///< per instruction operand
  std::optional<Repair> repair;
  llvm::SmallVector<std::string> relaxations;
  llvm::SmallVector<std::string> notes; ///< padding, remainders
  /// The loop nest tiled by the instruction: one entry per program loop, or
  /// per fused run of program loops, with the instruction's tile of it.
  struct TiledLoop {
    std::string name; ///< "k", or "kw.c" for a fused run
    llvm::SmallVector<unsigned, 3> programLoops;
    bool reduction = false;
    int64_t extent = kDynamic;
    int64_t instr = 1;
  };
  llvm::SmallVector<TiledLoop> tiles;
  Cost cost;
};

struct Rejection {
  const Description *desc = nullptr;
  std::string reason;
};

struct MatchOptions {
  /// Restrict to descriptions this target executes and rank for it; null:
  /// every description, ranked with neutral costs.
  const Target *target = nullptr;
  /// Reject floating-point instructions whose arithmetic differs from the
  /// program's sequential sum instead of listing the relaxation.
  bool strictFloat = false;
  /// Let an instruction read float inputs in a narrower format than the
  /// program multiplies (tf32 for f32), listed as a relaxation; without it
  /// such instructions are rejected.
  bool allowReducedPrecision = false;
  /// Consider fusing adjacent program loops into one instruction loop.
  bool fuseLoops = true;
};

struct MatchResult {
  Contraction contraction;
  std::vector<TensorizePlan> plans; ///< best first
  llvm::SmallVector<Rejection> rejected;
};

/// Matches one contraction against every description.
MatchResult match(const Contraction &c,
                  llvm::ArrayRef<const Description *> descriptions,
                  const MatchOptions &options);

/// The matcher's ranking (before rankPlans counts the generators'
/// schedules): the cycles' lower bound, then lanes used, bytes relaid out,
/// instructions issued, and a broadcast the instruction takes by element.
bool ranksBefore(const TensorizePlan &a, const TensorizePlan &b);
/// Whether the matcher ranks `a` and `b` alike (their order says nothing:
/// two descriptions of the same computation, say).
bool rankTied(const TensorizePlan &a, const TensorizePlan &b);

/// Plans (ranked) for one description, or failure with the reason.
mlir::FailureOr<std::vector<TensorizePlan>>
matchDescription(const Contraction &c, const Description &d,
                 const MatchOptions &options, std::string &why);

/// The plan as the attribute -tisa-select-plan records (#tisa.plan): its
/// instruction, the order of the operand correspondence, the program loops
/// of every instruction loop, and the blocks of `c`'s loops.
PlanAttr planAttr(mlir::MLIRContext *ctx, const Contraction &c,
                  const TensorizePlan &p);
/// The plan `attr` states for `c`, evaluated as the matcher evaluates that
/// one assignment (no search): what `match` returns for it, with the
/// matcher's cost. Failure, with why, when no description in `descriptions`
/// has its name, the target (options.target) cannot execute it, or it does
/// not implement `c` that way. `attr`'s blocks are not read: the caller
/// sets them on `c`'s loops first (statedLoopBlocks in PlanSelection.cpp).
mlir::FailureOr<TensorizePlan>
planFromAttr(const Contraction &c, PlanAttr attr,
             llvm::ArrayRef<const Description *> descriptions,
             const MatchOptions &options, std::string &why);

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// What identifies a plan among a contraction's plans, without its cost:
/// "vpdpbusd.zmm n<-n(16) k<-k(4) | ins0 broadcast 4B, ins1 pack [K/4][N][4],
/// outs0 direct" (the `tisa.plan` attribute).
std::string planKey(const Contraction &c, const TensorizePlan &p);
/// "vpdpbusd.zmm: n->n, k->k | A broadcast, B pack [K/4][N][4] | 100% | ..."
void printPlanSummary(const Contraction &c, const TensorizePlan &p,
                      llvm::raw_ostream &os);
/// The full plan, several lines, indented by `indent`.
void printPlan(const Contraction &c, const TensorizePlan &p,
               llvm::raw_ostream &os, unsigned indent = 2);
/// "linalg.matmul (m=512, n=512, k=512; u8 x s8 -> s32)"
void printContraction(const Contraction &c, llvm::raw_ostream &os);

} // namespace tisa

#endif // TISA_MATCHER_MATCHER_H
