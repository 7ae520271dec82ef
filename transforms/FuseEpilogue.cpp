//===- FuseEpilogue.cpp - -tisa-fuse-epilogue -----------------------------===//
//
// The first elementwise consumer of a tisa.compute's output moves into the
// compute's epilogue region, where the code generator applies it to the
// accumulators in registers (transforms/Epilogue.cpp). The accumulators'
// buffer, no longer written, goes when nothing else uses it.
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/Epilogue.h"
#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tisa {
#define GEN_PASS_DEF_TISAFUSEEPILOGUEPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

bool uses(Operation *op, Value v) {
  bool found = false;
  op->walk([&](Operation *inner) {
    found |= llvm::is_contained(inner->getOperands(), v);
  });
  return found;
}

/// The first op after `compute` in its block that uses `c`.
Operation *firstUser(ComputeOp compute, Value c) {
  for (Operation *op = compute->getNextNode(); op; op = op->getNextNode())
    if (uses(op, c))
      return op;
  return nullptr;
}

/// Why an op between `compute` and `consumer` keeps them apart, or "": only
/// allocations, pure ops and deallocations of other buffers may lie there.
std::string blockerBetween(ComputeOp compute, Operation *consumer) {
  for (Operation *op = compute->getNextNode(); op != consumer;
       op = op->getNextNode()) {
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (!llvm::is_contained(consumer->getOperands(), dealloc.getMemref()))
        continue;
    } else if (isa<memref::AllocOp, memref::AllocaOp>(op) ||
               (isMemoryEffectFree(op) && !op->getNumRegions())) {
      continue;
    }
    return "an op between them (" + op->getName().getStringRef().str() +
           ") touches memory";
  }
  return "";
}

/// The linalg.fill of zero into `c` before `compute`, if any.
linalg::FillOp zeroFill(ComputeOp compute, Value c) {
  for (Operation *user : c.getUsers()) {
    auto fill = dyn_cast<linalg::FillOp>(user);
    if (!fill || fill.getDpsInits()[0] != c ||
        fill->getBlock() != compute->getBlock() ||
        !fill->isBeforeInBlock(compute))
      continue;
    if (matchPattern(fill.getDpsInputs()[0], m_Zero()) ||
        matchPattern(fill.getDpsInputs()[0], m_PosZeroFloat()))
      return fill;
  }
  return nullptr;
}

/// Why the accumulators' buffer `c` (starting at zero) cannot go unwritten,
/// or "": besides `compute`, `consumer` and `fill`, only deallocations use
/// it, and it is a local allocation unless the consumer overwrites it.
std::string checkAccumulators(Value c, ComputeOp compute, Operation *consumer,
                              linalg::FillOp fill) {
  for (Operation *user : c.getUsers())
    if (user != compute && user != consumer && user != fill &&
        !isa<memref::DeallocOp>(user))
      return "the accumulators' buffer is also used by " +
             user->getName().getStringRef().str();
  auto linalgOp = cast<linalg::LinalgOp>(consumer);
  if (linalgOp.getDpsInits()[0] != c && !c.getDefiningOp<memref::AllocOp>() &&
      !c.getDefiningOp<memref::AllocaOp>())
    return "the accumulators' buffer is not a local allocation (the "
           "contraction's result would no longer be written)";
  return "";
}

/// The buffer `v` is a view of (subview, cast, ...), or `v`.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Why `generic`'s output cannot be written while `compute` still runs, or
/// "": fused, each register of results is stored while later ones are still
/// computed, so the output must not be one of the computation's operands,
/// and in place (output = accumulators) its body must not read the output's
/// old value, which the accumulators no longer are.
std::string overlapsTheComputation(ComputeOp compute,
                                   linalg::GenericOp generic) {
  Value out = generic.getDpsInits()[0];
  for (Value operand : {compute.getInput(), compute.getBuffer()})
    if (rootOf(operand) == rootOf(out))
      return "its output is an operand of the contraction, which still reads "
             "it while results are stored";
  if (out == compute.getOutput() &&
      !generic.getBody()->getArguments().back().use_empty())
    return "in place, its body reads the output's old value, which the "
           "accumulators replace";
  return "";
}

/// Moves the allocations and pure ops between `compute` and `consumer` above
/// `compute` (the consumer's operands then dominate it).
void hoistBetween(ComputeOp compute, Operation *consumer) {
  for (Operation *op = compute->getNextNode(); op != consumer;) {
    Operation *next = op->getNextNode();
    if (!isa<memref::DeallocOp>(op))
      op->moveBefore(compute);
    op = next;
  }
}

