//===- Tensorize.cpp - code generation for lane-dot tensorize plans -------===//
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

#include "tisa/Transforms/Tensorize.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Targets/Target.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;

namespace tisa {

namespace {
/// A program input given without its zero border: dimension d of the
/// program's operand is `low[d]` zeros, the array's `size[d]` elements, then
/// zeros (conv2d: the unpadded image, read in place).
struct Border {
  SmallVector<int64_t> low, size, logical;
  bool any() const {
    for (unsigned d = 0; d < low.size(); ++d)
      if (padded(d))
        return true;
    return false;
  }
  bool padded(unsigned d) const {
    return low[d] > 0 || low[d] + size[d] < logical[d];
  }
  /// Turns the logical indices `idx` (of the first `idx.size()` dimensions)
  /// into indices of the array, clamped into it; returns whether they were
  /// inside (null when they always are).
  Value clamp(OpBuilder &b, Location loc, MutableArrayRef<Value> idx) const;
};

/// A reduction loop (a filter tap) that indexes a bordered dimension of the
/// broadcast input together with parallel loops: dim = coef . loops + c.
struct TapDim {
  unsigned dim, loop;
  SmallVector<int64_t> coef; ///< per program loop, then the constant
  /// The taps [low, high) some row reads inside the input, for rows whose
  /// parallel part of the index (coef . loops + c, without the tap) lies in
  /// [pMin, pMax].
  std::pair<int64_t, int64_t> taps(const Border &b, int64_t pMin, int64_t pMax,
                                   int64_t extent) const {
    int64_t c = coef[loop];
    int64_t lo = std::max<int64_t>(
        0, llvm::divideCeilSigned(b.low[dim] - pMax, c));
    int64_t hi = std::min<int64_t>(
        extent, llvm::divideCeilSigned(b.low[dim] + b.size[dim] - pMin, c));
    return {lo, std::max(lo, hi)};
  }
};
} // namespace

/// Indices [lo, hi) of dimension `dim` of a program operand.
struct RowRange {
  unsigned dim;
  Value lo, hi;
};

struct LaneDotKernel::Impl {
  Contraction c;
  TensorizePlan plan;
  const Description *d = nullptr;
  int64_t lanes = 0, group = 0;
  unsigned laneLoop = 0, groupLoop = 0;
  unsigned bcInput = 0, pkInput = 1; // program inputs
  unsigned bcInstr = 0, pkInstr = 1; // instruction operands they feed
  SmallVector<int64_t> extent;       // per program loop

  // Packed operand: [outer...][groupTiles][lanesPadded * group].
  SmallVector<unsigned> pkOuter;
  int64_t groupTiles = 0, lanesPadded = 0, dataBytes = 0;
  // The broadcast operand's last dimension is the group loop; when its
  // extent is not a multiple of g, the last group is read with a mask (the
  // packed operand holds zeros there).
  bool partialGroup = false;

  // Signedness repair: bias per program input (xor 0x80) and compensation
  //   - bias[1] * sum_red in0 - bias[0] * sum_red in1 - K * bias0 * bias1.
  int64_t bias[2] = {0, 0};
  int64_t constantTerm = 0;
  // Sums of the packed input live in the packed buffer (they change only
  // with it), indexed by its parallel loops with the lane loop last; sums of
  // the broadcast input are computed per call.
  SmallVector<unsigned> pkSumLoops, bcSumLoops;
  int64_t pkSumFactor = 0, bcSumFactor = 0;
  int64_t pkSumBytes = 0;

  SmallVector<unsigned> parallelLoops;  // outer to inner, lane loop excluded
  SmallVector<unsigned> reductionLoops; // outer to inner, group loop last

  FunctionType signature; // of the lowering intrinsic

  /// The instruction on `bc`, `pk` and `acc` (one value per register role):
  /// a tisa.apply with the registers in the description's order.
  Value apply(OpBuilder &b, Location loc, std::array<Value, 3> roles) const {
    SmallVector<Value> registers(3);
    registers[bcInstr] = roles[0];
    registers[pkInstr] = roles[1];
    registers[2] = roles[2];
    return buildApply(b, loc, *d, signature, registers);
  }

  Type elementType(unsigned input) const {
    return c.operands[input].elementType;
  }
  Type accType() const { return c.operands[2].elementType; }
  /// Lanes per packed panel and the number of panels under `s`.
  int64_t panelLanes(const Schedule &s) const {
    return s.panel > 0 && s.panel < lanesPadded ? s.panel : lanesPadded;
  }
  int64_t panels(const Schedule &s) const {
    return llvm::divideCeil(lanesPadded, panelLanes(s));
  }
  /// Packed operand: [panels][outer...][groupTiles][panel * group]: a
  /// register tile's whole reduction is one contiguous run.
  MemRefType dataType(MLIRContext *ctx, const Schedule &s) const {
    SmallVector<int64_t> shape = {panels(s)};
    for (unsigned l : pkOuter)
      shape.push_back(extent[l]);
    shape.push_back(groupTiles);
    shape.push_back(panelLanes(s) * group);
    return MemRefType::get(shape, elementType(pkInput));
  }
  int64_t dataBytesFor(const Schedule &s) const {
    return dataBytes / lanesPadded * panels(s) * panelLanes(s);
  }
  /// The packed operand's sums follow its data, 64-byte aligned.
  int64_t sumOffset(const Schedule &s) const {
    return pkSumFactor ? llvm::alignTo(dataBytesFor(s), 64) : dataBytesFor(s);
  }
  MemRefType sumType(ArrayRef<unsigned> loops, MLIRContext *ctx) const {
    SmallVector<int64_t> shape;
    for (unsigned l : loops)
      shape.push_back(l == laneLoop ? lanesPadded : extent[l]);
    return MemRefType::get(shape, IntegerType::get(ctx, 32));
  }
  /// The broadcast input's border when it is given as `shape` with
  /// `padding` zeros before each dimension (none when `padding` is empty).
  Border borderOf(ArrayRef<int64_t> shape, ArrayRef<int64_t> padding) const {
    const ProgramOperand &bc = c.operands[bcInput];
    Border border;
    border.logical.assign(bc.shape.begin(), bc.shape.end());
    for (unsigned dim = 0; dim < bc.shape.size(); ++dim) {
      border.low.push_back(padding.empty() ? 0 : padding[dim]);
      border.size.push_back(shape.empty() ? bc.shape[dim] : shape[dim]);
      assert(border.low[dim] >= 0 &&
             border.low[dim] + border.size[dim] <= bc.shape[dim] &&
             "the input does not fit its program operand");
    }
    return border;
  }
  /// Tap loops whose iterations a tile may skip: a reduction loop that
  /// indexes a bordered dimension together with parallel loops (conv2d: kh
  /// with oh, kw with ow). Not with a bias on the broadcast input: the
  /// compensation counts every tap.
  SmallVector<TapDim> tapDimsOf(const Border &border) const;
  /// emitPack's vector form, when the packed operand's lanes are contiguous
  /// in its source: a register of lanes per group row, interleaved into
  /// the packed layout (a scalar loop with a select per element packed 16
  /// MiB at under 3 GB/s). False, emitting nothing, otherwise.
  bool emitVectorPack(OpBuilder &b, Location loc, Value src, Value data,
                      const Schedule &s) const;
  /// The packed operand's sums (signedness repairs), after its data.
  void emitPackSums(OpBuilder &b, Location loc, Value src, Value buffer,
                    const Schedule &s) const;
  /// Copies the broadcast input `input` (given without `border`, which must
  /// not border its group dimension) into `dst`, its zero-filled padded copy
  /// with rows of whole groups: a group (masked where the row ends) per
  /// step, where linalg.copy into rows of another length was a byte loop.
  /// With `rows`, only those indices of that dimension.
  void emitGroupCopy(OpBuilder &b, Location loc, Value input, Value dst,
                     const Border &border, std::optional<RowRange> rows) const;
  /// The rows of the broadcast input that the tiles [begin, end) of the
  /// partitioned level read, when one dimension alone depends on that loop
  /// (conv2d split by rows of oh: the input rows under them and their
  /// taps); else none (they read all of it).
  std::optional<RowRange> rangeRows(OpBuilder &b, Location loc,
                                    const Schedule &s, const Border &border,
                                    Value begin, Value end) const;
  /// Schedule::edge: the columns [first, second) of the innermost parallel
  /// loop besides the lanes (conv2d ow) whose every tap lies inside the
  /// input, when the others are border columns (some, not all); the loop
  /// must index its dimensions alone (with their tap loops).
  std::optional<std::pair<int64_t, int64_t>>
  interiorColumns(const Border &border, ArrayRef<TapDim> taps) const;
  /// `border`: `src` is program input `in` without it (reads there are 0).
  void emitSums(OpBuilder &b, Location loc, unsigned in, Value src,
                ArrayRef<unsigned> loops, int64_t factor, Value out,
                const Border *border = nullptr) const;
  /// With `s.fuse`, the innermost parallel loop besides the lanes runs
  /// fused into the one around it (its unroll factor tiles the fused loop).
  std::optional<std::pair<unsigned, unsigned>>
  fused(const Schedule &s) const {
    if (!s.fuse || parallelLoops.size() < 2)
      return std::nullopt;
    return std::pair{parallelLoops[parallelLoops.size() - 2],
                     parallelLoops.back()};
  }
  /// The parallel loops of the register nest, outer to inner (a fused inner
  /// loop is part of its outer one).
  SmallVector<unsigned> parallelOrder(const Schedule &s) const {
    SmallVector<unsigned> order;
    if (s.lanesOuter)
      order.push_back(laneLoop);
    auto f = fused(s);
    for (unsigned l : parallelLoops)
      if (!f || l != f->second)
        order.push_back(l);
    if (!s.lanesOuter)
      order.push_back(laneLoop);
    return order;
  }
  /// Iterations of loop `l` of the register nest, and its unroll factor.
  int64_t whole(unsigned l, const Schedule &s) const {
    if (l == laneLoop)
      return lanesPadded;
    auto f = fused(s);
    return f && f->first == l ? extent[l] * extent[f->second] : extent[l];
  }
  int64_t unrollOf(unsigned l, const Schedule &s) const {
    auto f = fused(s);
    return f && f->first == l ? s.unroll[f->second] : s.unroll[l];
  }
  /// A loop split into blocks of `size` iterations (index units: lanes for
  /// the lane loop) around the register nest.
  struct BlockLevel {
    unsigned loop;
    int64_t size;
    bool partitioned;
    bool cache; ///< a cache block (else only there for the partition)
  };
  int64_t step(unsigned l) const { return l == laneLoop ? lanes : 1; }
  /// The block levels for `s`, outer to inner, and the number of tiles of
  /// the partitioned one.
  SmallVector<BlockLevel> blockLevels(const Schedule &s,
                                      int64_t *partitionTiles = nullptr) const {
    bool laneBlocked = s.laneBlock > 0 && s.laneBlock < lanesPadded;
    struct Candidate {
      BlockLevel level;
      int64_t tiles;
    };
    SmallVector<Candidate> candidates;
    if (laneBlocked)
      candidates.push_back({{laneLoop, s.laneBlock, true, true},
                            int64_t(llvm::divideCeil(lanesPadded, s.laneBlock))});
    for (unsigned l : parallelOrder(s)) {
      if (laneBlocked && l == laneLoop)
        continue;
      int64_t size = unrollOf(l, s) * step(l);
      candidates.push_back({{l, size, true, false},
                            int64_t(llvm::divideCeil(whole(l, s), size))});
    }
    // The partition: the outermost level whose tiles share out evenly
    // between 2 or 4 threads (a multiple of 4, or at least 16), else the
    // one with the most. (5 row tiles of a 28x28 conv2d on 2 threads run
    // 3:2, capping the speedup at 1.67x; its 28 column tiles run 14:14.)
    unsigned best = 0;
    for (unsigned i = 0; i < candidates.size(); ++i) {
      int64_t t = candidates[i].tiles;
      if (t >= 16 || (t >= 4 && t % 4 == 0)) {
        best = i;
        break;
      }
      if (t > candidates[best].tiles)
        best = i;
    }
    if (partitionTiles)
      *partitionTiles = candidates[best].tiles;
    SmallVector<BlockLevel> levels;
    if (laneBlocked)
      levels.push_back({laneLoop, s.laneBlock, best == 0, true});
    if (!laneBlocked || best != 0)
      levels.push_back(candidates[best].level);
    return levels;
  }
  int64_t reductionVolume() const {
    int64_t v = 1;
    for (auto [l, loop] : llvm::enumerate(c.loops))
      if (loop.reduction)
        v *= extent[l];
    return v;
  }
};

namespace {

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value cInt(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

/// The indices `map` gives for loop values `ivs` (one per program loop).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults())
    out.push_back(affine::expandAffineExpr(b, loc, e, ivs, {}));
  return out;
}

/// A loop nest over `extents` (constant bounds, step 1); `body` gets the
/// induction variables.
void loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
              function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t e : extents) {
    lbs.push_back(cIndex(b, loc, 0));
    ubs.push_back(cIndex(b, loc, e));
    steps.push_back(cIndex(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// xor 0x80 in every byte of an integer or integer vector.
Value flipSignBits(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  Type elt = getElementTypeOrSelf(t);
  unsigned bits = elt.getIntOrFloatBitWidth();
  APInt pattern = APInt::getSplat(bits, APInt(8, 0x80));
  TypedAttr attr = b.getIntegerAttr(elt, pattern);
  if (auto vt = dyn_cast<VectorType>(t))
    attr = DenseElementsAttr::get(vt, attr);
  Value mask = arith::ConstantOp::create(b, loc, t, attr);
  return arith::XOrIOp::create(b, loc, v, mask);
}

/// The coefficients of the loops in `e` and, last, its constant, when `e`
/// is a sum of loops times constants.
std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr e,
                                                       unsigned loops) {
  SmallVector<int64_t> c(loops + 1, 0);
  std::function<bool(AffineExpr, int64_t)> add = [&](AffineExpr e,
                                                     int64_t scale) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      c[d.getPosition()] += scale;
      return true;
    }
    if (auto k = dyn_cast<AffineConstantExpr>(e)) {
      c[loops] += scale * k.getValue();
      return true;
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin)
      return false;
    if (e.getKind() == AffineExprKind::Add)
      return add(bin.getLHS(), scale) && add(bin.getRHS(), scale);
    if (e.getKind() == AffineExprKind::Mul) {
      if (auto k = dyn_cast<AffineConstantExpr>(bin.getRHS()))
        return add(bin.getLHS(), scale * k.getValue());
      if (auto k = dyn_cast<AffineConstantExpr>(bin.getLHS()))
        return add(bin.getRHS(), scale * k.getValue());
    }
    return false;
  };
  if (!add(e, 1))
    return std::nullopt;
  return c;
}

bool isIdentityStride(const ProgramOperand &o) {
  return !o.strides.empty() && o.strides.back() == 1;
}

} // namespace

