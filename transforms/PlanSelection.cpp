//===- PlanSelection.cpp - the plan and schedule of a contraction --------===//
//
// -tisa-select-plan: the matcher's best supported plan and the schedule (an
// option, or the target's default) become attributes of the contraction, as
// IREE carries lowering_config; -tisa-tensorize applies what they say.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/PlanSelection.h"
#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Targets/Rates.h"
#include "tisa/Transforms/Passes.h"

namespace tisa {
#define GEN_PASS_DEF_TISASELECTPLANPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {

FailureOr<std::shared_ptr<TensorizeInputs>>
TensorizeInputs::load(MLIRContext *ctx, StringRef pass, StringRef isa,
                      ArrayRef<std::string> isaDirs, StringRef target,
                      StringRef targetDir) {
  auto in = std::make_shared<TensorizeInputs>(*ctx);
  for (const std::string &dir : isaSearchPath(isaDirs))
    if (failed(in->set->loadDirectory(dir)))
      return failure();
  in->set->releaseDiagnostics();
  if (!isa.empty() && isa != "auto") {
    const Description *d = in->set->lookup(isa);
    if (!d)
      return emitError(UnknownLoc::get(ctx))
             << pass << ": no instruction description named '" << isa << "'";
    in->descriptions.push_back(d);
  } else {
    for (const auto &d : in->set->descriptions())
      in->descriptions.push_back(d.get());
  }
  if (target.empty())
    return in; // the passes after select-plan: plans as stated
  llvm::Expected<Target> t = loadTarget(target, targetDir);
  if (!t)
    return emitError(UnknownLoc::get(ctx))
           << pass << ": " << llvm::toString(t.takeError());
  in->target = std::move(*t);
  for (const std::string &w : resolveRates(*in->target, in->descriptions))
    emitWarning(UnknownLoc::get(ctx)) << pass << ": " << w;
  return in;
}

ArrayRef<int64_t> statedLoopBlocks(linalg::LinalgOp op) {
  if (auto plan = op->getAttrOfType<PlanAttr>(kPlanAttr))
    return plan.getBlocks();
  if (auto pairs = op->getAttrOfType<DenseI64ArrayAttr>(kLoopBlocksAttr))
    return pairs.asArrayRef();
  return {};
}

namespace {

/// `c` as its plans are matched: a loop of run-time extent in the program
/// (tisa.run_time_loops) or run in blocks is one of run-time extent, so
/// every block finds the program's plan.
Contraction planningForm(linalg::LinalgOp op, const Contraction &c) {
  SmallVector<int64_t> runTime;
  if (auto given = op->getAttrOfType<DenseI64ArrayAttr>(kRunTimeLoopsAttr))
    llvm::append_range(runTime, given.asArrayRef());
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.block && !llvm::is_contained(runTime, int64_t(l)))
      runTime.push_back(l);
  return runTime.empty() ? c : withRunTimeExtents(c, runTime);
}

/// The best supported kernel of `c` (`op` read, with its blocks); failure
/// with why.
FailureOr<std::unique_ptr<KernelGenerator>>
bestKernel(linalg::LinalgOp op, const Contraction &c,
           ArrayRef<const Description *> descriptions, const Target &target,
           ArrayRef<int64_t> inputShape, ArrayRef<int64_t> inputPadding,
           std::string &why) {
  MatchOptions options;
  options.target = &target;
  MatchResult result = match(planningForm(op, c), descriptions, options);
  rankPlans(result, target, inputShape, inputPadding);
  result.contraction = c;
  return selectKernel(result, why, &target);
}

/// The kernel of the plan `op`'s tisa.plan states for `c`, evaluated
/// without a search; an error on `op` (why = "error") when it does not fit.
FailureOr<std::unique_ptr<KernelGenerator>>
statedKernel(linalg::LinalgOp op, PlanAttr stated, const Contraction &c,
             ArrayRef<const Description *> descriptions, const Target *target,
             std::string &why) {
  MatchOptions options;
  options.target = target;
  std::string reason;
  FailureOr<TensorizePlan> plan = planFromAttr(
      planningForm(op, c), stated, descriptions, options, reason);
  FailureOr<std::unique_ptr<KernelGenerator>> kernel =
      succeeded(plan) ? getKernelGenerator(c, *plan, reason)
                      : FailureOr<std::unique_ptr<KernelGenerator>>(failure());
  if (failed(kernel)) {
    op->emitError() << kPlanAttr << " " << stated << ": " << reason;
    why = "error";
  }
  return kernel;
}

/// The kernel of `c` (`op` read): the one its tisa.plan states, else the
/// best supported one for `target` (none: failure with why), with the loops
/// run in blocks it states, else those filterBlock chooses for it. Sets the
/// blocks in `c`.
FailureOr<std::unique_ptr<KernelGenerator>>
kernelFor(linalg::LinalgOp op, Contraction &c,
          ArrayRef<const Description *> descriptions, const Target *target,
          ArrayRef<int64_t> inputShape, ArrayRef<int64_t> inputPadding,
          std::string &why) {
  ArrayRef<int64_t> blocks = statedLoopBlocks(op);
  for (size_t i = 0; i + 1 < blocks.size(); i += 2) {
    if (blocks[i] >= int64_t(c.loops.size())) {
      op->emitError() << "blocks of loop " << blocks[i] << ": the contraction has "
                      << c.loops.size() << " loops";
      why = "error";
      return failure();
    }
    c.loops[blocks[i]].block = blocks[i + 1];
  }
  if (auto stated = op->getAttrOfType<PlanAttr>(kPlanAttr))
    return statedKernel(op, stated, c, descriptions, target, why);
  if (!target) {
    why = "it has no " + kPlanAttr.str() +
          ", and the pass has no target to choose one for (run "
          "-tisa-select-plan first, or give the pass target=)";
    return failure();
  }
  auto kernel = bestKernel(op, c, descriptions, *target, inputShape,
                           inputPadding, why);
  if (failed(kernel) || !blocks.empty())
    return kernel;
  // A first plan says which input is packed; blocks of it are planned anew.
  std::optional<LoopBlock> block =
      filterBlock(c, (*kernel)->packedInput(), *target);
  if (!block)
    return kernel;
  c.loops[block->loop].block = block->size;
  return bestKernel(op, c, descriptions, *target, inputShape, inputPadding,
                    why);
}

/// `op`'s tisa.schedule, else `text` (an option) when not empty, else the
/// kernel's default for `target` (none: failure with why); an error on `op`
/// (why = "error") when it does not fit.
FailureOr<Schedule> scheduleFor(linalg::LinalgOp op,
                                const KernelGenerator &kernel,
                                const Target *target, StringRef text,
                                ArrayRef<int64_t> inputShape,
                                ArrayRef<int64_t> inputPadding,
                                std::string &why) {
  FailureOr<Schedule> s = failure();
  auto stated = op->getAttrOfType<ScheduleAttr>(kScheduleAttr);
  if (stated)
    s = Schedule::fromAttr(stated);
  else if (text.empty() && target)
    return kernel.defaultSchedule(*target, inputShape, inputPadding);
  else if (text.empty()) {
    why = "it has no " + kScheduleAttr.str() +
          ", and the pass has no schedule= and no target to choose one for";
    return failure();
  } else
    s = Schedule::parse(text, why);
  if (failed(s) || failed(kernel.verify(*s, target, why))) {
    if (stated)
      op->emitError() << kScheduleAttr << " " << stated << ": " << why;
    else
      op->emitError("schedule '" + text + "': " + why);
    why = "error";
    return failure();
  }
  return s;
}

} // namespace

