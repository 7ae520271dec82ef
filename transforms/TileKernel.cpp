//===- TileKernel.cpp - the tile generator: a plan checked, its sizes ------===//
//
// TileKernel::get reads a plan of a tile instruction (include/tisa/Transforms/
// TileKernel.h has the loop nest it generates) and refuses, with a reason,
// what it does not generate: fused or padded instruction loops, repairs,
// register images other than row-major A and C, an A whose k elements are
// not contiguous. The schedule of a tile kernel is its register tile: the
// unroll of the m and n loops in accumulator tiles.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/TileKernel.h"
#include "CodegenUtils.h"
#include "tisa/Semantics/AffineEval.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Targets/Target.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "llvm/Support/MathExtras.h"

#include <set>

namespace tisa {

namespace {

/// The register image position (row, column) of the semantic element that
/// instruction iteration `point` reads from register `j`: a tile's 2-D
/// layout as it is; a vector segment's element index as rows of `cols`.
SmallVector<int64_t> imagePosition(const Description &d, unsigned j,
                                   ArrayRef<int64_t> point, int64_t cols) {
  AffineMap access = d.body.getIndexingMapsArray()[j];
  SmallVector<int64_t> at =
      valueAt(d.registers[j].layout, valueAt(access, point));
  if (at.size() == 1)
    return {at[0] / cols, at[0] % cols};
  return at;
}

/// Tile registers (AMX) or vector registers holding matrix segments (NEON
/// mmla), all of one class.
bool tileRegisters(const Description &d, std::string &why) {
  bool amx = llvm::all_of(d.registers, [](const OperandRegister &r) {
    return r.cls == RegisterClass::AMXTile;
  });
  bool vectors = llvm::all_of(d.registers, [](const OperandRegister &r) {
    return r.cls == RegisterClass::Vector && r.type.getRank() == 1;
  });
  if (!amx && !vectors) {
    why = "registers of mixed or unsupported classes; not generated";
    return false;
  }
  if (llvm::any_of(d.registers, [](const OperandRegister &r) {
        return r.type.isScalable();
      })) {
    why = "scalable (SVE) matrix segments are matched, not generated yet";
    return false;
  }
  return true;
}

} // namespace

LogicalResult TileKernel::readInstruction(std::string &why) {
  if (plan_.loops.size() != 3 || d->registers.size() != 3)
    return refuse(why, "not a tile instruction (loops m, n and k)");
  if (!tileRegisters(*d, why))
    return failure();
  segments = d->registers[0].cls == RegisterClass::Vector;
  if (plan_.repair)
    return refuse(why, "signedness repairs on tile instructions are not "
                       "generated yet (a description of the exact "
                       "signedness is)");
  const LoopAssignment *red = nullptr;
  SmallVector<const LoopAssignment *> par;
  for (const LoopAssignment &a : plan_.loops) {
    if (a.programLoops.size() != 1 || a.scalable)
      return refuse(why, "the plan fuses or pads instruction loops; only one "
                         "program loop per instruction loop is generated");
    (a.reduction ? red : par.emplace_back()) = &a;
  }
  if (!red || par.size() != 2)
    return refuse(why, "not a tile instruction (loops m, n and k)");
  kLoop = red->programLoops[0];
  // Tiles keep the description's whole shape even where the plan shrinks a
  // loop to a small program (a configurable tile): the remainder is padding.
  SmallVector<int64_t> whole = d->body.getStaticLoopRanges();
  kI = whole[red->instrLoop];
  cReg = d->accumulatorOperand();
  // A: the input register whose image is row = its parallel loop, column =
  // k, so that memory rows load as tile rows.
  unsigned nDims = d->body.getNumLoops();
  auto rowMajor = [&](unsigned j, const LoopAssignment &row,
                      const LoopAssignment &col, int64_t rows, int64_t cols) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < cols; ++k) {
        SmallVector<int64_t> point(nDims, 0);
        point[row.instrLoop] = r;
        point[col.instrLoop] = k;
        if (imagePosition(*d, j, point, cols) != SmallVector<int64_t>{r, k})
          return false;
      }
    return true;
  };
  for (unsigned j : {0u, 1u})
    for (unsigned p : {0u, 1u})
      if (j != cReg && d->body.getIndexingMapsArray()[j].isFunctionOfDim(
                           par[p]->instrLoop) &&
          rowMajor(j, *par[p], *red, whole[par[p]->instrLoop], kI)) {
        aReg = j;
        bReg = 1 - j;
        mLoop = par[p]->programLoops[0];
        nLoop = par[1 - p]->programLoops[0];
        mI = whole[par[p]->instrLoop];
        nI = whole[par[1 - p]->instrLoop];
        if (!rowMajor(cReg, *par[p], *par[1 - p], mI, nI))
          return refuse(why, "the accumulator's register image is not row-major "
                             "(m, n); not generated yet");
        if (segments && (!canSegment(d->registers[aReg], mI, kI) ||
                         !canSegment(d->registers[cReg], mI, nI)))
          return refuse(why, "A or C is not exactly its " + std::to_string(mI) +
                                 "-row matrix segment");
        return success();
      }
  return refuse(why, "no input register image is row-major (m, k); not "
                     "generated yet");
}

