//===- PlanSelection.h - the plan and schedule of a contraction -*- C++ -*-===//
//
// What every path to a kernel shares: the descriptions and target a
// tensorizing pass works with, the choice of plan and schedule for one
// contraction (read from its tisa.plan / tisa.schedule attributes or made as
// the default) and the two kernel ops a planned contraction becomes
// (tisa.pack, tisa.compute). -tisa-select-plan, -tisa-split-pack,
// -tisa-tensorize and the named-kernel ABI (kernels/KernelLibrary.cpp) all go
// through these.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_PLANSELECTION_H
#define TISA_TRANSFORMS_PLANSELECTION_H

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Target.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <optional>
#include <vector>

namespace tisa {

/// The descriptions (all, or the one `isa` names) and the target.
struct TensorizeInputs {
  /// Descriptions and a target the caller already has (the descriptions
  /// must live in the context of the IR the passes run on).
  TensorizeInputs(std::vector<const Description *> descriptions, Target target)
      : descriptions(std::move(descriptions)), target(std::move(target)) {}
  explicit TensorizeInputs(mlir::MLIRContext &ctx)
      : set(std::make_unique<DescriptionSet>(ctx, llvm::errs())) {}
  /// Owned when loaded by a pass; null when given.
  std::unique_ptr<DescriptionSet> set;
  std::vector<const Description *> descriptions;
  /// None for a pass after -tisa-select-plan given no target: it takes each
  /// contraction's plan and schedule as stated.
  std::optional<Target> target;
  const Target *targetOrNull() const { return target ? &*target : nullptr; }
  /// The user named the one instruction to use (`tisa gen FILE --isa`): a
  /// contraction it cannot compute is an error, not plain code under a
  /// warning. (A pass's `isa=` only restricts the choice.)
  bool instructionNamed = false;

  /// Loads them; `pass` names the pass in errors. An empty `target` loads
  /// none.
  static mlir::FailureOr<std::shared_ptr<TensorizeInputs>>
  load(mlir::MLIRContext *ctx, llvm::StringRef pass, llvm::StringRef isa,
       llvm::ArrayRef<std::string> isaDirs, llvm::StringRef target,
       llvm::StringRef targetDir);
  /// The same with a pass's list option of directories.
  template <typename List>
  static mlir::FailureOr<std::shared_ptr<TensorizeInputs>>
  loadWith(mlir::MLIRContext *ctx, llvm::StringRef pass, llvm::StringRef isa,
           const List &isaDirs, llvm::StringRef target,
           llvm::StringRef targetDir) {
    llvm::SmallVector<std::string> dirs(isaDirs.begin(), isaDirs.end());
    return load(ctx, pass, isa, dirs, target, targetDir);
  }
  /// A pass's initialize(): `inputs` as its creator gave them, or loaded
  /// from the pass's options.
  template <typename List>
  static mlir::LogicalResult
  ensure(std::shared_ptr<const TensorizeInputs> &inputs, mlir::MLIRContext *ctx,
         llvm::StringRef pass, llvm::StringRef isa, const List &isaDirs,
         llvm::StringRef target, llvm::StringRef targetDir) {
    if (inputs)
      return mlir::success();
    auto loaded = loadWith(ctx, pass, isa, isaDirs, target, targetDir);
    if (mlir::failed(loaded))
      return mlir::failure();
    inputs = *loaded;
    return mlir::success();
  }
};

/// What every pass that plans shares, around its generated base `Base`
/// (which declares the isa, isa-dir, target and target-dir options): the
/// descriptions and target, given by its creator or loaded from those
/// options at initialize(), and the dialects the descriptions parse into.
template <typename Base>
struct WithTensorizeInputs : public Base {
  using Base::Base;
  explicit WithTensorizeInputs(std::shared_ptr<const TensorizeInputs> given)
      : inputs(std::move(given)) {}

  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerDescriptionDialects(registry);
  }

  mlir::LogicalResult initialize(mlir::MLIRContext *ctx) override {
    return TensorizeInputs::ensure(inputs, ctx, this->getArgument(), this->isa,
                                   this->isaDirs, this->target,
                                   this->targetDir);
  }