Value Border::clamp(OpBuilder &b, Location loc,
                    MutableArrayRef<Value> idx) const {
  Value inside;
  auto both = [&](Value ok) {
    inside = inside ? Value(arith::AndIOp::create(b, loc, inside, ok)) : ok;
  };
  for (auto [d, i] : llvm::enumerate(idx)) {
    if (!padded(d))
      continue;
    Value at = low[d] ? Value(arith::SubIOp::create(b, loc, i,
                                                    cIndex(b, loc, low[d])))
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

LaneDotKernel::LaneDotKernel(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
LaneDotKernel::LaneDotKernel(LaneDotKernel &&) = default;
LaneDotKernel::~LaneDotKernel() = default;

const TensorizePlan &LaneDotKernel::plan() const { return impl->plan; }
unsigned LaneDotKernel::packedInput() const { return impl->pkInput; }
int64_t LaneDotKernel::packedBytes(const Schedule &s) const {
  return impl->sumOffset(s) + impl->pkSumBytes;
}
MemRefType LaneDotKernel::packedBufferType(MLIRContext *ctx,
                                           const Schedule &s) const {
  return MemRefType::get({packedBytes(s)}, IntegerType::get(ctx, 8));
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
     << m.groupTiles << "][" << lane << "=" << panel << "][" << m.group
     << "]";
  if (m.pkSumBytes)
    os << " + " << m.pkSumFactor << " * sums (i32)";
  return text;
}

FailureOr<LaneDotKernel> LaneDotKernel::get(const Contraction &c,
                                            const TensorizePlan &plan,
                                            std::string &why) {
  auto impl = std::make_unique<Impl>();
  Impl &m = *impl;
  m.c = c;
  m.plan = plan;
  m.d = plan.desc;
  const Description &d = *m.d;
  auto fail = [&](const Twine &reason) -> FailureOr<LaneDotKernel> {
    why = (d.name + ": " + reason).str();
    return failure();
  };

  // The instruction: vector registers, one lane loop and one group loop.
  if (d.registers.size() != 3 ||
      llvm::any_of(d.registers, [](const OperandRegister &r) {
        return r.cls != RegisterClass::Vector;
      }))
    return fail("only vector-register instructions are generated so far "
                "(AMX tiles and warp fragments are matched, not generated)");
  if (d.isScalable())
    return fail("scalable (SVE) instructions are matched, not generated yet");
  if (plan.loops.size() != 2 || d.registers[2].type.getRank() != 1)
    return fail("not a lane-dot instruction (one lane loop, one group loop)");
  const LoopAssignment *laneA = nullptr, *groupA = nullptr;
  for (const LoopAssignment &a : plan.loops)
    (a.reduction ? groupA : laneA) = &a;
  if (!laneA || !groupA)
    return fail("not a lane-dot instruction (one lane loop, one group loop)");
  if (laneA->programLoops.size() != 1 || groupA->programLoops.size() != 1)
    return fail("the plan fuses or pads instruction loops; only one program "
                "loop per instruction loop is generated so far");
  m.lanes = laneA->instrExtent;
  m.group = groupA->instrExtent;
  m.laneLoop = laneA->programLoops[0];
  m.groupLoop = groupA->programLoops[0];
  // Register images: element n * g + k for the inputs, n for the accumulator.
  // A layout maps the operand's semantic index, which the description's own
  // indexing map gives for an iteration (lane n, group element k) of its
  // loops, in whatever order it declares them.
  SmallVector<AffineMap> access = d.body.getIndexingMapsArray();
  for (unsigned j = 0; j < 3; ++j) {
    AffineMap layout = d.registers[j].layout;
    if (!layout || d.registers[j].type.getRank() != 1)
      return fail("register layouts other than a flat vector are not "
                  "generated yet");
    for (int64_t n = 0; n < m.lanes; ++n)
      for (int64_t k = 0; k < (j == 2 ? 1 : m.group); ++k) {
        SmallVector<int64_t> point(access[j].getNumDims(), 0);
        point[laneA->instrLoop] = n;
        if (j != 2)
          point[groupA->instrLoop] = k;
        SmallVector<int64_t> at = layout.compose(access[j].compose(point));
        if (at.size() != 1 || at[0] != (j == 2 ? n : n * m.group + k))
          return fail("the register layout is not lane-major (element "
                      "n * g + k); not generated yet");
      }
  }

  // Static extents.
  for (const ProgramLoop &l : c.loops) {
    if (l.extent == kDynamic)
      return fail("loop " + l.name +
                  " has a dynamic extent; the code generator needs static "
                  "shapes");
    m.extent.push_back(l.extent);
  }

  // Which input is broadcast and which is packed.
  for (unsigned j = 0; j < 2; ++j) {
    const OperandPlan &op = plan.operands[j];
    switch (op.access) {
    case OperandPlan::Access::Broadcast:
      m.bcInstr = j;
      m.bcInput = plan.programInputOf[j];
      break;
    case OperandPlan::Access::Packed:
    case OperandPlan::Access::Direct:
      m.pkInstr = j;
      m.pkInput = plan.programInputOf[j];
      break;
    default:
      return fail("operand " + c.operands[plan.programInputOf[j]].name +
                  " needs a strided or gathered access; only broadcast and "
                  "packed inputs are generated so far");
    }
  }
  if (m.bcInput == m.pkInput)
    return fail("the plan does not broadcast one input and pack the other");
  if (plan.operands[2].access != OperandPlan::Access::Direct)
    return fail("the output needs a relayout; only a direct accumulator "
                "is generated so far");

  // The broadcast input: the group loop alone indexes its last dimension,
  // which is contiguous.
  const ProgramOperand &bc = c.operands[m.bcInput];
  AffineExpr groupDim = getAffineDimExpr(m.groupLoop, c.op->getContext());
  if (bc.map.getNumResults() == 0 || bc.map.getResults().back() != groupDim ||
      !isIdentityStride(bc))
    return fail("the broadcast group of " + bc.name +
                " is not its contiguous last dimension");
  for (AffineExpr e : bc.map.getResults().drop_back())
    if (e.isFunctionOfDim(m.groupLoop))
      return fail("the group loop indexes more than one dimension of " +
                  bc.name);
  m.partialGroup = m.extent[m.groupLoop] % m.group != 0;

  // The packed input: a projection of the loops (filters, B matrices).
  const ProgramOperand &pk = c.operands[m.pkInput];
  if (!pk.map.isProjectedPermutation())
    return fail("the packed input " + pk.name +
                " is not indexed by plain loops");
  for (AffineExpr e : pk.map.getResults()) {
    unsigned l = cast<AffineDimExpr>(e).getPosition();
    if (l != m.laneLoop && l != m.groupLoop)
      m.pkOuter.push_back(l);
  }
  m.groupTiles = llvm::divideCeil(m.extent[m.groupLoop], m.group);
  m.lanesPadded = llvm::alignTo(m.extent[m.laneLoop], m.lanes);
  int64_t eltBytes = pk.elementBytes();
  m.dataBytes = m.groupTiles * m.lanesPadded * m.group * eltBytes;
  for (unsigned l : m.pkOuter)
    m.dataBytes *= m.extent[l];

  // The output: the lane loop is its contiguous last dimension.
  const ProgramOperand &out = c.operands[2];
  if (!out.map.isProjectedPermutation() || out.map.getNumResults() == 0 ||
      out.map.getResults().back() !=
          getAffineDimExpr(m.laneLoop, c.op->getContext()) ||
      !isIdentityStride(out))
    return fail("the lane loop is not the contiguous last dimension of " +
                out.name);

  // Loop order.
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (!loop.reduction && l != m.laneLoop)
      m.parallelLoops.push_back(l);
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.reduction && l != m.groupLoop && !llvm::is_contained(m.pkOuter, l))
      m.reductionLoops.push_back(l);
  for (unsigned l : m.pkOuter)
    if (c.loops[l].reduction)
      m.reductionLoops.push_back(l);
  m.reductionLoops.push_back(m.groupLoop);

  // Repair.
  if (plan.repair) {
    m.bias[0] = plan.repair->bias[0];
    m.bias[1] = plan.repair->bias[1];
    m.constantTerm = m.reductionVolume() * m.bias[0] * m.bias[1];
    auto parallelOf = [&](unsigned input) {
      SmallVector<unsigned> loops;
      for (auto [l, loop] : llvm::enumerate(c.loops))
        if (!loop.reduction && l != m.laneLoop &&
            c.operands[input].map.isFunctionOfDim(l))
          loops.push_back(l);
      if (c.operands[input].map.isFunctionOfDim(m.laneLoop))
        loops.push_back(m.laneLoop);
      return loops;
    };
    // sum_red(in_i) is weighted by the other input's bias.
    m.pkSumFactor = m.bias[1 - m.pkInput];
    m.bcSumFactor = m.bias[1 - m.bcInput];
    if (m.pkSumFactor)
      m.pkSumLoops = parallelOf(m.pkInput);
    if (m.bcSumFactor)
      m.bcSumLoops = parallelOf(m.bcInput);
  }
  if (m.pkSumFactor) {
    m.pkSumBytes = 4;
    for (unsigned l : m.pkSumLoops)
      m.pkSumBytes *= l == m.laneLoop ? m.lanesPadded : m.extent[l];
  }

  // The instruction's signature (registers are bitcast to it when the
  // tisa.apply is legalized).
  for (const LoweringArg &a : d.lowering.args)
    if (a.kind != LoweringArg::Operand)
      return fail("the lowering takes non-register arguments");
  FailureOr<FunctionType> signature = loweringSignature(
      d, c.op->getContext(), [&]() { return emitError(d.loc); });
  if (failed(signature))
    return fail("its lowering intrinsic " + d.lowering.intrinsic +
                " does not resolve");
  m.signature = *signature;
  return LaneDotKernel(std::move(impl));
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

namespace {

/// The integer value of a program element, widened to i32 as the program's
/// body extends it.
Value widen(OpBuilder &b, Location loc, Value v, bool isSigned) {
  Type i32 = b.getI32Type();
  if (v.getType() == i32)
    return v;
  return isSigned ? Value(arith::ExtSIOp::create(b, loc, i32, v))
                  : Value(arith::ExtUIOp::create(b, loc, i32, v));
}

} // namespace

/// out[loops] = factor * sum over every reduction loop of input `in`, for the
/// parallel loops `loops` (the lane loop, if present, last and padded: the
/// padding holds zero).
void LaneDotKernel::Impl::emitSums(OpBuilder &b, Location loc, unsigned in,
                                   Value src, ArrayRef<unsigned> loops,
                                   int64_t factor, Value out,
                                   const Border *border) const {
  const Impl &m = *this;
  Type i32 = b.getI32Type();
  Value zero = cInt(b, loc, i32, 0);
  linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{out});
  SmallVector<int64_t> extents;
  for (unsigned l : loops)
    extents.push_back(m.extent[l]);
  SmallVector<unsigned> reductions;
  SmallVector<int64_t> redExtents;
  for (auto [l, loop] : llvm::enumerate(m.c.loops))
    if (loop.reduction) {
      reductions.push_back(l);
      redExtents.push_back(m.extent[l]);
    }
  bool isSigned = m.c.arith.factorSigned[in];
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange outer) {
    SmallVector<Value> ivs(m.c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, iv] : llvm::zip(loops, outer))
      ivs[l] = iv;
    // A nest of reductions carrying the sum.
    std::function<Value(OpBuilder &, unsigned, Value)> reduce =
        [&](OpBuilder &b, unsigned level, Value sum) -> Value {
      if (level == reductions.size()) {
        SmallVector<Value> at = applyMap(b, loc, m.c.operands[in].map, ivs);
        Value inside = border ? border->clamp(b, loc, at) : Value();
        Value v = widen(b, loc, memref::LoadOp::create(b, loc, src, at),
                        isSigned);
        if (inside)
          v = arith::SelectOp::create(b, loc, inside, v, cInt(b, loc, i32, 0));
        return arith::AddIOp::create(b, loc, sum, v);
      }
      auto loop = scf::ForOp::create(
          b, loc, cIndex(b, loc, 0), cIndex(b, loc, redExtents[level]),
          cIndex(b, loc, 1), ValueRange{sum},
          [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
            ivs[reductions[level]] = iv;
            scf::YieldOp::create(b, loc, reduce(b, level + 1, args[0]));
          });
      return loop.getResult(0);
    };
    Value sum = reduce(b, 0, cInt(b, loc, i32, 0));
    sum = arith::MulIOp::create(b, loc, sum, cInt(b, loc, i32, factor));
    memref::StoreOp::create(b, loc, sum, out, SmallVector<Value>(outer));
  });
}

