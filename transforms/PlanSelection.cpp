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
  llvm::Expected<Target> t = loadTarget(target, targetDir);
  if (!t)
    return emitError(UnknownLoc::get(ctx))
           << pass << ": " << llvm::toString(t.takeError());
  in->target = std::move(*t);
  for (const std::string &w : resolveRates(*in->target, in->descriptions))
    emitWarning(UnknownLoc::get(ctx)) << pass << ": " << w;
  return in;
}

namespace {

/// The kernel of the plan `key` names among `result`'s plans.
FailureOr<std::unique_ptr<KernelGenerator>> kernelNamed(const MatchResult &result, StringRef key,
                                     std::string &why) {
  for (const TensorizePlan &p : result.plans) {
    if (planKey(result.contraction, p) != key)
      continue;
    return getKernelGenerator(result.contraction, p, why);
  }
  why = "the matcher has no plan '" + key.str() + "' for it";
  return failure();
}

/// The loops of `op`'s tisa.loop_blocks in `c`'s (ProgramLoop::block);
/// whether it has them.
bool readLoopBlocks(linalg::LinalgOp op, Contraction &c) {
  auto pairs = op->getAttrOfType<DenseI64ArrayAttr>(kLoopBlocksAttr);
  if (!pairs)
    return false;
  for (size_t i = 0; i + 1 < size_t(pairs.size()); i += 2)
    c.loops[pairs[i]].block = pairs[i + 1];
  return true;
}

/// The kernel of `c` (`op` read, with its blocks) that `op`'s tisa.plan
/// names, else the best supported one. A loop of run-time extent in the
/// program (tisa.run_time_loops) or run in blocks is matched as one of
/// run-time extent, so every block finds the program's plan. Failure with
/// why; "error" after an error on `op`.
FailureOr<std::unique_ptr<KernelGenerator>>
kernelFor(linalg::LinalgOp op, const Contraction &c,
          ArrayRef<const Description *> descriptions, const Target &target,
          ArrayRef<int64_t> inputShape, ArrayRef<int64_t> inputPadding,
          std::string &why) {
  SmallVector<int64_t> runTime;
  if (auto given = op->getAttrOfType<DenseI64ArrayAttr>(kRunTimeLoopsAttr))
    llvm::append_range(runTime, given.asArrayRef());
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.block && !llvm::is_contained(runTime, int64_t(l)))
      runTime.push_back(l);
  MatchOptions options;
  options.target = &target;
  MatchResult result =
      match(runTime.empty() ? c : withRunTimeExtents(c, runTime),
            descriptions, options);
  rankPlans(result, target, inputShape, inputPadding);
  result.contraction = c;
  auto key = op->getAttrOfType<StringAttr>(kPlanAttr);
  if (!key)
    return selectKernel(result, why, &target);
  FailureOr<std::unique_ptr<KernelGenerator>> kernel =
      kernelNamed(result, key, why);
  if (failed(kernel)) {
    op->emitError("tisa.plan: " + why);
    why = "error";
  }
  return kernel;
}

} // namespace

FailureOr<PlannedKernel> planKernel(linalg::LinalgOp op,
                                    ArrayRef<const Description *> descriptions,
                                    const Target &target,
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
  bool blocksGiven = readLoopBlocks(op, *c);
  auto kernel = kernelFor(op, *c, descriptions, target, inputShape,
                          inputPadding, why);
  if (failed(kernel))
    return failure();
  // A first plan says which input is packed; blocks of it are planned anew.
  if (std::optional<LoopBlock> blocks =
          blocksGiven ? std::nullopt
                      : filterBlock(*c, (*kernel)->packedInput(), target)) {
    c->loops[blocks->loop].block = blocks->size;
    kernel = kernelFor(op, *c, descriptions, target, inputShape, inputPadding,
                       why);
    if (failed(kernel))
      return failure();
  }
  PlannedKernel out{*c, std::move(*kernel), {}};
  if (auto text = op->getAttrOfType<StringAttr>(kScheduleAttr)) {
    if (text.getValue().empty()) {
      op->emitError() << kScheduleAttr
                      << " is empty; remove it for the default schedule";
      why = "error";
      return failure();
    }
    scheduleText = text.getValue();
  }
  if (scheduleText.empty()) {
    out.schedule =
        out.kernel->defaultSchedule(target, inputShape, inputPadding);
    return out;
  }
  FailureOr<Schedule> s = Schedule::parse(scheduleText, why);
  if (failed(s) || failed(out.kernel->verify(*s, target, why))) {
    op->emitError("schedule '" + scheduleText + "': " + why);
    why = "error";
    return failure();
  }
  out.schedule = *s;
  return out;
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
  Builder b(op->getContext());
  op->setAttr(kPlanAttr, b.getStringAttr(planKey(c, plan)));
  op->setAttr(kScheduleAttr, b.getStringAttr(schedule.text()));
  SmallVector<int64_t> blocks;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.block)
      blocks.append({int64_t(l), loop.block});
  if (!blocks.empty())
    op->setAttr(kLoopBlocksAttr, b.getDenseI64ArrayAttr(blocks));
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
