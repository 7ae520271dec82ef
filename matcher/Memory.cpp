//===- Memory.cpp - memory isomorphism: loop assignments and operands -----===//
//
// An assignment maps every instruction loop to a run of program loops of the
// same kind (parallel to parallel, reduction to reduction; a run of several
// adjacent loops is a fusion, im2col's view of a convolution), or, for a
// parallel loop the program lacks, to padding. Within one instruction tile,
// program loop values are tile origin + instruction loop values, so every
// operand's memory offset is  sum_i addr_i * t_i  with one address
// coefficient per instruction loop. The checks are all on those coefficients:
//
//  - an input must not vary along an instruction loop its instruction operand
//    does not index (the instruction would use one element for several);
//  - the accumulator must vary along exactly the loops its operand indexes,
//    injectively (no two instruction outputs on one program output);
//  - the register image (the instruction loop values at each register
//    position, from the description's layout) is loadable when offsets along
//    a register row are contiguous (Direct), repeat a contiguous group
//    (Broadcast), or rows are contiguous with one stride (Strided); otherwise
//    the operand is packed (linalg.pack parameters derived from the digits of
//    the register row) or, when no tiling of the tensor gives the register
//    order, gathered.
//
//===----------------------------------------------------------------------===//

#include "MatcherImpl.h"
#include "tisa/Semantics/Layout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <numeric>

using namespace mlir;