std::optional<RowRange>
LaneDotKernel::Impl::rangeRows(OpBuilder &b, Location loc, const Schedule &s,
                               const Border &border, Value begin,
                               Value end) const {
  if (s.fuse)
    return std::nullopt;
  std::optional<BlockLevel> part;
  for (const BlockLevel &bl : blockLevels(s))
    if (bl.partitioned)
      part = bl;
  if (!part || part->loop == laneLoop)
    return std::nullopt;
  const ProgramOperand &bc = c.operands[bcInput];
  unsigned numLoops = c.loops.size();
  std::optional<RowRange> rows;
  SmallVector<int64_t> coef;
  for (unsigned dim = 0; dim < bc.shape.size(); ++dim) {
    auto k = linearCoefficients(bc.map.getResult(dim), numLoops);
    if (!k)
      return std::nullopt;
    if (!(*k)[part->loop])
      continue;
    if (rows ||
        llvm::any_of(ArrayRef(*k).drop_back(), [](int64_t x) { return x < 0; }))
      return std::nullopt;
    rows = RowRange{dim, Value(), Value()};
    coef = *k;
  }
  if (!rows)
    return std::nullopt;
  // Lowest index: the range's first iteration, every other loop at 0;
  // highest: its last iteration, every other loop at its last.
  unsigned l = part->loop;
  int64_t others = coef[numLoops];
  for (unsigned o = 0; o < numLoops; ++o)
    if (o != l)
      others += coef[o] * (extent[o] - 1);
  auto mul = [&](Value v, int64_t k) {
    return arith::MulIOp::create(b, loc, v, cIndex(b, loc, k)).getResult();
  };
  auto add = [&](Value v, int64_t k) {
    return arith::AddIOp::create(b, loc, v, cIndex(b, loc, k)).getResult();
  };
  auto clamp = [&](Value v) {
    v = arith::MaxSIOp::create(b, loc, v, cIndex(b, loc, 0));
    return arith::MinSIOp::create(b, loc, v,
                                  cIndex(b, loc, border.logical[rows->dim]))
        .getResult();
  };
  Value first = mul(begin, part->size);
  Value stop = arith::MinSIOp::create(b, loc, mul(end, part->size),
                                      cIndex(b, loc, extent[l]));
  // Edge tiles along this loop run whole from the range holding their first
  // row (emitCompute's emitBorderTiles), so they may reach past `stop`.
  if (s.edge && parallelLoops.size() >= 2 &&
      l == parallelLoops[parallelLoops.size() - 2])
    stop = arith::MinSIOp::create(
        b, loc,
        mul(arith::CeilDivSIOp::create(b, loc, stop, cIndex(b, loc, s.edge)),
            s.edge),
        cIndex(b, loc, extent[l]));
  Value last = add(stop, -1);
  rows->lo = clamp(add(mul(first, coef[l]), coef[numLoops]));
  rows->hi = clamp(add(mul(last, coef[l]), others + 1));
  // An empty range (begin >= end) copies nothing.
  rows->hi = arith::MaxSIOp::create(b, loc, rows->hi, rows->lo);
  return rows;
}

void LaneDotKernel::Impl::emitGroupCopy(OpBuilder &b, Location loc, Value input,
                                        Value dst, const Border &border,
                                        std::optional<RowRange> rows) const {
  unsigned rank = border.size.size();
  Type elt = cast<MemRefType>(input.getType()).getElementType();
  auto groupVec = VectorType::get({group}, elt);
  // Per dimension, the input indices [lo, hi) to copy: the rows asked for,
  // inside the input.
  SmallVector<Value> lo(rank), hi(rank);
  for (unsigned dim = 0; dim + 1 < rank; ++dim) {
    lo[dim] = cIndex(b, loc, 0);
    hi[dim] = cIndex(b, loc, border.size[dim]);
    if (!rows || rows->dim != dim)
      continue;
    auto inside = [&](Value v) -> Value {
      v = arith::SubIOp::create(b, loc, v, cIndex(b, loc, border.low[dim]));
      v = arith::MaxSIOp::create(b, loc, v, lo[dim]);
      return arith::MinSIOp::create(b, loc, v, hi[dim]);
    };
    std::tie(lo[dim], hi[dim]) =
        std::make_pair(inside(rows->lo), inside(rows->hi));
  }
  SmallVector<Value> at(rank);
  std::function<void(OpBuilder &, Location, unsigned)> nest =
      [&](OpBuilder &b, Location loc, unsigned dim) {
        if (dim + 1 < rank) {
          scf::ForOp::create(
              b, loc, lo[dim], hi[dim], cIndex(b, loc, 1), ValueRange{},
              [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
                at[dim] = iv;
                nest(b, loc, dim + 1);
                scf::YieldOp::create(b, loc);
              });
          return;
        }
        SmallVector<Value> to(rank);
        for (unsigned d = 0; d + 1 < rank; ++d)
          to[d] = border.low[d]
                      ? Value(arith::AddIOp::create(
                            b, loc, at[d], cIndex(b, loc, border.low[d])))
                      : at[d];
        int64_t row = border.size.back();
        for (int64_t first = 0; first < row; first += group) {
          at.back() = to.back() = cIndex(b, loc, first);
          Value g;
          if (first + group <= row) {
            g = vector::LoadOp::create(b, loc, groupVec, input, at);
          } else {
            Value mask = vector::ConstantMaskOp::create(
                b, loc, VectorType::get({group}, b.getI1Type()),
                ArrayRef<int64_t>{row - first});
            g = vector::MaskedLoadOp::create(
                b, loc, groupVec, input, at, mask,
                arith::ConstantOp::create(b, loc, groupVec,
                                          b.getZeroAttr(groupVec)));
          }
          vector::StoreOp::create(b, loc, g, dst, to);
        }
      };
  nest(b, loc, 0);
}

