//===- TapRows.cpp - -tisa-tap-rows ---------------------------------------===//
//
// In a dense NHWC image the taps of one filter row, kw and c, are s * c
// contiguous elements, stride * c elements apart from one output column to
// the next. Where the target's cost model counts fewer cycles for it, this
// pass rewrites a convolution on memrefs as a contraction over one reduction
// loop t of s * c taps in place of (kw, c): the input read through a view
// whose rows overlap ([...][ow][s*c], strides [..., stride*c, 1]), the
// filter's adjacent (kw, c) dimensions collapsed into one. With few channels
// the instruction's groups then run along the row (ResNet-50's first layer:
// 21 taps in 6 groups of 4 instead of 7 pixels of 3 channels in a group
// each). The kernel library builds this form itself (ConvForm::TapRows in
// kernels/Contraction.h).
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace tisa {
#define GEN_PASS_DEF_TISATAPROWSPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

using IT = utils::IteratorType;

/// The loops of a convolution that reads its taps in rows: the input's
/// second-to-last index is stride * ow + kw, its last c; the filter has kw
/// and c as adjacent results; neither indexes anything else.
struct TapLoops {
  unsigned ow, kw, c;
  int64_t stride;
  unsigned filterKw; ///< the filter's result of kw (c's is the next)
};

/// Whether `e` is loop `l` alone.
bool isLoop(AffineExpr e, unsigned l) {
  auto d = dyn_cast<AffineDimExpr>(e);
  return d && d.getPosition() == l;
}

/// The ow and kw of the input's second-to-last index stride * ow + kw.
std::optional<TapLoops> windowLoops(linalg::LinalgOp op, AffineExpr w) {
  SmallVector<IT> iters = op.getIteratorTypesArray();
  std::optional<SmallVector<int64_t>> coeffs =
      linearCoefficients(w, op.getNumLoops());
  if (!coeffs || coeffs->back() != 0)
    return std::nullopt;
  std::optional<unsigned> kw, ow;
  int64_t stride = 0;
  for (unsigned l = 0; l < op.getNumLoops(); ++l) {
    int64_t k = (*coeffs)[l];
    if (k == 0)
      continue;
    if (iters[l] == IT::reduction && k == 1 && !kw)
      kw = l;
    else if (iters[l] == IT::parallel && k > 0 && !ow) {
      ow = l;
      stride = k;
    } else {
      return std::nullopt;
    }
  }
  if (!kw || !ow)
    return std::nullopt;
  return TapLoops{*ow, *kw, 0, stride, 0};
}

/// Whether memref type `t` is strided with a static offset and static
/// strides, and its dimensions d and d + 1 are one run of memory (d's
/// stride d + 1's extent times its stride).
bool collapsible(MemRefType t, unsigned d) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return false;
  return strides[d] == t.getDimSize(d + 1) * strides[d + 1];
}

std::optional<TapLoops> tapLoopsOf(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.hasDynamicShape() ||
      op->hasAttr(kPlanAttr) || op->hasAttr(kScheduleAttr) ||
      op->getNumRegions() != 1 ||
      !op->getRegion(0).getOps<linalg::IndexOp>().empty())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap in = maps[0], filter = maps[1], out = maps[2];
  unsigned rank = in.getNumResults();
  if (rank < 2)
    return std::nullopt;
  auto cDim = dyn_cast<AffineDimExpr>(in.getResult(rank - 1));
  if (!cDim || op.getIteratorTypesArray()[cDim.getPosition()] != IT::reduction)
    return std::nullopt;
  std::optional<TapLoops> t = windowLoops(op, in.getResult(rank - 2));
  if (!t)
    return std::nullopt;
  t->c = cDim.getPosition();
  if (t->c == t->kw)
    return std::nullopt;
  // kw and c index no other dimension of the input, nor the output.
  for (AffineExpr e : in.getResults().drop_back(2))
    if (e.isFunctionOfDim(t->kw) || e.isFunctionOfDim(t->c))
      return std::nullopt;
  if (out.isFunctionOfDim(t->kw) || out.isFunctionOfDim(t->c))
    return std::nullopt;
  // The filter: kw then c, adjacent, each alone.
  std::optional<unsigned> at;
  for (unsigned r = 0; r + 1 < filter.getNumResults(); ++r)
    if (isLoop(filter.getResult(r), t->kw) &&
        isLoop(filter.getResult(r + 1), t->c))
      at = r;
  if (!at)
    return std::nullopt;
  for (auto [r, e] : llvm::enumerate(filter.getResults()))
    if (r != *at && r != *at + 1 &&
        (e.isFunctionOfDim(t->kw) || e.isFunctionOfDim(t->c)))
      return std::nullopt;
  t->filterKw = *at;
  // In memory: the image dense over its last two dimensions (unit stride
  // last), the filter over (kw, c).
  auto inType = cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto filterType = cast<MemRefType>(op.getDpsInputs()[1].getType());
  if (!inType.isLastDimUnitStride() || !collapsible(inType, rank - 2) ||
      !collapsible(filterType, *at))
    return std::nullopt;
  return t;
}

