//===- Tensorize.cpp - the lane-dot generator: a plan checked and prepared ===//
//
// A lane-dot instruction (vpdpbusd, vdpbf16ps, NEON sdot, ...) computes
//   acc[n] += sum_k a[n, k] * b[n, k],  n < L lanes, k < g (the group),
// with register element n * g + k. The matcher maps n to one program loop
// (the lane loop) and k to one reduction loop (the group loop); one input does
// not depend on the lane loop (it is broadcast: g consecutive elements,
// replicated over the lanes) and the other is packed so that one register is
// one contiguous load:
//   packed[outer loops...][group tile][lane * g + k].
// The computation walks every other parallel loop, then the lanes in steps of
// one register, then the reduction loops in the packed operand's order with
// the group loop last, so the packed operand is read front to back.
//
//===----------------------------------------------------------------------===//

#include "LaneDotKernelImpl.h"
#include "tisa/Semantics/AffineEval.h"

#include "mlir/Analysis/FlatLinearValueConstraints.h"

namespace tisa {

namespace lanedot {

Value Border::clamp(OpBuilder &b, Location loc,
                    MutableArrayRef<Value> idx) const {
  Value inside;
  auto both = [&](Value ok) {
    inside = inside ? Value(arith::AndIOp::create(b, loc, inside, ok)) : ok;
  };
  for (auto [d, i] : llvm::enumerate(idx)) {
    if (!padded(d))
      continue;
    Value at =
        low[d] ? Value(arith::SubIOp::create(b, loc, i, cIndex(b, loc, low[d])))
               : i;
    if (low[d]) {
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at,
                                 cIndex(b, loc, 0)));
      at = arith::MaxSIOp::create(b, loc, at, cIndex(b, loc, 0));
    }
    if (low[d] + size[d] < logical[d]) {
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at,
                                 cIndex(b, loc, size[d])));
      at = arith::MinSIOp::create(b, loc, at, cIndex(b, loc, size[d] - 1));
    }
    i = at;
  }
  return inside;
}

} // namespace lanedot