SmallVector<TapDim> LaneDotKernel::Impl::tapDimsOf(const Border &border) const {
  SmallVector<TapDim> out;
  if (!border.any() || bias[bcInput] != 0)
    return out;
  const ProgramOperand &bc = c.operands[bcInput];
  unsigned numLoops = c.loops.size();
  for (unsigned dim = 0; dim + 1 < bc.shape.size(); ++dim) {
    if (!border.padded(dim))
      continue;
    auto coef = linearCoefficients(bc.map.getResult(dim), numLoops);
    if (!coef || (*coef)[laneLoop] != 0)
      continue;
    SmallVector<unsigned> taps;
    bool monotone = true;
    for (unsigned l = 0; l < numLoops; ++l) {
      if (!(*coef)[l])
        continue;
      monotone &= (*coef)[l] > 0;
      if (c.loops[l].reduction)
        taps.push_back(l);
    }
    if (monotone && taps.size() == 1 && taps[0] != groupLoop)
      out.push_back({dim, taps[0], *coef});
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>>
LaneDotKernel::Impl::interiorColumns(const Border &border,
                                     ArrayRef<TapDim> taps) const {
  if (parallelLoops.size() < 2 || taps.empty())
    return std::nullopt;
  unsigned inner = parallelLoops.back(), numLoops = c.loops.size();
  for (const TapDim &t : taps)
    if (t.coef[inner])
      for (unsigned l = 0; l < numLoops; ++l)
        if (l != inner && l != t.loop && t.coef[l])
          return std::nullopt;
  auto full = [&](int64_t p) {
    for (const TapDim &t : taps) {
      if (!t.coef[inner])
        continue;
      int64_t at = t.coef[numLoops] + t.coef[inner] * p;
      auto [lo, hi] = t.taps(border, at, at, extent[t.loop]);
      if (lo > 0 || hi < extent[t.loop])
        return false;
    }
    return true;
  };
  int64_t w = extent[inner], low = 0, high = w;
  while (low < w && !full(low))
    ++low;
  while (high > low && !full(high - 1))
    --high;
  for (int64_t p = low; p < high; ++p)
    if (!full(p))
      return std::nullopt;
  if (low == high || (low == 0 && high == w))
    return std::nullopt;
  return std::pair{low, high};
}

void LaneDotKernel::emitPack(OpBuilder &b, Location loc, Value src,
                             Value buffer, const Schedule &s) const {
  const Impl &m = *impl;
  MLIRContext *ctx = b.getContext();
  Value data = memref::ViewOp::create(b, loc, m.dataType(ctx, s), buffer,
                                      cIndex(b, loc, 0), ValueRange{});
  if (m.emitVectorPack(b, loc, src, data, s))
    return m.emitPackSums(b, loc, src, buffer, s);
  Type elt = m.elementType(m.pkInput);
  bool biased = m.bias[m.pkInput] != 0;
  int64_t panel = m.panelLanes(s);
  // In the source's order (the panels inside the group tiles), so that
  // reads are contiguous runs of lanes.
  SmallVector<int64_t> extents;
  for (unsigned l : m.pkOuter)
    extents.push_back(m.extent[l]);
  extents.append({m.groupTiles, m.panels(s), panel, m.group});
  int64_t groupExtent = m.extent[m.groupLoop];
  int64_t laneExtent = m.extent[m.laneLoop];
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    unsigned n = m.pkOuter.size();
    SmallVector<Value> ivs(m.c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, v] : llvm::zip(m.pkOuter, iv.take_front(n)))
      ivs[l] = v;
    Value gi = iv[n], p = iv[n + 1], within = iv[n + 2], k = iv[n + 3];
    Value lane = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, p, cIndex(b, loc, panel)),
        within);
    Value g = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gi, cIndex(b, loc, m.group)), k);
    // Padding positions read a valid element and store the padding value.
    Value valid = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, g,
                              cIndex(b, loc, groupExtent)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lane,
                              cIndex(b, loc, laneExtent)));
    ivs[m.groupLoop] =
        arith::MinSIOp::create(b, loc, g, cIndex(b, loc, groupExtent - 1));
    ivs[m.laneLoop] =
        arith::MinSIOp::create(b, loc, lane, cIndex(b, loc, laneExtent - 1));
    Value v = memref::LoadOp::create(
        b, loc, src, applyMap(b, loc, m.c.operands[m.pkInput].map, ivs));
    if (biased)
      v = flipSignBits(b, loc, v);
    Value pad = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
    v = arith::SelectOp::create(b, loc, valid, v, pad);
    SmallVector<Value> at = {p};
    at.append(iv.begin(), iv.begin() + n);
    at.push_back(gi);
    at.push_back(arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, within, cIndex(b, loc, m.group)), k));
    memref::StoreOp::create(b, loc, v, data, at);
  });
  m.emitPackSums(b, loc, src, buffer, s);
}

void LaneDotKernel::Impl::emitPackSums(OpBuilder &b, Location loc, Value src,
                                       Value buffer, const Schedule &s) const {
  if (!pkSumFactor)
    return;
  Value sums = memref::ViewOp::create(
      b, loc, sumType(pkSumLoops, b.getContext()), buffer,
      cIndex(b, loc, sumOffset(s)), ValueRange{});
  emitSums(b, loc, pkInput, src, pkSumLoops, pkSumFactor, sums);
}

bool LaneDotKernel::Impl::emitVectorPack(OpBuilder &b, Location loc, Value src,
                                         Value data, const Schedule &s) const {
  // The source's lanes must be contiguous: its last dimension is the lane
  // loop alone, at stride 1 (GEMM weights [K][N], conv2d filters HWCF).
  const ProgramOperand &pk = c.operands[pkInput];
  auto srcType = cast<MemRefType>(src.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(srcType.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return false;
  for (auto [i, e] : llvm::enumerate(pk.map.getResults())) {
    bool last = i + 1 == pk.map.getNumResults();
    if (last != (e == getAffineDimExpr(laneLoop, b.getContext())) ||
        (!last && e.isFunctionOfDim(laneLoop)))
      return false;
  }
  int64_t panel = panelLanes(s);
  if (!llvm::isPowerOf2_64(group))
    return false;
  Type elt = elementType(pkInput);
  bool biased = bias[pkInput] != 0;
  auto laneVec = VectorType::get({lanes}, elt);
  // Lanes past the end read the value that packs to zero.
  Value pad = arith::ConstantOp::create(
      b, loc, elt,
      biased ? TypedAttr(b.getIntegerAttr(
                   elt, APInt::getSplat(elt.getIntOrFloatBitWidth(),
                                        APInt(8, 0x80))))
             : TypedAttr(b.getZeroAttr(elt)));
  Value zeros =
      arith::ConstantOp::create(b, loc, laneVec, b.getZeroAttr(laneVec));
  int64_t groupExtent = extent[groupLoop];
  SmallVector<int64_t> extents;
  for (unsigned l : pkOuter)
    extents.push_back(extent[l]);
  extents.append({groupTiles, panels(s), panel / lanes});
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    unsigned n = pkOuter.size();
    SmallVector<Value> ivs(c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, v] : llvm::zip(pkOuter, iv.take_front(n)))
      ivs[l] = v;
    Value gi = iv[n], p = iv[n + 1], chunk = iv[n + 2];
    Value within = arith::MulIOp::create(b, loc, chunk, cIndex(b, loc, lanes));
    ivs[laneLoop] = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, p, cIndex(b, loc, panel)),
        within);
    // One register of lanes per element of the group; rows past the
    // reduction's end are zeros.
    SmallVector<Value> rows;
    for (int64_t k = 0; k < group; ++k) {
      Value g = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, gi, cIndex(b, loc, group)),
          cIndex(b, loc, k));
      ivs[groupLoop] =
          arith::MinSIOp::create(b, loc, g, cIndex(b, loc, groupExtent - 1));
      Value v = vector::TransferReadOp::create(
          b, loc, laneVec, src, applyMap(b, loc, pk.map, ivs), pad,
          ArrayRef<bool>{lanesPadded == extent[laneLoop]});
      if (biased)
        v = flipSignBits(b, loc, v);
      if (groupExtent % group)
        v = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, g,
                                  cIndex(b, loc, groupExtent)),
            v, zeros);
      rows.push_back(v);
    }
    // Interleave: element i of row k goes to i * group + k. Concatenate the
    // rows pairwise, then permute once.
    while (rows.size() > 1) {
      SmallVector<Value> joined;
      for (size_t r = 0; r + 1 < rows.size(); r += 2) {
        int64_t len = cast<VectorType>(rows[r].getType()).getNumElements();
        joined.push_back(vector::ShuffleOp::create(
            b, loc, rows[r], rows[r + 1],
            llvm::to_vector(llvm::seq<int64_t>(0, 2 * len))));
      }
      rows = joined;
    }
    Value v = rows[0];
    if (group > 1) {
      SmallVector<int64_t> mask;
      for (int64_t i = 0; i < lanes; ++i)
        for (int64_t k = 0; k < group; ++k)
          mask.push_back(k * lanes + i);
      v = vector::ShuffleOp::create(b, loc, v, v, mask);
    }
    SmallVector<Value> at = {p};
    at.append(iv.begin(), iv.begin() + n);
    at.push_back(gi);
    at.push_back(arith::MulIOp::create(b, loc, within, cIndex(b, loc, group)));
    assert(cast<VectorType>(v.getType()).getNumElements() == lanes * group &&
           "interleaved rows");
    vector::StoreOp::create(b, loc, v, data, at);
  });
  return true;
}