  std::shared_ptr<const TensorizeInputs> inputs;
};

/// A contraction's plan and schedule.
struct PlannedKernel {
  Contraction contraction;
  std::unique_ptr<KernelGenerator> kernel;
  Schedule schedule;
};

/// Reads `op` as a contraction on memrefs and chooses its kernel: the plan
/// its tisa.plan attribute states (evaluated without a search; an error
/// when it does not fit) or the best supported one, and the schedule of its
/// tisa.schedule attribute (checked against the kernel), else `schedule`
/// (text) when not empty,
/// else the target's default, for an input of `inputShape` with
/// `inputPadding` when given (see KernelGenerator::defaultSchedule). Without
/// a target (null) only what `op` states: its plan, evaluated without the
/// target's features and vector length, and its schedule, checked without
/// the target's registers. Not a contraction: failure with `why` empty
/// (nothing to do). No plan: failure with `why`. A bad attribute or
/// schedule: an error on `op` and failure with `why` = "error".
mlir::FailureOr<PlannedKernel>
planKernel(mlir::linalg::LinalgOp op,
           llvm::ArrayRef<const Description *> descriptions,
           const Target *target, llvm::StringRef schedule, std::string &why,
           llvm::ArrayRef<int64_t> inputShape = {},
           llvm::ArrayRef<int64_t> inputPadding = {});
inline mlir::FailureOr<PlannedKernel>
planKernel(mlir::linalg::LinalgOp op, const TensorizeInputs &in,
           llvm::StringRef schedule, std::string &why) {
  return planKernel(op, in.descriptions, in.targetOrNull(), schedule, why);
}

/// The pairs of a loop and its block size `op` states: its tisa.plan's
/// blocks, else its tisa.loop_blocks (a hint written by hand); empty when
/// neither.
llvm::ArrayRef<int64_t> statedLoopBlocks(mlir::linalg::LinalgOp op);

/// Sets `op`'s tisa.plan (#tisa.plan of `plan` of `c`, op read as a
/// contraction, with `c`'s blocks) and tisa.schedule (#tisa.schedule).
void recordPlan(mlir::linalg::LinalgOp op, const Contraction &c,
                const TensorizePlan &plan, const Schedule &schedule);

/// Plans every linalg op in `func` (planKernel) and calls `apply` on each
/// contraction with a plan; warns `warning` + why on those without one
/// (unless `warning` is empty).
/// Failure after an error on an op.
mlir::LogicalResult
forEachPlanned(mlir::func::FuncOp func, const TensorizeInputs &in,
               llvm::StringRef schedule, llvm::StringRef warning,
               llvm::function_ref<void(mlir::linalg::LinalgOp,
                                       PlannedKernel &)>
                   apply);

/// The loops of run-time extent the packed input depends on (a GEMM's N
/// and K), and those run in static blocks (ProgramLoop::block: a
/// convolution's filters), in order: each runs in blocks of runTimeBlock
/// iterations, and
/// the packed buffer holds one static kernel's packed bytes per block
/// (row-major over these loops' blocks; -tisa-split-dynamic).
llvm::SmallVector<unsigned> runTimePackedLoops(const Contraction &c,
                                               const KernelGenerator &kernel);
inline llvm::SmallVector<unsigned>
runTimePackedLoops(const PlannedKernel &planned) {
  return runTimePackedLoops(planned.contraction, *planned.kernel);
}
/// The packed buffer's bytes when every loop runTimePackedLoops gives has
/// a static extent (blocks of it: ProgramLoop::block), else kDynamic.
int64_t packedBufferBytes(const Contraction &c, const KernelGenerator &kernel,
                          const Schedule &s);
/// The packed buffer's bytes as an index value: the static kernel's (of
/// schedule `s`), times the blocks of each of runTimePackedLoops, whose
/// extents `extent` gives.
mlir::Value packedBufferBytes(mlir::OpBuilder &b, mlir::Location loc,
                              const Contraction &c,
                              const KernelGenerator &kernel, const Schedule &s,
                              llvm::function_ref<mlir::Value(unsigned)> extent);
