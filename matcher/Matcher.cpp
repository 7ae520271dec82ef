//===- Matcher.cpp - plans per description, tiles, cost, ranking, text ----===//
//
// The matcher's cost is what it knows without a code generator: instruction
// issues over the loop nest tiled by the instruction (padding included), the
// bytes the relayouts write and the repair's compensation. Its cycles are a
// lower bound, issues / issue rate + overhead; the register and cache tiles
// belong to the code generators, whose default schedule's count replaces the
// bound when plans are ranked for code generation (rankPlans,
// transforms/KernelGenerator.cpp): one cost model, not two.
//
//===----------------------------------------------------------------------===//

#include "MatcherImpl.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa {

int64_t LoopAssignment::tiles() const {
  if (programExtent == kDynamic)
    return kDynamic;
  return llvm::divideCeil(programExtent, instrExtent);
}

int64_t LoopAssignment::paddedExtent() const {
  if (programExtent == kDynamic)
    return kDynamic;
  return tiles() * instrExtent;
}

namespace detail {

namespace {
int64_t known(int64_t extent) {
  return extent == kDynamic ? kNominalExtent : extent;
}

int64_t tilesOf(const TensorizePlan::TiledLoop &t) {
  return llvm::divideCeil(known(t.extent), t.instr);
}

/// The loop nest tiled by the instruction: one entry per instruction-fed
/// unit, then the other program loops, in program order.
SmallVector<TensorizePlan::TiledLoop> tiledLoops(const Contraction &c,
                                                 const TensorizePlan &plan) {
  SmallVector<TensorizePlan::TiledLoop> tiles;
  SmallVector<bool> covered(c.loops.size(), false);
  for (const LoopAssignment &la : plan.loops) {
    if (la.sharesWith >= 0 || la.programLoops.empty())
      continue;
    TensorizePlan::TiledLoop t;
    t.name = unitName(c, la.programLoops);
    t.programLoops = la.programLoops;
    t.reduction = la.reduction;
    t.extent = la.programExtent;
    t.instr = la.instrExtent;
    for (const LoopAssignment &other : plan.loops)
      if (other.sharesWith == int(la.instrLoop))
        t.instr *= other.instrExtent;
    for (unsigned l : la.programLoops)
      covered[l] = true;
    tiles.push_back(t);
  }
  for (auto [l, loop] : llvm::enumerate(c.loops)) {
    if (covered[l])
      continue;
    TensorizePlan::TiledLoop t;
    t.name = loop.name;
    t.programLoops = {unsigned(l)};
    t.reduction = loop.reduction;
    t.extent = loop.extent;
    tiles.push_back(t);
  }
  llvm::sort(tiles, [](const auto &a, const auto &b) {
    return a.programLoops.front() < b.programLoops.front();
  });
  return tiles;
}

/// Bytes each relayout writes: what one instruction reads of the operand,
/// per distinct tile of the loops it depends on.
void estimatePackBytes(const Contraction &c, TensorizePlan &plan) {
  plan.cost.packBytes = 0;
  for (OperandPlan &op : plan.operands) {
    op.packBytes = 0;
    if (op.access != OperandPlan::Access::Packed &&
        op.access != OperandPlan::Access::Gathered)
      continue;
    const AffineMap &map = c.operands[op.programOperand].map;
    int64_t images = 1;
    for (const TensorizePlan::TiledLoop &t : plan.tiles)
      if (llvm::any_of(t.programLoops,
                       [&](unsigned l) { return map.isFunctionOfDim(l); }))
        images *= tilesOf(t);
    op.packBytes = images * op.bytesPerInstruction;
    plan.cost.packBytes += op.packBytes;
  }
}

/// How the plan's remainders are handled, one note per instruction loop.
void addRemainderNotes(const Contraction &c, const InstrModel &model,
                       TensorizePlan &plan) {
  plan.notes.clear();
  for (const LoopAssignment &la : plan.loops) {
    if (la.sharesWith >= 0)
      continue;
    if (la.programLoops.empty()) {
      plan.notes.push_back(llvm::formatv(
          "instruction loop {0} has no program loop: padded, 1 of {1} lanes "
          "used",
          la.instrName, la.instrExtent));
      continue;
    }
    std::string name = unitName(c, la.programLoops);
    if (la.programExtent == kDynamic) {
      plan.notes.push_back(llvm::formatv(
          "{0} is dynamic: the last tile of {1} is handled at run time "
          "(padding or a masked epilogue)",
          name, la.instrExtent));
      continue;
    }
    int64_t rem = la.programExtent % la.instrExtent;
    if (rem == 0)
      continue;
    if (la.programExtent < la.instrExtent)
      plan.notes.push_back(llvm::formatv(
          "{0}={1} leaves {2} of {3} lanes unused: padding needed",
          name, la.programExtent, la.instrExtent - rem, la.instrExtent));
    else
      plan.notes.push_back(llvm::formatv(
          "{0}={1}: the last tile uses {2} of {3} lanes: pad to {4} or a "
          "masked epilogue",
          name, la.programExtent, rem, la.instrExtent, la.paddedExtent()));
  }
  if (model.segLoop >= 0 && !model.segmentsKnown)
    plan.notes.push_back(llvm::formatv(
        "scalable vectors: costs assume {0} segments of 128 bits (VL = {1}); "
        "give --target for the real length",
        model.segments, model.segments * 128));
}
} // namespace

void estimateCost(const Contraction &c, const InstrModel &model,
                  const Target *target, TensorizePlan &plan) {
  plan.tiles = tiledLoops(c, plan);
  int64_t instructions = 1;
  for (const auto &t : plan.tiles)
    instructions *= tilesOf(t);
  int64_t issued = 1;
  for (const LoopAssignment &la : plan.loops)
    issued *= la.instrExtent;
  int64_t macs = 1;
  for (const ProgramLoop &l : c.loops)
    macs *= known(l.extent);
  plan.cost.instructions = instructions;
  plan.cost.utilization = double(macs) / (double(instructions) * issued);
  estimatePackBytes(c, plan);
  // A relayout writes, a compensation adds, the target's bytes or elements
  // per cycle (the cost model's default without a target).
  double perCycle = target ? target->cost.overheadBytesPerCycle
                           : CostModel().overheadBytesPerCycle;
  plan.cost.overheadCycles = plan.cost.packBytes / perCycle;
  if (plan.repair)
    plan.cost.overheadCycles += plan.repair->compensationElements / perCycle;
  double rate = target ? target->issueRate(*model.desc) : 1.0;
  plan.cost.cycles = instructions / rate + plan.cost.overheadCycles;
  plan.cost.schedule.clear();
  plan.cost.unsupported.clear();
  addRemainderNotes(c, model, plan);
}

} // namespace detail

