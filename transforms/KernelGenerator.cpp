//===- KernelGenerator.cpp - the generator for a plan's register class ---===//
//
// Which code generator a plan goes to (by the register class of its
// instruction) and which plan of a contraction is generated.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Target.h"
#include "tisa/Transforms/Tensorize.h"
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
} // namespace

FailureOr<std::unique_ptr<KernelGenerator>>
getKernelGenerator(const Contraction &c, const TensorizePlan &plan,
                   std::string &why) {
  // Three instruction loops (m, n, k): AMX tiles or matrix segments (NEON
  // mmla); two (lanes, group): lane-dot vectors.
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