LogicalResult TileKernel::readLoops(std::string &why) {
  for (auto [l, loop] : llvm::enumerate(c.loops)) {
    if (loop.extent == kDynamic)
      return refuse(why, "loop " + loop.name +
                             " has a dynamic extent; the code generator needs "
                             "static shapes");
    extent.push_back(loop.extent);
    if (l == mLoop || l == nLoop || l == kLoop)
      continue;
    (loop.reduction ? outerReduction : outerParallel).push_back(l);
  }
  return success();
}

LogicalResult TileKernel::readOperands(std::string &why) {
  aInput = plan_.programInputOf[aReg];
  bInput = plan_.programInputOf[bReg];
  const ProgramOperand &a = c.operands[aInput], &bOp = c.operands[bInput],
                       &out = c.operands[2];
  unsigned loops = c.loops.size();
  // A: linear in the loops; k only in its contiguous last dimension.
  for (auto [i, e] : llvm::enumerate(a.map.getResults())) {
    std::optional<SmallVector<int64_t>> coef = linearCoefficients(e, loops);
    if (!coef || llvm::any_of(*coef, [](int64_t x) { return x < 0; }))
      return refuse(why, a.name + " is not indexed by a sum of loops");
    bool last = i + 1 == a.map.getNumResults();
    if ((*coef)[kLoop] != (last ? 1 : 0) || (*coef)[nLoop] != 0)
      return refuse(why, "the k loop does not index the contiguous last "
                         "dimension of " +
                             a.name + " alone");
  }
  if (!isIdentityStride(a))
    return refuse(why, "the last dimension of " + a.name +
                           " is not contiguous");
  if (!bOp.map.isProjectedPermutation() || bOp.map.isFunctionOfDim(mLoop))
    return refuse(why, "the packed input " + bOp.name +
                           " is not indexed by plain loops without m");
  bOuter = loopsBesides(bOp.map, {nLoop, kLoop});
  if (!out.map.isProjectedPermutation() || out.map.getNumResults() == 0 ||
      out.map.getResults().back() !=
          getAffineDimExpr(nLoop, c.op->getContext()) ||
      !isIdentityStride(out))
    return refuse(why, "the n loop is not the contiguous last dimension of " +
                           out.name);
  return success();
}

