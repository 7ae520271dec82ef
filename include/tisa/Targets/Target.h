//===- Target.h - machines as data ------------------------------*- C++ -*-===//
//
// A target is what the matcher and the transforms need to know about a machine:
// which LLVM features it has (so which descriptions it can execute), how many
// registers of each kind, how wide, cache sizes, and how fast each instruction
// issues. Targets are JSON files in targets/data/, one per machine; `host` is
// the machine tisa runs on (LLVM's host CPU detection), completed from the
// data file of the same CPU when there is one.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_TARGETS_TARGET_H
#define TISA_TARGETS_TARGET_H

#include "tisa/Semantics/Description.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Triple.h"
#include <optional>
#include <string>
#include <vector>

namespace tisa {

/// The constants of tisa's cost model (the register tile, cache blocks and
/// tie-breaking), as a target file's "cost_model" object. A file may set any
/// of them; the rest keep these defaults, measured on a Zen 4 core (where
/// each was measured is said beside it and in targets/data/znver4.json).
struct CostModel {
  /// Independent accumulators a tile needs to reach the issue rate, per
  /// latency x issue rate: 8 independent vpdpbusd chains of latency 4 reach
  /// Zen 4's peak, 4 do not.
  double accumulatorChains = 2;
  /// Cycles of loop overhead per reduction step of a register tile.
  double loopOverheadCycles = 0.25;
  /// Factor on a reduction step's cycles when the broadcast data a tile reads
  /// over its reduction outgrows L1. 1: on Zen 4, bf16 GEMM rows of 6 KiB
  /// (K = 3072) ran as fast in tiles of 8 rows (48 KiB) and 6 as in tiles of
  /// 4 (each row is read once per tile; nothing of it is reused from L1).
  double l1OverflowFactor = 1.0;
  /// Cycles to load and store one accumulator once per tile.
  double accumulatorCycles = 2;
  /// Cycles per element a matrix-segment kernel (NEON mmla) copies between
  /// C and the scratch of a block that leaves C, element by element: on
  /// neoverse-v1, a 17x33x67 s8 GEMM's NEON tiles (every block an edge
  /// block) executed 12,859 instructions against SVE's masked stores' 2,981.
  double edgeElementCycles = 1;
  /// Largest register tile the default schedule tries: rows, and registers
  /// of lanes (rows of more than 8 broadcasts measured slower than counted).
  int64_t maxTileRows = 8, maxTileRegisters = 8;
  /// Registers left free beside a tile's accumulators and the packed
  /// vectors of one reduction step, and beside its accumulators and all its
  /// broadcast rows (LLVM spills a full file and loads the broadcasts first:
  /// 8 x 3 spilled an accumulator in the hot loop).
  int64_t spareRegistersWithPacked = 4, spareRegistersWithBroadcasts = 2;
  /// Cycle counts within this fraction of each other tie, and the tile with
  /// fewer loads per instruction wins (vdpbf16ps: 4x4 beat 2x8 by 8% where
  /// the count favoured 2x8 by 1-3%).
  double tieWindow = 0.05;
  /// Edge tiles are tried first when the border columns are at least this
  /// fraction of the columns (exact taps won on 14x14 3x3 pad 1, lost on
  /// 224x224 7x7/2 pad 3).
  double edgeFirstFraction = 0.05;
  /// Fraction of L2 a lane block's packed panel may fill.
  double l2BlockFraction = 0.5;
  /// The fewest filters a convolution of run-time image extents is blocked
  /// in for L2 (filterBlock), over the budget if need be: fewer leave a
  /// register tile too few lanes (7x7x512 -> 512 bf16 3x3 on Zen 5 ran at
  /// 167 GFLOPS in blocks of 32 filters, 285 in blocks of 64).
  int64_t minFilterBlock = 64;
  /// Bytes per cycle a core streams from L2 into its loads, effectively: a
  /// register tile whose packed panel (its registers of lanes over the whole
  /// reduction) outgrows L1 reads it from L2 at every row tile, so a step
  /// costs at least its packed bytes over this. 0: not modelled.
  double l2BytesPerCycle = 0;
  /// Bytes per cycle one core streams from L3. A packed operand larger
  /// than the L2 block budget is read in lane blocks that stay in L2 only
  /// when a register tile streaming all of it from L3 would wait for it: its
  /// packed bytes per step over this exceed the step's cycles. (Blocks cost
  /// A's rows once per block, through L2: square 2048 u8 x s8 on Zen 4 ran
  /// 3-4% slower in blocks of 256 lanes than unblocked.) 0: not modelled,
  /// always blocked over the budget.
  double l3BytesPerCycle = 0;
  /// Bytes a relayout (a pack) writes, or elements a signedness repair's
  /// compensation sums, per cycle: the matcher's overhead of a plan.
  double overheadBytesPerCycle = 32;
  /// Instruction steps per iteration of a tile kernel's reduction loop over
  /// vector registers (NEON mmla segments): the loop's add, compare and
  /// branch shared by that many steps (Schedule::reductionUnroll).
  int64_t reductionUnroll = 1;
  /// reductionUnroll of the NEON matrix-segment tile kernels alone (their
  /// steps are long enough for more; SVE's matrix kernels spilled with 4 on
  /// ResNet-50's 56x56x64 layer); 0: reductionUnroll.
  int64_t segmentReductionUnroll = 0;
  /// Steps per iteration of a matrix-segment tile whose reduction loop runs
  /// at least TileKernel::kMinLongUnrollTrips such iterations and whose
  /// accumulators leave TileKernel::kMinFreeForLongUnroll vector registers;
  /// 0: segmentReductionUnroll everywhere.
  int64_t segmentLongReductionUnroll = 0;
  /// Assumed where the target does not say: vector registers, AMX tiles,
  /// L1d and L2 bytes per core.
  int64_t assumedVectorRegisters = 32, assumedTileRegisters = 8;
  uint64_t assumedL1dBytes = 32 << 10, assumedL2Bytes = 1 << 20;
};

struct Target {
  std::string name;        ///< "znver4", "sm_80", "host", ...
  std::string description; ///< one line for `tisa target list`
  TargetArch arch = TargetArch::X86_64;
  std::string cpu; ///< LLVM CPU name ("znver4", "neoverse-v1", "sm_80")
  /// LLVM feature names without '+' ("avx512vnni", "sve", "i8mm", "sm_80",
  /// "ptx70"). A description runs on the target when every one of its features
  /// is in this set.
  llvm::StringSet<> features;
  /// Features the CPU has that generated code must not use (running a
  /// target's code on a machine without them: `tisa run --target
  /// sapphirerapids` on a CPU without AVX512-FP16); passed to LLVM as "-f".
  llvm::StringSet<> disabledFeatures;
  /// Removes `names` from `features` and disables them.
  void disableFeatures(llvm::ArrayRef<std::string> names);

