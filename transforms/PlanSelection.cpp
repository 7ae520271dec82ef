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
  MatchOptions options;
  options.target = &target;
  // A static block of a program with run-time extents is planned as that
  // program: the same plan (an AMX tile keeps its 16 rows on a block of 1).
  auto runTime = op->getAttrOfType<DenseI64ArrayAttr>(kRunTimeLoopsAttr);
  MatchResult result =
      match(runTime ? withRunTimeExtents(*c, runTime.asArrayRef()) : *c,
            descriptions, options);
  rankPlans(result, target, inputShape, inputPadding);
  result.contraction = *c;
  auto error = [&](const Twine &msg) -> FailureOr<PlannedKernel> {
    op->emitError(msg);
    why = "error";
    return failure();
  };
  auto key = op->getAttrOfType<StringAttr>(kPlanAttr);
  FailureOr<std::unique_ptr<KernelGenerator>> kernel =
      key ? kernelNamed(result, key, why)
          : selectKernel(result, why, &target);
  if (failed(kernel) && key)
    return error("tisa.plan: " + why);
  if (failed(kernel))
    return failure();
  PlannedKernel out{*c, std::move(*kernel), {}};
  if (auto text = op->getAttrOfType<StringAttr>(kScheduleAttr))
    scheduleText = text.getValue();
  if (scheduleText.empty()) {
    out.schedule =
        out.kernel->defaultSchedule(target, inputShape, inputPadding);
    return out;
  }
  FailureOr<Schedule> s = Schedule::parse(scheduleText, why);
  if (failed(s) || failed(out.kernel->verify(*s, target, why)))
    return error("schedule '" + scheduleText + "': " + why);
  out.schedule = *s;
  return out;
}

void recordPlan(linalg::LinalgOp op, const Contraction &c,
                const TensorizePlan &plan, const Schedule &schedule) {
  Builder b(op->getContext());
  op->setAttr(kPlanAttr, b.getStringAttr(planKey(c, plan)));
  op->setAttr(kScheduleAttr, b.getStringAttr(schedule.text()));
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
    if (succeeded(planned))
      apply(op, *planned);
    else if (why == "error")
      return failure();
    else if (!why.empty() && !warning.empty())
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