LaneDotKernel::LaneDotKernel(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
LaneDotKernel::LaneDotKernel(LaneDotKernel &&) = default;
LaneDotKernel::~LaneDotKernel() = default;

const TensorizePlan &LaneDotKernel::plan() const { return impl->plan; }
unsigned LaneDotKernel::packedInput() const { return impl->pkInput; }
int64_t LaneDotKernel::packedBytes(const Schedule &s) const {
  return impl->sumOffset(s) + impl->pkSumBytes;
}
std::string LaneDotKernel::packedLayoutText(const Schedule &s) const {
  const Impl &m = *impl;
  std::string text;
  llvm::raw_string_ostream os(text);
  StringRef lane = m.c.loops[m.laneLoop].name;
  int64_t panel = m.panelLanes(s);
  if (m.panels(s) > 1)
    os << "[" << lane << "/" << panel << "=" << m.panels(s) << "]";
  for (unsigned l : m.pkOuter)
    os << "[" << m.c.loops[l].name << "=" << m.extent[l] << "]";
  os << "[" << m.c.loops[m.groupLoop].name << "/" << m.group << "="
     << m.groupTiles << "][" << lane << "=" << panel << "][" << m.group << "]";
  if (m.pkSumBytes)
    os << " + " << m.pkSumFactor << " * sums (i32)";
  return text;
}

/// The instruction: vector registers, one lane loop and one group loop, a
/// lane-major register image.
LogicalResult LaneDotKernel::Impl::readInstruction(std::string &why) {
  const Description &d = *this->d;
  // The instruction: vector registers, one lane loop and one group loop.
  if (d.registers.size() != 3 ||
      llvm::any_of(d.registers, [](const OperandRegister &r) {
        return r.cls != RegisterClass::Vector;
      }))
    return refuse(why,
                  "not a vector-register instruction (AMX tiles go to the "
                  "tile generator, warp fragments to tisa gen --target "
                  "sm_XX)");
  if (d.isScalable())
    return refuse(why,
                  "scalable (SVE) registers: ScalableDotKernel generates "
                  "them, not the fixed-lane generator");
  if (plan.loops.size() != 2 || d.registers[2].type.getRank() != 1)
    return refuse(why,
                  "not a lane-dot instruction (one lane loop, one group loop)");
  const LoopAssignment *laneA = nullptr, *groupA = nullptr;
  for (const LoopAssignment &a : plan.loops)
    (a.reduction ? groupA : laneA) = &a;
  if (!laneA || !groupA)
    return refuse(why,
                  "not a lane-dot instruction (one lane loop, one group loop)");
  if (laneA->programLoops.size() != 1 || groupA->programLoops.size() != 1)
    return refuse(why,
                  "the plan fuses or pads instruction loops; only one program "
                  "loop per instruction loop is generated so far");
  lanes = laneA->instrExtent;
  group = groupA->instrExtent;
  laneLoop = laneA->programLoops[0];
  groupLoop = groupA->programLoops[0];
  // Register images: element n * g + k for the inputs, n for the accumulator.
  // A layout maps the operand's semantic index, which the description's own
  // indexing map gives for an iteration (lane n, group element k) of its
  // loops, in whatever order it declares them.
  SmallVector<AffineMap> access = d.body.getIndexingMapsArray();
  for (unsigned j = 0; j < 3; ++j) {
    AffineMap layout = d.registers[j].layout;
    if (!layout || d.registers[j].type.getRank() != 1)
      return refuse(why, "register layouts other than a flat vector are not "
                         "generated yet");
    for (int64_t n = 0; n < lanes; ++n)
      for (int64_t k = 0; k < (j == 2 ? 1 : group); ++k) {
        SmallVector<int64_t> point(access[j].getNumDims(), 0);
        point[laneA->instrLoop] = n;
        if (j != 2)
          point[groupA->instrLoop] = k;
        SmallVector<int64_t> at = valueAt(layout, valueAt(access[j], point));
        if (at.size() != 1 || at[0] != (j == 2 ? n : n * group + k))
          return refuse(why, "the register layout is not lane-major (element "
                             "n * g + k); not generated yet");
      }
  }
  return success();
}

LogicalResult LaneDotKernel::Impl::readExtents(std::string &why) {
  // Static extents.
  for (const ProgramLoop &l : c.loops) {
    if (l.extent == kDynamic)
      return refuse(
          why, "loop " + l.name +
                   " has a dynamic extent; the code generator needs static "
                   "shapes");
    extent.push_back(l.extent);
  }
  return success();
}

LogicalResult LaneDotKernel::Impl::readInputs(std::string &why) {
  // Which input is broadcast and which runs along the lanes.
  FailureOr<codegen::DotRoles> roles =
      codegen::dotRoles(c, plan, laneLoop, why);
  if (failed(roles))
    return failure();
  bcInstr = roles->broadcast;
  pkInstr = roles->lanes;
  bcInput = roles->broadcastInput;
  pkInput = roles->lanesInput;
  return success();
}

LogicalResult LaneDotKernel::Impl::readBroadcast(std::string &why) {
  // The broadcast input: the group loop alone indexes its last dimension,
  // which is contiguous.
  const ProgramOperand &bc = c.operands[bcInput];
  AffineExpr groupDim = getAffineDimExpr(groupLoop, c.op->getContext());
  if (bc.map.getNumResults() == 0 || bc.map.getResults().back() != groupDim ||
      !isIdentityStride(bc))
    return refuse(why, "the broadcast group of " + bc.name +
                           " is not its contiguous last dimension");
  for (AffineExpr e : bc.map.getResults().drop_back())
    if (e.isFunctionOfDim(groupLoop))
      return refuse(why, "the group loop indexes more than one dimension of " +
                             bc.name);
  partialGroup = extent[groupLoop] % group != 0;
  return success();
}

LogicalResult LaneDotKernel::Impl::readPacked(std::string &why) {
  // The packed input: a projection of the loops (filters, B matrices).
  const ProgramOperand &pk = c.operands[pkInput];
  if (!pk.map.isProjectedPermutation())
    return refuse(why, "the packed input " + pk.name +
                           " is not indexed by plain loops");
  pkOuter = loopsBesides(pk.map, {laneLoop, groupLoop});
  groupTiles = llvm::divideCeil(extent[groupLoop], group);
  lanesPadded = llvm::alignTo(extent[laneLoop], lanes);
  int64_t eltBytes = pk.elementBytes();
  dataBytes = groupTiles * lanesPadded * group * eltBytes;
  for (unsigned l : pkOuter)
    dataBytes *= extent[l];
  return success();
}

LogicalResult LaneDotKernel::Impl::readOutput(std::string &why) {
  // The output: the lane loop is its contiguous last dimension.
  const ProgramOperand &out = c.operands[2];
  if (!out.map.isProjectedPermutation() || out.map.getNumResults() == 0 ||
      out.map.getResults().back() !=
          getAffineDimExpr(laneLoop, c.op->getContext()) ||
      !isIdentityStride(out))
    return refuse(why,
                  "the lane loop is not the contiguous last dimension of " +
                      out.name);
  return success();
}

void LaneDotKernel::Impl::orderLoops() {
  // Loop order.
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (!loop.reduction && l != laneLoop)
      parallelLoops.push_back(l);
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.reduction && l != groupLoop && !llvm::is_contained(pkOuter, l))
      reductionLoops.push_back(l);
  for (unsigned l : pkOuter)
    if (c.loops[l].reduction)
      reductionLoops.push_back(l);
  reductionLoops.push_back(groupLoop);
}

