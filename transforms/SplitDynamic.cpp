//===- SplitDynamic.cpp - -tisa-split-dynamic -----------------------------===//
//
// A tisa.compute or tisa.pack whose contraction has a loop of run-time
// extent becomes static ones on views along that loop, one loop at a time
// until none is left, so the generators only ever see static shapes: rows
// (a GEMM's M, a convolution's batch) in SplitRows.cpp, loops the packed
// input or the reduction depends on (N, K) in SplitPadded.cpp. The pass and
// what both splits do to a block's copy are here.
//
//===----------------------------------------------------------------------===//

#include "SplitDynamic.h"

#include "tisa/Transforms/Passes.h"

namespace tisa {
#define GEN_PASS_DEF_TISASPLITDYNAMICPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace split {

Value subviewAlong(OpBuilder &b, Location loc, Value v, unsigned dim,
                   OpFoldResult start, OpFoldResult size) {
  auto type = cast<MemRefType>(v.getType());
  unsigned rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  for (unsigned d = 0; d < rank; ++d)
    sizes.push_back(d != dim && type.isDynamicDim(d)
                        ? OpFoldResult(memref::DimOp::create(b, loc, v, d))
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  offsets[dim] = start;
  sizes[dim] = size;
  return memref::SubViewOp::create(b, loc, v, offsets, sizes, strides);
}

void markRunTime(OpBuilder &b, linalg::LinalgOp contraction, unsigned loop) {
  SmallVector<int64_t> runTime;
  if (auto given =
          contraction->getAttrOfType<DenseI64ArrayAttr>(kRunTimeLoopsAttr))
    llvm::append_range(runTime, given.asArrayRef());
  runTime.push_back(loop);
  contraction->setAttr(kRunTimeLoopsAttr, b.getDenseI64ArrayAttr(runTime));
}

namespace {
/// `arg`'s type with extent `size` in `dim`.
void setExtent(BlockArgument arg, unsigned dim, int64_t size) {
  auto type = cast<MemRefType>(arg.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  arg.setType(MemRefType::get(shape, type.getElementType(), type.getLayout(),
                              type.getMemorySpace()));
}
} // namespace

void retypeBlock(Operation *copy, const RunTimeLoop &blocks,
                 unsigned operandArg, int64_t size) {
  Block &program = copy->getRegion(0).front();
  for (auto [i, dim] : llvm::enumerate(blocks.dims))
    if (dim)
      setExtent(program.getArgument(i), *dim,
                blocks.windows[i].extent(size));
  if (auto pack = dyn_cast<PackOp>(copy)) {
    program.getArgument(operandArg).setType(pack.getSource().getType());
    return;
  }
  auto compute = cast<ComputeOp>(copy);
  // An input the op passes as it is (no zero border) has its type exactly.
  if (!compute.getInputPadding())
    program.getArgument(operandArg).setType(compute.getInput().getType());
  // The epilogue's accumulators as the contraction's output; its operands
  // and output of the op's (viewed) types.
  if (compute.getEpilogue().empty())
    return;
  Block &epilogue = compute.getEpilogue().front();
  epilogue.getArgument(0).setType(program.getArgument(2).getType());
  SmallVector<Value> values(compute.getEpilogueOperands());
  values.push_back(compute.getOutput());
  for (auto [arg, v] : llvm::zip(epilogue.getArguments().drop_front(), values))
    arg.setType(v.getType());
}

} // namespace split

namespace {

struct SplitDynamicPass
    : public WithTensorizeInputs<
          tisa::impl::TisaSplitDynamicPassBase<SplitDynamicPass>> {
  using WithTensorizeInputs::WithTensorizeInputs;
  void runOnOperation() override {
    // Blocks of one loop may still have run-time extents in another: split
    // until none has.
    SmallVector<Operation *> work;
    auto collect = [&](Operation *op) {
      if (llvm::isa<PackOp, ComputeOp>(op))
        work.push_back(op);
    };
    getOperation().walk(collect);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      Block *parent = op->getBlock();
      Operation *prev = op->getPrevNode(), *next = op->getNextNode();
      FailureOr<bool> split = splitOnce(op);
      if (failed(split))
        return signalPassFailure();
      if (!*split)
        continue;
      // The new ops lie between the ops around the old one.
      for (Operation *o = prev ? prev->getNextNode() : &parent->front();
           o != next; o = o->getNextNode())
        o->walk(collect);
    }
  }

  /// Whether a program may still have a loop to split (without planning
  /// it): an argument of run-time extent, or a loop longer than the block
  /// its plan (or tisa.loop_blocks) states. A block's static copy has neither.
  static bool mayNeedSplit(Block &program) {
    if (llvm::any_of(program.getArgumentTypes(), [](Type t) {
          return !cast<ShapedType>(t).hasStaticShape();
        }))
      return true;
    auto contraction = cast<linalg::LinalgOp>(program.front());
    ArrayRef<int64_t> pairs = statedLoopBlocks(contraction);
    SmallVector<int64_t> ranges = contraction.getStaticLoopRanges();
    for (size_t i = 0; i + 1 < size_t(pairs.size()); i += 2)
      if (pairs[i] < int64_t(ranges.size()) && ranges[pairs[i]] > pairs[i + 1])
        return true;
    return false;
  }

  /// The loop `planned` splits next: one run in static blocks with more
  /// than one (outermost: every block of the others then reads one block
  /// of the packed input), else the first of run-time extent; for a pack,
  /// only those its packed input depends on.
  static std::optional<unsigned> loopToSplit(const PlannedKernel &planned,
                                             bool compute) {
    const Contraction &c = planned.contraction;
    SmallVector<unsigned> loops;
    if (compute)
      loops = llvm::to_vector(llvm::seq<unsigned>(0, c.loops.size()));
    else
      loops = runTimePackedLoops(planned);
    for (unsigned l : loops)
      if (c.loops[l].extent != kDynamic && c.loops[l].runsInBlocks())
        return l;
    for (unsigned l : loops)
      if (c.loops[l].extent == kDynamic)
        return l;
    return std::nullopt;
  }

  /// Splits `op` (tisa.pack or tisa.compute) along its first loop of
  /// run-time extent that it runs in blocks (a pack: one its packed input
  /// depends on); whether it did.
  FailureOr<bool> splitOnce(Operation *op) const {
    Block &program = op->getRegion(0).front();
    if (!mayNeedSplit(program))
      return false;
    auto compute = dyn_cast<ComputeOp>(op);
    if (compute && !compute.getRange().empty())
      return op->emitOpError()
             << "has a range and a loop of run-time extent; give each "
                "thread its own rows of that loop instead";
    std::string why;
    auto contraction = cast<linalg::LinalgOp>(program.front());
    FailureOr<PlannedKernel> planned =
        planKernel(contraction, *inputs, "", why);
    if (failed(planned)) {
      if (why == "error")
        return failure();
      return op->emitOpError() << "its contraction has no plan: " << why;
    }
    std::optional<unsigned> loop = loopToSplit(*planned, bool(compute));
    if (!loop)
      return false;
    const Contraction &c = planned->contraction;
    FailureOr<RunTimeLoop> blocks =
        runTimeLoopBlocks(c, planned->kernel->packedInput(), *loop, why);
    if (failed(blocks))
      return op->emitOpError() << why;
    if (blocks->padded)
      return failed(split::splitPadded(op, *planned, *loop, *blocks))
                 ? FailureOr<bool>(failure())
                 : FailureOr<bool>(true);
    return failed(split::splitRows(compute, *planned, *loop, *blocks))
               ? FailureOr<bool>(failure())
               : FailureOr<bool>(true);
  }

};

} // namespace

std::unique_ptr<Pass>
createTisaSplitDynamicPass(std::shared_ptr<const TensorizeInputs> inputs) {
  return std::make_unique<SplitDynamicPass>(std::move(inputs));
}

} // namespace tisa