/// The rewritten op's dimension of loop `l` (c dropped, kw becoming t), as
/// an expression.
AffineExpr tapDim(const TapLoops &t, unsigned l, MLIRContext *ctx) {
  assert(l != t.c && "c has no dimension of its own");
  return getAffineDimExpr(l - (l > t.c ? 1 : 0), ctx);
}

/// `map` on the rewritten op's loops; `drop` results left out.
AffineMap tapMap(const TapLoops &t, AffineMap map, unsigned loops,
                 ArrayRef<AffineExpr> results) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> dims;
  for (unsigned l = 0; l < loops; ++l)
    dims.push_back(l == t.c ? getAffineConstantExpr(0, ctx)
                            : tapDim(t, l, ctx));
  SmallVector<AffineExpr> out;
  for (AffineExpr e : results)
    out.push_back(e.replaceDims(dims));
  return AffineMap::get(loops - 1, 0, out, ctx);
}

} // namespace

MemRefType tapRowsViewType(MemRefType image, int64_t columns, int64_t stride,
                           int64_t taps) {
  unsigned rank = image.getRank();
  auto [strides, offset] = image.getStridesAndOffset();
  SmallVector<int64_t> shape(image.getShape());
  shape[rank - 2] = columns;
  shape[rank - 1] = taps;
  strides[rank - 2] *= stride;
  return MemRefType::get(
      shape, image.getElementType(),
      StridedLayoutAttr::get(image.getContext(), offset, strides),
      image.getMemorySpace());
}

namespace {

/// The rewritten contraction (the op's body cloned), its input view and
/// filter collapse inserted before `op`.
linalg::GenericOp buildTapRows(RewriterBase &rw, linalg::LinalgOp op,
                               const TapLoops &t) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  unsigned loops = op.getNumLoops();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  int64_t taps = extents[t.kw] * extents[t.c];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The input [...][ow][taps], rows stride * c elements apart.
  Value input = op.getDpsInputs()[0];
  MemRefType viewType = tapRowsViewType(cast<MemRefType>(input.getType()),
                                        extents[t.ow], t.stride, taps);
  auto [strides, offset] = viewType.getStridesAndOffset();
  ArrayRef<int64_t> shape = viewType.getShape();
  Value view = memref::ReinterpretCastOp::create(rw, loc, viewType, input,
                                                 offset, shape, strides);
  SmallVector<AffineExpr> inResults(maps[0].getResults().drop_back(2));
  inResults.push_back(getAffineDimExpr(t.ow, ctx));
  inResults.push_back(getAffineDimExpr(t.kw, ctx));
  // The filter with (kw, c) as one dimension.
  SmallVector<ReassociationIndices> groups;
  SmallVector<AffineExpr> filterResults;
  for (auto [r, e] : llvm::enumerate(maps[1].getResults())) {
    if (r == t.filterKw + 1)
      continue;
    groups.push_back(r == t.filterKw
                         ? ReassociationIndices{int64_t(r), int64_t(r) + 1}
                         : ReassociationIndices{int64_t(r)});
    filterResults.push_back(e);
  }
  Value filter =
      memref::CollapseShapeOp::create(rw, loc, op.getDpsInputs()[1], groups);
  SmallVector<IT> iters = op.getIteratorTypesArray();
  iters.erase(iters.begin() + t.c);
  auto generic = linalg::GenericOp::create(
      rw, loc, ValueRange{view, filter}, op.getDpsInits(),
      {tapMap(t, maps[0], loops, inResults),
       tapMap(t, maps[1], loops, filterResults),
       tapMap(t, maps[2], loops, maps[2].getResults())},
      iters);
  rw.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                       generic.getRegion().end());
  return generic;
}