LogicalResult TileKernel::readSegmentA(std::string &why) {
  const ProgramOperand &a = c.operands[aInput];
  unsigned loops = c.loops.size();
  std::optional<unsigned> dim;
  for (auto [i, e] : llvm::enumerate(a.map.getResults())) {
    int64_t coef = (*linearCoefficients(e, loops))[mLoop];
    if (!coef)
      continue;
    if (dim)
      return refuse(why, "the m loop indexes more than one dimension of " +
                             a.name);
    dim = i;
    aMStride = coef;
  }
  if (!dim)
    return refuse(why, "the m loop does not index " + a.name);
  if (*dim + 1 == a.map.getNumResults())
    return refuse(why, "the m loop indexes the last dimension of " + a.name +
                           ", which k's elements fill; not generated");
  aMDim = *dim;
  // A block's first row is a multiple of mI * tm rows (0 mod R in the
  // dimension); the other loops in it add their own residues.
  int64_t r = mI * aMStride;
  SmallVector<int64_t> coef =
      *linearCoefficients(a.map.getResult(aMDim), loops);
  std::set<int64_t> residues = {coef.back() % r};
  for (unsigned l = 0; l < loops; ++l) {
    if (l == mLoop || !coef[l])
      continue;
    std::set<int64_t> next;
    for (int64_t at : residues)
      for (int64_t v = 0; v < std::min(extent[l], r); ++v)
        next.insert((at + coef[l] * v) % r);
    residues = std::move(next);
  }
  aResidues = *residues.rbegin() + 1;
  // How many registers past a block's first the other loops reach (a
  // conv2d's taps): the packed A's groups hold as many more.
  int64_t reach = coef.back();
  for (unsigned l = 0; l < loops; ++l)
    if (l != mLoop)
      reach += coef[l] * (extent[l] - 1);
  aShift = reach / r;
  return success();
}

FailureOr<TileKernel> TileKernel::get(const Contraction &c,
                                      const TensorizePlan &plan,
                                      std::string &why) {
  TileKernel k;
  k.c = c;
  k.plan_ = plan;
  k.d = plan.desc;
  std::string reason;
  if (failed(k.readInstruction(reason)) || failed(k.readLoops(reason)) ||
      failed(k.readOperands(reason)) ||
      (k.segments && failed(k.readSegmentA(reason))) ||
      failed(readLoweringSignature(*k.d, c.op->getContext(), k.signature,
                                   reason))) {
    why = k.d->name + ": " + reason;
    return failure();
  }
  return k;
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> TileKernel::registerTile(const Schedule &s) const {
  if (s.unroll.size() != extent.size())
    return {1, 1};
  return {s.unroll[mLoop], s.unroll[nLoop]};
}

namespace {
/// `tiles` in blocks of `size`: (a block's tiles, how many such blocks),
/// the whole blocks, then the short last one if any.
SmallVector<std::pair<int64_t, int64_t>, 2> blockSizes(int64_t tiles,
                                                       int64_t size) {
  SmallVector<std::pair<int64_t, int64_t>, 2> out;
  if (tiles / size)
    out.emplace_back(size, tiles / size);
  if (tiles % size)
    out.emplace_back(tiles % size, 1);
  return out;
}
} // namespace

int64_t TileKernel::shortRows(const Schedule &s) const {
  if (!segments || s.hold)
    return 0;
  return llvm::divideCeil(extent[mLoop], mI) % registerTile(s).first;
}

int64_t TileKernel::shortPanels(const Schedule &s) const {
  if (!segments || s.hold)
    return 0;
  return llvm::divideCeil(extent[nLoop], nI) % registerTile(s).second;
}

SmallVector<int64_t> TileKernel::paddedExtents(const Schedule &s) const {
  auto [tm, tn] = registerTile(s);
  SmallVector<int64_t> e(extent);
  e[mLoop] = llvm::alignTo(e[mLoop], mI * tm);
  // Held B tiles: n's last register tile is narrower instead of padded.
  e[nLoop] = llvm::alignTo(e[nLoop], nI * (s.hold ? 1 : tn));
  e[kLoop] = llvm::alignTo(e[kLoop], kI);
  return e;
}

SmallVector<int64_t>
TileKernel::operandExtents(unsigned i, ArrayRef<int64_t> loopExtents) const {
  SmallVector<int64_t> out;
  for (AffineExpr e : c.operands[i].map.getResults()) {
    SmallVector<int64_t> coef = *linearCoefficients(e, extent.size());
    int64_t last = coef.back();
    for (unsigned l = 0; l < extent.size(); ++l)
      last += coef[l] * (loopExtents[l] - 1);
    out.push_back(last + 1);
  }
  return out;
}

int64_t TileKernel::kSteps() const {
  return llvm::divideCeil(extent[kLoop], kI);
}

int64_t TileKernel::panels(const Schedule &s) const {
  return paddedExtents(s)[nLoop] / nI;
}

int64_t TileKernel::tileBytes(unsigned reg) const {
  const OperandRegister &r = d->registers[reg];
  return r.type.getNumElements() * r.type.getElementTypeBitWidth() / 8;
}

int64_t TileKernel::packedBytes(const Schedule &s) const {
  int64_t bytes = panels(s) * kSteps() * tileBytes(bReg);
  for (unsigned l : bOuter)
    bytes *= extent[l];
  return bytes;
}

std::string TileKernel::packedLayoutText(const Schedule &s) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (unsigned l : bOuter)
    os << "[" << c.loops[l].name << "=" << extent[l] << "]";
  const OperandRegister &r = d->registers[bReg];
  os << "[" << c.loops[nLoop].name << "/" << nI << "=" << panels(s) << "]["
     << c.loops[kLoop].name << "/" << kI << "=" << kSteps() << "]";
  if (segments)
    os << "[" << tileBytes(bReg) << " bytes] (registers";
  else
    os << "[" << tileRows(r) << " rows][" << tileBytesPerRow(r)
       << " bytes] (tiles";
  os << " of " << d->name << "'s register image, zero-padded)";
  return text;
}