void LaneDotKernel::emitCompute(OpBuilder &b, Location loc, Value input,
                                Value buffer, Value output, bool overwrite,
                                const Schedule &s, Value begin, Value end,
                                ArrayRef<int64_t> inputPadding) const {
  const Impl &m = *impl;
  assert(s.unroll.size() == m.c.loops.size() && "schedule for another kernel");
  const Description &d = *m.d;
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  Type elt = m.elementType(m.bcInput);
  unsigned eltBits = elt.getIntOrFloatBitWidth();
  Type groupInt = b.getIntegerType(eltBits * m.group);
  VectorType accVec = d.registers[2].type;
  auto laneVec = [&](Type t) { return VectorType::get({m.lanes}, t); };
  SmallVector<Value> temporaries;

  // The broadcast input as given: with `inputPadding`, without its zero
  // border. It is read in place, a row of the group dimension at a time,
  // with a row of zeros standing in for rows outside; or from a padded copy
  // when its group dimension is itself bordered, or when rows are so short
  // (fewer than 4 groups: C = 3) that choosing each row would cost more than
  // copying (ResNet-50's first layer: 233 -> 330 GOPS). A partial last group
  // is read with a mask either way.
  const ProgramOperand &bc = m.c.operands[m.bcInput];
  auto inputType = cast<MemRefType>(input.getType());
  unsigned rank = bc.shape.size();
  Border border = m.borderOf(inputType.getShape(), inputPadding);
  bool copy = border.padded(rank - 1) || (border.any() && m.groupTiles < 4);
  bool inPlaceBorder = border.any() && !copy;
  Value bcMem = input;
  // A copy's rows end in whole groups, zero past the input: its last group is
  // read like the others (a masked load there ran 17% slower on
  // ResNet-50's first layer, where LLVM rematerialized the mask each step).
  bool maskLastGroup = m.partialGroup && !copy;
  if (copy) {
    SmallVector<int64_t> shape(bc.shape);
    shape.back() = m.groupTiles * m.group;
    bcMem = memref::AllocOp::create(b, loc, MemRefType::get(shape, elt),
                                    b.getI64IntegerAttr(64));
    temporaries.push_back(bcMem);
    // With a range, only the rows its tiles read (each thread copies its
    // own share).
    bool groupCopy = !border.padded(rank - 1);
    std::optional<RowRange> rows;
    if (begin && groupCopy)
      rows = m.rangeRows(b, loc, s, border, begin, end);
    Value filled = bcMem;
    if (rows) {
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
          ones(rank, b.getIndexAttr(1));
      for (int64_t x : shape)
        sizes.push_back(b.getIndexAttr(x));
      offsets[rows->dim] = rows->lo;
      sizes[rows->dim] =
          arith::SubIOp::create(b, loc, rows->hi, rows->lo).getResult();
      filled = memref::SubViewOp::create(b, loc, bcMem, offsets, sizes, ones);
    }
    linalg::FillOp::create(
        b, loc,
        ValueRange{arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt))},
        ValueRange{filled});
    if (!groupCopy) {
      SmallVector<OpFoldResult> offsets, sizes, ones(rank, b.getIndexAttr(1));
      for (unsigned dim = 0; dim < rank; ++dim) {
        offsets.push_back(b.getIndexAttr(border.low[dim]));
        sizes.push_back(b.getIndexAttr(border.size[dim]));
      }
      Value interior =
          memref::SubViewOp::create(b, loc, bcMem, offsets, sizes, ones);
      linalg::CopyOp::create(b, loc, input, interior);
    } else {
      m.emitGroupCopy(b, loc, input, bcMem, border, rows);
    }
  }
  // Rows outside the input read this one.
  MemRefType rowType;
  Value zeroRow;
  if (inPlaceBorder) {
    SmallVector<int64_t> offsets(rank, ShapedType::kDynamic),
        sizes(rank, 1), strides(rank, 1);
    sizes.back() = bc.shape.back();
    rowType = memref::SubViewOp::inferRankReducedResultType(
        {bc.shape.back()}, inputType, offsets, sizes, strides);
    Value row = memref::AllocOp::create(
        b, loc, MemRefType::get({bc.shape.back()}, elt),
        b.getI64IntegerAttr(64));
    temporaries.push_back(row);
    linalg::FillOp::create(
        b, loc,
        ValueRange{arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt))},
        ValueRange{row});
    zeroRow = memref::CastOp::create(b, loc, rowType, row);
  }
  // Tap loops run per tile only over the taps where a row of the tile reads
  // inside the input, as the vendors count the work.
  SmallVector<TapDim> tapDims = m.tapDimsOf(border);
  unsigned numLoops = m.c.loops.size();
  SmallVector<Value> tapLow(numLoops), tapHigh(numLoops);
  // Schedule::edge: the columns of the innermost parallel loop besides the
  // lanes are interior in [edgeLow, edgeHigh) (every tap inside the input);
  // the others run with `edgeSchedule`, in tiles of rows of the loop around.
  int64_t edgeLow = 0, edgeHigh = 0;
  Schedule edgeSchedule = s;
  bool edges = false;
  if (s.edge && !s.fuse) {
    if (auto interior = m.interiorColumns(border, tapDims)) {
      edges = true;
      std::tie(edgeLow, edgeHigh) = *interior;
      edgeSchedule.unroll[m.parallelLoops.back()] = 1;
      edgeSchedule.unroll[m.parallelLoops[m.parallelLoops.size() - 2]] =
          s.edge;
    }
  }
  const Schedule *cur = &s; // the schedule of the columns being emitted
  // While the border columns are emitted, the inner loop counts them: its
  // index p stands for column p below edgeLow, p + edgeHigh - edgeLow above.
  bool borderColumns = false;
  auto column = [&](OpBuilder &b, Location loc, Value p) -> Value {
    if (!borderColumns || edgeHigh == m.extent[m.parallelLoops.back()])
      return p;
    Value skipped = arith::AddIOp::create(
        b, loc, p, cIndex(b, loc, edgeHigh - edgeLow));
    if (edgeLow == 0)
      return skipped;
    Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, p,
                                      cIndex(b, loc, edgeLow));
    return arith::SelectOp::create(b, loc, low, p, skipped);
  };
  Value bcSums;
  if (m.bcSumFactor) {
    bcSums = memref::AllocOp::create(b, loc, m.sumType(m.bcSumLoops, ctx),
                                     b.getI64IntegerAttr(64));
    temporaries.push_back(bcSums);
    m.emitSums(b, loc, m.bcInput, input, m.bcSumLoops, m.bcSumFactor, bcSums,
               &border);
  }
  Value data = memref::ViewOp::create(b, loc, m.dataType(ctx, s), buffer,
                                      cIndex(b, loc, 0), ValueRange{});
  Value pkSums;
  if (m.pkSumFactor)
    pkSums = memref::ViewOp::create(b, loc, m.sumType(m.pkSumLoops, ctx),
                                    buffer, cIndex(b, loc, m.sumOffset(s)),
                                    ValueRange{});
  int64_t panel = m.panelLanes(s);

  SmallVector<Value> ivs(m.c.loops.size());
  Value lane;  // first lane of the current register
  Value bcRow; // in place with a border: the broadcast row of this step

  // One instruction step: broadcast, packed load, the lowering.
  // `partial`: the last group, of fewer than g elements (read with a mask,
  // zeros in the rest: the packed operand's padding there is zero too).
  auto step = [&](OpBuilder &b, Location loc, Value acc,
                  bool partial = false) -> Value {
    Value first = arith::MulIOp::create(b, loc, ivs[m.groupLoop],
                                        cIndex(b, loc, m.group));
    SmallVector<Value> at;
    if (bcRow) {
      at.push_back(first);
    } else {
      at = applyMap(b, loc, bc.map, ivs);
      at.back() = first;
    }
    Value mem = bcRow ? bcRow : bcMem;
    auto groupVec = VectorType::get({m.group}, elt);
    Value g;
    if (partial) {
      Value mask = vector::ConstantMaskOp::create(
          b, loc, VectorType::get({m.group}, b.getI1Type()),
          ArrayRef<int64_t>{m.extent[m.groupLoop] % m.group});
      Value zeros = arith::ConstantOp::create(b, loc, groupVec,
                                              b.getZeroAttr(groupVec));
      g = vector::MaskedLoadOp::create(b, loc, groupVec, mem, at, mask, zeros);
    } else {
      g = vector::LoadOp::create(b, loc, groupVec, mem, at);
    }
    g = vector::BitCastOp::create(b, loc, VectorType::get({1}, groupInt), g);
    g = vector::ExtractOp::create(b, loc, g, ArrayRef<int64_t>{0});
    if (m.bias[m.bcInput])
      g = flipSignBits(b, loc, g);
    Value bcReg = vector::BroadcastOp::create(b, loc, laneVec(groupInt), g);
    bcReg = vector::BitCastOp::create(b, loc, d.registers[m.bcInstr].type,
                                      bcReg);
    SmallVector<Value> pkAt;
    Value within = lane;
    if (panel == m.lanesPadded) {
      pkAt.push_back(cIndex(b, loc, 0));
    } else {
      Value p = cIndex(b, loc, panel);
      pkAt.push_back(arith::DivUIOp::create(b, loc, lane, p));
      within = arith::RemUIOp::create(b, loc, lane, p);
    }
    for (unsigned l : m.pkOuter)
      pkAt.push_back(ivs[l]);
    pkAt.push_back(ivs[m.groupLoop]);
    pkAt.push_back(
        arith::MulIOp::create(b, loc, within, cIndex(b, loc, m.group)));
    Value pkReg = vector::LoadOp::create(b, loc, d.registers[m.pkInstr].type,
                                         data, pkAt);
    return m.apply(b, loc, {bcReg, pkReg, acc});
  };

  // The reduction loops, carrying the accumulator.
  std::function<Value(OpBuilder &, Location, unsigned, Value)> reduce =
      [&](OpBuilder &b, Location loc, unsigned level, Value acc) -> Value {
    if (level == m.reductionLoops.size())
      return step(b, loc, acc);
    unsigned l = m.reductionLoops[level];
    int64_t trips = l == m.groupLoop ? m.groupTiles : m.extent[l];
    if (l == m.groupLoop && inPlaceBorder) {
      // The row of the group dimension the other loops select.
      ivs[m.groupLoop] = cIndex(b, loc, 0);
      SmallVector<Value> at = applyMap(b, loc, bc.map, ivs);
      at.pop_back();
      Value inside = border.clamp(b, loc, at);
      SmallVector<OpFoldResult> offsets(at.begin(), at.end()),
          sizes(rank, b.getIndexAttr(1)), strides(rank, b.getIndexAttr(1));
      offsets.push_back(b.getIndexAttr(0));
      sizes.back() = b.getIndexAttr(bc.shape.back());
      bcRow = memref::SubViewOp::create(b, loc, rowType, input, offsets, sizes,
                                        strides);
      if (inside)
        bcRow = arith::SelectOp::create(b, loc, inside, bcRow, zeroRow);
    }
    // The partial last group runs after the loop.
    bool peel = l == m.groupLoop && maskLastGroup;
    if (peel)
      --trips;
    if (trips > 0) {
      Value lb = tapLow[l] ? tapLow[l] : cIndex(b, loc, 0);
      Value ub = tapHigh[l] ? tapHigh[l] : cIndex(b, loc, trips);
      auto loop = scf::ForOp::create(
          b, loc, lb, ub, cIndex(b, loc, 1), ValueRange{acc},
          [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
            ivs[l] = iv;
            scf::YieldOp::create(b, loc, reduce(b, loc, level + 1, args[0]));
          });
      loop->setAttr(kLoopAttr, b.getStringAttr("reduction"));
      acc = loop.getResult(0);
    }
    if (peel) {
      assert(level + 1 == m.reductionLoops.size() && "the group loop is last");
      ivs[l] = cIndex(b, loc, trips);
      acc = step(b, loc, acc, /*partial=*/true);
    }
    return acc;
  };

  // The register: accumulate, repair, store the valid lanes.
  auto registerBody = [&](OpBuilder &b, Location loc) {
    ivs[m.laneLoop] = lane;
    SmallVector<Value> outAt = applyMap(b, loc, m.c.operands[2].map, ivs);
    Value left = arith::SubIOp::create(
        b, loc, cIndex(b, loc, m.extent[m.laneLoop]), lane);
    Value valid =
        arith::MinSIOp::create(b, loc, left, cIndex(b, loc, m.lanes));
    Value mask = vector::CreateMaskOp::create(
        b, loc, VectorType::get({m.lanes}, b.getI1Type()), ValueRange{valid});
    Value zero = arith::ConstantOp::create(b, loc, accVec,
                                           b.getZeroAttr(accVec));
    Value init = overwrite ? zero
                           : Value(vector::MaskedLoadOp::create(
                                 b, loc, accVec, output, outAt, mask, zero));
    Value acc = reduce(b, loc, 0, init);
    auto subtractSums = [&](Value sums, ArrayRef<unsigned> loops) {
      SmallVector<Value> at;
      for (unsigned l : loops)
        at.push_back(ivs[l]);
      Value v;
      if (!loops.empty() && loops.back() == m.laneLoop) {
        v = vector::LoadOp::create(b, loc, laneVec(i32), sums, at);
      } else {
        v = memref::LoadOp::create(b, loc, sums, at);
        v = vector::BroadcastOp::create(b, loc, laneVec(i32), v);
      }
      acc = arith::SubIOp::create(b, loc, acc, v);
    };
    if (pkSums)
      subtractSums(pkSums, m.pkSumLoops);
    if (bcSums)
      subtractSums(bcSums, m.bcSumLoops);
    if (m.constantTerm) {
      Value k = arith::ConstantOp::create(
          b, loc, laneVec(i32),
          DenseElementsAttr::get(laneVec(i32),
                                 b.getI32IntegerAttr(int32_t(m.constantTerm))));
      acc = arith::SubIOp::create(b, loc, acc, k);
    }
    vector::MaskedStoreOp::create(b, loc, output, outAt, mask, acc);
  };

  // Parallel loops: tile loops over each loop's span (offset by the
  // enclosing blocks), full tiles in a loop and the partial last tile once;
  // then, innermost, a point loop of constant trip count per tile wider than
  // one step, tagged for -tisa-register-tile to unroll and jam. Remainders
  // are thereby tiles of their own (3 rows left over run as one 3 x b tile),
  // and values computed between the tile loops and the point loops are the
  // same in every copy, so loops bounded by them still jam.
  SmallVector<Value> offset(m.c.loops.size());
  SmallVector<int64_t> span(m.c.loops.size());
  for (unsigned l = 0; l < span.size(); ++l)
    span[l] = m.whole(l, s);
  SmallVector<unsigned> order = m.parallelOrder(s);
  auto fusedPair = m.fused(s);
  SmallVector<Value> tileStart(m.c.loops.size());
  SmallVector<int64_t> tileLength(m.c.loops.size());
  // Index `i` of loop `l` of the register nest.
  auto setIndex = [&](OpBuilder &b, Location loc, unsigned l, Value i) {
    if (l == m.laneLoop) {
      lane = i;
    } else if (fusedPair && l == fusedPair->first) {
      Value inner = cIndex(b, loc, m.extent[fusedPair->second]);
      ivs[l] = arith::DivUIOp::create(b, loc, i, inner);
      ivs[fusedPair->second] = arith::RemUIOp::create(b, loc, i, inner);
    } else if (!m.parallelLoops.empty() && l == m.parallelLoops.back()) {
      ivs[l] = column(b, loc, i);
    } else {
      ivs[l] = i;
    }
  };
  auto kindOf = [&](unsigned l) {
    return b.getStringAttr(l == m.laneLoop ? "lanes" : "parallel");
  };
  // The taps the current tile needs: rows p in [lo, hi] of each parallel
  // loop read dimension `dim` at coef . p + c_t * t + constant, inside the
  // input for padLow <= that < padLow + size.
  auto tapBounds = [&](OpBuilder &b, Location loc) {
    SmallVector<Value> lo(numLoops), hi(numLoops);
    for (unsigned l : order) {
      if (l == m.laneLoop)
        continue;
      Value first = tileStart[l];
      Value last = arith::AddIOp::create(b, loc, first,
                                         cIndex(b, loc, tileLength[l] - 1));
      if (fusedPair && l == fusedPair->first) {
        unsigned inner = fusedPair->second;
        Value w = cIndex(b, loc, m.extent[inner]);
        lo[l] = arith::DivUIOp::create(b, loc, first, w);
        hi[l] = arith::DivUIOp::create(b, loc, last, w);
        // One image row: its columns; across rows: all of them.
        Value oneRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             lo[l], hi[l]);
        lo[inner] = arith::SelectOp::create(
            b, loc, oneRow, arith::RemUIOp::create(b, loc, first, w),
            cIndex(b, loc, 0));
        hi[inner] = arith::SelectOp::create(
            b, loc, oneRow, arith::RemUIOp::create(b, loc, last, w),
            cIndex(b, loc, m.extent[inner] - 1));
      } else if (!m.parallelLoops.empty() && l == m.parallelLoops.back()) {
        lo[l] = column(b, loc, first);
        hi[l] = column(b, loc, last);
      } else {
        lo[l] = first;
        hi[l] = last;
      }
    }
    for (unsigned l = 0; l < numLoops; ++l)
      tapLow[l] = tapHigh[l] = Value();
    for (const TapDim &t : tapDims) {
      Value pMin = cIndex(b, loc, t.coef[numLoops]), pMax = pMin;
      for (unsigned l = 0; l < numLoops; ++l) {
        if (!t.coef[l] || l == t.loop)
          continue;
        Value c = cIndex(b, loc, t.coef[l]);
        pMin = arith::AddIOp::create(b, loc, pMin,
                                     arith::MulIOp::create(b, loc, lo[l], c));
        pMax = arith::AddIOp::create(b, loc, pMax,
                                     arith::MulIOp::create(b, loc, hi[l], c));
      }
      Value c = cIndex(b, loc, t.coef[t.loop]);
      Value low = arith::CeilDivSIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, cIndex(b, loc, border.low[t.dim]),
                                pMax),
          c);
      Value high = arith::CeilDivSIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc,
              cIndex(b, loc, border.low[t.dim] + border.size[t.dim]), pMin),
          c);
      low = arith::MaxSIOp::create(
          b, loc, low, tapLow[t.loop] ? tapLow[t.loop] : cIndex(b, loc, 0));
      high = arith::MinSIOp::create(
          b, loc, high,
          tapHigh[t.loop] ? tapHigh[t.loop]
                          : cIndex(b, loc, m.extent[t.loop]));
      tapLow[t.loop] = low;
      tapHigh[t.loop] = high;
    }
  };
  std::function<void(OpBuilder &, Location, unsigned)> points =
      [&](OpBuilder &b, Location loc, unsigned level) {
        if (level == 0 && !tapDims.empty())
          tapBounds(b, loc);
        if (level == order.size())
          return registerBody(b, loc);
        unsigned l = order[level];
        int64_t count = tileLength[l] / m.step(l);
        if (count == 1) {
          setIndex(b, loc, l, tileStart[l]);
          return points(b, loc, level + 1);
        }
        auto loop = scf::ForOp::create(
            b, loc, cIndex(b, loc, 0), cIndex(b, loc, count),
            cIndex(b, loc, 1), ValueRange{},
            [&](OpBuilder &b, Location loc, Value p, ValueRange) {
              Value i = arith::AddIOp::create(
                  b, loc, tileStart[l],
                  arith::MulIOp::create(b, loc, p,
                                        cIndex(b, loc, m.step(l))));
              setIndex(b, loc, l, i);
              points(b, loc, level + 1);
              scf::YieldOp::create(b, loc);
            });
        loop->setAttr(kLoopAttr, kindOf(l));
        loop->setAttr(kUnrollAttr, b.getI64IntegerAttr(count));
      };
  std::function<void(OpBuilder &, Location, unsigned)> parallel =
      [&](OpBuilder &b, Location loc, unsigned level) {
        if (level == order.size())
          return points(b, loc, 0);
        unsigned l = order[level];
        int64_t size = m.unrollOf(l, *cur) * m.step(l);
        int64_t full = span[l] / size, tail = span[l] % size;
        auto at = [&](OpBuilder &b, Location loc, Value i) {
          return offset[l] ? Value(arith::AddIOp::create(b, loc, offset[l], i))
                           : i;
        };
        if (full) {
          auto loop = scf::ForOp::create(
              b, loc, cIndex(b, loc, 0), cIndex(b, loc, full * size),
              cIndex(b, loc, size), ValueRange{},
              [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
                tileStart[l] = at(b, loc, iv);
                tileLength[l] = size;
                parallel(b, loc, level + 1);
                scf::YieldOp::create(b, loc);
              });
          loop->setAttr(kLoopAttr, kindOf(l));
        }
        if (tail) {
          tileStart[l] = at(b, loc, cIndex(b, loc, full * size));
          tileLength[l] = tail;
          parallel(b, loc, level + 1);
        }
      };

  // The parallel nest, once per kind of column (Schedule::edge) when the
  // columns are not split by a block.
  // Which columns columns() emits: the interior, the border or both.
  enum class Columns { All, Interior, Border };
  Columns which = Columns::All;
  auto columns = [&](OpBuilder &b, Location loc) {
    unsigned inner = m.parallelLoops.empty() ? 0 : m.parallelLoops.back();
    if (!edges || offset[inner] || span[inner] != m.extent[inner])
      return parallel(b, loc, 0);
    auto piece = [&](int64_t from, int64_t to, const Schedule &sch) {
      if (from >= to)
        return;
      offset[inner] = from ? cIndex(b, loc, from) : Value();
      span[inner] = to - from;
      cur = &sch;
      parallel(b, loc, 0);
    };
    if (which != Columns::Border)
      piece(edgeLow, edgeHigh, s);
    // Both sides' border columns in one nest.
    borderColumns = true;
    if (which != Columns::Interior)
      piece(0, edgeLow + m.extent[inner] - edgeHigh, edgeSchedule);
    borderColumns = false;
    cur = &s;
    offset[inner] = Value();
    span[inner] = m.extent[inner];
  };

  // Loop `l` in blocks of `size` of its `whole` iterations (after `base`):
  // full blocks in a loop, the partial last block once, so every loop inside
  // keeps constant bounds; with `lo`/`hi`, only the blocks [lo, hi).
  auto blockLoop = [&](OpBuilder &b, Location loc, unsigned l, int64_t size,
                       int64_t whole, Value base, Value lo, Value hi,
                       llvm::function_ref<void(OpBuilder &, Location)> body) {
    int64_t full = whole / size, tail = whole % size;
    auto at = [&](OpBuilder &b, Location loc, Value block) -> Value {
      Value o = arith::MulIOp::create(b, loc, block, cIndex(b, loc, size));
      return base ? Value(arith::AddIOp::create(b, loc, base, o)) : o;
    };
    if (full) {
      Value from = lo ? lo : cIndex(b, loc, 0);
      Value to =
          hi ? Value(arith::MinSIOp::create(b, loc, hi, cIndex(b, loc, full)))
             : cIndex(b, loc, full);
      auto loop = scf::ForOp::create(
          b, loc, from, to, cIndex(b, loc, 1), ValueRange{},
          [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
            offset[l] = at(b, loc, iv);
            span[l] = size;
            body(b, loc);
            scf::YieldOp::create(b, loc);
          });
      loop->setAttr(kLoopAttr, b.getStringAttr("parallel"));
    }
    if (tail) {
      auto emitTail = [&](OpBuilder &b, Location loc) {
        offset[l] = at(b, loc, cIndex(b, loc, full));
        span[l] = tail;
        body(b, loc);
      };
      if (!lo) {
        emitTail(b, loc);
      } else {
        Value fullV = cIndex(b, loc, full);
        Value owned = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, lo, fullV),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, hi,
                                  fullV));
        scf::IfOp::create(b, loc, owned, [&](OpBuilder &b, Location loc) {
          emitTail(b, loc);
          scf::YieldOp::create(b, loc);
        });
      }
    }
    offset[l] = base;
    span[l] = whole;
  };

  // The border columns of the rows [begin, end) of the partitioned level
  // `bl` (of `whole` rows), in tiles of `edge` rows: the tiles whose first
  // row lies in the range.
  auto emitBorderTiles = [&](OpBuilder &b, Location loc,
                             const Impl::BlockLevel &bl, int64_t whole) {
    auto firstTile = [&](Value block) -> Value {
      // ceil(min(block * size, whole) / edge)
      Value row = arith::MinSIOp::create(
          b, loc, arith::MulIOp::create(b, loc, block, cIndex(b, loc, bl.size)),
          cIndex(b, loc, whole));
      return arith::CeilDivSIOp::create(b, loc, row, cIndex(b, loc, s.edge));
    };
    which = Columns::Border;
    blockLoop(b, loc, bl.loop, s.edge, whole, Value(), firstTile(begin),
              firstTile(end), columns);
    which = Columns::All;
  };

  // Block loops around them. The partitioned level runs over the tiles
  // [begin, end) only.
  SmallVector<Impl::BlockLevel> blocks = m.blockLevels(s);
  std::function<void(OpBuilder &, Location, unsigned)> emitBlocks =
      [&](OpBuilder &b, Location loc, unsigned i) {
        if (i == blocks.size())
          return columns(b, loc);
        const Impl::BlockLevel &bl = blocks[i];
        // Without a range, a level that is only there for the partition
        // would split what the register tile splits anyway.
        if (!bl.cache && !begin)
          return emitBlocks(b, loc, i + 1);
        unsigned l = bl.loop;
        int64_t whole = span[l];
        Value saved = offset[l];
        bool dynamic = bl.partitioned && begin;
        // A range over the rows that edge tiles run along: its blocks
        // (one register tile of rows) hold the interior columns only, and
        // the border columns run after them in tiles of `edge` rows, each
        // range taking the tiles whose first row is among its rows. (In
        // the blocks, edge tiles would shrink to the block's rows: 14x14x256
        // 3x3 pad 1 on 2 threads at 1.75x.)
        if (dynamic && edges && i + 1 == blocks.size() && !saved &&
            m.parallelLoops.size() >= 2 &&
            l == m.parallelLoops[m.parallelLoops.size() - 2])
          which = Columns::Interior;
        blockLoop(b, loc, l, bl.size, whole, saved, dynamic ? begin : Value(),
                  dynamic ? end : Value(), [&](OpBuilder &b, Location loc) {
                    emitBlocks(b, loc, i + 1);
                  });
        if (which == Columns::Interior)
          emitBorderTiles(b, loc, bl, whole);
      };
  emitBlocks(b, loc, 0);
  for (Value t : temporaries)
    memref::DeallocOp::create(b, loc, t);
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

