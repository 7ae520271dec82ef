//===- PlanSelection.h - what -tisa-select-plan and -tisa-tensorize share -===//
//
// Private to transforms/: the descriptions and target a tensorizing pass
// loads once, and the choice of plan and schedule for one contraction, read
// from its tisa.plan / tisa.schedule attributes or made as the default.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_PLANSELECTION_H
#define TISA_TRANSFORMS_PLANSELECTION_H

#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Target.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <memory>
#include <optional>
#include <vector>

namespace tisa {

/// The descriptions (all, or the one `isa` names) and the target.
struct TensorizeInputs {
  explicit TensorizeInputs(mlir::MLIRContext &ctx)
      : set(ctx, llvm::errs()) {}
  DescriptionSet set;
  std::vector<const Description *> descriptions;
  std::optional<Target> target;

  /// Loads them; `pass` names the pass in errors.
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
};

/// A contraction's plan and schedule.
struct PlannedKernel {
  Contraction contraction;
  std::unique_ptr<KernelGenerator> kernel;
  Schedule schedule;
};

/// Reads `op` as a contraction on memrefs and chooses its kernel: the plan
/// its tisa.plan attribute names (an error when the matcher has no such
/// plan) or the best supported one, and the schedule of its tisa.schedule
/// attribute (checked against the kernel), else `schedule` when not empty,
/// else the default for the target. Not a contraction: failure with `why`
/// empty (nothing to do). No plan: failure with `why`. A bad attribute or
/// schedule: an error on `op` and failure with `why` = "error".
mlir::FailureOr<PlannedKernel> planKernel(mlir::linalg::LinalgOp op,
                                          const TensorizeInputs &in,
                                          llvm::StringRef schedule,
                                          std::string &why);

/// Plans every linalg op in `func` (planKernel) and calls `apply` on each
/// contraction with a plan; warns `warning` + why on those without one.
/// Failure after an error on an op.
mlir::LogicalResult
forEachPlanned(mlir::func::FuncOp func, const TensorizeInputs &in,
               llvm::StringRef schedule, llvm::StringRef warning,
               llvm::function_ref<void(mlir::linalg::LinalgOp,
                                       PlannedKernel &)>
                   apply);

} // namespace tisa

#endif // TISA_TRANSFORMS_PLANSELECTION_H
