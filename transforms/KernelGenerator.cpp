//===- KernelGenerator.cpp - the generator for a plan's register class ---===//
//
// Which code generator a plan goes to (by the register class of its
// instruction) and which plan of a contraction is generated.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Target.h"
#include "tisa/Transforms/Tensorize.h"
#include "tisa/Transforms/ScalableDotKernel.h"
#include "tisa/Transforms/ScalableMatrixKernel.h"
#include "tisa/Transforms/TileKernel.h"

using namespace mlir;

namespace tisa {

KernelGenerator::~KernelGenerator() = default;

MemRefType KernelGenerator::packedBufferType(MLIRContext *ctx,
                                             const Schedule &s) const {
  return MemRefType::get({packedBytes(s)}, IntegerType::get(ctx, 8));
}

LogicalResult KernelGenerator::canFuse(const Epilogue &, std::string &why) const {
  why = plan().desc->name + "'s code generator does not apply epilogues";
  return failure();
}

LogicalResult appliesInRegisters(const KernelGenerator &kernel,
                                 const Epilogue &epilogue, std::string &why) {
  if (failed(Epilogue::check(epilogue.generic(), why)))
    return failure();
  return kernel.canFuse(epilogue, why);
}

namespace {
bool allRegistersOf(const Description &d, RegisterClass cls) {
  return llvm::all_of(d.registers,
                      [&](const OperandRegister &r) { return r.cls == cls; });
}

/// `c` with runTimeBlock's extent for every dynamic extent of a loop, and in
/// the operand dimensions such loops index.
Contraction withNominalExtents(const Contraction &c, const TensorizePlan &plan) {
  Contraction nominal = c;
  for (auto [l, loop] : llvm::enumerate(nominal.loops)) {
    if (loop.extent != kDynamic)
      continue;
    int64_t extent = runTimeBlock(c, plan, l);
    loop.extent = extent;
    for (ProgramOperand &o : nominal.operands)
      if (std::optional<unsigned> d = o.dimOf(l))
        o.shape[*d] = extent;
  }
  return nominal;
}

FailureOr<std::unique_ptr<KernelGenerator>>
generatorFor(const Contraction &c, const TensorizePlan &plan,
             std::string &why) {
  // A scalable lane-dot (SVE sdot) or matrix multiply (SVE smmla): a
  // generator each. Three instruction loops (m, n, k): AMX tiles or matrix
  // segments (NEON mmla); two (lanes, group): lane-dot vectors.
  if (ScalableDotKernel::handles(plan)) {
    FailureOr<ScalableDotKernel> k = ScalableDotKernel::get(c, plan, why);
    if (failed(k))
      return failure();
    return std::unique_ptr<KernelGenerator>(
        std::make_unique<ScalableDotKernel>(std::move(*k)));
  }
  if (ScalableMatrixKernel::handles(plan)) {
    FailureOr<ScalableMatrixKernel> k = ScalableMatrixKernel::get(c, plan, why);
    if (failed(k))
      return failure();
    return std::unique_ptr<KernelGenerator>(
        std::make_unique<ScalableMatrixKernel>(std::move(*k)));
  }
  if (allRegistersOf(*plan.desc, RegisterClass::AMXTile) ||
      plan.loops.size() == 3) {
    FailureOr<TileKernel> k = TileKernel::get(c, plan, why);
    if (failed(k))
      return failure();
    return std::unique_ptr<KernelGenerator>(
        std::make_unique<TileKernel>(std::move(*k)));
  }
  FailureOr<LaneDotKernel> k = LaneDotKernel::get(c, plan, why);
  if (failed(k))
    return failure();
  return std::unique_ptr<KernelGenerator>(
      std::make_unique<LaneDotKernel>(std::move(*k)));
}
} // namespace

int64_t runTimeBlock(const Contraction &c, const TensorizePlan &plan,
                     unsigned loop) {
  auto mapped = [&](unsigned l) {
    return llvm::any_of(plan.loops, [&](const LoopAssignment &a) {
      return llvm::is_contained(a.programLoops, l);
    });
  };
  if (mapped(loop))
    return kNominalExtent;
  // The rows of a register tile: the innermost parallel loop the instruction
  // does not take.
  for (unsigned l = c.loops.size(); l-- > 0;)
    if (!c.loops[l].reduction && !mapped(l))
      return l == loop ? kNominalExtent : 1;
  return 1;
}

Contraction withRunTimeExtents(const Contraction &c, ArrayRef<int64_t> loops) {
  Contraction program = c;
  for (int64_t l : loops) {
    program.loops[l].extent = kDynamic;
    for (ProgramOperand &o : program.operands)
      if (std::optional<unsigned> d = o.dimOf(l))
        o.shape[*d] = kDynamic;
  }
  return program;
}

FailureOr<RunTimeLoop> runTimeLoopBlocks(const Contraction &c,
                                         unsigned packedInput, unsigned loop,
                                         std::string &why) {
  const ProgramLoop &l = c.loops[loop];
  RunTimeLoop out;
  out.padded = l.reduction;
  for (auto [i, o] : llvm::enumerate(c.operands)) {
    std::optional<unsigned> dim = o.dimOf(loop);
    unsigned uses = llvm::count_if(o.map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(loop);
    });
    if (uses && (!dim || uses > 1)) {
      why = "loop " + l.name + " has a dynamic extent and indexes " + o.name +
            " with other loops (a window); only loops that index whole "
            "dimensions run at run-time extents";
      return failure();
    }
    out.padded |= uses && i == packedInput;
    out.dims.push_back(dim);
  }
  return out;
}