AffineMap TileKernel::bTileOffset() const {
  // (k, n) -> the instruction iteration (m = 0) -> register (row, column) ->
  // row * bytes per row + column * element bytes.
  MLIRContext *ctx = c.op->getContext();
  const OperandRegister &r = d->registers[bReg];
  unsigned nDims = d->body.getNumLoops();
  SmallVector<AffineExpr> point(nDims, getAffineConstantExpr(0, ctx));
  for (const LoopAssignment &a : plan_.loops) {
    if (a.programLoops[0] == kLoop)
      point[a.instrLoop] = getAffineDimExpr(0, ctx);
    else if (a.programLoops[0] == nLoop)
      point[a.instrLoop] = getAffineDimExpr(1, ctx);
  }
  AffineMap image = r.layout.compose(
      d->body.getIndexingMapsArray()[bReg].compose(
          AffineMap::get(2, 0, point, ctx)));
  int64_t eltBytes = r.type.getElementType().getIntOrFloatBitWidth() / 8;
  if (image.getNumResults() == 1) // a vector register's element
    return AffineMap::get(2, 0, image.getResult(0) * eltBytes);
  return AffineMap::get(2, 0,
                        image.getResult(0) * tileBytesPerRow(r) +
                            image.getResult(1) * eltBytes);
}