namespace tisa::detail {

std::string unitName(const Contraction &c, llvm::ArrayRef<unsigned> loops) {
  if (loops.empty())
    return "(padding)";
  std::string s;
  for (unsigned l : loops) {
    if (!s.empty())
      s += ".";
    s += c.loops[l].name;
  }
  return s;
}

//===----------------------------------------------------------------------===//
// The instruction side
//===----------------------------------------------------------------------===//

InstrModel buildInstrModel(const Description &d, const Target *target) {
  InstrModel m;
  m.desc = &d;
  linalg::GenericOp body = d.body;
  SmallVector<int64_t> ranges = body.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = body.getIteratorTypesArray();
  SmallVector<AffineMap> maps = body.getIndexingMapsArray();
  unsigned n = ranges.size();
  for (unsigned i = 0; i < n; ++i) {
    m.reduction.push_back(iters[i] == utils::IteratorType::reduction);
    m.extent.push_back(ranges[i]);
  }
  // Conventional names: the reduction is k; a parallel loop only operand 0
  // indexes is m, the others n.
  unsigned lhs = d.mulAcc.lhsInput;
  for (unsigned i = 0; i < n; ++i) {
    if (m.reduction[i]) {
      m.names.push_back("k");
      continue;
    }
    bool in0 = maps[lhs].isFunctionOfDim(i);
    bool in1 = maps[1 - lhs].isFunctionOfDim(i);
    m.names.push_back(in0 && !in1 ? "m" : "n");
  }
  // A known single segment (128-bit SVE) adds no loop.
  bool oneSegment = target && target->vectorBits == 128;
  if (d.isScalable() && !oneSegment) {
    m.segLoop = n;
    m.reduction.push_back(false);
    m.names.push_back("seg");
    if (target && target->vectorBits >= 128) {
      m.segments = target->vectorBits / 128;
    } else {
      m.segments = 2;
      m.segmentsKnown = false;
    }
    m.extent.push_back(m.segments);
  }
  m.macsPerIssue = 1;
  for (int64_t e : m.extent)
    m.macsPerIssue *= e;

  for (unsigned j = 0; j < 3; ++j) {
    InstrModel::Operand &op = m.operands[j];
    const OperandRegister &reg = d.registers[j];
    op.cls = reg.cls;
    op.uses.assign(m.extent.size(), false);
    for (AffineExpr e : maps[j].getResults())
      op.uses[cast<AffineDimExpr>(e).getPosition()] = true;
    if (m.segLoop >= 0)
      op.uses[m.segLoop] = true;
    op.elemBytes =
        std::max<unsigned>(1, reg.type.getElementTypeBitWidth() / 8);
    ArrayRef<int64_t> shape = reg.type.getShape();
    int64_t segs = m.segLoop >= 0 ? m.segments : 1;
    if (shape.size() == 2) {
      op.rows = shape[0];
      op.width = shape[1];
    } else {
      op.rows = 1;
      op.width = shape[0] * segs;
    }
    int64_t perSegment = reg.type.getNumElements();
    op.image.assign(op.rows * op.width, {});
    op.imageBytes = op.rows * op.width * op.elemBytes;
    ArrayRef<int64_t> semShape = d.operandShape(j);
    AffineMap map = maps[j];
    forEachIndex(semShape, [&](ArrayRef<int64_t> idx) {
      int64_t pos = registerElementIndex(d, j, idx);
      for (int64_t s = 0; s < segs; ++s) {
        SmallVector<int64_t, 4> t(m.extent.size(), 0);
        for (auto [r, e] : llvm::enumerate(map.getResults()))
          t[cast<AffineDimExpr>(e).getPosition()] = idx[r];
        if (m.segLoop >= 0)
          t[m.segLoop] = s;
        op.image[s * perSegment + pos] = std::move(t);
      }
    });
  }
  return m;
}

namespace {

//===----------------------------------------------------------------------===//
// The program side: address coefficients
//===----------------------------------------------------------------------===//

/// Linear coefficients of `e` per dimension, scaled; dimensions under a
/// floordiv/mod/ceildiv or a non-constant product are marked non-linear.
void linearCoefficients(AffineExpr e, int64_t scale,
                        SmallVectorImpl<int64_t> &coeffs,
                        SmallVectorImpl<bool> &nonlinear) {
  auto markAll = [&](AffineExpr sub) {
    sub.walk([&](AffineExpr x) {
      if (auto d = dyn_cast<AffineDimExpr>(x))
        nonlinear[d.getPosition()] = true;
    });
  };
  switch (e.getKind()) {
  case AffineExprKind::DimId:
    coeffs[cast<AffineDimExpr>(e).getPosition()] += scale;
    return;
  case AffineExprKind::Constant:
  case AffineExprKind::SymbolId:
    return;
  case AffineExprKind::Add: {
    auto bin = cast<AffineBinaryOpExpr>(e);
    linearCoefficients(bin.getLHS(), scale, coeffs, nonlinear);
    linearCoefficients(bin.getRHS(), scale, coeffs, nonlinear);
    return;
  }
  case AffineExprKind::Mul: {
    auto bin = cast<AffineBinaryOpExpr>(e);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return linearCoefficients(bin.getLHS(), scale * c.getValue(), coeffs,
                                nonlinear);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return linearCoefficients(bin.getRHS(), scale * c.getValue(), coeffs,
                                nonlinear);
    markAll(e);
    return;
  }
  default:
    markAll(e);
    return;
  }
}

/// Stand-in for a stride only run time knows: large, distinct per dimension,
/// so it never passes for a unit or a small stride.
int64_t runTimeStride(unsigned dim) { return int64_t(1) << (26 + dim); }

struct ProgramAccess {
  /// Per program loop: memory offset coefficient, or nullopt when the access
  /// is not linear in the loop.
  SmallVector<std::optional<int64_t>> addr;
  /// Per result (tensor dimension): index coefficients per program loop.
  SmallVector<SmallVector<int64_t>> index;
  SmallVector<int64_t> strides; ///< with run-time strides substituted
  bool runTimeStrides = false;
  /// Per tensor dimension: the program loop it is exactly (d_l), or -1.
  SmallVector<int> bareLoop;
};

ProgramAccess readAccess(const Contraction &c, unsigned p) {
  const ProgramOperand &po = c.operands[p];
  unsigned nl = c.loops.size();
  ProgramAccess a;
  SmallVector<int64_t> total(nl, 0);
  SmallVector<bool> nonlinear(nl, false);
  for (auto [d, e] : llvm::enumerate(po.map.getResults())) {
    int64_t stride = po.strides[d];
    if (stride == kDynamic) {
      stride = runTimeStride(d);
      a.runTimeStrides = true;
    }
    a.strides.push_back(stride);
    SmallVector<int64_t> coeffs(nl, 0);
    linearCoefficients(e, 1, coeffs, nonlinear);
    for (unsigned l = 0; l < nl; ++l)
      total[l] += coeffs[l] * stride;
    a.index.push_back(coeffs);
    auto dim = dyn_cast<AffineDimExpr>(e);
    a.bareLoop.push_back(dim ? int(dim.getPosition()) : -1);
  }
  for (unsigned l = 0; l < nl; ++l)
    a.addr.push_back(nonlinear[l] ? std::nullopt
                                  : std::optional<int64_t>(total[l]));
  return a;
}

/// A run of adjacent program loops of one kind that may feed one instruction
/// loop.
struct Unit {
  SmallVector<unsigned, 3> loops;
  bool reduction = false;
  int64_t extent = 1;
};

SmallVector<Unit> buildUnits(const Contraction &c, bool fuse) {
  SmallVector<Unit> units;
  unsigned nl = c.loops.size();
  for (unsigned l = 0; l < nl; ++l)
    units.push_back({{l}, c.loops[l].reduction, c.loops[l].extent});
  if (!fuse)
    return units;
  for (unsigned len = 2; len <= 3; ++len)
    for (unsigned l = 0; l + len <= nl; ++l) {
      Unit u{{}, c.loops[l].reduction, 1};
      bool ok = true;
      for (unsigned x = l; x < l + len; ++x) {
        ok &= c.loops[x].reduction == u.reduction &&
              c.loops[x].extent != kDynamic && c.loops[x].extent > 1;
        if (ok) {
          u.loops.push_back(x);
          u.extent *= c.loops[x].extent;
        }
      }
      if (ok)
        units.push_back(u);
    }
  return units;
}

/// Why an assignment failed; deeper stages are more informative.
struct Failure {
  int depth = -1;
  std::string reason;
  void note(int d, std::string r) {
    if (d > depth) {
      depth = d;
      reason = std::move(r);
    }
  }
};

std::string upper(StringRef s) { return s.upper(); }

/// Name of dimension `d` of a program operand: the loop that indexes it, in
/// capitals ("K"), or "D<d>".
std::string dimName(const Contraction &c, const ProgramAccess &a, unsigned d) {
  if (a.bareLoop[d] >= 0)
    return upper(c.loops[a.bareLoop[d]].name);
  return "D" + std::to_string(d);
}

std::string shapeText(const Contraction &c, const ProgramAccess &a,
                      unsigned rank) {
  std::string s;
  for (unsigned d = 0; d < rank; ++d)
    s += "[" + dimName(c, a, d) + "]";
  return s;
}

/// One digit of a register row: instruction loop `loop` advances by `step`
/// `count` times.
struct Digit {
  unsigned loop;
  int64_t step, count;
};

/// Mixed-radix digits of the instruction loop values along positions
/// [begin, begin + len) of the image, innermost first; fails when the row is
/// not such a product (or holds empty positions).
FailureOr<SmallVector<Digit>>
rowDigits(const InstrModel::Operand &op, int64_t begin, int64_t len,
          ArrayRef<bool> active) {
  auto at = [&](int64_t p) -> const SmallVector<int64_t, 4> & {
    return op.image[begin + p];
  };
  for (int64_t p = 0; p < len; ++p)
    if (!active[begin + p])
      return failure();
  SmallVector<Digit> digits;
  int64_t s = 1;
  while (s < len) {
    const auto &t0 = at(0), &ts = at(s);
    int changed = -1;
    for (unsigned i = 0; i < t0.size(); ++i)
      if (ts[i] != t0[i]) {
        if (changed >= 0)
          return failure();
        changed = i;
      }
    if (changed < 0 || ts[changed] <= t0[changed])
      return failure();
    int64_t step = ts[changed] - t0[changed];
    int64_t count = 1;
    while (s * (count + 1) <= len && s * count < len) {
      const auto &tn = at(s * count);
      bool ok = tn[changed] == t0[changed] + count * step;
      for (unsigned i = 0; i < t0.size() && ok; ++i)
        ok = i == unsigned(changed) || tn[i] == t0[i];
      if (!ok)
        break;
      ++count;
    }
    digits.push_back({unsigned(changed), step, count});
    s *= count;
  }
  // Every position must be the sum of its digits.
  for (int64_t p = 0; p < len; ++p) {
    SmallVector<int64_t, 4> t = at(0);
    int64_t rest = p;
    for (const Digit &dg : digits) {
      t[dg.loop] += (rest % dg.count) * dg.step;
      rest /= dg.count;
    }
    if (t != at(p))
      return failure();
  }
  return digits;
}

} // namespace

namespace {

/// Everything one (assignment, correspondence) evaluation needs.
class Evaluator {
public:
  Evaluator(const Contraction &c, const InstrModel &model,
            const ArithMatch &arith)
      : c(c), model(model), arith(arith) {
    for (unsigned p = 0; p < 3; ++p)
      access.push_back(readAccess(c, p));
  }

