//===- Matcher.cpp - plans per description, tiles, cost, ranking, text ----===//
//
// The cost model is analytical and deliberately simple; it ranks plans, the
// tuner (a later issue) refines the tiles by measurement:
//   - instructions: issues over the tiled loop nest, padding included;
//   - register tile: unroll up to two parallel loops into accumulators within
//     the target's register budget (accumulators + the operand kept live +
//     one streamed image), maximising multiply-accumulates per loaded byte,
//     preferring enough accumulators to cover latency x issue rate;
//   - cache tile: reduction steps whose streamed panels fill half of L1, then
//     the unrolled loops grown to half of L2;
//   - cycles: max(instructions / issue rate, loaded bytes / load bandwidth)
//     + packed bytes / 32 + compensation elements / 32.
//
//===----------------------------------------------------------------------===//

#include "MatcherImpl.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/bit.h"
#include <cmath>

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
/// Extent assumed for costs where only run time knows it.
constexpr int64_t kNominalExtent = 256;

int64_t known(int64_t extent) {
  return extent == kDynamic ? kNominalExtent : extent;
}
} // namespace

void estimateCost(const Contraction &c, const InstrModel &model,
                  const Target *target, TensorizePlan &plan) {
  const Description &d = *model.desc;
  // The tiled loop nest: one entry per instruction-fed unit, then the other
  // program loops.
  plan.tiles.clear();
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
    plan.tiles.push_back(t);
  }
  for (auto [l, loop] : llvm::enumerate(c.loops)) {
    if (covered[l])
      continue;
    TensorizePlan::TiledLoop t;
    t.name = loop.name;
    t.programLoops = {unsigned(l)};
    t.reduction = loop.reduction;
    t.extent = loop.extent;
    plan.tiles.push_back(t);
  }
  llvm::sort(plan.tiles, [](const auto &a, const auto &b) {
    return a.programLoops.front() < b.programLoops.front();
  });

  auto tilesOf = [](const TensorizePlan::TiledLoop &t) {
    return llvm::divideCeil(known(t.extent), t.instr);
  };
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

  // Which tiled loops each operand depends on (computed once: the register
  // tile search asks often).
  SmallVector<SmallVector<bool>, 3> dependence(3);
  for (unsigned p = 0; p < 3; ++p)
    for (const auto &t : plan.tiles)
      dependence[p].push_back(llvm::any_of(t.programLoops, [&](unsigned l) {
        return c.operands[p].map.isFunctionOfDim(l);
      }));
  auto dependsOn = [&](unsigned p, const TensorizePlan::TiledLoop &t) {
    return dependence[p][&t - plan.tiles.data()];
  };
  // Bytes written by relayouts: what one instruction reads of the operand,
  // per distinct tile of the loops it depends on.
  for (OperandPlan &op : plan.operands) {
    op.packBytes = 0;
    if (op.access != OperandPlan::Access::Packed &&
        op.access != OperandPlan::Access::Gathered)
      continue;
    int64_t images = 1;
    for (const auto &t : plan.tiles)
      if (dependsOn(op.programOperand, t))
        images *= tilesOf(t);
    op.packBytes = images * op.bytesPerInstruction;
  }

  // Register tile.
  RegisterClass cls = d.registers[2].cls;
  double budget = 32;
  bool warp = cls == RegisterClass::WarpFragment;
  // Registers one image of operand j takes: one vector or tile, or its
  // 32-bit share per thread of a warp fragment.
  auto regs = [&](unsigned j) -> double {
    return warp ? std::max(1.0, model.operands[j].imageBytes / 128.0) : 1.0;
  };
  const CostModel &cm = target ? target->cost : CostModel();
  if (cls == RegisterClass::Vector) {
    budget = target ? target->vectorRegistersOrAssumed()
                    : cm.assumedVectorRegisters;
  } else if (cls == RegisterClass::AMXTile) {
    budget = target && target->tileRegisters ? target->tileRegisters
                                             : cm.assumedTileRegisters;
  } else {
    budget = cm.gpuRegisterShare * (target && target->registersPerThread
                                        ? target->registersPerThread
                                        : cm.assumedRegistersPerThread);
  }
  double wantAccumulators =
      target ? target->latency(d) * target->issueRate(d) : 4.0;
  SmallVector<unsigned> candidates;
  for (auto [x, t] : llvm::enumerate(plan.tiles))
    if (!t.reduction && dependsOn(2, t))
      candidates.push_back(x);
  struct Choice {
    SmallVector<int64_t> unroll;
    bool latencyOk = false;
    double ratio = 0;
    int64_t product = 1;
  } best;
  best.unroll.assign(plan.tiles.size(), 1);
  auto consider = [&](ArrayRef<int64_t> unroll) {
    int64_t product = 1;
    for (int64_t u : unroll)
      product *= u;
    double count[2];
    double loads = 0; // register images loaded per step (a load each)
    for (unsigned j = 0; j < 2; ++j) {
      const OperandPlan &op = plan.operands[j];
      count[j] = 1;
      for (auto [x, t] : llvm::enumerate(plan.tiles))
        if (dependsOn(op.programOperand, t))
          count[j] *= unroll[x];
      loads += count[j];
    }
    double used = regs(2) * product + std::min(count[0] * regs(0),
                                               count[1] * regs(1)) +
                  (count[0] <= count[1] ? regs(1) : regs(0));
    if (used > budget)
      return;
    bool latencyOk = product >= wantAccumulators;
    double ratio = double(product) / std::max(1.0, loads);
    if (std::make_tuple(latencyOk, ratio, product) >
        std::make_tuple(best.latencyOk, best.ratio, best.product)) {
      best.unroll.assign(unroll.begin(), unroll.end());
      best.product = product;
      best.latencyOk = latencyOk;
      best.ratio = ratio;
    }
  };
  // Accumulators alone must fit the budget: stop growing an unroll there.
  SmallVector<int64_t> unroll(plan.tiles.size(), 1);
  for (size_t a = 0; a < candidates.size(); ++a)
    for (size_t b = a; b < candidates.size(); ++b)
      for (int64_t ua = 1;
           ua <= std::min<int64_t>(cm.maxMatchUnroll,
                                   tilesOf(plan.tiles[candidates[a]])) &&
           regs(2) * ua <= budget;
           ua = warp ? ua * 2 : ua + 1) // warp tiles: powers of two
        for (int64_t ub = 1;
             ub <= (a == b ? 1
                           : std::min<int64_t>(
                                 cm.maxMatchUnroll,
                                 tilesOf(plan.tiles[candidates[b]]))) &&
             regs(2) * ua * ub <= budget;
             ub = warp ? ub * 2 : ub + 1) {
          std::fill(unroll.begin(), unroll.end(), 1);
          unroll[candidates[a]] = ua;
          unroll[candidates[b]] *= ub;
          consider(unroll);
        }
  for (auto [x, t] : llvm::enumerate(plan.tiles))
    t.reg = std::min<int64_t>(t.instr * best.unroll[x],
                              llvm::alignTo(known(t.extent), t.instr));

  // Bytes loaded per instruction with that reuse, and per reduction step.
  double loadPerStep = 0;
  for (unsigned j = 0; j < 2; ++j) {
    const OperandPlan &op = plan.operands[j];
    double count = 1;
    for (auto [x, t] : llvm::enumerate(plan.tiles))
      if (dependsOn(op.programOperand, t))
        count *= best.unroll[x];
    loadPerStep += count * op.bytesPerInstruction;
  }
  int64_t reductionSteps = 1;
  for (const auto &t : plan.tiles)
    if (t.reduction)
      reductionSteps *= tilesOf(t);
  double accBytes = 2.0 * plan.operands[2].bytesPerInstruction /
                    std::max<int64_t>(1, reductionSteps);
  plan.cost.bytesPerInstruction = loadPerStep / best.product + accBytes;

  // Cache tiles.
  uint64_t l1 = target ? target->l1dBytesOrAssumed() : cm.assumedL1dBytes;
  uint64_t l2 = target ? target->l2BytesOrAssumed() : cm.assumedL2Bytes;
  int64_t kSteps = llvm::bit_floor(uint64_t(
      std::max<int64_t>(1, int64_t(l1 / 2 / std::max(1.0, loadPerStep)))));
  int main = -1;
  for (auto [x, t] : llvm::enumerate(plan.tiles))
    if (t.reduction && t.instr > 1 &&
        (main < 0 || known(t.extent) > known(plan.tiles[main].extent)))
      main = x;
  for (auto [x, t] : llvm::enumerate(plan.tiles)) {
    int64_t e = known(t.extent);
    if (t.reduction)
      t.cache = int(x) == main ? std::min<int64_t>(llvm::alignTo(e, t.instr),
                                          t.instr * kSteps)
                               : t.reg;
    else
      t.cache = t.reg;
  }
  if (main >= 0) {
    // Grow the first unrolled loop while its panel fits half of L2.
    for (auto [x, t] : llvm::enumerate(plan.tiles)) {
      if (t.reduction || best.unroll[x] == 1)
        continue;
      double panel = 0;
      for (unsigned j = 0; j < 2; ++j)
        if (dependsOn(plan.operands[j].programOperand, t))
          panel += plan.operands[j].bytesPerInstruction * best.unroll[x] *
                   (plan.tiles[main].cache / plan.tiles[main].instr);
      int64_t grow = std::max<int64_t>(1, int64_t(l2 / 2 / std::max(1.0, panel)));
      t.cache = std::min<int64_t>(llvm::alignTo(known(t.extent), t.instr),
                                  t.reg * grow);
      break;
    }
  }

  // Cycles.
  double rate = target ? target->issueRate(d) : 1.0;
  double compute = instructions / rate;
  double loadCycles = 0;
  if (d.target != TargetArch::NVPTX) {
    double bandwidth = target && target->vectorBits ? 2.0 * target->vectorBits / 8
                                                    : 128.0;
    loadCycles = instructions * plan.cost.bytesPerInstruction / bandwidth;
  }
  int64_t packBytes = 0;
  for (const OperandPlan &op : plan.operands)
    packBytes += op.packBytes;
  plan.cost.packBytes = packBytes;
  double extra = packBytes / 32.0;
  if (plan.repair)
    extra += plan.repair->compensationElements / 32.0;
  plan.cost.cycles = std::max(compute, loadCycles) + extra;

  // Notes on remainders.
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

} // namespace detail

namespace {
/// Whether `p` broadcasts into the register its instruction can take by
/// element (one load per register of groups instead of per group).
bool broadcastsByElement(const TensorizePlan &p) {
  std::optional<unsigned> r = p.desc ? p.desc->lowering.byElement : std::nullopt;
  return r && *r < p.operands.size() &&
         p.operands[*r].access == OperandPlan::Access::Broadcast;
}

/// The ranking: estimated cycles, then lanes used, bytes relaid out,
/// instructions issued, and a broadcast the instruction takes by element.
bool ranksBefore(const TensorizePlan &a, const TensorizePlan &b) {
  auto key = [](const TensorizePlan &p) {
    return std::make_tuple(p.cost.cycles, -p.cost.utilization,
                           p.cost.packBytes, p.cost.instructions,
                           !broadcastsByElement(p));
  };
  return key(a) < key(b);
}
} // namespace

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
  detail::InstrModel model = detail::buildInstrModel(d, options.target);
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