FailureOr<PlannedKernel> planKernel(linalg::LinalgOp op,
                                    ArrayRef<const Description *> descriptions,
                                    const Target *target,
                                    StringRef scheduleText, std::string &why,
                                    ArrayRef<int64_t> inputShape,
                                    ArrayRef<int64_t> inputPadding) {
  why.clear();
  FailureOr<Contraction> c = readContraction(op, why);
  if (failed(c)) {
    why.clear(); // not a contraction: nothing to do
    return failure();
  }
  if (!op.hasPureBufferSemantics()) {
    why = "the operands are tensors; bufferize first (one-shot-bufferize)";
    return failure();
  }
  auto kernel = kernelFor(op, *c, descriptions, target, inputShape,
                          inputPadding, why);
  if (failed(kernel))
    return failure();
  FailureOr<Schedule> schedule = scheduleFor(
      op, **kernel, target, scheduleText, inputShape, inputPadding, why);
  if (failed(schedule))
    return failure();
  return PlannedKernel{*c, std::move(*kernel), *schedule};
}

/// What keeps an op that linalg calls a contraction, or a named convolution,
/// from being read as a multiply-accumulate (readContraction's reason: an i1
/// matmul's and/or body, a loop of no iterations); "" for other ops, which
/// are not programs tisa tensorizes and need no word: fills, elementwise
/// ops, and generic window sums (a quantized convolution's zero-point term,
/// as -tisa-decompose-quantized writes it, has a convolution's shape).
static std::string whyNotTensorizable(linalg::LinalgOp op) {
  bool namedConvolution = linalg::isaConvolutionOpInterface(op) &&
                          !isa<linalg::GenericOp>(op.getOperation());
  if (!linalg::isaContractionOpInterface(op) && !namedConvolution)
    return "";
  std::string why;
  if (succeeded(readContraction(op, why)))
    return "";
  return why;
}

