//===- ScalableMatrix.cpp - the SVE matrix-multiply generator: plan and sizes ===//
//
// ScalableMatrixKernel::get reads a plan of a scalable matrix-multiply
// instruction (include/tisa/Transforms/ScalableMatrixKernel.h has the loop
// nest) and refuses, with a reason, what it does not generate: segments
// along the rows, fused or padded instruction loops, repairs that bias the
// packed input, blocks other than 2x2 of 32-bit accumulators. Then the sizes that do not depend on the
// vector length (the packed layout, the partition), the schedule's count at
// the target's vector length, and the pack.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "ScalableLoops.h"
#include "tisa/Semantics/AffineEval.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Targets/Target.h"
#include "tisa/Transforms/ScalableMatrixKernel.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tisa {

bool ScalableMatrixKernel::handles(const TensorizePlan &plan) {
  return plan.desc->isScalable() && plan.desc->body.getNumLoops() == 3;
}

namespace {

/// The element of register `reg` of `d` that the instruction point with
/// loop `l` at value `v` for each (l, v) of `at` (others 0) lands on, or -1
/// when the layout gives more than one index.
int64_t elementAt(const Description &d, unsigned reg,
                  ArrayRef<std::pair<unsigned, int64_t>> at) {
  AffineMap access = d.body.getIndexingMapsArray()[reg];
  SmallVector<int64_t> point(access.getNumDims(), 0);
  for (auto [l, v] : at)
    point[l] = v;
  SmallVector<int64_t> e =
      valueAt(d.registers[reg].layout, valueAt(access, point));
  return e.size() == 1 ? e[0] : -1;
}

} // namespace

LogicalResult ScalableMatrixKernel::readInstruction(std::string &why) {
  if (d->registers.size() != 3 ||
      llvm::any_of(d->registers, [](const OperandRegister &r) {
        return r.cls != RegisterClass::Vector || r.type.getRank() != 1;
      }))
    return refuse(why, "not a matrix-multiply instruction on vector registers");
  // The accumulator's block is row-major: the rows are the instruction loop
  // that moves it by a whole row.
  const LoopAssignment *row = nullptr, *col = nullptr, *red = nullptr,
                       *seg = nullptr;
  for (const LoopAssignment &a : plan_.loops) {
    if (a.scalable)
      seg = &a;
    else if (a.reduction)
      red = &a;
    else if (a.instrExtent > 1 && elementAt(*d, 2, {{a.instrLoop, 1}}) == 1)
      col = &a;
    else
      row = &a;
  }
  if (plan_.loops.size() != (seg ? 4u : 3u) || !row || !col || !red)
    return refuse(why, "not a scalable matrix-multiply plan (rows, columns, "
                       "reduction, segments)");
  if (row->programLoops.size() != 1 || col->programLoops.size() != 1 ||
      red->programLoops.size() != 1)
    return refuse(why, "the plan fuses or pads instruction loops; only one "
                       "program loop per instruction loop is generated");
  if (seg && (seg->programLoops != col->programLoops ||
              seg->sharesWith != int(col - plan_.loops.begin())))
    return refuse(why, "the segments run along another loop than the "
                       "accumulator's columns; only segments extending the "
                       "columns are generated");
  rowLoop = row->programLoops[0];
  laneLoop = col->programLoops[0];
  groupLoop = red->programLoops[0];
  segRows = row->instrExtent;
  segCols = col->instrExtent;
  group = red->instrExtent;
  aReg = d->body.getIndexingMapsArray()[0].isFunctionOfDim(row->instrLoop) ? 0
                                                                            : 1;
  bReg = 1 - aReg;
  // A 2x2 block of 32-bit accumulators from rows of 64 bits of A and B
  // (the row pair of A one 128-bit segment): what the panel and the
  // de-interleaving stores build.
  unsigned inBits = d->registers[aReg].type.getElementTypeBitWidth();
  if (segRows != 2 || segCols != 2 || group * inBits != 64 ||
      d->registers[2].type.getElementTypeBitWidth() != 32)
    return refuse(why, "only 2x2 blocks of 32-bit accumulators from 64-bit "
                       "rows of each input are generated");
  for (int64_t i = 0; i < segRows; ++i)
    for (int64_t j = 0; j < segCols; ++j)
      if (elementAt(*d, 2, {{row->instrLoop, i}, {col->instrLoop, j}}) !=
          i * segCols + j)
        return refuse(why, "the accumulator's block is not row-major");
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < group; ++k)
      if (elementAt(*d, aReg, {{row->instrLoop, i}, {red->instrLoop, k}}) !=
              i * group + k ||
          elementAt(*d, bReg, {{col->instrLoop, i}, {red->instrLoop, k}}) !=
              i * group + k)
        return refuse(why, "the inputs' registers do not hold each row (A) "
                           "and column (B) as g contiguous elements");
  return success();
}