  /// Widest SIMD register in bits (512 on znver4; the SVE vector length on
  /// neoverse-v1 = 256; 0 for GPUs).
  unsigned vectorBits = 0;
  /// Architectural SIMD registers (32 for AVX-512 and AArch64).
  unsigned vectorRegisters = 0;
  /// AMX tile registers (8 on sapphirerapids, 0 elsewhere).
  unsigned tileRegisters = 0;
  /// GPU: 32-bit registers available to one thread (255 on sm_80/sm_90), and
  /// threads per warp.
  unsigned registersPerThread = 0;
  unsigned warpSize = 0;
  /// GPU: the most blocks a grid has along x and along y (2^31 - 1 and
  /// 65535 from compute capability 3.0 on).
  uint64_t gridBlocksX = 0, gridBlocksY = 0;

  /// Bytes; per core for L1/L2, the whole cache for L3 (0 when unknown).
  uint64_t l1dBytes = 0, l2Bytes = 0, l3Bytes = 0;
  /// GPU shared memory per block in bytes.
  uint64_t sharedMemoryBytes = 0;
  /// GPU: what one streaming multiprocessor holds at once (threads, 32-bit
  /// registers, shared memory bytes, blocks); occupancy comes from them.
  unsigned smThreads = 0, smRegisters = 0, smBlocks = 0;
  uint64_t smSharedMemoryBytes = 0;
  /// Cores the figures are for: 1 in the shipped CPU files (per-core figures),
  /// the detected physical cores for "host", 0 when unknown (GPUs).
  unsigned cores = 0;

  /// Per description name: instructions issued per cycle (reciprocal
  /// throughput inverted) and latency in cycles, as measured or documented for
  /// this machine. Missing entries mean "unknown"; use issueRate()/latency().
  llvm::StringMap<double> issuePerCycle;
  llvm::StringMap<double> latencyCycles;

  /// Rates of descriptions the file does not name, derived from LLVM's
  /// scheduling model by resolveRates (targets/Rates.h), by description
  /// name; not part of modelKey (they follow from what is).
  struct DerivedRate {
    double issuePerCycle = 1, latency = 4;
    std::string origin; ///< what they were derived from, for people
  };
  llvm::StringMap<DerivedRate> derivedRates;
  /// True when the data file gives a rate or latency for `d`.
  bool namesRates(const Description &d) const {
    return issuePerCycle.contains(d.name) || latencyCycles.contains(d.name);
  }
  /// "target file", a derived rate's origin, or "default".
  std::string rateOrigin(const Description &d) const;

  /// The cost model's constants (defaults unless the file sets them).
  CostModel cost;

  /// Where the numbers come from (file path, "LLVM host detection", ...).
  std::string source;
  /// The data file's "notes": which manual or measurement each figure is from.
  std::string notes;

