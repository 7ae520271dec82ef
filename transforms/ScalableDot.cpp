//===- ScalableDot.cpp - the scalable lane-dot generator: plan and sizes --===//
//
// ScalableDotKernel::get reads a plan of a scalable lane-dot instruction
// (include/tisa/Transforms/ScalableDotKernel.h has the loop nest) and
// refuses, with a reason, what it does not generate: segments along another
// loop than the lanes, fused or padded instruction loops, repairs, strided
// or gathered inputs. Then the sizes that do not depend on the vector
// length (the packed layout, the partition), the schedule's count at the
// target's vector length, and the pack.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "ScalableLoops.h"
#include "tisa/Semantics/AffineEval.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Targets/Target.h"
#include "tisa/Transforms/ScalableDotKernel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tisa {

bool ScalableDotKernel::handles(const TensorizePlan &plan) {
  return plan.desc->isScalable() && plan.desc->body.getNumLoops() == 2;
}

LogicalResult ScalableDotKernel::readInstruction(std::string &why) {
  if (d->registers.size() != 3 ||
      llvm::any_of(d->registers, [](const OperandRegister &r) {
        return r.cls != RegisterClass::Vector || r.type.getRank() != 1;
      }))
    return refuse(why, "not a lane-dot instruction on vector registers");
  const LoopAssignment *lane = nullptr, *grp = nullptr, *seg = nullptr;
  for (const LoopAssignment &a : plan_.loops)
    (a.scalable ? seg : a.reduction ? grp : lane) = &a;
  // A target of one 128-bit segment (neoverse-v2) gets a plan without the
  // segment loop; the code's vectors then extend the lane loop too.
  if (plan_.loops.size() != (seg ? 3u : 2u) || !lane || !grp)
    return refuse(why, "not a scalable lane-dot plan (lanes, group, segments)");
  if (lane->programLoops.size() != 1 || grp->programLoops.size() != 1)
    return refuse(why, "the plan fuses or pads instruction loops; only one "
                       "program loop per instruction loop is generated");
  if (seg && (seg->programLoops != lane->programLoops ||
              seg->sharesWith != int(lane - plan_.loops.begin())))
    return refuse(why, "the segments run along another loop than the lanes; "
                       "only segments extending the lane loop are generated");
  laneLoop = lane->programLoops[0];
  groupLoop = grp->programLoops[0];
  segLanes = lane->instrExtent;
  group = grp->instrExtent;
  // One segment's register images: element n * g + k of the inputs, n of
  // the accumulator (the description's own loop order and layout).
  SmallVector<AffineMap> access = d->body.getIndexingMapsArray();
  for (unsigned j = 0; j < 3; ++j)
    for (int64_t n = 0; n < segLanes; ++n)
      for (int64_t k = 0; k < (j == 2 ? 1 : group); ++k) {
        SmallVector<int64_t> point(access[j].getNumDims(), 0);
        point[lane->instrLoop] = n;
        if (j != 2)
          point[grp->instrLoop] = k;
        SmallVector<int64_t> at =
            valueAt(d->registers[j].layout, valueAt(access[j], point));
        if (at.size() != 1 || at[0] != (j == 2 ? n : n * group + k))
          return refuse(why, "the register layout is not lane-major (element "
                             "n * g + k); not generated yet");
      }
  // A broadcast group is one accumulator lane wide.
  unsigned groupBits =
      group * d->registers[0].type.getElementTypeBitWidth();
  if (groupBits != d->registers[2].type.getElementTypeBitWidth())
    return refuse(why, "a group is not one accumulator lane wide");
  return success();
}