std::string Schedule::text() const {
  std::string out = "unroll=";
  for (auto [i, u] : llvm::enumerate(unroll))
    out += (i ? "x" : "") + std::to_string(u);
  out += ",block=" + std::to_string(laneBlock);
  out += lanesOuter ? ",order=lanes-outer" : ",order=lanes-inner";
  if (panel)
    out += ",panel=" + std::to_string(panel);
  if (fuse)
    out += ",fuse=1";
  if (edge)
    out += ",edge=" + std::to_string(edge);
  return out;
}

FailureOr<Schedule> Schedule::parse(StringRef text, std::string &why) {
  Schedule s;
  bool sawUnroll = false;
  SmallVector<StringRef> fields;
  text.split(fields, ',');
  for (StringRef f : fields) {
    auto [key, value] = f.trim().split('=');
    if (key == "unroll") {
      sawUnroll = true;
      SmallVector<StringRef> parts;
      value.split(parts, 'x');
      for (StringRef p : parts) {
        int64_t u;
        if (p.getAsInteger(10, u) || u < 1 || u > 64) {
          why = "unroll factor '" + p.str() + "' is not an integer in [1, 64]";
          return failure();
        }
        s.unroll.push_back(u);
      }
    } else if (key == "block") {
      if (value.getAsInteger(10, s.laneBlock) || s.laneBlock < 0) {
        why = "block '" + value.str() + "' is not a non-negative integer";
        return failure();
      }
    } else if (key == "order") {
      if (value != "lanes-inner" && value != "lanes-outer") {
        why = "order '" + value.str() +
              "' is neither lanes-inner nor lanes-outer";
        return failure();
      }
      s.lanesOuter = value == "lanes-outer";
    } else if (key == "fuse") {
      if (value != "0" && value != "1") {
        why = "fuse '" + value.str() + "' is neither 0 nor 1";
        return failure();
      }
      s.fuse = value == "1";
    } else if (key == "edge") {
      if (value.getAsInteger(10, s.edge) || s.edge < 0 || s.edge > 64) {
        why = "edge '" + value.str() + "' is not an integer in [0, 64]";
        return failure();
      }
    } else if (key == "panel") {
      if (value.getAsInteger(10, s.panel) || s.panel < 0) {
        why = "panel '" + value.str() + "' is not a non-negative integer";
        return failure();
      }
    } else {
      why = "unknown schedule field '" + key.str() +
            "' (expected unroll, block, order, panel, fuse, edge)";
      return failure();
    }
  }
  if (!sawUnroll) {
    why = "the schedule has no unroll field";
    return failure();
  }
  return s;
}