  /// True when `d` targets this machine's architecture and every feature it
  /// requires is present.
  bool canExecute(const Description &d) const;
  /// The features of `d` this target lacks (empty when canExecute or when the
  /// architecture differs).
  std::vector<std::string> missingFeatures(const Description &d) const;
  /// Issue rate of `d` on this target: the data file's, else the derived
  /// one, else 1.0.
  double issueRate(const Description &d) const;
  /// Latency of `d` on this target: the data file's, else the derived one
  /// (for a description the file names in neither map), else 4.0.
  double latency(const Description &d) const;
  /// Everything beside the CPU and features that code generation reads from
  /// the target (registers, caches, rates, cost model), as text for cache
  /// keys: a kernel generated from other figures is another kernel.
  std::string modelKey() const;
  /// Vector registers, L1d and L2 bytes, or the cost model's assumption
  /// when the data does not say.
  int64_t vectorRegistersOrAssumed() const {
    return vectorRegisters ? vectorRegisters : cost.assumedVectorRegisters;
  }
  uint64_t l1dBytesOrAssumed() const {
    return l1dBytes ? l1dBytes : cost.assumedL1dBytes;
  }
  uint64_t l2BytesOrAssumed() const {
    return l2Bytes ? l2Bytes : cost.assumedL2Bytes;
  }
};

/// "x86_64", "aarch64" or "nvptx64" (the spellings of stringifyTargetArch).
std::optional<TargetArch> parseTargetArch(llvm::StringRef name);

/// Directory of the shipped target files: the installed one when it exists,
/// else the source tree's targets/data.
std::string defaultTargetDir();

/// Names of the targets in `dir` (file stems, sorted), plus "host".
std::vector<std::string> listTargets(llvm::StringRef dir = "");

/// Loads target `name` from `dir` (default: defaultTargetDir()); a name ending
/// in ".json" or containing '/' is read as that file instead. "host" detects
/// the running machine with LLVM (CPU name and features), then takes register
/// counts, widths, caches and rates from the data file named after the
/// detected CPU when it exists; otherwise it fills what can be derived from the
/// features (e.g. AVX-512 => 32 x 512-bit) and says so in `source`.
/// Errors name the file and what is wrong (unknown key, wrong type, missing
/// field, unknown target with the list of known ones).
llvm::Expected<Target> loadTarget(llvm::StringRef name,
                                  llvm::StringRef dir = "");

/// The features of `target` that `host` lacks, sorted; features whose
/// instructions a compiler never emits on its own and a VM may hide (system
/// instructions, random numbers, XSAVE, shadow stacks, cache control), and
/// x87 (in every x86-64 CPU but not in LLVM's host list), are not counted.
std::vector<std::string> featuresLacking(const Target &target,
                                         const Target &host);

/// Parses a target from JSON text; `path` is used in error messages.
llvm::Expected<Target> parseTarget(llvm::StringRef json, llvm::StringRef path);

/// Checks `target` against LLVM's own tables for its architecture: `cpu` is a
/// CPU LLVM knows, every feature is an LLVM feature, and every feature a listed
/// one implies is listed too (so "+avx512vnni" without "avx512f" is an error).
/// The shipped files pass (a unit test checks it); tools can run it on
/// user-written files.
llvm::Error verifyAgainstLLVM(const Target &target);

/// Adds to `target`'s features every feature a listed one implies in LLVM's
/// tables (transitively: "avx512vnni" brings "avx512f" and what it implies);
/// an error names a feature LLVM does not know for the architecture.
llvm::Error addImpliedFeatures(Target &target);

/// The LLVM triple tisa compiles for `arch`.
llvm::Triple tripleFor(TargetArch arch);

/// The features of `features` ("+name" or "name") that LLVM does not know
/// for `arch`, as written (a description's misspelt feature made it apply
/// to no target, silently).
llvm::Expected<std::vector<std::string>>
unknownFeatures(TargetArch arch, llvm::ArrayRef<std::string> features);

/// A target made only from a feature list ("+avx512vnni,+avx512f" or without
/// '+'), for `--features`: architecture `arch`, vector registers derived from
/// the features as for "host" (AVX-512 => 32 x 512-bit), no cache or rate data.
Target targetFromFeatures(TargetArch arch, llvm::StringRef features);

/// Sets `t`'s vector and tile registers from its features alone (AVX-512 =>
/// 32 x 512 bits, AVX => 16 x 256, NEON or SVE => 32 x 128, AMX => 8 tiles);
/// after addImpliedFeatures, so "+avxvnni" counts as AVX.
void deriveRegistersFromFeatures(Target &t);

/// The instruction-set features LLVM's processor table gives `cpu` on `arch`
/// and those they imply (not its tuning flags); an error for a CPU LLVM does
/// not know.
llvm::Expected<llvm::StringSet<>> cpuFeatures(TargetArch arch,
                                              llvm::StringRef cpu);

/// `--features LIST` on a named target: `target`'s features become LIST and
/// what it implies, its vector and tile registers follow them, and every
/// feature its CPU has beyond LIST and the architecture's baseline is
/// disabled, so LLVM's code generation keeps to LIST as the instruction
/// choice does (`--target znver5 --features +avx2,+avxvnni`: ymm registers
/// and VEX encodings only) while the CPU's scheduling model stays. The
/// target's name then says so: "znver5 (features +avx2,+avxvnni)".
llvm::Error restrictFeatures(Target &target, llvm::StringRef list);

} // namespace tisa

#endif // TISA_TARGETS_TARGET_H
