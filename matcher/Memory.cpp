//===- Memory.cpp - memory isomorphism: loop assignments and operands -----===//
//
// (The Evaluator, which judges one assignment, is in Evaluator.cpp.)
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

#include "MemoryImpl.h"
#include "tisa/Semantics/Layout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <numeric>

using namespace mlir;

namespace tisa::detail {

namespace memory {

//===----------------------------------------------------------------------===//
// The program side: address coefficients
//===----------------------------------------------------------------------===//

namespace {
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
} // namespace


/// Stand-in for a stride only run time knows: large, distinct per dimension,
/// so it never passes for a unit or a small stride.
int64_t runTimeStride(unsigned dim) { return int64_t(1) << (26 + dim); }


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


namespace {
std::string upper(StringRef s) { return s.upper(); }
} // namespace

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

} // namespace memory

using namespace memory;

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