Value TileKernel::bTile(OpBuilder &b, Location loc, Value outer, Value panel,
                        Value step, const Schedule &s) const {
  MLIRContext *ctx = b.getContext();
  AffineExpr o = getAffineDimExpr(0, ctx), p = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  int64_t tn = segments ? registerTile(s).second : 1;
  AffineExpr tile = ((o * (panels(s) / tn) + p.floorDiv(tn)) * kSteps() + k) *
                        tn +
                    p % tn;
  return affine::makeComposedAffineApply(b, loc, AffineMap::get(3, 0, tile),
                                         {outer, panel, step})
      .getResult();
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

int64_t TileKernel::tileRegisterBudget(const Target &target) const {
  // Vector segments share the vector register file with what LLVM keeps
  // beside a step's loads, as the lane-dot kernels' tiles do. A budget
  // below one accumulator and a tile of each input makes the plan
  // infeasible (estimate).
  if (!segments)
    return target.tileRegisters ? target.tileRegisters
                                : target.cost.assumedTileRegisters;
  return target.vectorRegistersOrAssumed();
}

bool TileKernel::canHoldB() const {
  // B must not change along the m blocks it is held over: only n, k and
  // reduction loops (filter taps) may index it.
  return !segments && llvm::all_of(bOuter, [&](unsigned l) {
    return llvm::is_contained(outerReduction, l);
  });
}

int64_t TileKernel::reductionSteps() const {
  int64_t steps = kSteps();
  for (unsigned l : outerReduction)
    steps *= extent[l];
  return steps;
}

int64_t TileKernel::registersNeeded(int64_t tm, int64_t tn,
                                    int64_t hold) const {
  if (segments)
    return tm * tn + tn + 2; // A streamed, a pair of rows at a time
  if (!hold)
    return tm * tn + tm + tn;
  // The held tiles, and one for a B tile of the other steps at a time.
  return tm * tn + tm + tn * hold + (hold < reductionSteps() ? 1 : 0);
}

std::pair<int64_t, int64_t> TileKernel::tileCost(int64_t m, int64_t n,
                                                 int64_t hold) const {
  // (instructions, tile loads) of the whole contraction in m x n tiles.
  int64_t mTiles = llvm::divideCeil(extent[mLoop], mI);
  int64_t nTiles = llvm::divideCeil(extent[nLoop], nI);
  int64_t steps = reductionSteps();
  int64_t mb = llvm::divideCeil(mTiles, m), nb = llvm::divideCeil(nTiles, n);
  // Segments: the instructions of each block's steps, a last short block in
  // m or n with its own accumulators (shortRows, shortPanels; a step reads
  // its adjacent registers in pairs, LLVM's ldp), then the fewest
  // instructions per step.
  if (segments) {
    int64_t total = 0;
    for (auto [rows, mCount] : blockSizes(mTiles, m))
      for (auto [cols, nCount] : blockSizes(nTiles, n))
        total += mCount * nCount *
                 (rows * cols + (rows + 1) / 2 + (cols + 1) / 2);
    return {total * steps, m * n + m + n};
  }
  if (!hold)
    return {mb * m * nb * n * steps, mb * nb * (m + n) * steps};
  // Per block, A's tiles of every step and B's of the steps not held (the
  // last, narrower block's fewer tiles rounded up).
  return {mb * m * nTiles * steps,
          nTiles * hold + mb * (nb * m * steps + nTiles * (steps - hold))};
}

Schedule TileKernel::tileSchedule(const Target &target, int64_t m, int64_t n,
                                  int64_t hold) const {
  Schedule s;
  s.unroll.assign(extent.size(), 1);
  s.unroll[mLoop] = m;
  s.unroll[nLoop] = n;
  s.hold = hold;
  // A segment step is short (NEON: 16 mmla and 8 loads): the loop's own
  // instructions count. An AMX step is long; its loop stays as it is.
  if (segments)
    s.reductionUnroll = segmentUnroll(target, m * n);
  return s;
}

ScheduleEstimate TileKernel::estimate(const Target &target, ArrayRef<int64_t>,
                                      ArrayRef<int64_t>) const {
  // The register tile whose accumulators and tiles fit the target's tile
  // registers with the fewest instructions (padding to whole register tiles
  // included), then the fewest tile loads. Held B tiles (Schedule::hold)
  // are loaded once per n block, for all its m blocks, and n is not padded.
  int64_t mTiles = llvm::divideCeil(extent[mLoop], mI);
  int64_t nTiles = llvm::divideCeil(extent[nLoop], nI);
  int64_t registers = tileRegisterBudget(target);
  if (registersNeeded(1, 1, 0) > registers)
    return {Schedule::untiled(extent.size()), 0,
            "no register tile fits: one accumulator and a tile of each input "
            "need " +
                std::to_string(registersNeeded(1, 1, 0)) +
                (segments ? " vector registers (with the cost model's spares)"
                          : " tile registers") +
                ", " + target.name + " has " + std::to_string(registers)};
  // Held tiles are reused across m blocks: with one, there is nothing to
  // hold them for.
  int64_t tm = 1, tn = 1, held = 0;
  int64_t maxHold = canHoldB() && mTiles > 1 ? reductionSteps() : 0;
  for (int64_t h = 0; h <= maxHold; ++h)
    for (int64_t m = 1; m <= mTiles; ++m)
      for (int64_t n = 1; n <= nTiles; ++n)
        if (registersNeeded(m, n, h) <= registers &&
            tileCost(m, n, h) < tileCost(tm, tn, held))
          tm = m, tn = n, held = h;
  Schedule s = tileSchedule(target, tm, tn, held);
  double cycles = countCycles(target, s);
  if (segments)
    fasterInTieWindow(target, s, cycles);
  return {s, cycles, ""};
}

void TileKernel::fasterInTieWindow(const Target &target, Schedule &s,
                                   double &cycles) const {
  // A tile within the tie window of the fewest instructions (s) replaces
  // that one when the cycles, which charge a short last block's latency,
  // put it beyond the window too (28x28x128 bf16 on neoverse-v2: 4x6 with
  // short blocks counted 4% fewer instructions than 14x2 and 41% more
  // cycles).
  auto [tm, tn] = registerTile(s);
  double window = tileCost(tm, tn, 0).first * (1 + target.cost.tieWindow);
  Schedule fastest = s;
  double fewest = cycles;
  int64_t registers = tileRegisterBudget(target);
  int64_t mTiles = llvm::divideCeil(extent[mLoop], mI);
  int64_t nTiles = llvm::divideCeil(extent[nLoop], nI);
  for (int64_t m = 1; m <= mTiles; ++m)
    for (int64_t n = 1; n <= nTiles; ++n) {
      if (registersNeeded(m, n, 0) > registers ||
          tileCost(m, n, 0).first > window)
        continue;
      Schedule other = tileSchedule(target, m, n, 0);
      if (double c = countCycles(target, other); c < fewest)
        fastest = other, fewest = c;
    }
  if (cycles > fewest * (1 + target.cost.tieWindow))
    s = fastest, cycles = fewest;
}

int64_t TileKernel::segmentUnroll(const Target &target,
                                  int64_t accumulators) const {
  const CostModel &cm = target.cost;
  int64_t unroll = cm.segmentReductionUnroll ? cm.segmentReductionUnroll
                                             : cm.reductionUnroll;
  int64_t longer = cm.segmentLongReductionUnroll;
  if (longer > unroll && kSteps() >= kMinLongUnrollTrips * longer &&
      target.vectorRegistersOrAssumed() - accumulators >=
          kMinFreeForLongUnroll)
    return longer;
  return unroll;
}

double TileKernel::countCycles(const Target &target, const Schedule &s) const {
  // As the lane-dot kernels count a step: its instructions, or the
  // accumulator chains the latency needs, or its tile loads, issued at the
  // instruction's rate; the loop overhead shared by the unrolled steps; each
  // accumulator loaded and stored once per block. Held B tiles are loaded
  // once per n block, for all the m blocks.
  const CostModel &cm = target.cost;
  int64_t tm = registerTile(s).first, tn = registerTile(s).second;
  double issue = std::max(1e-3, target.issueRate(*d));
  double chains = cm.accumulatorChains * target.latency(*d) * issue;
  int64_t mTiles = llvm::divideCeil(extent[mLoop], mI);
  int64_t mBlocks = llvm::divideCeil(mTiles, tm);
  int64_t nTiles = llvm::divideCeil(extent[nLoop], nI);
  int64_t others = 1; // the loops besides m, n and k (conv2d: taps, rows)
  for (auto [l, e] : llvm::enumerate(extent))
    if (l != mLoop && l != nLoop && l != kLoop)
      others *= e;
  double heldShare = double(s.hold) / reductionSteps();
  auto block = [&](int64_t rows, int64_t n) {
    double loads = rows + n * (1 - heldShare) + n * heldShare / mBlocks;
    double step = std::max({double(rows * n), chains, loads}) / issue +
                  cm.loopOverheadCycles / s.reductionUnroll;
    return others * kSteps() * step + cm.accumulatorCycles * rows * n;
  };
  if (!s.hold) {
    // Segments: a last block in m or n has its own accumulators
    // (shortRows, shortPanels), and A is packed per call.
    if (!segments)
      return mBlocks * llvm::divideCeil(nTiles, tn) * block(tm, tn);
    double total = edgeCycles(target, s) + packACycles(target, s);
    for (auto [rows, mCount] : blockSizes(mTiles, tm))
      for (auto [cols, nCount] : blockSizes(nTiles, tn))
        total += mCount * nCount * block(rows, cols);
    return total;
  }
  return mBlocks * ((nTiles / tn) * block(tm, tn) +
                    (nTiles % tn ? block(tm, nTiles % tn) : 0));
}

double TileKernel::packACycles(const Target &target,
                               const Schedule &s) const {
  if (!segments)
    return 0;
  SmallVector<int64_t> shape =
      packedAShape(operandExtents(aInput, paddedExtents(s)), s);
  int64_t registers = 1;
  for (int64_t e : ArrayRef<int64_t>(shape).drop_back())
    registers *= e;
  return double(registers) * 2 * target.cost.accumulatorCycles;
}

double TileKernel::edgeCycles(const Target &target, const Schedule &s) const {
  // Segments: the blocks that leave C copy their valid elements out of the
  // scratch one by one: the part of C outside whole blocks, in every value
  // of the other parallel loops (an accumulating kernel's copy in, and an
  // epilogue's blocks, all through the scratch, are not counted).
  if (!segments)
    return 0;
  auto [tm, tn] = registerTile(s);
  int64_t m = extent[mLoop], n = extent[nLoop];
  // A short last block (shortRows, shortPanels) leaves C only in its last
  // segment.
  int64_t mRest = shortRows(s) && m % mI == 0 ? 0 : m % (tm * mI);
  int64_t nRest = shortPanels(s) && n % nI == 0 ? 0 : n % (tn * nI);
  int64_t elements = mRest * n + nRest * m - mRest * nRest;
  for (unsigned l : outerParallel)
    elements *= extent[l];
  return double(elements) * target.cost.edgeElementCycles;
}

ScheduleSpace TileKernel::space() const {
  ScheduleSpace sp;
  for (const ProgramLoop &l : c.loops)
    sp.parallel.push_back(!l.reduction);
  sp.laneLoop = nLoop;
  sp.lanes = nI;
  sp.lanesPadded = llvm::alignTo(extent[nLoop], nI);
  return sp;
}

LogicalResult TileKernel::verify(const Schedule &s, const Target *target,
                                 std::string &why) const {
  if (s.unroll.size() != extent.size())
    return refuse(why, "unroll needs " + std::to_string(extent.size()) +
                           " factors, one per program loop");
  for (auto [l, u] : llvm::enumerate(s.unroll))
    if (u < 1 || (u != 1 && l != mLoop && l != nLoop))
      return refuse(why, "a tile kernel unrolls only its m and n loops (" +
                             c.loops[mLoop].name + ", " + c.loops[nLoop].name +
                             "), by whole accumulator tiles");
  if (s.laneBlock || s.lanesOuter || s.panel || s.fuse || s.edge ||
      s.evenRows)
    return refuse(why, "tile kernels take only 'unroll', 'kunroll' and "
                       "'hold' (no block, order, panel, fuse, edge or even)");
  if (s.hold && !canHoldB())
    return refuse(why, std::string("hold keeps B's tiles over the m blocks: ") +
                           (segments ? "AMX tiles only, not matrix segments"
                                     : "a loop besides n and k that m "
                                       "blocks run along indexes B"));
  if (s.hold > reductionSteps())
    return refuse(why, "hold=" + std::to_string(s.hold) + " but a block has " +
                           std::to_string(reductionSteps()) +
                           " reduction steps");
  if (!target)
    return success();
  auto [tm, tn] = registerTile(s);
  int64_t need = registersNeeded(tm, tn, s.hold);
  if (tileRegisterBudget(*target) < need)
    return refuse(why, "a " + std::to_string(tm) + "x" + std::to_string(tn) +
                           " register tile needs " + std::to_string(need) +
                           (segments ? " vector registers" : " tile registers") +
                           " (accumulators, A and " +
                           (s.hold ? "held B tiles" : "B tiles") +
                           "); " + target->name + " has " +
                           std::to_string(tileRegisterBudget(*target)));
  return success();
}

int64_t TileKernel::partitionTiles(const Schedule &s) const {
  int64_t tiles = paddedExtents(s)[mLoop] / (mI * registerTile(s).first);
  for (unsigned l : outerParallel)
    tiles *= extent[l];
  return tiles;
}

} // namespace tisa