std::string ScheduleSpace::text() const {
  std::string out = "parallel=";
  for (auto [i, p] : llvm::enumerate(parallel))
    out += (i ? "x" : "") + std::string(p ? "1" : "0");
  return out + ",lane=" + std::to_string(laneLoop) +
         ",lanes=" + std::to_string(lanes) +
         ",padded=" + std::to_string(lanesPadded);
}

FailureOr<ScheduleSpace> ScheduleSpace::parse(StringRef text) {
  ScheduleSpace s;
  SmallVector<StringRef> fields;
  text.split(fields, ',');
  bool ok = fields.size() == 4;
  for (StringRef f : fields) {
    auto [key, value] = f.split('=');
    if (key == "parallel") {
      SmallVector<StringRef> bits;
      value.split(bits, 'x');
      for (StringRef b : bits) {
        ok &= b == "0" || b == "1";
        s.parallel.push_back(b == "1");
      }
    } else if (key == "lane") {
      ok &= !value.getAsInteger(10, s.laneLoop);
    } else if (key == "lanes") {
      ok &= !value.getAsInteger(10, s.lanes) && s.lanes > 0;
    } else if (key == "padded") {
      ok &= !value.getAsInteger(10, s.lanesPadded) && s.lanesPadded > 0;
    } else {
      ok = false;
    }
  }
  if (!ok || s.laneLoop >= s.parallel.size())
    return failure();
  return s;
}

ScheduleSpace LaneDotKernel::space() const {
  const Impl &m = *impl;
  ScheduleSpace s;
  for (const auto &loop : m.c.loops)
    s.parallel.push_back(!loop.reduction);
  s.laneLoop = m.laneLoop;
  s.lanes = m.lanes;
  s.lanesPadded = m.lanesPadded;
  return s;
}