  /// `unitOf[i]`: the unit of instruction loop i, or -1 for padding;
  /// `shares[i]`: the instruction loop whose program loop i extends, or -1.
  FailureOr<TensorizePlan> evaluate(ArrayRef<Unit> units,
                                    ArrayRef<int> unitOf, ArrayRef<int> shares,
                                    Failure &failure);

private:
  unsigned programOperand(unsigned j) const {
    return j == 2 ? 2 : arith.programInputOf[j];
  }
  OperandPlan analyse(unsigned j, ArrayRef<std::optional<int64_t>> addr,
                      ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
                      ArrayRef<int> shares, ArrayRef<Unit> units);
  bool tryPack(unsigned j, ArrayRef<std::optional<int64_t>> addr,
               ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
               ArrayRef<int> shares, ArrayRef<Unit> units,
               ArrayRef<bool> active, OperandPlan &plan);

  const Contraction &c;
  const InstrModel &model;
  const ArithMatch &arith;
  SmallVector<ProgramAccess, 3> access;
};

/// Effective extent of instruction loop `i` under an assignment: the
/// instruction's, or, when the description has shape bounds (AMX) and the
/// program's extent is smaller, the program's rounded up to the 4-byte group
/// of a reduction.
int64_t effectiveExtent(const InstrModel &model, unsigned i,
                        int64_t programExtent) {
  int64_t e = model.extent[i];
  if (!model.desc->bounds || programExtent == kDynamic || programExtent >= e)
    return e;
  int64_t granule = 1;
  if (model.reduction[i])
    granule = std::max<int64_t>(1, 4 / model.operands[0].elemBytes);
  return std::min<int64_t>(e, llvm::alignTo(programExtent, granule));
}

FailureOr<TensorizePlan> Evaluator::evaluate(ArrayRef<Unit> units,
                                             ArrayRef<int> unitOf,
                                             ArrayRef<int> shares,
                                             Failure &failure) {
  const Description &d = *model.desc;
  unsigned ni = model.extent.size();
  // Program extent and effective instruction extent per instruction loop.
  SmallVector<int64_t> progExtent(ni, 1), eff(ni, 1);
  for (unsigned i = 0; i < ni; ++i) {
    if (shares[i] >= 0) {
      progExtent[i] = kDynamic; // digit of another loop's program loop
      eff[i] = model.extent[i];
      continue;
    }
    progExtent[i] = unitOf[i] >= 0 ? units[unitOf[i]].extent : 1;
    eff[i] = unitOf[i] >= 0 ? effectiveExtent(model, i, progExtent[i])
                            : model.extent[i];
  }

  // Address coefficients per instruction operand and instruction loop.
  SmallVector<SmallVector<std::optional<int64_t>>, 3> addr(3);
  for (unsigned j = 0; j < 3; ++j) {
    const ProgramAccess &a = access[programOperand(j)];
    addr[j].assign(ni, int64_t(0));
    for (unsigned i = 0; i < ni; ++i) {
      if (shares[i] >= 0 || unitOf[i] < 0)
        continue;
      const Unit &u = units[unitOf[i]];
      std::optional<int64_t> inner = a.addr[u.loops.back()];
      for (unsigned x = 0; x + 1 < u.loops.size() && inner; ++x) {
        std::optional<int64_t> outer = a.addr[u.loops[x]];
        int64_t innerExtent = 1;
        for (unsigned y = x + 1; y < u.loops.size(); ++y)
          innerExtent *= c.loops[u.loops[y]].extent;
        if (!outer || *outer != *inner * innerExtent)
          inner = std::nullopt; // not linear in the fused index
      }
      addr[j][i] = inner;
    }
    for (unsigned i = 0; i < ni; ++i)
      if (shares[i] >= 0) {
        std::optional<int64_t> base = addr[j][shares[i]];
        addr[j][i] = base ? std::optional<int64_t>(*base * eff[shares[i]])
                          : std::nullopt;
      }
  }

  auto loopText = [&](unsigned i) {
    int src = shares[i] >= 0 ? unitOf[shares[i]] : unitOf[i];
    return llvm::formatv("{0} (instruction loop {1})",
                         src >= 0 ? unitName(c, units[src].loops)
                                  : std::string("(padding)"),
                         model.names[i])
        .str();
  };

  // Inputs: no variation along loops the instruction operand does not index.
  for (unsigned j = 0; j < 3; ++j) {
    const ProgramOperand &po = c.operands[programOperand(j)];
    for (unsigned i = 0; i < ni; ++i) {
      if (model.operands[j].uses[i] || (addr[j][i] && *addr[j][i] == 0))
        continue;
      failure.note(1, llvm::formatv("{0} varies with {1}, which the "
                                    "instruction's operand {2} does not index",
                                    po.name, loopText(i), j));
      return mlir::failure();
    }
  }
  // Accumulator: one to one.
  {
    const ProgramOperand &po = c.operands[2];
    SmallVector<std::pair<int64_t, int64_t>> radix; // |coefficient|, extent
    for (unsigned i = 0; i < ni; ++i) {
      if (!model.operands[2].uses[i] || eff[i] == 1)
        continue;
      if (shares[i] < 0 && unitOf[i] < 0)
        continue; // padding: only index 0 is real
      if (!addr[2][i]) {
        failure.note(2, llvm::formatv("{0} is not linear in {1}", po.name,
                                      loopText(i)));
        return mlir::failure();
      }
      if (*addr[2][i] == 0) {
        failure.note(2, llvm::formatv("{0} does not vary with {1}: instruction "
                                      "outputs would collide",
                                      po.name, loopText(i)));
        return mlir::failure();
      }
      radix.push_back({std::abs(*addr[2][i]), eff[i]});
    }
    llvm::sort(radix);
    int64_t reach = 0;
    for (auto [coef, extent] : radix) {
      if (coef <= reach) {
        failure.note(2, llvm::formatv("two instruction outputs land on one "
                                      "element of {0}",
                                      po.name));
        return mlir::failure();
      }
      reach += coef * (extent - 1);
    }
  }

  TensorizePlan plan;
  plan.desc = &d;
  plan.programInputOf[0] = arith.programInputOf[0];
  plan.programInputOf[1] = arith.programInputOf[1];
  plan.repair = arith.repair;
  plan.relaxations = arith.relaxations;
  for (unsigned i = 0; i < ni; ++i) {
    LoopAssignment la;
    la.instrLoop = i;
    la.instrName = model.names[i];
    la.reduction = model.reduction[i];
    la.instrExtent = eff[i];
    la.scalable = int(i) == model.segLoop;
    la.sharesWith = shares[i];
    if (shares[i] >= 0)
      la.programLoops = units[unitOf[shares[i]]].loops;
    else if (unitOf[i] >= 0)
      la.programLoops = units[unitOf[i]].loops;
    la.programExtent = progExtent[i];
    plan.loops.push_back(la);
  }
  for (unsigned j = 0; j < 3; ++j)
    plan.operands.push_back(analyse(j, addr[j], eff, unitOf, shares, units));
  return plan;
}

OperandPlan Evaluator::analyse(unsigned j,
                               ArrayRef<std::optional<int64_t>> addr,
                               ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
                               ArrayRef<int> shares, ArrayRef<Unit> units) {
  const InstrModel::Operand &op = model.operands[j];
  unsigned p = programOperand(j);
  OperandPlan plan;
  plan.programOperand = p;
  plan.instrOperand = j;
  unsigned eb = op.elemBytes;
  unsigned ni = model.extent.size();

  // Positions in use under this assignment (AMX tiles may shrink).
  SmallVector<bool> active(op.image.size(), false);
  for (size_t pos = 0; pos < op.image.size(); ++pos) {
    if (op.image[pos].empty())
      continue;
    bool ok = true;
    for (unsigned i = 0; i < ni && ok; ++i)
      ok = op.image[pos][i] < eff[i];
    active[pos] = ok;
  }
  int64_t activeCount = llvm::count(active, true);
  plan.bytesPerInstruction = activeCount * eb;

  bool linear = llvm::all_of(llvm::seq<unsigned>(0, ni), [&](unsigned i) {
    return !op.uses[i] || addr[i].has_value();
  });
  // Offsets of every image position.
  std::vector<int64_t> offset(op.image.size(), 0);
  if (linear)
    for (size_t pos = 0; pos < op.image.size(); ++pos)
      if (active[pos])
        for (unsigned i = 0; i < ni; ++i)
          offset[pos] += *addr[i] * op.image[pos][i];

  auto bytesText = [](int64_t n) { return std::to_string(n) + " bytes"; };

  if (linear && op.cls == RegisterClass::Vector) {
    int64_t w = op.width;
    auto contiguousPrefix = [&](int64_t g) {
      for (int64_t x = 0; x < g; ++x)
        if (active[x] && offset[x] - offset[0] != x)
          return false;
      return true;
    };
    for (int64_t g = 1; g <= w; ++g) {
      if (w % g)
        continue;
      bool repeats = true;
      for (int64_t x = g; x < w && repeats; ++x)
        repeats = !active[x] || offset[x] == offset[x % g];
      if (!repeats || !contiguousPrefix(g))
        continue;
      plan.runBytes = g * eb;
      if (g == w) {
        plan.access = OperandPlan::Access::Direct;
        plan.detail = llvm::formatv("vector load of {0}", bytesText(w * eb));
      } else {
        plan.access = OperandPlan::Access::Broadcast;
        plan.bytesPerInstruction = g * eb;
        plan.detail = llvm::formatv("broadcast {0} to the {1}-byte register",
                                    bytesText(g * eb), w * eb);
      }
      return plan;
    }
  }
  if (linear && op.cls == RegisterClass::AMXTile) {
    bool rowsOk = true;
    int64_t stride = 0, rowsUsed = 0, colsUsed = 0;
    for (int64_t r = 0; r < op.rows && rowsOk; ++r) {
      int64_t base = r * op.width;
      if (!active[base])
        continue;
      ++rowsUsed;
      int64_t cols = 0;
      for (int64_t x = 0; x < op.width && rowsOk; ++x) {
        if (!active[base + x])
          continue;
        cols = x + 1;
        rowsOk = offset[base + x] - offset[base] == x;
      }
      colsUsed = std::max(colsUsed, cols);
      if (r == 1)
        stride = offset[base] - offset[0];
      else if (r > 1)
        rowsOk &= offset[base] - offset[0] == r * stride;
    }
    if (rowsOk) {
      plan.runBytes = colsUsed * eb;
      plan.access = rowsUsed > 1 && stride != colsUsed
                        ? OperandPlan::Access::Strided
                        : OperandPlan::Access::Direct;
      plan.detail =
          llvm::formatv("tile load: {0} rows of {1}, row stride {2}", rowsUsed,
                        bytesText(colsUsed * eb),
                        stride >= runTimeStride(0) ? std::string("(run time)")
                                                   : bytesText(stride * eb));
      return plan;
    }
  }
  if (linear && op.cls == RegisterClass::WarpFragment) {
    // Each lane loads its elements; report the contiguous run length.
    int64_t run = op.width;
    while (run > 1) {
      bool ok = true;
      for (size_t pos = 0; pos < op.image.size() && ok; ++pos) {
        if (!active[pos])
          continue;
        int64_t first = pos - (pos % op.width) % run;
        ok = active[first] && offset[pos] - offset[first] == int64_t(pos - first);
      }
      if (ok)
        break;
      run /= 2;
    }
    plan.access = OperandPlan::Access::Strided;
    plan.runBytes = run * eb;
    plan.detail = llvm::formatv("per-lane fragment loads, {0} per access",
                                bytesText(run * eb));
    return plan;
  }

  // Not loadable as it is: relayout.
  if (op.cls != RegisterClass::WarpFragment && linear &&
      tryPack(j, addr, eff, unitOf, shares, units, active, plan))
    return plan;
  plan.access = OperandPlan::Access::Gathered;
  plan.runBytes = op.cls == RegisterClass::AMXTile ? op.width * eb
                                                   : op.imageBytes;
  plan.detail = linear ? "gather into the register order (no tiling of the "
                         "tensor gives it)"
                       : "gather (im2col style): the access is not linear in "
                         "the fused loops";
  return plan;
}

bool Evaluator::tryPack(unsigned j, ArrayRef<std::optional<int64_t>> addr,
                        ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
                        ArrayRef<int> shares, ArrayRef<Unit> units,
                        ArrayRef<bool> active, OperandPlan &plan) {
  const InstrModel::Operand &op = model.operands[j];
  unsigned p = programOperand(j);
  const ProgramOperand &po = c.operands[p];
  const ProgramAccess &a = access[p];
  unsigned rank = po.shape.size();
  unsigned ni = model.extent.size();

  // The program loop (single) behind each instruction loop, and the factor
  // by which the instruction loop advances it.
  SmallVector<int> progLoop(ni, -1);
  SmallVector<int64_t> factor(ni, 1);
  for (unsigned i = 0; i < ni; ++i) {
    int src = shares[i] >= 0 ? shares[i] : int(i);
    if (unitOf[src] < 0 || (addr[i] && *addr[i] == 0))
      continue; // the operand does not vary along it: a broadcast digit
    if (units[unitOf[src]].loops.size() != 1)
      return false;
    progLoop[i] = units[unitOf[src]].loops[0];
    factor[i] = shares[i] >= 0 ? eff[shares[i]] : 1;
  }
  // Digits of the first active row, as program tensor dimensions.
  int64_t firstRow = 0;
  while (firstRow < op.rows && !active[firstRow * op.width])
    ++firstRow;
  int64_t len = 0;
  while (len < op.width && active[firstRow * op.width + len])
    ++len;
  FailureOr<SmallVector<Digit>> digits =
      rowDigits(op, firstRow * op.width, len, active);
  if (failed(digits))
    return false;
  // Outermost digits the operand does not vary along are a broadcast of the
  // packed group below them.
  int64_t group = len;
  while (!digits->empty() && addr[digits->back().loop] &&
         *addr[digits->back().loop] == 0) {
    group /= digits->back().count;
    digits->pop_back();
  }
  struct DimDigit {
    unsigned dim;
    int64_t step, count;
  };
  SmallVector<DimDigit> row;
  for (const Digit &dg : *digits) {
    int l = progLoop[dg.loop];
    if (l < 0)
      return false;
    int dim = -1;
    for (unsigned d = 0; d < rank; ++d)
      if (a.bareLoop[d] == l)
        dim = d;
    // The loop must index exactly one dimension, and that one alone.
    for (unsigned d = 0; d < rank; ++d)
      if (int(d) != dim && a.index[d][l] != 0)
        return false;
    if (dim < 0)
      return false;
    DimDigit dd{unsigned(dim), dg.step * factor[dg.loop], dg.count};
    if (!row.empty() && row.back().dim == dd.dim &&
        dd.step == row.back().step * row.back().count)
      row.back().count *= dd.count;
    else
      row.push_back(dd);
  }
  if (row.empty())
    return false;
  // All digits but the outermost become inner tiles (least significant digit
  // of their dimension, each dimension once); the outermost one's dimension
  // becomes the last outer dimension.
  SmallVector<int64_t> tileOf(rank, 1);
  for (size_t x = 0; x + 1 < row.size(); ++x) {
    if (row[x].step != 1 || tileOf[row[x].dim] != 1)
      return false;
    tileOf[row[x].dim] = row[x].count;
  }
  const DimDigit &top = row.back();
  if (top.step != tileOf[top.dim])
    return false;
  plan.innerDimsPos.clear();
  plan.innerTiles.clear();
  for (size_t x = row.size() - 1; x-- > 0;) {
    plan.innerDimsPos.push_back(row[x].dim);
    plan.innerTiles.push_back(row[x].count);
  }
  plan.outerDimsPerm.clear();
  for (unsigned d = 0; d < rank; ++d)
    if (d != top.dim)
      plan.outerDimsPerm.push_back(d);
  plan.outerDimsPerm.push_back(top.dim);

  // Verify: packed offsets make every register row contiguous, rows one
  // stride apart.
  auto size = [&](unsigned d) {
    int64_t s = po.shape[d] == kDynamic ? runTimeStride(0) : po.shape[d];
    return llvm::divideCeil(s, tileOf[d]);
  };
  SmallVector<int64_t> outerStride(rank), innerStride(plan.innerTiles.size());
  int64_t running = 1;
  for (size_t x = plan.innerTiles.size(); x-- > 0;) {
    innerStride[x] = running;
    running *= plan.innerTiles[x];
  }
  for (size_t x = rank; x-- > 0;) {
    outerStride[plan.outerDimsPerm[x]] = running;
    running *= size(plan.outerDimsPerm[x]);
  }
  auto packedOffset = [&](ArrayRef<int64_t> t) {
    SmallVector<int64_t> loopValue(c.loops.size(), 0);
    for (unsigned i = 0; i < ni; ++i)
      if (progLoop[i] >= 0)
        loopValue[progLoop[i]] += t[i] * factor[i];
    int64_t off = 0;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t x = 0;
      for (unsigned l = 0; l < c.loops.size(); ++l)
        x += a.index[d][l] * loopValue[l];
      off += (x / tileOf[d]) * outerStride[d];
      for (size_t y = 0; y < plan.innerDimsPos.size(); ++y)
        if (plan.innerDimsPos[y] == d)
          off += (x % tileOf[d]) * innerStride[y];
    }
    return off;
  };
  int64_t rowStride = 0, first = 0, rowsSeen = 0;
  for (int64_t r = 0; r < op.rows; ++r) {
    int64_t base = r * op.width;
    if (!active[base])
      continue;
    int64_t start = packedOffset(op.image[base]);
    if (rowsSeen == 0)
      first = start;
    else if (rowsSeen == 1)
      rowStride = start - first;
    else if (start - first != rowsSeen * rowStride)
      return false; // a tile load takes one row stride
    ++rowsSeen;
    for (int64_t x = 0; x < op.width; ++x)
      if (active[base + x] &&
          packedOffset(op.image[base + x]) - start != x % group)
        return false;
  }

