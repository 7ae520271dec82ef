//===- ByElementPass.cpp - -tisa-by-element -------------------------------===//
//
// A broadcast group whose register the instruction takes by element
// (`sdot v0.4s, v1.16b, v2.4b[u]`) need not be loaded and replicated every
// step: one load of a whole register holds the groups of U consecutive steps,
// and step u reads group u. This pass unrolls a loop holding such group loads
// (tagged kByElementAttr by -tisa-tensorize) by U and does exactly that; LLVM
// folds `broadcast(extract(register, u))` into the instruction's by-element
// form.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"
#include "tisa/Dialect/TisaDialect.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

namespace tisa {
#define GEN_PASS_DEF_TISABYELEMENTPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// One tagged group load and the scalar the step reads from it:
/// load -> bitcast to one integer -> extract [0], and the sign flip of a
/// repair when one follows (xor with a constant: applied to the whole
/// register instead, once per its groups).
struct GroupLoad {
  vector::LoadOp load;
  vector::BitCastOp cast;
  vector::ExtractOp scalar;
  arith::XOrIOp flip;
  IntegerAttr flipBits;
  /// What the step reads.
  Value value() { return flip ? flip.getResult() : scalar.getResult(); }
};

/// The chain of a tagged load inside `loop`, when it is the one this pass
/// rewrites: the group index is `iv * G` (G the group's elements), every
/// other index and the memref are defined outside the loop, and the loaded
/// group is only read as one integer.
std::optional<GroupLoad> groupLoad(vector::LoadOp load, scf::ForOp loop) {
  int64_t group = load.getVectorType().getNumElements();
  ValueRange at = load.getIndices();
  if (at.empty() || load.getVectorType().getRank() != 1 ||
      !loop.isDefinedOutsideOfLoop(load.getBase()))
    return std::nullopt;
  for (Value v : at.drop_back())
    if (!loop.isDefinedOutsideOfLoop(v))
      return std::nullopt;
  auto mul = at.back().getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  Value iv = loop.getInductionVar();
  bool ivTimesGroup =
      (mul.getLhs() == iv && getConstantIntValue(mul.getRhs()) == group) ||
      (mul.getRhs() == iv && getConstantIntValue(mul.getLhs()) == group);
  if (!ivTimesGroup || !load->hasOneUse())
    return std::nullopt;
  auto cast = dyn_cast<vector::BitCastOp>(*load->getUsers().begin());
  if (!cast || cast.getResultVectorType().getNumElements() != 1 ||
      !cast->hasOneUse())
    return std::nullopt;
  auto scalar = dyn_cast<vector::ExtractOp>(*cast->getUsers().begin());
  if (!scalar || scalar.getNumIndices() != 1 ||
      scalar.getStaticPosition()[0] != 0)
    return std::nullopt;
  GroupLoad g{load, cast, scalar, {}, {}};
  auto flip = scalar->hasOneUse()
                  ? dyn_cast<arith::XOrIOp>(*scalar->getUsers().begin())
                  : arith::XOrIOp();
  if (flip) {
    Value other = flip.getLhs() == scalar.getResult() ? flip.getRhs()
                                                      : flip.getLhs();
    if (matchPattern(other, m_Constant(&g.flipBits)))
      g.flip = flip;
  }
  return g;
}

/// The loop's tagged group loads and their common group count U, or why the
/// loop stays as it is ("" when it holds none).
FailureOr<std::pair<SmallVector<GroupLoad>, int64_t>>
collect(scf::ForOp loop, std::string &why) {
  SmallVector<GroupLoad> loads;
  int64_t groups = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<vector::LoadOp>(op);
    auto tag = load ? load->getAttrOfType<IntegerAttr>(kByElementAttr)
                    : IntegerAttr();
    if (!tag)
      continue;
    std::optional<GroupLoad> g = groupLoad(load, loop);
    if (!g) {
      why = "a broadcast group is not read as iv * group from outside the "
            "loop";
      return failure();
    }
    if (groups && groups != tag.getInt()) {
      why = "the loop's broadcast groups disagree on the groups per register";
      return failure();
    }
    groups = tag.getInt();
    loads.push_back(*g);
  }
  if (loads.empty())
    return failure();
  // The register loads read the next steps' groups early: nothing in the
  // loop may write memory.
  WalkResult writes = loop.getBody()->walk([](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (effects ? effects.hasEffect<MemoryEffects::Write>()
                : !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                      !isPure(op) && op->getNumRegions() == 0)
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (writes.wasInterrupted()) {
    why = "the loop writes memory";
    return failure();
  }
  if (groups < 2) {
    why = "a register holds one group";
    return failure();
  }
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                         ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || step != 1 || *lb % groups ||
      (*ub - *lb) % groups || *ub <= *lb) {
    why = llvm::formatv("the trip count is not a known multiple of {0}; the "
                        "groups are loaded one per step",
                        groups)
              .str();
    return failure();
  }
  return std::make_pair(std::move(loads), groups);
}

/// The loop unrolled by `groups`, each group load replaced by one register
/// load per `groups` steps.
void rewrite(scf::ForOp loop, MutableArrayRef<GroupLoad> loads,
             int64_t groups) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t lb = *getConstantIntValue(loop.getLowerBound()),
          ub = *getConstantIntValue(loop.getUpperBound());
  DenseSet<Operation *> skipped;
  for (GroupLoad g : loads) {
    for (Operation *op : {g.load.getOperation(), g.cast.getOperation(),
                          g.scalar.getOperation()})
      skipped.insert(op);
    if (g.flip)
      skipped.insert(g.flip);
  }
  auto merged = scf::ForOp::create(
      b, loc, index(lb / groups), index(ub / groups), index(1),
      loop.getInitArgs(),
      [&](OpBuilder &b, Location loc, Value j, ValueRange args) {
        // One register of `groups` groups per broadcast row.
        SmallVector<Value> registers;
        DenseMap<int64_t, Value> firstOfWidth;
        for (GroupLoad g : loads) {
          VectorType groupType = g.load.getVectorType();
          int64_t width = groupType.getNumElements() * groups;
          SmallVector<Value> at(g.load.getIndices());
          Value &first = firstOfWidth[width];
          if (!first)
            first = arith::MulIOp::create(b, loc, j, index(width));
          at.back() = first;
          Value wide = vector::LoadOp::create(
              b, loc, VectorType::get({width}, groupType.getElementType()),
              g.load.getBase(), at);
          auto registerType = VectorType::get(
              {groups}, g.cast.getResultVectorType().getElementType());
          Value reg = vector::BitCastOp::create(b, loc, registerType, wide);
          if (g.flip)
            reg = arith::XOrIOp::create(
                b, loc, reg,
                arith::ConstantOp::create(
                    b, loc, registerType,
                    DenseElementsAttr::get(registerType,
                                           Attribute(g.flipBits))));
          registers.push_back(reg);
        }
        SmallVector<Value> carried(args);
        Value first = arith::MulIOp::create(b, loc, j, index(groups));
        for (int64_t u = 0; u < groups; ++u) {
          IRMapping map;
          map.map(loop.getInductionVar(),
                  arith::AddIOp::create(b, loc, first, index(u)));
          map.map(loop.getRegionIterArgs(), carried);
          for (auto [g, r] : llvm::zip(loads, registers))
            map.map(g.value(),
                    vector::ExtractOp::create(b, loc, r, ArrayRef<int64_t>{u}));
          for (Operation &op : loop.getBody()->without_terminator())
            if (!skipped.contains(&op))
              b.clone(op, map);
          auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
          for (auto [i, v] : llvm::enumerate(yield.getOperands()))
            carried[i] = map.lookupOrDefault(v);
        }
        scf::YieldOp::create(b, loc, carried);
      });
  merged->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  loop.replaceAllUsesWith(merged.getResults());
  loop.erase();
}

struct TisaByElementPass
    : public impl::TisaByElementPassBase<TisaByElementPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      std::string why;
      auto found = collect(loop, why);
      if (succeeded(found)) {
        rewrite(loop, found->first, found->second);
        continue;
      }
      if (!why.empty())
        loop.emitRemark() << "by-element loads not used: " << why;
    }
  }
};

} // namespace
} // namespace tisa
