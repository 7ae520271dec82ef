//===- OutlineKernels.cpp - -tisa-outline-kernels ------------------------===//
//
// A function that holds several tisa.compute (or tisa.pack) ops, as
// -tisa-split-dynamic leaves one with run-time extents, gets each in a private
// noinline function of its own, equivalent ones made once: LLVM's loop passes
// cost more than linearly in the size of one function (Passes.td). So do the
// copies and fills of the blocks' zero-padded edges: a program of run-time
// m, n and k whose blocks are digits of both had 82 of each inline, 324 KB of
// code in one function (neoverse-v2: 19-29 s to compile, 7 s outlined).
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace tisa {
#define GEN_PASS_DEF_TISAOUTLINEKERNELSPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// Whether only scf loops and branches lie between `op` and its function.
bool movable(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    if (isa<func::FuncOp>(p))
      return true;
    if (!isa<scf::ForOp, scf::IfOp, scf::ForallOp, scf::IndexSwitchOp,
             scf::ExecuteRegionOp>(p))
      return false;
  }
  return false;
}

/// Whether the instruction of `op`'s plan (as stated on its contraction)
/// needs a configuration state, which LLVM loads once per function.
bool configured(Operation *op, const TensorizeInputs &inputs) {
  if (!isa<ComputeOp, PackOp>(op))
    return false; // a copy or a fill: no instruction
  Block &program = op->getRegion(0).front();
  auto plan = program.front().getAttrOfType<PlanAttr>(kPlanAttr);
  if (!plan)
    return false;
  return llvm::any_of(inputs.descriptions, [&](const Description *d) {
    return d->name == plan.getInstruction() && !d->config.empty();
  });
}

/// The values `op` takes from its function: its operands, then what its
/// regions use from above.
llvm::SetVector<Value> capturedValues(Operation *op) {
  llvm::SetVector<Value> values(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), values);
  return values;
}

/// A constant defined by an op without operands, cloned rather than passed.
bool clonable(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         def->hasTrait<OpTrait::ConstantLike>();
}

/// The outlined functions made so far, by a hash of their bodies, so that
/// an equivalent one is reused.
class Outliner {
public:
  Outliner(ModuleOp module) : symbols(module) {}

  /// Replaces `op`, in `parent`, by a call of a function holding it.
  void outline(Operation *op, func::FuncOp parent, StringRef suffix);

private:
  /// `fn`, or an equivalent one made before (then `fn` is erased).
  func::FuncOp unique(func::FuncOp fn);

  SymbolTable symbols;
  llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> made;
  /// Per function outlined from, the last function made from it.
  llvm::DenseMap<Operation *, Operation *> lastOf;
};

void Outliner::outline(Operation *op, func::FuncOp parent, StringRef suffix) {
  llvm::SetVector<Value> captured = capturedValues(op);
  SmallVector<Value> args;
  for (Value v : captured)
    if (!clonable(v))
      args.push_back(v);
  Location loc = op->getLoc();
  // After the parent and the functions outlined from it before, in order.
  Operation *&after = lastOf[parent];
  OpBuilder b(parent);
  b.setInsertionPointAfter(after ? after : parent.getOperation());
  auto fn =
      func::FuncOp::create(b, loc, (parent.getSymName() + suffix).str(),
                           b.getFunctionType(ValueRange(args).getTypes(), {}));
  fn.setPrivate();
  // Private to MLIR is still exported by the LLVM lowering: make it local.
  fn->setAttr("llvm.linkage",
              LLVM::LinkageAttr::get(b.getContext(), LLVM::Linkage::Internal));
  // LLVM would inline a function called once back into its caller.
  fn->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
  Block *entry = fn.addEntryBlock();
  OpBuilder inner = OpBuilder::atBlockBegin(entry);
  IRMapping map;
  for (auto [v, arg] : llvm::zip(args, entry->getArguments()))
    map.map(v, arg);
  for (Value v : captured)
    if (clonable(v))
      map.map(v, inner.clone(*v.getDefiningOp())
                     ->getResult(cast<OpResult>(v).getResultNumber()));
  inner.clone(*op, map);
  func::ReturnOp::create(inner, loc);
  symbols.insert(fn); // renames on a clash
  func::FuncOp kept = unique(fn);
  if (kept == fn)
    after = fn;
  fn = kept;
  OpBuilder at(op);
  func::CallOp::create(at, loc, fn, args);
  op->erase();
}

func::FuncOp Outliner::unique(func::FuncOp fn) {
  llvm::hash_code hash = hash_value(fn.getFunctionType());
  fn.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  SmallVector<func::FuncOp> &same = made[hash];
  for (func::FuncOp other : same)
    if (other.getFunctionType() == fn.getFunctionType() &&
        OperationEquivalence::isRegionEquivalentTo(
            &other.getBody(), &fn.getBody(),
            OperationEquivalence::IgnoreLocations)) {
      symbols.erase(fn);
      return other;
    }
  same.push_back(fn);
  return fn;
}

struct OutlineKernelsPass
    : public WithTensorizeInputs<
          impl::TisaOutlineKernelsPassBase<OutlineKernelsPass>> {
  using WithTensorizeInputs::WithTensorizeInputs;

  void runOnOperation() override {
    Outliner outliner(getOperation());
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      outlineAll<ComputeOp>(outliner, fn, "_compute");
      outlineAll<PackOp>(outliner, fn, "_pack");
      outlineAll<linalg::CopyOp>(outliner, fn, "_copy");
      outlineAll<linalg::FillOp>(outliner, fn, "_fill");
    }
  }

  /// Every movable OpT of `fn`, when it holds more than one.
  template <typename OpT>
  void outlineAll(Outliner &outliner, func::FuncOp fn, StringRef suffix) {
    SmallVector<Operation *> ops;
    fn.walk([&](OpT op) {
      if (movable(op) && !configured(op, *inputs))
        ops.push_back(op);
    });
    if (ops.size() < 2)
      return;
    for (Operation *op : ops)
      outliner.outline(op, fn, suffix);
  }
};

} // namespace

std::unique_ptr<Pass>
createTisaOutlineKernelsPass(std::shared_ptr<const TensorizeInputs> inputs) {
  return std::make_unique<OutlineKernelsPass>(std::move(inputs));
}

} // namespace tisa