LogicalResult ScalableMatrixKernel::readOperands(std::string &why) {
  aInput = plan_.programInputOf[aReg];
  bInput = plan_.programInputOf[bReg];
  const ProgramOperand &a = c.operands[aInput], &bOp = c.operands[bInput],
                       &out = c.operands[2];
  MLIRContext *ctx = c.op->getContext();
  if (a.map.getNumResults() == 0 ||
      a.map.getResults().back() != getAffineDimExpr(groupLoop, ctx) ||
      !isIdentityStride(a) || a.map.isFunctionOfDim(laneLoop) ||
      llvm::any_of(a.map.getResults().drop_back(), [&](AffineExpr e) {
        return e.isFunctionOfDim(groupLoop);
      }))
    return refuse(why, "the reduction of " + a.name +
                           " is not its contiguous last dimension alone");
  if (!bOp.map.isProjectedPermutation() || bOp.map.isFunctionOfDim(rowLoop))
    return refuse(why, "the packed input " + bOp.name +
                           " is not indexed by plain loops besides the rows");
  // Its packed size follows the loops that index it: one the columns do not
  // index (B[k]: every column the same) left the packing of run-time blocks
  // short of the columns (every output wrong).
  if (!bOp.map.isFunctionOfDim(laneLoop))
    return refuse(why, "the packed input " + bOp.name +
                           " is the same for every column; a matrix "
                           "multiply of it is not generated");
  if (!out.map.isProjectedPermutation() || out.map.getNumResults() == 0 ||
      out.map.getResults().back() != getAffineDimExpr(laneLoop, ctx) ||
      !isIdentityStride(out) || !out.map.isFunctionOfDim(rowLoop))
    return refuse(why, "the columns are not the contiguous last dimension "
                       "of " + out.name);
  return success();
}

LogicalResult ScalableMatrixKernel::readLoops(std::string &why) {
  for (const ProgramLoop &loop : c.loops) {
    if (loop.extent == kDynamic)
      return refuse(why, "loop " + loop.name +
                             " has a dynamic extent; the code generator "
                             "needs static shapes");
    extent.push_back(loop.extent);
  }
  // B's parallel loops first, then its reduction loops: the reduction steps
  // of the panel and of the packed B are then one index.
  SmallVector<unsigned> outer =
      loopsBesides(c.operands[bInput].map, {laneLoop, groupLoop});
  for (unsigned l : outer)
    (c.loops[l].reduction ? reductionLoops : bOuter).push_back(l);
  SmallVector<unsigned> order(bOuter);
  order.append(reductionLoops);
  if (order != outer)
    return refuse(why, "a reduction loop comes before a parallel one in " +
                           c.operands[bInput].name +
                           "; its packed steps would not follow each other");
  bOuter = order;
  for (auto [l, loop] : llvm::enumerate(c.loops)) {
    if (l == laneLoop || l == groupLoop || l == rowLoop)
      continue;
    if (!loop.reduction)
      parallelLoops.push_back(l);
    else if (!llvm::is_contained(reductionLoops, unsigned(l)))
      return refuse(why, "reduction loop " + loop.name + " does not index " +
                             c.operands[bInput].name);
  }
  parallelLoops.push_back(rowLoop);
  // With taps, A paired once per call when the rows move one dimension of
  // it alone.
  AffineMap aMap = c.operands[aInput].map;
  for (unsigned d = 0; !reductionLoops.empty() && d + 1 < aMap.getNumResults();
       ++d) {
    std::optional<SmallVector<int64_t>> coef =
        linearCoefficients(aMap.getResult(d), c.loops.size());
    if (!coef) {
      pairDim.reset();
      break;
    }
    if ((*coef)[rowLoop] == 0)
      continue;
    if (pairDim || (*coef)[rowLoop] < 0) {
      pairDim.reset();
      break;
    }
    pairDim = d;
    pairStride = (*coef)[rowLoop];
  }
  readFusedTap();
  return success();
}