LogicalResult ScalableDotKernel::readOperands(std::string &why) {
  FailureOr<codegen::DotRoles> roles =
      codegen::dotRoles(c, plan_, laneLoop, why);
  if (failed(roles))
    return failure();
  aReg = roles->broadcast;
  bReg = roles->lanes;
  aInput = roles->broadcastInput;
  bInput = roles->lanesInput;
  const ProgramOperand &a = c.operands[aInput], &bOp = c.operands[bInput],
                       &out = c.operands[2];
  MLIRContext *ctx = c.op->getContext();
  if (a.map.getNumResults() == 0 ||
      a.map.getResults().back() != getAffineDimExpr(groupLoop, ctx) ||
      !isIdentityStride(a) ||
      llvm::any_of(a.map.getResults().drop_back(), [&](AffineExpr e) {
        return e.isFunctionOfDim(groupLoop);
      }))
    return refuse(why, "the broadcast group of " + a.name +
                           " is not its contiguous last dimension alone");
  if (!bOp.map.isProjectedPermutation())
    return refuse(why, "the packed input " + bOp.name +
                           " is not indexed by plain loops");
  if (!out.map.isProjectedPermutation() || out.map.getNumResults() == 0 ||
      out.map.getResults().back() != getAffineDimExpr(laneLoop, ctx) ||
      !isIdentityStride(out))
    return refuse(why, "the lane loop is not the contiguous last dimension of " +
                           out.name);
  bOuter = loopsBesides(bOp.map, {laneLoop, groupLoop});
  if (failed(readRepair(why)))
    return failure();
  for (auto [l, loop] : llvm::enumerate(c.loops)) {
    if (loop.extent == kDynamic)
      return refuse(why, "loop " + loop.name +
                             " has a dynamic extent; the code generator "
                             "needs static shapes");
    extent.push_back(loop.extent);
    if (l != laneLoop && l != groupLoop)
      (loop.reduction ? reductionLoops : parallelLoops).push_back(l);
  }
  return success();
}

LogicalResult ScalableDotKernel::readRepair(std::string &why) {
  // The broadcast input's bytes are flipped per broadcast.
  FailureOr<int64_t> factor =
      scalable::repairOnA(c, plan_, aInput, bInput, bOuter, why);
  if (failed(factor))
    return failure();
  sumFactor = *factor;
  return success();
}

FailureOr<ScalableDotKernel> ScalableDotKernel::get(const Contraction &c,
                                                    const TensorizePlan &plan,
                                                    std::string &why) {
  ScalableDotKernel k;
  k.c = c;
  k.plan_ = plan;
  k.d = plan.desc;
  std::string reason;
  if (failed(k.readInstruction(reason)) || failed(k.readOperands(reason)) ||
      failed(readLoweringSignature(*k.d, c.op->getContext(), k.signature,
                                   reason))) {
    why = k.d->name + ": " + reason;
    return failure();
  }
  return k;
}

//===----------------------------------------------------------------------===//
// Sizes and the schedule
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t>
ScalableDotKernel::registerTile(const Schedule &s) const {
  if (s.unroll.size() != extent.size())
    return {1, 1};
  return {parallelLoops.empty() ? 1 : s.unroll[parallelLoops.back()],
          s.unroll[laneLoop]};
}

int64_t ScalableDotKernel::groups() const {
  return llvm::divideCeil(extent[groupLoop], group);
}

int64_t ScalableDotKernel::lanesPadded() const {
  return llvm::alignTo(extent[laneLoop], segLanes);
}

int64_t ScalableDotKernel::rows() const {
  return parallelLoops.empty() ? 1 : extent[parallelLoops.back()];
}

int64_t ScalableDotKernel::dataBytes() const {
  int64_t bytes =
      groups() * lanesPadded() * group * c.operands[bInput].elementBytes();
  for (unsigned l : bOuter)
    bytes *= extent[l];
  return bytes;
}

int64_t ScalableDotKernel::packedBytes(const Schedule &) const {
  return dataBytes() + (sumFactor ? 4 * lanesPadded() : 0);
}

Value ScalableDotKernel::sumsView(OpBuilder &b, Location loc,
                                  Value buffer) const {
  return scalable::columnSums(b, loc, buffer, dataBytes(), lanesPadded());
}

std::string ScalableDotKernel::packedLayoutText(const Schedule &) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (unsigned l : bOuter)
    os << "[" << c.loops[l].name << "=" << extent[l] << "]";
  os << "[" << c.loops[groupLoop].name << "/" << group << "=" << groups()
     << "][" << c.loops[laneLoop].name << "=" << lanesPadded() << "]["
     << group << "]";
  if (sumFactor)
    os << " + " << sumFactor << " * sums (i32)";
  os << " (any vector length)";
  return text;
}

int64_t ScalableDotKernel::partitionTiles(const Schedule &s) const {
  return scalable::rowBlockCount(extent, parallelLoops, registerTile(s).first);
}

int64_t ScalableDotKernel::registerBudget(const Target &target) const {
  // The accumulators, one step's packed vectors and the broadcast.
  return target.vectorRegistersOrAssumed() - 1;
}