/// `op`'s best plan and default schedule, as -tisa-select-plan would choose
/// them; none without a plan.
std::optional<PlannedKernel> planned(linalg::LinalgOp op,
                                    const TensorizeInputs &in) {
  std::string why;
  FailureOr<PlannedKernel> p = planKernel(op, in, /*schedule=*/"", why);
  if (failed(p))
    return std::nullopt;
  return std::move(*p);
}

/// The cycles the target's cost model counts for a plan (the matcher's
/// ranking, in countedCycles's units, plus its relayouts).
double cycles(const PlannedKernel &p) {
  return p.kernel->plan().cost.cycles;
}

struct TapRowsPass
    : public WithTensorizeInputs<tisa::impl::TisaTapRowsPassBase<TapRowsPass>> {
  using WithTensorizeInputs::WithTensorizeInputs;
  TapRowsPass(std::shared_ptr<const TensorizeInputs> given,
              llvm::StringRef scheduleText)
      : WithTensorizeInputs(std::move(given)) {
    schedule = scheduleText.str();
  }

  void runOnOperation() override {
    if (!inputs->target) {
      getOperation().emitError("-tisa-tap-rows: it compares plans, so it "
                               "needs a target");
      return signalPassFailure();
    }
    scheduleLoops.reset();
    if (!schedule.empty()) {
      std::string why;
      FailureOr<Schedule> s = Schedule::parse(schedule, why);
      if (failed(s)) {
        getOperation().emitError("-tisa-tap-rows: schedule '")
            << schedule << "': " << why;
        return signalPassFailure();
      }
      scheduleLoops = s->unroll.size();
    }
    SmallVector<std::pair<linalg::LinalgOp, TapLoops>> convs;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (std::optional<TapLoops> t = tapLoopsOf(op))
        convs.push_back({op, *t});
    });
    for (auto [op, t] : convs)
      rewriteIfCheaper(op, t);
  }

  /// The rows-of-taps form in place of `op` when its plan counts fewer
  /// cycles (beyond the target's tie window), or when the pipeline's
  /// schedule has that form's loops. Without a pipeline schedule the form
  /// kept records the plan and schedule compared, which -tisa-select-plan
  /// then keeps instead of planning it again.
  void rewriteIfCheaper(linalg::LinalgOp op, const TapLoops &t) {
    IRRewriter rw(op.getContext());
    rw.setInsertionPoint(op);
    linalg::GenericOp taps = buildTapRows(rw, op, t);
    auto tapsOp = cast<linalg::LinalgOp>(taps.getOperation());
    std::optional<PlannedKernel> rows = planned(tapsOp, *inputs);
    std::optional<PlannedKernel> pixels;
    bool better = false;
    if (rows && scheduleLoops) {
      better = *scheduleLoops == rows->contraction.loops.size();
    } else if (rows) {
      pixels = planned(op, *inputs);
      better = !pixels || cycles(*rows) < cycles(*pixels) *
                                              (1 - inputs->target->cost.tieWindow);
    }
    if (!scheduleLoops) {
      std::optional<PlannedKernel> &kept = better ? rows : pixels;
      linalg::LinalgOp keptOp = better ? tapsOp : op;
      if (kept)
        recordPlan(keptOp, kept->contraction, kept->kernel->plan(),
                   kept->schedule);
    }
    if (!better) {
      Operation *view = taps.getDpsInputs()[0].getDefiningOp();
      Operation *collapse = taps.getDpsInputs()[1].getDefiningOp();
      rw.eraseOp(taps);
      rw.eraseOp(view);
      rw.eraseOp(collapse);
      return;
    }
    rw.eraseOp(op);
  }

  /// The loops of the pipeline's schedule, when it has one.
  std::optional<size_t> scheduleLoops;
};

} // namespace

std::unique_ptr<Pass>
createTisaTapRowsPass(std::shared_ptr<const TensorizeInputs> inputs,
                      llvm::StringRef schedule) {
  return std::make_unique<TapRowsPass>(std::move(inputs), schedule);
}

} // namespace tisa
