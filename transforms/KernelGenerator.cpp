//===- KernelGenerator.cpp - the generator for a plan's register class ---===//
//
// Which code generator a plan goes to (by the register class of its
// instruction) and which plan of a contraction is generated.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Target.h"
#include "tisa/Transforms/Tensorize.h"
#include "tisa/Transforms/ScalableDotKernel.h"
#include "tisa/Transforms/ScalableMatrixKernel.h"
#include "tisa/Transforms/TileKernel.h"

#include "CodegenUtils.h"

using namespace mlir;

namespace tisa {

KernelGenerator::~KernelGenerator() = default;

MemRefType KernelGenerator::packedBufferType(MLIRContext *ctx,
                                             const Schedule &s) const {
  return MemRefType::get({packedBytes(s)}, IntegerType::get(ctx, 8));
}

LogicalResult KernelGenerator::canFuse(const Epilogue &, std::string &why) const {
  why = plan().desc->name + "'s code generator does not apply epilogues";
  return failure();
}

LogicalResult appliesInRegisters(const KernelGenerator &kernel,
                                 const Epilogue &epilogue, std::string &why) {
  if (failed(Epilogue::check(epilogue.generic(), why)))
    return failure();
  return kernel.canFuse(epilogue, why);
}

namespace {
bool allRegistersOf(const Description &d, RegisterClass cls) {
  return llvm::all_of(d.registers,
                      [&](const OperandRegister &r) { return r.cls == cls; });
}

/// Whether dimension `d` of `o` depends on a loop of `loops`.
bool indexedBy(const ProgramOperand &o, unsigned d,
               llvm::function_ref<bool(unsigned)> loops) {
  for (unsigned l = 0; l < o.map.getNumDims(); ++l)
    if (loops(l) && o.map.getResult(d).isFunctionOfDim(l))
      return true;
  return false;
}

/// Whether loop `l` indexes an input through a window (with other loops, as
/// a convolution's output rows and columns do).
bool isWindowLoop(const Contraction &c, unsigned l) {
  return llvm::any_of(ArrayRef(c.operands).take_front(2),
                      [&](const ProgramOperand &o) {
                        return !o.dimOf(l) &&
                               llvm::any_of(o.map.getResults(),
                                            [&](AffineExpr e) {
                                              return e.isFunctionOfDim(l);
                                            });
                      });
}

/// `c` with runTimeBlock's extent for every loop that runs in blocks, and in
/// the operand dimensions such loops index (a window: the extent of its
/// loops' static ones).
Contraction withNominalExtents(const Contraction &c, const TensorizePlan &plan) {
  Contraction nominal = c;
  // The generator sees which loops run in blocks (their block is their
  // extent): its blocks may be smaller, down to one iteration.
  for (auto [l, loop] : llvm::enumerate(nominal.loops))
    if (c.loops[l].runsInBlocks())
      loop.extent = loop.block = runTimeBlock(c, plan, l);
  auto dynamicLoop = [&](unsigned l) { return c.loops[l].runsInBlocks(); };
  for (ProgramOperand &o : nominal.operands)
    for (auto [d, x] : llvm::enumerate(o.shape)) {
      if (!indexedBy(o, d, dynamicLoop))
        continue;
      // 1 + sum of coefficient x (extent - 1): what the loops reach.
      std::optional<SmallVector<int64_t>> coeffs =
          linearCoefficients(o.map.getResult(d), nominal.loops.size());
      assert(coeffs && "runTimeLoopBlocks takes only linear windows");
      x = 1;
      for (auto [l, loop] : llvm::enumerate(nominal.loops))
        x += (*coeffs)[l] * (loop.extent - 1);
    }
  return nominal;
}

FailureOr<std::unique_ptr<KernelGenerator>>
generatorFor(const Contraction &c, const TensorizePlan &plan,
             std::string &why) {
  // A scalable lane-dot (SVE sdot) or matrix multiply (SVE smmla): a
  // generator each. Three instruction loops (m, n, k): AMX tiles or matrix
  // segments (NEON mmla); two (lanes, group): lane-dot vectors.
  if (ScalableDotKernel::handles(plan)) {
    FailureOr<ScalableDotKernel> k = ScalableDotKernel::get(c, plan, why);
    if (failed(k))
      return failure();
    return std::unique_ptr<KernelGenerator>(
        std::make_unique<ScalableDotKernel>(std::move(*k)));
  }
  if (ScalableMatrixKernel::handles(plan)) {
    FailureOr<ScalableMatrixKernel> k = ScalableMatrixKernel::get(c, plan, why);
    if (failed(k))
      return failure();
    return std::unique_ptr<KernelGenerator>(
        std::make_unique<ScalableMatrixKernel>(std::move(*k)));
  }
  if (allRegistersOf(*plan.desc, RegisterClass::AMXTile) ||
      plan.loops.size() == 3) {
    FailureOr<TileKernel> k = TileKernel::get(c, plan, why);
    if (failed(k))
      return failure();
    return std::unique_ptr<KernelGenerator>(
        std::make_unique<TileKernel>(std::move(*k)));
  }
  FailureOr<LaneDotKernel> k = LaneDotKernel::get(c, plan, why);
  if (failed(k))
    return failure();
  return std::unique_ptr<KernelGenerator>(
      std::make_unique<LaneDotKernel>(std::move(*k)));
}
} // namespace

int64_t runTimeBlock(const Contraction &c, const TensorizePlan &plan,
                     unsigned loop) {
  if (int64_t block = c.loops[loop].block)
    return block;
  auto mapped = [&](unsigned l) {
    return llvm::any_of(plan.loops, [&](const LoopAssignment &a) {
      return llvm::is_contained(a.programLoops, l);
    });
  };
  if (mapped(loop))
    return kNominalExtent;
  // An instruction that takes two parallel loops (a tile's or segment's
  // rows and columns) has its register tile's rows among them.
  unsigned parallel = llvm::count_if(plan.loops, [&](const LoopAssignment &a) {
    return llvm::any_of(a.programLoops,
                        [&](unsigned l) { return !c.loops[l].reduction; });
  });
  if (parallel > 1)
    return 1;
  // Else the rows of a register tile: the innermost parallel loop the
  // instruction does not take (a GEMM's M, a convolution's output columns).
  std::optional<unsigned> rows;
  for (unsigned l = c.loops.size(); l-- > 0 && !rows;)
    if (!c.loops[l].reduction && !mapped(l))
      rows = l;
  if (!rows)
    return 1;
  // A convolution's output rows around its columns (both windows) run in
  // blocks of kNominalWindowRows and the columns in blocks of
  // kNominalExtent / kNominalWindowRows: a block keeps kNominalExtent
  // outputs, and a small image's blocks (7 = 4 + 2 + 1 columns) still fill
  // register tiles of fused rows and columns.
  std::optional<unsigned> around;
  for (unsigned l = *rows; l-- > 0 && !around;)
    if (!c.loops[l].reduction)
      around = l;
  bool image = around && isWindowLoop(c, *around) && isWindowLoop(c, *rows);
  if (loop == *rows)
    return image ? kNominalExtent / kNominalWindowRows : kNominalExtent;
  return image && loop == *around ? kNominalWindowRows : 1;
}

std::optional<LoopBlock> filterBlock(const Contraction &c,
                                     unsigned packedInput,
                                     const Target &target) {
  const ProgramOperand &packed = c.operands[packedInput],
                       &output = c.operands[2];
  // Only where run time gives a window loop (a convolution's output rows
  // or columns): its blocks each read the whole packed input.
  if (llvm::none_of(llvm::seq<unsigned>(0, c.loops.size()), [&](unsigned l) {
        return c.loops[l].extent == kDynamic && isWindowLoop(c, l);
      }))
    return std::nullopt;
  // The one static parallel loop the packed input and the output share.
  std::optional<unsigned> shared;
  for (auto [l, loop] : llvm::enumerate(c.loops)) {
    if (loop.reduction || !packed.dimOf(l) || !output.dimOf(l))
      continue;
    if (shared || loop.extent == kDynamic || loop.block)
      return std::nullopt;
    shared = l;
  }
  if (!shared)
    return std::nullopt;
  // Packed bytes per iteration of it: the packed input's other dimensions.
  int64_t bytes = packed.elementBytes();
  for (auto [d, x] : llvm::enumerate(packed.shape)) {
    if (d == *packed.dimOf(*shared))
      continue;
    if (x == kDynamic)
      return std::nullopt;
    bytes *= x;
  }
  auto budget = int64_t(double(target.l2BytesOrAssumed()) *
                        target.cost.l2BlockFraction);
  int64_t extent = c.loops[*shared].extent, block = kNominalExtent;
  while (block > target.cost.minFilterBlock && block * bytes > budget)
    block /= 2;
  if (extent * bytes <= budget || block >= extent)
    return std::nullopt;
  return LoopBlock{*shared, block};
}

Contraction withRunTimeExtents(const Contraction &c, ArrayRef<int64_t> loops) {
  Contraction program = c;
  for (int64_t l : loops)
    program.loops[l].extent = kDynamic;
  auto runTime = [&](unsigned l) { return llvm::is_contained(loops, l); };
  for (ProgramOperand &o : program.operands) {
    for (auto [d, x] : llvm::enumerate(o.shape))
      if (indexedBy(o, d, runTime))
        x = kDynamic;
    // A block's dense buffer has static strides where the program's, over
    // a dimension of run-time extent, had them only at run time.
    for (unsigned d = 0; d + 1 < o.shape.size() && d < o.strides.size(); ++d)
      if (llvm::is_contained(ArrayRef(o.shape).drop_front(d + 1), kDynamic))
        o.strides[d] = kDynamic;
  }
  return program;
}

std::optional<LoopWindow> loopWindow(const Contraction &c,
                                     const ProgramOperand &o, unsigned dim,
                                     unsigned loop) {
  std::optional<SmallVector<int64_t>> coeffs =
      linearCoefficients(o.map.getResult(dim), c.loops.size());
  if (!coeffs || coeffs->back() != 0 || (*coeffs)[loop] <= 0)
    return std::nullopt;
  LoopWindow w{(*coeffs)[loop], 0};
  for (auto [l, coeff] : llvm::enumerate(ArrayRef(*coeffs).drop_back())) {
    if (l == loop || coeff == 0)
      continue;
    if (coeff < 0 || c.loops[l].extent == kDynamic)
      return std::nullopt;
    w.halo += coeff * (c.loops[l].extent - 1);
  }
  return w;
}

FailureOr<RunTimeLoop> runTimeLoopBlocks(const Contraction &c,
                                         unsigned packedInput, unsigned loop,
                                         std::string &why) {
  const ProgramLoop &l = c.loops[loop];
  RunTimeLoop out;
  out.padded = l.reduction;
  for (auto [i, o] : llvm::enumerate(c.operands)) {
    SmallVector<unsigned> uses;
    for (auto [d, e] : llvm::enumerate(o.map.getResults()))
      if (e.isFunctionOfDim(loop))
        uses.push_back(d);
    out.padded |= !uses.empty() && i == packedInput;
    out.windows.push_back({});
    if (uses.empty()) {
      out.dims.push_back(std::nullopt);
      continue;
    }
    std::optional<unsigned> dim = o.dimOf(loop);
    std::optional<LoopWindow> window =
        uses.size() == 1 ? loopWindow(c, o, uses.front(), loop) : std::nullopt;
    // A window only in an input a parallel loop's blocks view, unpadded.
    bool viewed = !l.reduction && i != packedInput && i != 2;
    if (!dim && !(window && viewed)) {
      why = "loop " + l.name + " has a dynamic extent and indexes " + o.name +
            " together with loops of run-time extent (or not as a sum of "
            "loops times positive constants); a loop runs at run-time "
            "extents only as a whole dimension, or as a window with loops "
            "of static extent (a convolution's output rows)";
      return failure();
    }
    out.dims.push_back(dim ? dim : uses.front());
    if (window)
      out.windows.back() = *window;
  }
  return out;
}

FailureOr<std::unique_ptr<KernelGenerator>>
getKernelGenerator(const Contraction &c, const TensorizePlan &plan,
                   std::string &why) {
  SmallVector<unsigned> runTime;
  for (unsigned l = 0; l < c.loops.size(); ++l)
    if (c.loops[l].runsInBlocks())
      runTime.push_back(l);
  if (runTime.empty())
    return generatorFor(c, plan, why);
  auto kernel = generatorFor(withNominalExtents(c, plan), plan, why);
  if (failed(kernel))
    return failure();
  for (unsigned l : runTime) {
    std::string reason;
    if (failed(runTimeLoopBlocks(c, (*kernel)->packedInput(), l, reason))) {
      why = plan.desc->name + ": " + reason;
      return failure();
    }
  }
  return kernel;
}

namespace {
/// A contraction with run-time extents is counted on a nominal block whose
/// extents depend on the plan (runTimeBlock): the factor that brings its
/// cycles to every run-time loop at kNominalExtent, so plans compare per
/// multiply-accumulate.
double nominalScale(const Contraction &c, const TensorizePlan &plan) {
  double scale = 1;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (loop.extent == kDynamic)
      scale *= double(kNominalExtent) / runTimeBlock(c, plan, l);
  return scale;
}
} // namespace

double countedCycles(const Contraction &c, const KernelGenerator &kernel,
                     const Target &target, ArrayRef<int64_t> inputShape,
                     ArrayRef<int64_t> inputPadding) {
  return kernel.estimate(target, inputShape, inputPadding).cycles *
         nominalScale(c, kernel.plan());
}

void rankPlans(MatchResult &result, const Target &target,
               ArrayRef<int64_t> inputShape, ArrayRef<int64_t> inputPadding) {
  // GPU kernels come from the warp-fragment generator (tisa gen --target
  // sm_XX), which picks its plan itself; these generators take none.
  if (target.arch == TargetArch::NVPTX)
    return;
  // Plans the matcher ranks alike share a tie group (the matcher's order
  // within one says nothing).
  std::vector<unsigned> groupOf(result.plans.size(), 0);
  for (size_t i = 1; i < groupOf.size(); ++i)
    groupOf[i] = groupOf[i - 1] +
                 !rankTied(result.plans[i - 1], result.plans[i]);
  std::vector<TensorizePlan> counted, other;
  std::vector<unsigned> tieGroup;
  for (auto [i, p] : llvm::enumerate(result.plans)) {
    std::string why;
    auto kernel = getKernelGenerator(result.contraction, p, why);
    if (failed(kernel)) {
      p.cost.unsupported = why;
      other.push_back(std::move(p));
      continue;
    }
    ScheduleEstimate e = (*kernel)->estimate(target, inputShape, inputPadding);
    if (!e.infeasible.empty()) {
      p.cost.unsupported = p.desc->name + ": " + e.infeasible;
      other.push_back(std::move(p));
      continue;
    }
    p.cost.cycles = e.cycles * nominalScale(result.contraction, p) +
                    p.cost.overheadCycles;
    p.cost.schedule = e.schedule.text();
    counted.push_back(std::move(p));
    tieGroup.push_back(groupOf[i]);
  }
  // Repeatedly the first plan, in the matcher's order, within the tie window
  // of the cheapest left, unless a scalable plan within it does the work in
  // fewer instructions (its vectors wider than NEON's: neoverse-v1's 256
  // bits); but a scalable instruction yields to a fixed-length one the
  // matcher ranks alike (the same count: its code knows the vector length,
  // constant offsets, no predicates, which no count here sees).
  result.plans.clear();
  while (!counted.empty()) {
    double window = llvm::min_element(counted, [](const auto &a,
                                                  const auto &b) {
                      return a.cost.cycles < b.cost.cycles;
                    })->cost.cycles *
                    (1 + target.cost.tieWindow);
    auto within = [&](size_t i) { return counted[i].cost.cycles <= window; };
    size_t next = 0;
    while (!within(next))
      ++next;
    for (size_t i = next + 1; i < counted.size(); ++i)
      if (within(i) && counted[i].desc->isScalable() &&
          counted[i].cost.instructions < counted[next].cost.instructions)
        next = i;
    for (size_t i = next + 1;
         counted[next].desc->isScalable() && i < counted.size(); ++i)
      if (within(i) && tieGroup[i] == tieGroup[next] &&
          !counted[i].desc->isScalable())
        next = i;
    result.plans.push_back(std::move(counted[next]));
    counted.erase(counted.begin() + next);
    tieGroup.erase(tieGroup.begin() + next);
  }
  for (TensorizePlan &p : other)
    result.plans.push_back(std::move(p));
}

/// How closely description `d`'s types fit the program's: one point each
/// for the kind (integer or float), the input widths (in either order) and
/// the accumulator width. The closest instructions' rejections tell a user
/// most.
static int typeFit(const Description &d, const Contraction &c) {
  const MulAcc &a = d.mulAcc, &b = c.mulAcc;
  auto bits = [](Type t) { return t.getIntOrFloatBitWidth(); };
  auto widths = [&](const MulAcc &m) {
    unsigned l = bits(m.lhsType), r = bits(m.rhsType);
    return std::pair(std::min(l, r), std::max(l, r));
  };
  return int(a.isFloat == b.isFloat) + int(widths(a) == widths(b)) +
         int(bits(a.accType) == bits(b.accType));
}

FailureOr<std::unique_ptr<KernelGenerator>>
selectKernel(const MatchResult &result, std::string &why,
             const Target *target) {
  std::string first;
  for (const TensorizePlan &p : result.plans) {
    // Ranked unsupported (rankPlans: "NAME: why").
    std::string reason = p.cost.unsupported;
    if (!reason.empty()) {
      if (first.empty())
        first = reason;
      continue;
    }
    auto k = getKernelGenerator(result.contraction, p, reason);
    if (succeeded(k))
      return k;
    if (first.empty())
      first = reason;
  }
  if (result.plans.empty()) {
    why = "no instruction applies";
    // The most telling rejection: of an instruction of the target's
    // architecture (another's says nothing a flag could change), then of the
    // closest element types, then of one the target executes, else lacking
    // the fewest features, else the first.
    const Rejection *shown = nullptr;
    std::tuple<bool, int, bool, int> rank{};
    for (const Rejection &r : result.rejected) {
      bool executes = target && target->canExecute(*r.desc);
      bool sameArch = target && r.desc->target == target->arch;
      int lacking = sameArch && !executes
                        ? int(target->missingFeatures(*r.desc).size())
                        : 0;
      std::tuple<bool, int, bool, int> k{
          sameArch, typeFit(*r.desc, result.contraction), executes, -lacking};
      if (!shown || k > rank) {
        shown = &r;
        rank = k;
      }
    }
    if (shown)
      why += " (" + shown->desc->name + ": " + shown->reason +
             "; tisa match --all lists all)";
  } else {
    why = "no plan the code generator supports; the best: " + first;
  }
  return failure();
}

} // namespace tisa