  plan.access = OperandPlan::Access::Packed;
  std::string packed;
  for (unsigned d : plan.outerDimsPerm)
    packed += "[" + dimName(c, a, d) +
              (tileOf[d] > 1 ? "/" + std::to_string(tileOf[d]) : "") + "]";
  for (int64_t t : plan.innerTiles)
    packed += "[" + std::to_string(t) + "]";
  plan.packedShape = packed;
  plan.runBytes = group * op.elemBytes;
  plan.detail = llvm::formatv("pack {0} -> {1}", shapeText(c, a, rank), packed);
  if (group < len) {
    plan.bytesPerInstruction = group * op.elemBytes;
    plan.detail += llvm::formatv(", then broadcast {0} bytes", group * op.elemBytes);
  }
  return true;
}

} // namespace

void enumeratePlans(const Contraction &c, const InstrModel &model,
                    const ArithMatch &arith, const MatchOptions &options,
                    std::vector<TensorizePlan> &plans, std::string &why) {
  Evaluator evaluator(c, model, arith);
  SmallVector<Unit> units = buildUnits(c, options.fuseLoops);
  unsigned ni = model.extent.size();
  unsigned body = model.segLoop >= 0 ? ni - 1 : ni;
  Failure failure;

  if (llvm::none_of(c.loops, [](const ProgramLoop &l) { return l.reduction; })) {
    why = "the program has no reduction loop";
    return;
  }

  SmallVector<int> unitOf(ni, -1), shares(ni, -1);
  SmallVector<bool> used(c.loops.size(), false);
  auto tryAssignment = [&]() {
    FailureOr<TensorizePlan> plan =
        evaluator.evaluate(units, unitOf, shares, failure);
    if (succeeded(plan))
      plans.push_back(std::move(*plan));
  };
  // Segment loop: extends a mapped parallel loop's program loop, takes a
  // parallel program loop of its own, or is padding.
  auto assignSegment = [&]() {
    if (model.segLoop < 0)
      return tryAssignment();
    unsigned s = model.segLoop;
    for (unsigned i = 0; i < body; ++i)
      if (!model.reduction[i] && unitOf[i] >= 0 &&
          units[unitOf[i]].loops.size() == 1) {
        shares[s] = i;
        unitOf[s] = -1;
        tryAssignment();
        shares[s] = -1;
      }
    for (unsigned u = 0; u < c.loops.size(); ++u)
      if (!units[u].reduction && !used[u]) {
        unitOf[s] = u;
        tryAssignment();
        unitOf[s] = -1;
      }
  };
  std::function<void(unsigned, bool)> assign = [&](unsigned i,
                                                   bool allowPadding) {
    if (i == body)
      return assignSegment();
    for (auto [u, unit] : llvm::enumerate(units)) {
      if (unit.reduction != model.reduction[i])
        continue;
      if (llvm::any_of(unit.loops, [&](unsigned l) { return used[l]; }))
        continue;
      // Fuse only when the innermost loop does not fill whole tiles.
      if (unit.loops.size() > 1 &&
          c.loops[unit.loops.back()].extent % model.extent[i] == 0)
        continue;
      for (unsigned l : unit.loops)
        used[l] = true;
      unitOf[i] = u;
      assign(i + 1, allowPadding);
      unitOf[i] = -1;
      for (unsigned l : unit.loops)
        used[l] = false;
    }
    if (allowPadding && !model.reduction[i])
      assign(i + 1, allowPadding); // padding
  };
  assign(0, false);
  if (plans.empty()) {
    // Fewer program loops than the instruction has: pad instruction loops.
    Failure first = failure;
    assign(0, true);
    if (plans.empty() && first.depth >= failure.depth)
      failure = first;
  }
  if (plans.empty())
    why = failure.depth >= 0 ? failure.reason
                             : "no assignment of instruction loops to program "
                               "loops of the same kind";
}

} // namespace tisa::detail