inline mlir::Value
packedBufferBytes(mlir::OpBuilder &b, mlir::Location loc,
                  const PlannedKernel &planned,
                  llvm::function_ref<mlir::Value(unsigned)> extent) {
  return packedBufferBytes(b, loc, planned.contraction, *planned.kernel,
                           planned.schedule, extent);
}
/// The run-time extent of `loop` of `c`: the dimension of the first of
/// `operands` (inputs, output; null where absent) that the loop indexes
/// alone.
mlir::Value loopExtent(mlir::OpBuilder &b, mlir::Location loc,
                       const Contraction &c,
                       llvm::ArrayRef<mlir::Value> operands, unsigned loop);
/// tisa.pack of `src` into `buffer` around a clone of `contraction` (which
/// carries its plan and schedule).
PackOp buildPack(mlir::OpBuilder &b, mlir::Location loc,
                 mlir::linalg::LinalgOp contraction, mlir::Value src,
                 mlir::Value buffer);
/// tisa.compute around a clone of `contraction`; `begin`/`end` null for the
/// whole output, `inputPadding` empty for an input of the program's shape.
ComputeOp buildCompute(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::linalg::LinalgOp contraction, mlir::Value input,
                       mlir::Value buffer, mlir::Value output, bool overwrite,
                       mlir::Value begin = {}, mlir::Value end = {},
                       llvm::ArrayRef<int64_t> inputPadding = {});

/// The tensorizing passes working on descriptions and a target the caller
/// has loaded (once, for all of them: loading resolves rates by compiling
/// probes), instead of loading them from their options. A pipeline that
/// runs -tisa-split-pack next (which says why a contraction stays plain)
/// silences -tisa-select-plan's own warning with `warnUnplanned` false.
std::unique_ptr<mlir::Pass>
createTisaSelectPlanPass(std::shared_ptr<const TensorizeInputs> inputs,
                         llvm::StringRef schedule, bool warnUnplanned = true);
std::unique_ptr<mlir::Pass>
createTisaSplitPackPass(std::shared_ptr<const TensorizeInputs> inputs);
/// The view rows of taps read of `image` (static strides, its last two
/// dimensions dense, NHWC-like): its second-to-last dimension becomes
/// `columns` output columns `stride` pixels apart, its last the `taps` of a
/// filter row (-tisa-tap-rows; the kernel library's ConvForm::TapRows).
mlir::MemRefType tapRowsViewType(mlir::MemRefType image, int64_t columns,
                                 int64_t stride, int64_t taps);

/// `schedule`: the one -tisa-select-plan gives contractions without their
/// own; given, a convolution takes the form whose loops it has.
std::unique_ptr<mlir::Pass>
createTisaTapRowsPass(std::shared_ptr<const TensorizeInputs> inputs,
                      llvm::StringRef schedule);
std::unique_ptr<mlir::Pass>
createTisaSplitDynamicPass(std::shared_ptr<const TensorizeInputs> inputs);
std::unique_ptr<mlir::Pass>
createTisaOutlineKernelsPass(std::shared_ptr<const TensorizeInputs> inputs);
std::unique_ptr<mlir::Pass>
createTisaTensorizePass(std::shared_ptr<const TensorizeInputs> inputs);

/// -tisa-tile-plain's options for `target`: its vector width, registers and
/// most rows of a register tile.
TisaTilePlainPassOptions plainTileOptions(const Target &target);

/// What `tisa gen FILE.mlir` runs before the register-level passes, on every
/// function: -tisa-decompose-quantized, -tisa-relayout, -tisa-tap-rows, -tisa-select-plan
/// (with `schedule` for contractions without one), -tisa-split-pack,
/// -tisa-fuse-epilogue (unless `fuseEpilogues` is false),
/// -tisa-split-dynamic, -tisa-tensorize.
void addTisaTensorizePasses(mlir::OpPassManager &pm,
                            std::shared_ptr<const TensorizeInputs> inputs,
                            llvm::StringRef schedule,
                            bool fuseEpilogues = true);

} // namespace tisa

#endif // TISA_TRANSFORMS_PLANSELECTION_H