void recordPlan(linalg::LinalgOp op, const Contraction &c,
                const TensorizePlan &plan, const Schedule &schedule) {
  MLIRContext *ctx = op->getContext();
  op->setAttr(kPlanAttr, planAttr(ctx, c, plan));
  op->setAttr(kScheduleAttr, schedule.attr(ctx));
  op->removeAttr(kLoopBlocksAttr); // the plan's blocks say it
}

LogicalResult
forEachPlanned(func::FuncOp func, const TensorizeInputs &in,
               StringRef schedule, StringRef warning,
               function_ref<void(linalg::LinalgOp, PlannedKernel &)> apply) {
  SmallVector<linalg::LinalgOp> ops;
  // Contractions inside tisa.pack/tisa.compute are those ops' descriptions of
  // their kernel, not programs.
  func.walk([&](linalg::LinalgOp op) {
    if (!isa<PackOp, ComputeOp>(op->getParentOp()))
      ops.push_back(op);
  });
  for (linalg::LinalgOp op : ops) {
    std::string why;
    FailureOr<PlannedKernel> planned = planKernel(op, in, schedule, why);
    if (succeeded(planned)) {
      apply(op, *planned);
      continue;
    }
    if (why == "error")
      return failure();
    // The named instruction does not apply to a contraction it was asked for.
    if (!why.empty() && !warning.empty() && in.instructionNamed)
      return op->emitError("the instruction named, ")
             << in.descriptions.front()->name << ", does not apply: " << why;
    if (why.empty())
      why = whyNotTensorizable(op);
    if (!why.empty() && !warning.empty())
      op->emitWarning(warning) << why;
  }
  return success();
}

namespace {

struct SelectPlanPass
    : public WithTensorizeInputs<
          tisa::impl::TisaSelectPlanPassBase<SelectPlanPass>> {
  using WithTensorizeInputs::WithTensorizeInputs;
  SelectPlanPass(std::shared_ptr<const TensorizeInputs> given,
                 llvm::StringRef scheduleText, bool warnUnplanned)
      : WithTensorizeInputs(std::move(given)), warnUnplanned(warnUnplanned) {
    schedule = scheduleText.str();
  }

  void runOnOperation() override {
    auto record = [](linalg::LinalgOp op, PlannedKernel &planned) {
      recordPlan(op, planned.contraction, planned.kernel->plan(),
                 planned.schedule);
    };
    if (failed(forEachPlanned(getOperation(), *inputs, schedule,
                              warnUnplanned ? "no plan selected: " : "",
                              record)))
      signalPassFailure();
  }

  bool warnUnplanned = true;
};

} // namespace

std::unique_ptr<Pass>
createTisaSelectPlanPass(std::shared_ptr<const TensorizeInputs> inputs,
                         llvm::StringRef schedule, bool warnUnplanned) {
  return std::make_unique<SelectPlanPass>(std::move(inputs), schedule,
                                          warnUnplanned);
}

} // namespace tisa