void LaneDotKernel::Impl::readRepair() {
  // Repair.
  if (plan.repair) {
    bias[0] = plan.repair->bias[0];
    bias[1] = plan.repair->bias[1];
    constantTerm = reductionVolume() * bias[0] * bias[1];
    auto parallelOf = [&](unsigned input) {
      SmallVector<unsigned> loops;
      for (auto [l, loop] : llvm::enumerate(c.loops))
        if (!loop.reduction && l != laneLoop &&
            c.operands[input].map.isFunctionOfDim(l))
          loops.push_back(l);
      if (c.operands[input].map.isFunctionOfDim(laneLoop))
        loops.push_back(laneLoop);
      return loops;
    };
    // sum_red(in_i) is weighted by the other input's bias.
    pkSumFactor = bias[1 - pkInput];
    bcSumFactor = bias[1 - bcInput];
    if (pkSumFactor)
      pkSumLoops = parallelOf(pkInput);
    if (bcSumFactor)
      bcSumLoops = parallelOf(bcInput);
  }
  if (pkSumFactor) {
    pkSumBytes = 4;
    for (unsigned l : pkSumLoops)
      pkSumBytes *= l == laneLoop ? lanesPadded : extent[l];
  }
}

LogicalResult LaneDotKernel::Impl::readSignature(std::string &why) {
  const Description &d = *this->d;
  // The instruction's signature (registers are bitcast to it when the
  // tisa.apply is legalized).
  for (const LoweringArg &a : d.lowering.args)
    if (a.kind != LoweringArg::Operand)
      return refuse(why, "the lowering takes non-register arguments");
  return readLoweringSignature(d, c.op->getContext(), signature, why);
}

FailureOr<LaneDotKernel> LaneDotKernel::get(const Contraction &c,
                                            const TensorizePlan &plan,
                                            std::string &why) {
  auto impl = std::make_unique<Impl>();
  Impl &m = *impl;
  m.c = c;
  m.plan = plan;
  m.d = plan.desc;
  std::string reason;
  if (failed(m.readInstruction(reason)) || failed(m.readExtents(reason)) ||
      failed(m.readInputs(reason)) || failed(m.readBroadcast(reason)) ||
      failed(m.readPacked(reason)) || failed(m.readOutput(reason))) {
    why = m.d->name + ": " + reason;
    return failure();
  }
  m.orderLoops();
  m.readRepair();
  if (failed(m.readSignature(reason))) {
    why = m.d->name + ": " + reason;
    return failure();
  }
  return LaneDotKernel(std::move(impl));
}

} // namespace tisa
