//===- Evaluator.cpp - one assignment of the memory match, judged ---------===//
//
// For an assignment of instruction loops to runs of program loops (see
// Memory.cpp), the address coefficient of every operand along every
// instruction loop, the checks on them, and per operand how its register is
// loaded: directly, broadcast, strided, packed (linalg.pack parameters from
// the digits of a register row, verified against every row), or gathered.
//
//===----------------------------------------------------------------------===//

#include "MemoryImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace tisa::detail::memory {


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

bool Evaluator::derivePack(unsigned j, ArrayRef<std::optional<int64_t>> addr,
                           ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
                           ArrayRef<int> shares, ArrayRef<Unit> units,
                           ArrayRef<bool> active, PackDerivation &pack,
                           OperandPlan &plan) const {
  const InstrModel::Operand &op = model.operands[j];
  const ProgramAccess &a = access[programOperand(j)];
  unsigned rank = c.operands[programOperand(j)].shape.size();
  unsigned ni = model.extent.size();
  pack.progLoop.assign(ni, -1);
  pack.factor.assign(ni, 1);
  for (unsigned i = 0; i < ni; ++i) {
    int src = shares[i] >= 0 ? shares[i] : int(i);
    if (unitOf[src] < 0 || (addr[i] && *addr[i] == 0))
      continue; // the operand does not vary along it: a broadcast digit
    if (units[unitOf[src]].loops.size() != 1)
      return false;
    pack.progLoop[i] = units[unitOf[src]].loops[0];
    pack.factor[i] = shares[i] >= 0 ? eff[shares[i]] : 1;
  }
  // Digits of the first active row, as program tensor dimensions.
  int64_t firstRow = 0;
  while (firstRow < op.rows && !active[firstRow * op.width])
    ++firstRow;
  pack.len = 0;
  while (pack.len < op.width && active[firstRow * op.width + pack.len])
    ++pack.len;
  FailureOr<SmallVector<Digit>> digits =
      rowDigits(op, firstRow * op.width, pack.len, active);
  if (failed(digits))
    return false;
  // Outermost digits the operand does not vary along are a broadcast of the
  // packed group below them.
  pack.group = pack.len;
  while (!digits->empty() && addr[digits->back().loop] &&
         *addr[digits->back().loop] == 0) {
    pack.group /= digits->back().count;
    digits->pop_back();
  }
  struct DimDigit {
    unsigned dim;
    int64_t step, count;
  };
  SmallVector<DimDigit> row;
  for (const Digit &dg : *digits) {
    int l = pack.progLoop[dg.loop];
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
    DimDigit dd{unsigned(dim), dg.step * pack.factor[dg.loop], dg.count};
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
  pack.tileOf.assign(rank, 1);
  for (size_t x = 0; x + 1 < row.size(); ++x) {
    if (row[x].step != 1 || pack.tileOf[row[x].dim] != 1)
      return false;
    pack.tileOf[row[x].dim] = row[x].count;
  }
  const DimDigit &top = row.back();
  if (top.step != pack.tileOf[top.dim])
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
  return true;
}

bool Evaluator::packLoadable(unsigned j, const PackDerivation &pack,
                             const OperandPlan &plan,
                             ArrayRef<bool> active) const {
  const InstrModel::Operand &op = model.operands[j];
  const ProgramOperand &po = c.operands[programOperand(j)];
  const ProgramAccess &a = access[programOperand(j)];
  unsigned rank = po.shape.size();
  unsigned ni = model.extent.size();
  auto size = [&](unsigned d) {
    int64_t s = po.shape[d] == kDynamic ? runTimeStride(0) : po.shape[d];
    return llvm::divideCeil(s, pack.tileOf[d]);
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
      if (pack.progLoop[i] >= 0)
        loopValue[pack.progLoop[i]] += t[i] * pack.factor[i];
    int64_t off = 0;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t x = 0;
      for (unsigned l = 0; l < c.loops.size(); ++l)
        x += a.index[d][l] * loopValue[l];
      off += (x / pack.tileOf[d]) * outerStride[d];
      for (size_t y = 0; y < plan.innerDimsPos.size(); ++y)
        if (plan.innerDimsPos[y] == d)
          off += (x % pack.tileOf[d]) * innerStride[y];
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
          packedOffset(op.image[base + x]) - start != x % pack.group)
        return false;
  }
  return true;
}

bool Evaluator::tryPack(unsigned j, ArrayRef<std::optional<int64_t>> addr,
                        ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
                        ArrayRef<int> shares, ArrayRef<Unit> units,
                        ArrayRef<bool> active, OperandPlan &plan) {
  PackDerivation pack;
  if (!derivePack(j, addr, eff, unitOf, shares, units, active, pack, plan) ||
      !packLoadable(j, pack, plan, active))
    return false;
  const InstrModel::Operand &op = model.operands[j];
  const ProgramAccess &a = access[programOperand(j)];
  unsigned rank = c.operands[programOperand(j)].shape.size();
  plan.access = OperandPlan::Access::Packed;
  std::string packed;
  for (unsigned d : plan.outerDimsPerm)
    packed += "[" + dimName(c, a, d) +
              (pack.tileOf[d] > 1 ? "/" + std::to_string(pack.tileOf[d]) : "") +
              "]";
  for (int64_t t : plan.innerTiles)
    packed += "[" + std::to_string(t) + "]";
  plan.packedShape = packed;
  plan.runBytes = pack.group * op.elemBytes;
  plan.detail = llvm::formatv("pack {0} -> {1}", shapeText(c, a, rank), packed);
  if (pack.group < pack.len) {
    plan.bytesPerInstruction = pack.group * op.elemBytes;
    plan.detail +=
        llvm::formatv(", then broadcast {0} bytes", pack.group * op.elemBytes);
  }
  return true;
}

} // namespace tisa::detail::memory
