//===- RegisterTile.cpp - -tisa-register-tile -----------------------------===//
//
// Unroll-and-jam of the loops tagged tisa.unroll, innermost first. The jam
// merges every loop nested in the unrolled body whose bounds do not depend on
// the unrolled induction variable, concatenating loop-carried values: that is
// what turns one accumulator per reduction into a register tile of them.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"

namespace tisa {
#define GEN_PASS_DEF_TISAREGISTERTILEPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

std::optional<int64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// Clones `src` (without its terminator) once per mapping in `maps`; loops
/// whose bounds map to the same values in every copy are emitted once, with
/// the copies' loop-carried values side by side, and jammed recursively.
void jamBlock(Block &src, MutableArrayRef<IRMapping> maps, OpBuilder &b) {
  for (Operation &op : src.without_terminator()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    // Bounds are the same in every copy: the same value, or equal constants.
    auto uniform = [&](Value v) {
      Value first = maps[0].lookupOrDefault(v);
      std::optional<int64_t> constant = getConstantIntValue(first);
      return llvm::all_of(maps, [&](IRMapping &map) {
        Value mine = map.lookupOrDefault(v);
        return mine == first ||
               (constant && getConstantIntValue(mine) == constant);
      });
    };
    if (!loop || !uniform(loop.getLowerBound()) ||
        !uniform(loop.getUpperBound()) || !uniform(loop.getStep())) {
      for (IRMapping &map : maps)
        b.clone(op, map);
      continue;
    }
    unsigned carried = loop.getNumRegionIterArgs();
    SmallVector<Value> inits;
    for (IRMapping &map : maps)
      for (Value v : loop.getInitArgs())
        inits.push_back(map.lookupOrDefault(v));
    auto merged = scf::ForOp::create(
        b, loop.getLoc(), maps[0].lookupOrDefault(loop.getLowerBound()),
        maps[0].lookupOrDefault(loop.getUpperBound()),
        maps[0].lookupOrDefault(loop.getStep()), inits,
        [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
          for (auto [i, map] : llvm::enumerate(maps)) {
            map.map(loop.getInductionVar(), iv);
            for (unsigned k = 0; k < carried; ++k)
              map.map(loop.getRegionIterArgs()[k], args[i * carried + k]);
          }
          jamBlock(*loop.getBody(), maps, b);
          SmallVector<Value> yields;
          auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
          for (IRMapping &map : maps)
            for (Value v : yield.getOperands())
              yields.push_back(map.lookupOrDefault(v));
          scf::YieldOp::create(b, loc, yields);
        });
    merged->setAttrs(loop->getDiscardableAttrDictionary());
    for (auto [i, map] : llvm::enumerate(maps))
      for (unsigned k = 0; k < carried; ++k)
        map.map(loop.getResult(k), merged.getResult(i * carried + k));
  }
}

/// Splits `loop` (constant bounds, no results) into a main loop whose trip
/// count is a multiple of `factor` and a remainder, then unrolls the main loop
/// by `factor` and jams it.
LogicalResult unrollAndJam(scf::ForOp loop, int64_t factor) {
  std::optional<int64_t> lb = constantIndex(loop.getLowerBound()),
                         ub = constantIndex(loop.getUpperBound()),
                         step = constantIndex(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return loop.emitError("tisa-register-tile: tisa.unroll needs constant "
                          "loop bounds and a positive step");
  if (loop.getNumResults())
    return loop.emitError(
        "tisa-register-tile: tisa.unroll on a loop with results");
  int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
  int64_t mainTrips = trips / factor * factor;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  loop->removeAttr(kUnrollAttr);
  if (mainTrips == 0)
    return success(); // everything is remainder
  int64_t split = *lb + mainTrips * *step;
  if (mainTrips < trips) {
    b.setInsertionPointAfter(loop);
    Value restStart = arith::ConstantIndexOp::create(b, loc, split);
    auto rest = cast<scf::ForOp>(b.clone(*loop));
    rest.setLowerBound(restStart);
    b.setInsertionPoint(loop);
  }
  auto main = scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, *lb),
      arith::ConstantIndexOp::create(b, loc, split),
      arith::ConstantIndexOp::create(b, loc, *step * factor), ValueRange{},
      [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
        SmallVector<IRMapping> maps(factor);
        for (int64_t i = 0; i < factor; ++i) {
          Value at = iv;
          if (i)
            at = arith::AddIOp::create(
                b, loc, iv,
                arith::ConstantIndexOp::create(b, loc, i * *step));
          maps[i].map(loop.getInductionVar(), at);
        }
        jamBlock(*loop.getBody(), maps, b);
        scf::YieldOp::create(b, loc);
      });
  main->setAttrs(loop->getDiscardableAttrDictionary());
  loop.erase();
  return success();
}

/// Whether `op` may write memory (the instruction, a pure tisa.apply, does
/// not).
bool writesMemory(Operation *op) {
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
    return !effects.onlyHasEffect<MemoryEffects::Read>() &&
           !effects.hasNoEffect();
  return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
}

/// In a reduction body that writes no memory, identical loads read the same
/// value: keep the first (the broadcast of A for every lane block, each packed
/// vector of B for every row).
void mergeLoads(scf::ForOp loop) {
  Block *body = loop.getBody();
  bool writes = false;
  body->walk([&](Operation *op) { writes |= writesMemory(op); });
  if (writes)
    return;
  SmallVector<Operation *> seen;
  for (Operation &op : llvm::make_early_inc_range(body->without_terminator())) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(&op);
    if (!effects || !effects.onlyHasEffect<MemoryEffects::Read>() ||
        op.getNumRegions())
      continue;
    Operation *same = nullptr;
    for (Operation *prior : seen)
      if (OperationEquivalence::isEquivalentTo(
              prior, &op, OperationEquivalence::exactValueMatch, nullptr,
              OperationEquivalence::IgnoreLocations)) {
        same = prior;
        break;
      }
    if (same) {
      op.replaceAllUsesWith(same);
      op.erase();
    } else {
      seen.push_back(&op);
    }
  }
}

struct RegisterTilePass
    : public tisa::impl::TisaRegisterTilePassBase<RegisterTilePass> {
  void runOnOperation() override {
    // Post-order: inner loops are unrolled before the loops around them, so
    // an outer jam merges loops that are already tiles.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kUnrollAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto factor = loop->getAttrOfType<IntegerAttr>(kUnrollAttr);
      if (!factor || factor.getInt() < 1) {
        loop.emitError("tisa-register-tile: tisa.unroll must be a positive "
                       "integer");
        return signalPassFailure();
      }
      if (factor.getInt() == 1) {
        loop->removeAttr(kUnrollAttr);
        continue;
      }
      if (failed(unrollAndJam(loop, factor.getInt())))
        return signalPassFailure();
    }
    // Copies compute the same indices: common subexpressions first, so that
    // identical loads have identical operands.
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance(getOperation());
    eliminateCommonSubExpressions(rewriter, dominance, getOperation());
    getOperation().walk([&](scf::ForOp loop) {
      auto kind = loop->getAttrOfType<StringAttr>(kLoopAttr);
      if (kind && kind.getValue() == "reduction")
        mergeLoads(loop);
    });
  }
};

} // namespace
} // namespace tisa