FailureOr<std::unique_ptr<KernelGenerator>>
getKernelGenerator(const Contraction &c, const TensorizePlan &plan,
                   std::string &why) {
  SmallVector<unsigned> runTime;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.extent == kDynamic)
      runTime.push_back(l);
  if (runTime.empty())
    return generatorFor(c, plan, why);
  auto kernel = generatorFor(withNominalExtents(c, plan), plan, why);
  if (failed(kernel))
    return failure();
  for (unsigned l : runTime) {
    std::string reason;
    if (failed(runTimeLoopBlocks(c, (*kernel)->packedInput(), l, reason))) {
      why = plan.desc->name + ": " + reason;
      return failure();
    }
  }
  return kernel;
}

void rankPlans(MatchResult &result, const Target &target,
               ArrayRef<int64_t> inputShape, ArrayRef<int64_t> inputPadding) {
  // GPU kernels come from the warp-fragment generator (tisa gen --target
  // sm_XX), which picks its plan itself; these generators take none.
  if (target.arch == TargetArch::NVPTX)
    return;
  std::vector<TensorizePlan> counted, other;
  for (TensorizePlan &p : result.plans) {
    std::string why;
    auto kernel = getKernelGenerator(result.contraction, p, why);
    if (failed(kernel)) {
      p.cost.unsupported = why;
      other.push_back(std::move(p));
      continue;
    }
    ScheduleEstimate e = (*kernel)->estimate(target, inputShape, inputPadding);
    p.cost.cycles = e.cycles + p.cost.overheadCycles;
    p.cost.schedule = e.schedule.text();
    counted.push_back(std::move(p));
  }
  // Repeatedly the first plan, in the matcher's order, within the tie window
  // of the cheapest left.
  result.plans.clear();
  while (!counted.empty()) {
    double cheapest = llvm::min_element(counted, [](const auto &a,
                                                    const auto &b) {
                        return a.cost.cycles < b.cost.cycles;
                      })->cost.cycles;
    auto next = llvm::find_if(counted, [&](const TensorizePlan &p) {
      return p.cost.cycles <= cheapest * (1 + target.cost.tieWindow);
    });
    result.plans.push_back(std::move(*next));
    counted.erase(next);
  }
  for (TensorizePlan &p : other)
    result.plans.push_back(std::move(p));
}

FailureOr<std::unique_ptr<KernelGenerator>>
selectKernel(const MatchResult &result, std::string &why,
             const Target *target) {
  std::string first;
  for (const TensorizePlan &p : result.plans) {
    std::string reason;
    auto k = getKernelGenerator(result.contraction, p, reason);
    if (succeeded(k))
      return k;
    if (first.empty())
      first = reason;
  }
  if (result.plans.empty()) {
    why = "no instruction applies";
    // The most telling rejection: of an instruction the target executes,
    // else of one for its architecture, else the first.
    const Rejection *shown = nullptr;
    int rank = -1;
    for (const Rejection &r : result.rejected) {
      int k = !target                          ? 0
              : target->canExecute(*r.desc)    ? 2
              : r.desc->target == target->arch ? 1
                                               : 0;
      if (k > rank) {
        shown = &r;
        rank = k;
      }
    }
    if (shown)
      why += " (" + shown->desc->name + ": " + shown->reason +
             "; tisa match --all lists all)";
  } else {
    why = "no plan the code generator supports; the best: " + first;
  }
  return failure();
}

} // namespace tisa
