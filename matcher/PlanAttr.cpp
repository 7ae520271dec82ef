//===- PlanAttr.cpp - a plan as #tisa.plan, and back -----------------------===//
//
// A plan is fixed by its instruction, the order of the operand
// correspondence and the program loops behind each instruction loop; the
// operands' accesses, the tiled loop nest and the cost follow from them.
// planFromAttr evaluates that one assignment, as the matcher's search would
// have, so a plan read back is the plan the matcher returns for it.
//
//===----------------------------------------------------------------------===//

#include "MemoryImpl.h"
#include "tisa/Dialect/TisaAttrs.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa {

PlanAttr planAttr(MLIRContext *ctx, const Contraction &c,
                  const TensorizePlan &p) {
  SmallVector<InstrLoopAttr> loops;
  for (const LoopAssignment &la : p.loops) {
    SmallVector<int64_t> program;
    if (la.sharesWith < 0)
      program.assign(la.programLoops.begin(), la.programLoops.end());
    loops.push_back(
        InstrLoopAttr::get(ctx, la.instrName, program, la.sharesWith));
  }
  SmallVector<int64_t> blocks;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.block)
      blocks.append({int64_t(l), loop.block});
  return PlanAttr::get(ctx, p.desc->name, loops, p.programInputOf[0] == 1,
                       blocks);
}

namespace {

using detail::memory::Unit;

/// The vector length the plan `attr` of `d` was made for: the target's;
/// without one, for a scalable instruction whose plan has no segment loop,
/// the one 128-bit segment that leaves none; else unknown.
std::optional<unsigned> statedVectorBits(const Description &d, PlanAttr attr,
                                         const Target *target) {
  if (target)
    return target->vectorBits;
  bool segmentLoop = llvm::any_of(attr.getLoops(), [](InstrLoopAttr l) {
    return l.getName() == detail::kSegmentLoop;
  });
  if (d.isScalable() && !segmentLoop)
    return 128u;
  return std::nullopt;
}

/// The description `name` among `descriptions`.
const Description *describedAs(ArrayRef<const Description *> descriptions,
                               StringRef name) {
  for (const Description *d : descriptions)
    if (d->name == name)
      return d;
  return nullptr;
}

/// The units (runs of program loops) `attr` gives the instruction loops of
/// `model`, one per loop (unitOf[i] = i, or -1), and the loops they extend;
/// failure when the attribute does not fit the instruction or the program.
LogicalResult readAssignment(const Contraction &c,
                             const detail::InstrModel &model, PlanAttr attr,
                             SmallVectorImpl<Unit> &units,
                             SmallVectorImpl<int> &unitOf,
                             SmallVectorImpl<int> &shares, std::string &why) {
  ArrayRef<InstrLoopAttr> loops = attr.getLoops();
  if (loops.size() != model.names.size()) {
    why = llvm::formatv("{0} has {1} loops ({2}); the plan names {3}",
                        model.desc->name, model.names.size(),
                        llvm::join(model.names, ", "), loops.size());
    return failure();
  }
  for (auto [i, l] : llvm::enumerate(loops)) {
    if (l.getName() != model.names[i]) {
      why = llvm::formatv("loop {0} of {1} is '{2}', not '{3}'", i,
                          model.desc->name, model.names[i], l.getName());
      return failure();
    }
    Unit u{{}, model.reduction[i], 1};
    for (int64_t p : l.getProgramLoops()) {
      if (p >= int64_t(c.loops.size())) {
        why = llvm::formatv("'{0}' takes program loop {1}; the contraction "
                            "has {2}",
                            l.getName(), p, c.loops.size());
        return failure();
      }
      const ProgramLoop &pl = c.loops[p];
      if (pl.reduction != model.reduction[i]) {
        why = llvm::formatv("'{0}' is a {1} loop; program loop {2} ('{3}') "
                            "is not",
                            l.getName(),
                            model.reduction[i] ? "reduction" : "parallel", p,
                            pl.name);
        return failure();
      }
      if (l.getProgramLoops().size() > 1 &&
          (pl.extent == kDynamic || pl.extent < 2)) {
        why = llvm::formatv("'{0}' fuses program loop {1} ('{2}'), whose "
                            "extent is not a static one above 1",
                            l.getName(), p, pl.name);
        return failure();
      }
      u.loops.push_back(unsigned(p));
      u.extent = u.loops.size() == 1 ? pl.extent : u.extent * pl.extent;
    }
    int64_t s = l.getSharesWith();
    if (s >= 0 && (int(i) != model.segLoop || model.reduction[s])) {
      why = llvm::formatv("'{0} = outer({1})': only {2}'s segment loop "
                          "extends a parallel loop's program loop",
                          l.getName(), s, model.desc->name);
      return failure();
    }
    if (l.isPadding() && model.reduction[i]) {
      why = llvm::formatv("'{0}' is a reduction loop; only parallel loops "
                          "are padded",
                          l.getName());
      return failure();
    }
    unitOf.push_back(u.loops.empty() ? -1 : int(units.size()));
    units.push_back(std::move(u));
    shares.push_back(int(l.getSharesWith()));
  }
  return success();
}

} // namespace

FailureOr<TensorizePlan>
planFromAttr(const Contraction &c, PlanAttr attr,
             ArrayRef<const Description *> descriptions,
             const MatchOptions &options, std::string &why) {
  const Description *d = describedAs(descriptions, attr.getInstruction());
  if (!d) {
    why = "no instruction description named '" +
          attr.getInstruction().str() + "'";
    return failure();
  }
  if (options.target && !options.target->canExecute(*d)) {
    why = llvm::formatv("{0} lacks {1}", options.target->name,
                        llvm::join(options.target->missingFeatures(*d), ", "));
    return failure();
  }
  FailureOr<SmallVector<detail::ArithMatch, 2>> ariths =
      detail::matchArithmetic(c, *d, options, why);
  if (failed(ariths))
    return failure();
  unsigned first = attr.getSwapped() ? 1 : 0;
  const detail::ArithMatch *arith = nullptr;
  for (const detail::ArithMatch &a : *ariths)
    if (a.programInputOf[0] == first)
      arith = &a;
  if (!arith) {
    why = llvm::formatv("{0} takes the program's inputs only in {1} order",
                        d->name, attr.getSwapped() ? "their" : "swapped");
    return failure();
  }
  detail::InstrModel model =
      detail::buildInstrModel(*d, statedVectorBits(*d, attr, options.target));
  SmallVector<Unit> units;
  SmallVector<int> unitOf, shares;
  if (failed(readAssignment(c, model, attr, units, unitOf, shares, why)))
    return failure();
  detail::memory::Evaluator evaluator(c, model, *arith);
  detail::memory::Failure failure;
  FailureOr<TensorizePlan> plan =
      evaluator.evaluate(units, unitOf, shares, failure);
  if (mlir::failed(plan)) {
    why = failure.reason;
    return mlir::failure();
  }
  detail::estimateCost(c, model, options.target, *plan);
  return plan;
}

} // namespace tisa