ScheduleEstimate ScalableDotKernel::estimate(const Target &target,
                                             ArrayRef<int64_t>,
                                             ArrayRef<int64_t>) const {
  // Counted at the target's vector length (the code runs at any). The last
  // row block and column block are narrower, not padded, so every tile
  // issues the same instructions: the register tile with the fewest loads
  // per step (a broadcast per row and a packed vector per column vector of
  // each block) wins. A block's step issues its instructions, or waits for
  // the accumulator chains or its loads.
  const CostModel &cm = target.cost;
  int64_t lanes = segLanes * std::max<int64_t>(1, target.vectorBits / 128);
  int64_t vectors = llvm::divideCeil(extent[laneLoop], lanes);
  if (std::string why = scalable::noTileFits(registerBudget(target), target);
      !why.empty())
    return {Schedule::untiled(extent.size()), 0, why};
  int64_t tm, tn;
  std::tie(tm, tn) =
      scalable::fewestLoadsTile(rows(), vectors, registerBudget(target));
  Schedule s;
  s.unroll.assign(extent.size(), 1);
  if (!parallelLoops.empty())
    s.unroll[parallelLoops.back()] = tm;
  s.unroll[laneLoop] = tn;
  // Groups per iteration of the group loop: the target's (A's next groups
  // are then immediate offsets; 256^3 s8 at 256 bits, one pre-packed call:
  // 1 group 1,005,878 instructions, 2 910,213, 4 871,864).
  s.reductionUnroll = std::min(target.cost.reductionUnroll, groups());
  double issue = std::max(1e-3, target.issueRate(*d));
  double chains = cm.accumulatorChains * target.latency(*d) * issue;
  int64_t steps = groups(), others = 1;
  for (unsigned l : reductionLoops)
    steps *= extent[l];
  for (unsigned l : ArrayRef<unsigned>(parallelLoops).drop_back(
           parallelLoops.empty() ? 0 : 1))
    others *= extent[l];
  auto block = [&](int64_t r, int64_t v) {
    double step = std::max({double(r * v), chains, double(r + v)}) / issue +
                  cm.loopOverheadCycles / s.reductionUnroll;
    return steps * step + cm.accumulatorCycles * r * v;
  };
  // Whole blocks and the narrower last row and column blocks.
  int64_t rowsWhole = rows() / tm, rowsLeft = rows() % tm;
  int64_t colsWhole = vectors / tn, colsLeft = vectors % tn;
  auto rowOf = [&](int64_t r) {
    return colsWhole * block(r, tn) + (colsLeft ? block(r, colsLeft) : 0);
  };
  double cycles = rowsWhole * rowOf(tm) + (rowsLeft ? rowOf(rowsLeft) : 0);
  return {s, others * cycles, ""};
}

ScheduleSpace ScalableDotKernel::space() const {
  ScheduleSpace sp;
  for (const ProgramLoop &l : c.loops)
    sp.parallel.push_back(!l.reduction);
  sp.laneLoop = laneLoop;
  sp.lanes = segLanes;
  sp.lanesPadded = lanesPadded();
  return sp;
}

LogicalResult ScalableDotKernel::verify(const Schedule &s, const Target *target,
                                        std::string &why) const {
  if (s.unroll.size() != extent.size())
    return refuse(why, "unroll needs " + std::to_string(extent.size()) +
                           " factors, one per program loop");
  for (auto [l, u] : llvm::enumerate(s.unroll))
    if (u < 1 || (u != 1 && l != laneLoop &&
                  (parallelLoops.empty() || l != parallelLoops.back())))
      return refuse(why, "a scalable kernel unrolls only its row loop and "
                         "its lane loop (in vectors)");
  if (s.laneBlock || s.lanesOuter || s.panel || s.fuse || s.edge || s.hold ||
      s.evenRows)
    return refuse(why, "scalable kernels take only 'unroll' and 'kunroll'");
  if (!target)
    return success();
  auto [tm, tn] = registerTile(s);
  return scalable::checkRegisterTile(tm, tn, tm * tn, registerBudget(*target),
                                     *target, why);
}

void ScalableDotKernel::emitPack(OpBuilder &b, Location loc, Value src,
                                 Value buffer, const Schedule &) const {
  // packed[outer...][k / g][n][k mod g] = B[...], zero past B's extents;
  // a repair's column sums after them.
  scalable::packWithSums(b, loc, c, extent, bInput, bOuter, groupLoop,
                         laneLoop, group, lanesPadded(), dataBytes(),
                         sumFactor, src, buffer);
}

} // namespace tisa