/// Fills `region` with `generic` on (accumulators, its other inputs in
/// order, its output), input `accIndex` of `generic` becoming the first.
void cloneIntoEpilogue(OpBuilder &b, Region &region, linalg::GenericOp generic,
                       unsigned accIndex) {
  SmallVector<unsigned> order{accIndex};
  for (unsigned i = 0; i < generic.getNumDpsInputs(); ++i)
    if (i != accIndex)
      order.push_back(i);
  SmallVector<Type> types;
  SmallVector<Location> locs;
  SmallVector<AffineMap> maps, all = generic.getIndexingMapsArray();
  for (unsigned i : order) {
    types.push_back(generic.getDpsInputs()[i].getType());
    maps.push_back(all[i]);
  }
  types.push_back(generic.getDpsInits()[0].getType());
  maps.push_back(all.back());
  locs.assign(types.size(), generic.getLoc());
  OpBuilder::InsertionGuard guard(b);
  Block *block = b.createBlock(&region, {}, types, locs);
  Block *body = generic.getBody();
  linalg::GenericOp::create(
      b, generic.getLoc(), TypeRange{}, block->getArguments().drop_back(),
      block->getArguments().back(), maps, generic.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location, ValueRange args) {
        IRMapping map;
        for (auto [k, i] : llvm::enumerate(order))
          map.map(body->getArgument(i), args[k]);
        map.map(body->getArguments().back(), args.back());
        for (Operation &op : *body)
          nb.clone(op, map);
      });
}

/// The compute with `generic` (reading its output as input `accIndex`) as
/// epilogue.
void fuse(ComputeOp compute, linalg::GenericOp generic, unsigned accIndex,
          linalg::FillOp fill) {
  Value c = compute.getOutput();
  SmallVector<Value> operands;
  for (auto [i, v] : llvm::enumerate(generic.getDpsInputs()))
    if (i != accIndex)
      operands.push_back(v);
  hoistBetween(compute, generic);
  OpBuilder b(compute);
  auto fused = ComputeOp::create(
      b, compute.getLoc(), compute.getInput(), compute.getBuffer(),
      generic.getDpsInits()[0], compute.getRange(), operands,
      compute.getActive(), /*overwrite=*/true, compute.getInputPaddingAttr(),
      compute.getActiveLoopsAttr());
  fused.getProgram().takeBody(compute.getProgram());
  cloneIntoEpilogue(b, fused.getEpilogue(), generic, accIndex);
  generic->erase();
  compute->erase();
  if (fill)
    fill->erase();
  if (!llvm::all_of(c.getUsers(), llvm::IsaPred<memref::DeallocOp>) ||
      !(c.getDefiningOp<memref::AllocOp>() || c.getDefiningOp<memref::AllocaOp>()))
    return;
  for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
    user->erase();
  c.getDefiningOp()->erase();
}

/// Whether a reduction loop of `op` has a run-time extent (-tisa-split-dynamic
/// runs it in blocks, each adding to the output in memory).
bool hasRunTimeReduction(linalg::LinalgOp op) {
  for (auto [range, type] : llvm::zip(op.getStaticLoopRanges(),
                                      op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction && ShapedType::isDynamic(range))
      return true;
  return false;
}

/// Fuses the first consumer of `compute`'s output when it can, warning on an
/// elementwise one it cannot.
void tryFuse(ComputeOp compute) {
  Value c = compute.getOutput();
  auto consumer = dyn_cast_or_null<linalg::LinalgOp>(firstUser(compute, c));
  if (!consumer || consumer.getNumLoops() != consumer.getNumParallelLoops() ||
      !llvm::is_contained(consumer.getDpsInputs(), c))
    return;
  auto refuse = [&](const std::string &why) {
    InFlightDiagnostic diag = consumer->emitWarning()
                              << "elementwise consumer of a contraction not "
                                 "fused into it: "
                              << why;
    diag.attachNote(compute.getLoc()) << "the contraction";
  };
  // Only a fresh result has an epilogue: accumulating into the caller's C
  // (or a copy of it) is the contraction's own semantics.
  linalg::FillOp fill = zeroFill(compute, c);
  if (!compute.getOverwrite() && !fill)
    return;
  if (llvm::count(consumer.getDpsInputs(), c) != 1)
    return refuse("it reads the accumulators twice");
  if (hasRunTimeReduction(compute.getContraction()))
    return refuse("the contraction's reduction has a run-time extent: it "
                  "runs in blocks that accumulate in memory");
  std::string why = blockerBetween(compute, consumer);
  if (why.empty())
    why = checkAccumulators(c, compute, consumer, fill);
  if (!why.empty())
    return refuse(why);
  auto generic = dyn_cast<linalg::GenericOp>(consumer.getOperation());
  if (!generic) {
    IRRewriter rewriter(consumer);
    FailureOr<linalg::GenericOp> general =
        linalg::generalizeNamedOp(rewriter, consumer);
    if (failed(general))
      return refuse("it has no linalg.generic form");
    generic = *general;
    // The named op is gone: warnings go to its generic form.
    consumer = cast<linalg::LinalgOp>(generic.getOperation());
  }
  SmallVector<Value> inputs(generic.getDpsInputs());
  unsigned accIndex = llvm::find(inputs, c) - inputs.begin();
  if (failed(Epilogue::check(generic, why, accIndex)))
    return refuse(why);
  if (std::string overlap = overlapsTheComputation(compute, generic);
      !overlap.empty())
    return refuse(overlap);
  fuse(compute, generic, accIndex, fill);
}

struct FuseEpiloguePass
    : public tisa::impl::TisaFuseEpiloguePassBase<FuseEpiloguePass> {
  void runOnOperation() override {
    SmallVector<ComputeOp> computes;
    getOperation().walk([&](ComputeOp op) {
      if (op.getEpilogue().empty())
        computes.push_back(op);
    });
    for (ComputeOp op : computes)
      tryFuse(op);
  }
};

} // namespace
} // namespace tisa