void ScalableMatrixKernel::readFusedTap() {
  // With A paired, its steps and the groups' follow each other in the
  // pairing ([..][w][k / g][2][g]) and in B ([..][taps][k / g][n][g]).
  if (pairDim && !reductionLoops.empty() &&
      scalable::movesLastPosition(c, aInput, reductionLoops.back()))
    fusableTap = reductionLoops.back();
}

LogicalResult ScalableMatrixKernel::readRepair(std::string &why) {
  FailureOr<int64_t> factor =
      scalable::repairOnA(c, plan_, aInput, bInput, bOuter, why);
  if (failed(factor))
    return failure();
  sumFactor = *factor;
  return success();
}

FailureOr<ScalableMatrixKernel>
ScalableMatrixKernel::get(const Contraction &c, const TensorizePlan &plan,
                          std::string &why) {
  ScalableMatrixKernel k;
  k.c = c;
  k.plan_ = plan;
  k.d = plan.desc;
  std::string reason;
  if (failed(k.readInstruction(reason)) || failed(k.readOperands(reason)) ||
      failed(k.readLoops(reason)) || failed(k.readRepair(reason)) ||
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
ScalableMatrixKernel::registerTile(const Schedule &s) const {
  if (s.unroll.size() != extent.size())
    return {2, 1};
  return {s.unroll[rowLoop], s.unroll[laneLoop]};
}

int64_t ScalableMatrixKernel::groups() const {
  return llvm::divideCeil(extent[groupLoop], group);
}

int64_t ScalableMatrixKernel::steps() const {
  int64_t n = groups();
  for (unsigned l : reductionLoops)
    n *= extent[l];
  return n;
}

int64_t ScalableMatrixKernel::lanesPadded() const {
  return llvm::alignTo(extent[laneLoop], segCols);
}

int64_t ScalableMatrixKernel::dataBytes() const {
  int64_t bytes =
      groups() * lanesPadded() * group * c.operands[bInput].elementBytes();
  for (unsigned l : bOuter)
    bytes *= extent[l];
  return bytes;
}

int64_t ScalableMatrixKernel::packedBytes(const Schedule &) const {
  return dataBytes() + (sumFactor ? 4 * lanesPadded() : 0);
}

std::string ScalableMatrixKernel::packedLayoutText(const Schedule &) const {
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

int64_t ScalableMatrixKernel::partitionTiles(const Schedule &s) const {
  return scalable::rowBlockCount(extent, parallelLoops, registerTile(s).first);
}

int64_t ScalableMatrixKernel::pairedUnits() const {
  int64_t units = groups() * 2;
  for (int64_t e : ArrayRef<int64_t>(c.operands[aInput].shape).drop_back())
    units *= e;
  return units;
}

int64_t ScalableMatrixKernel::registerBudget(const Target &target) const {
  // The accumulators, one step's packed vectors and the row pair's A.
  return target.vectorRegistersOrAssumed() - 1;
}

ScheduleEstimate ScalableMatrixKernel::estimate(const Target &target,
                                                ArrayRef<int64_t>,
                                                ArrayRef<int64_t>) const {
  // Counted at the target's vector length (the code runs at any): an
  // accumulator covers 2 rows and 2 columns per segment. As the scalable
  // dot products: the register tile with the fewest loads per step; the
  // last row block and column block narrower, not padded.
  const CostModel &cm = target.cost;
  int64_t segs = std::max<int64_t>(1, target.vectorBits / 128);
  int64_t vectors = llvm::divideCeil(extent[laneLoop], segCols * segs);
  int64_t pairs = llvm::divideCeil(rows(), segRows);
  if (std::string why = scalable::noTileFits(registerBudget(target), target);
      !why.empty())
    return {Schedule::untiled(extent.size()), 0, why};
  int64_t tp, tn;
  std::tie(tp, tn) =
      scalable::fewestLoadsTile(pairs, vectors, registerBudget(target));
  Schedule s;
  s.unroll.assign(extent.size(), 1);
  s.unroll[rowLoop] = segRows * tp;
  s.unroll[laneLoop] = tn;
  s.reductionUnroll = std::min(cm.reductionUnroll, steps());
  double issue = std::max(1e-3, target.issueRate(*d));
  double chains = cm.accumulatorChains * target.latency(*d) * issue;
  // The panel: per row pair and outer step, the rows' chunks of one vector
  // each loaded, interleaved and stored (about two accumulators' moves);
  // or, with A paired once per call, that per position of A.
  int64_t others = 1, outerSteps = steps() / groups();
  for (unsigned l : ArrayRef<unsigned>(parallelLoops).drop_back())
    others *= extent[l];
  int64_t rowBytes = extent[groupLoop] * c.operands[aInput].elementBytes();
  int64_t chunks = llvm::divideCeil(rowBytes, 16 * segs);
  auto panel = [&](int64_t p) {
    return pairDim ? 0.0
                   : double(p * outerSteps * chunks) * 2 * cm.accumulatorCycles;
  };
  // A paired once per call instead: a chunk per position of A.
  double pairing =
      pairDim ? double(pairedUnits() / (groups() * 2) * chunks) * 2 *
                    cm.accumulatorCycles
              : 0.0;
  auto block = [&](int64_t p, int64_t v) {
    double step = std::max({double(p * v), chains, double(p + v)}) / issue +
                  cm.loopOverheadCycles / s.reductionUnroll;
    // Each accumulator is de-interleaved and stored as two rows' halves.
    return steps() * step + 2 * cm.accumulatorCycles * p * v;
  };
  int64_t rowsWhole = pairs / tp, rowsLeft = pairs % tp;
  int64_t colsWhole = vectors / tn, colsLeft = vectors % tn;
  auto rowOf = [&](int64_t p) {
    return panel(p) + colsWhole * block(p, tn) +
           (colsLeft ? block(p, colsLeft) : 0);
  };
  double cycles = rowsWhole * rowOf(tp) + (rowsLeft ? rowOf(rowsLeft) : 0);
  return {s, others * cycles + pairing, ""};
}

ScheduleSpace ScalableMatrixKernel::space() const {
  ScheduleSpace sp;
  for (const ProgramLoop &l : c.loops)
    sp.parallel.push_back(!l.reduction);
  sp.laneLoop = laneLoop;
  sp.lanes = segCols;
  sp.lanesPadded = lanesPadded();
  return sp;
}

LogicalResult ScalableMatrixKernel::verify(const Schedule &s,
                                           const Target *target,
                                           std::string &why) const {
  if (s.unroll.size() != extent.size())
    return refuse(why, "unroll needs " + std::to_string(extent.size()) +
                           " factors, one per program loop");
  for (auto [l, u] : llvm::enumerate(s.unroll))
    if (u < 1 || (u != 1 && l != laneLoop && l != rowLoop))
      return refuse(why, "a scalable kernel unrolls only its row loop and "
                         "its column loop (in vectors)");
  if (s.laneBlock || s.lanesOuter || s.panel || s.fuse || s.edge || s.hold ||
      s.evenRows)
    return refuse(why, "scalable kernels take only 'unroll' and 'kunroll'");
  auto [tm, tn] = registerTile(s);
  if (tm % segRows)
    return refuse(why, "the row loop's unroll must be a multiple of " +
                           std::to_string(segRows) +
                           " (an accumulator holds a pair of rows)");
  if (!target)
    return success();
  return scalable::checkRegisterTile(tm, tn, tm / segRows * tn,
                                     registerBudget(*target), *target, why);
}

void ScalableMatrixKernel::emitPack(OpBuilder &b, Location loc, Value src,
                                    Value buffer, const Schedule &) const {
  scalable::packWithSums(b, loc, c, extent, bInput, bOuter, groupLoop,
                         laneLoop, group, lanesPadded(), dataBytes(),
                         sumFactor, src, buffer);
}

LogicalResult ScalableMatrixKernel::canFuse(const Epilogue &epilogue,
                                            std::string &why) const {
  return epilogue.checkLanes(*c.operands[2].dimOf(laneLoop), why);
}

} // namespace tisa