Schedule LaneDotKernel::defaultSchedule(const Target &target,
                                         ArrayRef<int64_t> inputShape,
                                         ArrayRef<int64_t> inputPadding) const {
  const Impl &m = *impl;
  Schedule s;
  s.unroll.assign(m.c.loops.size(), 1);

  // Register tile: `a` rows of one parallel loop (or of the two innermost
  // fused) by `b` registers of lanes, chosen by counting cycles, remainders
  // included: the rows and registers left over form one smaller tile. A
  // tile's reduction step costs its instructions; or, with fewer
  // accumulators than twice latency x issue rate (measured: 8 independent
  // vpdpbusd chains of latency 4 reach the peak, 4 do not), that many; or
  // its loads (b packed vectors and a broadcasts); plus a quarter cycle of
  // loop overhead. Tiles stay within the target's largest tile and leave
  // registers to spare. The constants are the target's cost model.
  const CostModel &cm = target.cost;
  double issue = std::max(1e-3, target.issueRate(*m.d));
  double chains = cm.accumulatorChains * target.latency(*m.d) * issue;
  int64_t registers = target.vectorRegistersOrAssumed();
  int64_t steps = m.reductionVolume() / m.extent[m.groupLoop] * m.groupTiles;
  int64_t laneRegs = m.lanesPadded / m.lanes;
  // The broadcast elements a tile reads over its reduction should stay in
  // L1 while the packed panel streams; the count adds a penalty beyond L1.
  // Rows of a conv2d share most of their windows (5 columns of 3x3 taps read
  // 7 columns).
  int64_t l1 = int64_t(target.l1dBytesOrAssumed());
  const ProgramOperand &bcOperand = m.c.operands[m.bcInput];
  std::map<std::pair<int, int64_t>, double> tileBytesSeen;
  auto tileBytes = [&](int rowLoop, int64_t a) {
    auto [it, fresh] = tileBytesSeen.try_emplace({rowLoop, a}, 0.0);
    if (!fresh)
      return it->second;
    double elements = 1;
    for (AffineExpr e : bcOperand.map.getResults()) {
      auto coef = linearCoefficients(e, m.c.loops.size());
      int64_t range = 1;
      for (unsigned l = 0; l < m.c.loops.size(); ++l) {
        int64_t span = m.c.loops[l].reduction ? m.extent[l]
                       : int(l) == rowLoop    ? a
                                              : 1;
        range += coef ? std::abs((*coef)[l]) * (span - 1) : span - 1;
      }
      elements *= range;
    }
    return it->second = elements * bcOperand.elementBytes();
  };
  // A tile of `a` rows of loop `rowLoop` and `b` registers running `frac`
  // of the reduction's steps (the rest are taps on a zero border).
  auto tileCycles = [&](int rowLoop, int64_t a, int64_t b, double frac) {
    double step = std::max({double(a * b), chains, double(a + b)}) / issue +
                  cm.loopOverheadCycles;
    if (tileBytes(rowLoop, a) > l1)
      step *= cm.l1OverflowFactor;
    return steps * frac * step +
           cm.accumulatorCycles * a * b; // and the accumulators
  };
  // Tiles of the same number of rows: how many, and the sum of their
  // fractions of the reduction.
  struct Tiles {
    int64_t rows, count;
    double frac;
    int loop = -1; ///< the loop the rows are of
  };
  auto cycles = [&](ArrayRef<Tiles> tiles, int64_t b) {
    double sum = 0;
    for (const Tiles &t : tiles) {
      if (!t.count)
        continue;
      double perTile = t.frac / t.count;
      sum += t.count *
             (laneRegs / b * tileCycles(t.loop, t.rows, b, perTile) +
              (laneRegs % b
                   ? tileCycles(t.loop, t.rows, laneRegs % b, perTile)
                   : 0.0));
    }
    return sum;
  };

  // The filter taps a zero border lets tiles skip (conv2d padding read in
  // place): the fraction of taps rows [lo, hi] of loop `l` need, over the
  // tap loops that loop alone indexes with.
  Border border = m.borderOf(inputShape, inputPadding);
  SmallVector<TapDim> taps = m.tapDimsOf(border);
  unsigned numLoops = m.c.loops.size();
  auto fraction = [&](unsigned l, int64_t lo, int64_t hi) {
    double f = 1;
    for (const TapDim &t : taps) {
      bool alone = t.coef[l] != 0;
      for (unsigned k = 0; k < numLoops; ++k)
        alone &= k == l || k == t.loop || !t.coef[k];
      if (!alone)
        continue;
      int64_t c = t.coef[numLoops];
      auto [from, to] = t.taps(border, c + t.coef[l] * lo, c + t.coef[l] * hi,
                               m.extent[t.loop]);
      f *= double(to - from) / m.extent[t.loop];
    }
    return f;
  };
  // Sum of fractions over the rows of loop `l` in [from, to), one by one,
  // and over its tiles of `a` (full ones, then the rest).
  auto rowsSum = [&](unsigned l, int64_t from, int64_t to) {
    double f = 0;
    for (int64_t p = from; p < to; ++p)
      f += fraction(l, p, p);
    return f;
  };
  // Each tile comes `count` times (once per row of the other loops), whose
  // fractions add up to `frac`.
  auto tilesOf = [&](unsigned l, int64_t from, int64_t to, int64_t a,
                     int64_t count, double frac, SmallVectorImpl<Tiles> &out) {
    int64_t n = to - from, full = n / a;
    double f = 0;
    for (int64_t k = 0; k < full; ++k)
      f += fraction(l, from + k * a, from + k * a + a - 1);
    out.push_back({a, full * count, f * frac, int(l)});
    if (n % a)
      out.push_back({n % a, count,
                     fraction(l, from + full * a, to - 1) * frac, int(l)});
  };
  int64_t volume = 1; // iterations of the parallel loops besides the lanes
  for (unsigned l : m.parallelLoops)
    volume *= m.extent[l];
  // All rows of loop `l` once, and of every other parallel loop.
  auto allRows = [&](unsigned l) {
    return m.extent[l] ? rowsSum(l, 0, m.extent[l]) / m.extent[l] : 1.0;
  };
  double uniform = 1; // mean fraction of a row
  for (unsigned l : m.parallelLoops)
    uniform *= allRows(l);
  bool pair = m.parallelLoops.size() >= 2;
  unsigned outer = pair ? m.parallelLoops[m.parallelLoops.size() - 2] : 0;
  unsigned inner = m.parallelLoops.empty() ? 0 : m.parallelLoops.back();

  // Candidates: rows of one parallel loop (or none), rows of the innermost
  // two fused, and with a border on the inner loop's taps, rows of the inner
  // loop on interior columns and of the outer on border columns (edge).
  int64_t edgeLow = 0, edgeHigh = 0;
  auto interior = m.interiorColumns(border, taps);
  bool edges = interior.has_value();
  if (edges)
    std::tie(edgeLow, edgeHigh) = *interior;
  double bestCycles = 0, bestLoads = 0;
  int64_t rowsPerTile = 1;
  auto consider = [&](ArrayRef<Tiles> tiles, int64_t a, int64_t b,
                      int row, bool fuse, int64_t edge) {
    // And all a broadcasts live at once with a packed vector (LLVM loads the
    // broadcasts first).
    auto fits = [&](int64_t rows) {
      return rows * b + b + cm.spareRegistersWithPacked <= registers &&
             rows * b + rows + cm.spareRegistersWithBroadcasts <= registers;
    };
    if (!fits(a) || (edge && !fits(edge)))
      return;
    double c = cycles(tiles, b);
    // Within the tie window, fewer loads per instruction win (measured on
    // vdpbf16ps: 4x4 beats 2x8 by 8%, 7x3 beats 2x8 by 30% on a 7x7
    // conv2d, where the count favours 2x8 by 1-3%).
    double loads = double(a + b) / (a * b);
    if (bestCycles == 0 || c < bestCycles * (1 - cm.tieWindow) ||
        (c < bestCycles * (1 + cm.tieWindow) && loads < bestLoads)) {
      bestCycles = c;
      bestLoads = loads;
      rowsPerTile = a;
      s.unroll.assign(m.c.loops.size(), 1);
      if (row >= 0)
        s.unroll[row] = a;
      s.unroll[m.laneLoop] = b;
      s.fuse = fuse;
      s.edge = edge;
    }
  };
  // The tiles of every candidate (they do not depend on b), then every b.
  struct Candidate {
    SmallVector<Tiles> tiles;
    int64_t a;
    int row;
    bool fuse;
    int64_t edge;
  };
  SmallVector<Candidate> candidates;
  // Edge tiles, considered first (winning ties) when border columns are a
  // large enough fraction of the columns: exact taps measured faster there (14x14x256
  // 3x3 pad 1 u8s8s32: 456 GOPS against 422-435 for rows of oh), slower
  // where there are few (224x224x3 7x7/2 pad 3: 280 against 328).
  auto edgeCandidates = [&] {
    if (!edges)
      return;
    {
      // Per (outer, inner) row: the other loops' count and fractions.
      int64_t count = volume / m.extent[inner] / m.extent[outer];
      double frac = count * uniform / allRows(outer) / allRows(inner);
      double outerRows = rowsSum(outer, 0, m.extent[outer]);
      // Border columns in tiles about as tall as the interior tile is wide,
      // split evenly (7 rows for a = 5: 4 + 3; 14 for a = 6: 5 + 5 + 4).
      // Measured on 7x7 3x3 pad 1 with 5x4 interior tiles: edge 4 ran at
      // 460 GOPS, 2 at 444, 6 (6 + 1) at 435-449.
      for (int64_t a = 1;
           a <= std::min<int64_t>(cm.maxTileRows, edgeHigh - edgeLow); ++a) {
        int64_t h = m.extent[outer];
        int64_t e = llvm::divideCeil(h, llvm::divideCeil(h, a));
        Candidate c{{}, a, a > 1 ? int(inner) : -1, false, e};
        tilesOf(inner, edgeLow, edgeHigh, a, count * m.extent[outer],
                frac * outerRows, c.tiles);
        for (int64_t p = 0; p < m.extent[inner]; ++p)
          if (p < edgeLow || p >= edgeHigh)
            tilesOf(outer, 0, m.extent[outer], e, count,
                    frac * fraction(inner, p, p), c.tiles);
        candidates.push_back(std::move(c));
      }
    }
  };
  bool edgesFirst =
      edges && double(edgeLow + m.extent[inner] - edgeHigh) >=
                   cm.edgeFirstFraction * m.extent[inner] - 1e-9;
  if (edgesFirst)
    edgeCandidates();
  candidates.push_back({{{1, volume, volume * uniform}}, 1, -1, false, 0});
  for (unsigned l : m.parallelLoops) {
    if (m.extent[l] < 2)
      continue;
    int64_t count = volume / m.extent[l];
    double frac = count * uniform / allRows(l);
    for (int64_t a = 2; a <= std::min<int64_t>(cm.maxTileRows, m.extent[l]);
         ++a) {
      Candidate c{{}, a, int(l), false, 0};
      tilesOf(l, 0, m.extent[l], a, count, frac, c.tiles);
      candidates.push_back(std::move(c));
    }
  }
  if (pair && m.extent[outer] > 1 && m.extent[inner] > 1) {
    int64_t w = m.extent[inner], rows = m.extent[outer] * w;
    int64_t count = volume / rows;
    double frac = count * uniform / allRows(outer) / allRows(inner);
    for (int64_t a = 2; a <= std::min<int64_t>(cm.maxTileRows, rows); ++a) {
      Candidate c{{{a, 0, 0, int(inner)}, {rows % a, 0, 0, int(inner)}},
                  a, int(inner), true, 0};
      for (int64_t first = 0; first < rows; first += a) {
        int64_t last = std::min(first + a, rows) - 1;
        int64_t o0 = first / w, o1 = last / w;
        double f = taps.empty()
                       ? 1.0
                       : fraction(outer, o0, o1) *
                             (o0 == o1 ? fraction(inner, first % w, last % w)
                                       : fraction(inner, 0, w - 1));
        Tiles &t = c.tiles[last - first + 1 == a ? 0 : 1];
        t.count += 1;
        t.frac += f;
      }
      for (Tiles &t : c.tiles) {
        t.frac *= frac;
        t.count *= count;
      }
      candidates.push_back(std::move(c));
    }
  }
  if (!edgesFirst)
    edgeCandidates();
  for (int64_t b = 1; b <= std::min<int64_t>(cm.maxTileRegisters, laneRegs);
       ++b)
    for (const Candidate &c : candidates)
      consider(c.tiles, c.a, b, c.row, c.fuse, c.edge);

  int64_t tile = m.lanes * s.unroll[m.laneLoop];
  // One panel per register tile of lanes: its reduction is contiguous.
  if (tile < m.lanesPadded)
    s.panel = tile;
  // The packed operand streams through once per tile of the other parallel
  // loops. When it does not fit in the target's share of L2 and is reused,
  // block the lane loop so that one block's panel does.
  int64_t budget =
      int64_t(double(target.l2BytesOrAssumed()) * cm.l2BlockFraction);
  if (volume > rowsPerTile && m.dataBytes > budget) {
    int64_t perLane = m.dataBytes / m.lanesPadded;
    int64_t block = std::max<int64_t>(1, budget / perLane / tile) * tile;
    if (block < m.lanesPadded)
      s.laneBlock = block;
  }
  return s;
}

LogicalResult LaneDotKernel::verify(const Schedule &s, std::string &why) const {
  const Impl &m = *impl;
  if (s.unroll.size() != m.c.loops.size()) {
    why = "the schedule unrolls " + std::to_string(s.unroll.size()) +
          " loops but the kernel has " + std::to_string(m.c.loops.size());
    return failure();
  }
  for (auto [l, u] : llvm::enumerate(s.unroll))
    if (u != 1 && m.c.loops[l].reduction) {
      why = "loop " + std::to_string(l) + " is a reduction; only parallel "
            "loops are unrolled into registers";
      return failure();
    }
  int64_t accumulators = 1;
  for (int64_t u : s.unroll)
    accumulators *= u;
  if (accumulators > 64) {
    why = "the register tile has " + std::to_string(accumulators) +
          " accumulators (at most 64)";
    return failure();
  }
  int64_t tile = m.lanes * s.unroll[m.laneLoop];
  if (s.fuse) {
    if (m.parallelLoops.size() < 2) {
      why = "fuse needs two parallel loops besides the lanes";
      return failure();
    }
    unsigned outer = m.parallelLoops[m.parallelLoops.size() - 2];
    if (s.unroll[outer] != 1) {
      why = "loop " + std::to_string(outer) +
            " is fused with the next one; the fused loop's unroll factor "
            "is the inner loop's, so its own must be 1";
      return failure();
    }
  }
  if (s.edge) {
    if (s.fuse || m.parallelLoops.size() < 2) {
      why = "edge needs unfused rows and two parallel loops besides the lanes";
      return failure();
    }
    // The edge tile: `edge` rows of the outer loop, one column, the other
    // factors as they are.
    unsigned inner = m.parallelLoops.back();
    unsigned outer = m.parallelLoops[m.parallelLoops.size() - 2];
    int64_t edgeAccumulators =
        accumulators / s.unroll[inner] / s.unroll[outer] * s.edge;
    if (edgeAccumulators > 64) {
      why = "the edge tile has " + std::to_string(edgeAccumulators) +
            " accumulators (at most 64)";
      return failure();
    }
  }
  if (s.panel % m.lanes) {
    why = "panel " + std::to_string(s.panel) +
          " is not a multiple of the instruction's " +
          std::to_string(m.lanes) + " lanes";
    return failure();
  }
  if (s.laneBlock % tile) {
    why = "block " + std::to_string(s.laneBlock) +
          " is not a multiple of the register tile's " + std::to_string(tile) +
          " lanes";
    return failure();
  }
  return success();
}

int64_t LaneDotKernel::partitionTiles(const Schedule &s) const {
  int64_t tiles = 1;
  impl->blockLevels(s, &tiles);
  return tiles;
}

FailureOr<LaneDotKernel> selectKernel(const MatchResult &result,
                                      std::string &why) {
  std::string first;
  for (const TensorizePlan &p : result.plans) {
    std::string reason;
    FailureOr<LaneDotKernel> k =
        LaneDotKernel::get(result.contraction, p, reason);
    if (succeeded(k))
      return k;
    if (first.empty())
      first = reason;
  }
  if (result.plans.empty()) {
    why = "no instruction applies";
    if (!result.rejected.empty())
      why += " (" + result.rejected.front().desc->name + ": " +
             result.rejected.front().reason + "; tisa match --all lists all)";
  } else {
    why = "no plan the code generator supports; the best: " + first;
  }
  return failure();
}

} // namespace tisa