namespace {
/// Whether `p` broadcasts into the register its instruction can take by
/// element (one load per register of groups instead of per group).
bool broadcastsByElement(const TensorizePlan &p) {
  std::optional<unsigned> r = p.desc ? p.desc->lowering.byElement : std::nullopt;
  return r && *r < p.operands.size() &&
         p.operands[*r].access == OperandPlan::Access::Broadcast;
}


auto rankKey(const TensorizePlan &p) {
  return std::make_tuple(p.cost.cycles, -p.cost.utilization, p.cost.packBytes,
                         p.cost.instructions, !broadcastsByElement(p));
}
} // namespace

bool ranksBefore(const TensorizePlan &a, const TensorizePlan &b) {
  return rankKey(a) < rankKey(b);
}

bool rankTied(const TensorizePlan &a, const TensorizePlan &b) {
  return rankKey(a) == rankKey(b);
}

FailureOr<std::vector<TensorizePlan>>
matchDescription(const Contraction &c, const Description &d,
                 const MatchOptions &options, std::string &why) {
  if (options.target && !options.target->canExecute(d)) {
    if (d.target != options.target->arch)
      why = llvm::formatv("targets {0}; {1} is {2}",
                          stringifyTargetArch(d.target), options.target->name,
                          stringifyTargetArch(options.target->arch));
    else
      why = llvm::formatv("{0} lacks {1}", options.target->name,
                          llvm::join(options.target->missingFeatures(d), ", "));
    return failure();
  }
  FailureOr<SmallVector<detail::ArithMatch, 2>> ariths =
      detail::matchArithmetic(c, d, options, why);
  if (failed(ariths))
    return failure();
  detail::InstrModel model = detail::buildInstrModel(
      d, options.target ? std::optional<unsigned>(options.target->vectorBits)
                        : std::nullopt);
  std::vector<TensorizePlan> plans;
  std::string firstWhy;
  for (const detail::ArithMatch &a : *ariths) {
    std::string reason;
    detail::enumeratePlans(c, model, a, options, plans, reason);
    if (firstWhy.empty())
      firstWhy = reason;
  }
  if (plans.empty()) {
    why = firstWhy;
    return failure();
  }
  for (TensorizePlan &p : plans)
    detail::estimateCost(c, model, options.target, p);
  llvm::sort(plans, ranksBefore);
  return plans;
}

MatchResult match(const Contraction &c, ArrayRef<const Description *> descs,
                  const MatchOptions &options) {
  MatchResult result;
  result.contraction = c;
  for (const Description *d : descs) {
    std::string why;
    FailureOr<std::vector<TensorizePlan>> plans =
        matchDescription(c, *d, options, why);
    if (failed(plans)) {
      result.rejected.push_back({d, why});
      continue;
    }
    for (TensorizePlan &p : *plans)
      result.plans.push_back(std::move(p));
  }
  llvm::sort(result.plans, ranksBefore);
  return result;
}

} // namespace tisa
