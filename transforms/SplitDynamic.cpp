//===- SplitDynamic.cpp - -tisa-split-dynamic -----------------------------===//
//
// A tisa.compute whose contraction has a loop of run-time extent becomes
// static computations on views along that loop: full blocks of
// kNominalExtent in a loop, then the remainder by its binary digits (an
// outer loop, such as a convolution's batch: a loop of blocks of 1, as the
// plan assumed; see runTimeBlock). Every
// piece reads the same packed buffer with the same plan and schedule, so the
// generators only ever see static shapes.
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "CodegenUtils.h"

namespace tisa {
#define GEN_PASS_DEF_TISASPLITDYNAMICPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// The first loop of a compute's contraction with a run-time extent, and
/// what it indexes: dimensions of the program's operands and of the op's
/// operands (input, output, epilogue operands).
class DynamicLoop {
public:
  /// nullopt when every extent is static; failure with `why`.
  static FailureOr<std::optional<DynamicLoop>>
  find(ComputeOp op, const PlannedKernel &planned, std::string &why);

  /// Replaces `op` by the blocks of its loop.
  void split(ComputeOp op) const;

private:
  void addEpilogueOperands(ComputeOp op, unsigned outputDim);
  /// A copy of `op` on iterations [start, start + size) of the loop.
  ComputeOp block(OpBuilder &b, Location loc, ComputeOp op, Value start,
                  int64_t size) const;

  unsigned loop = 0;
  /// Per argument of the program region (inputs, output): the dimension.
  std::array<std::optional<unsigned>, 3> programDims;
  /// (operand number in the op, dimension) of each operand viewed.
  SmallVector<std::pair<unsigned, unsigned>> viewed;
  unsigned outputDim = 0;
  unsigned inputArg = 0; ///< the program argument the op's input is
  /// Iterations per block: runTimeBlock (kNominalExtent for a register
  /// tile's rows, 1 for an outer loop such as a convolution's batch).
  int64_t blockSize = kNominalExtent;
};

FailureOr<std::optional<DynamicLoop>>
DynamicLoop::find(ComputeOp op, const PlannedKernel &planned,
                  std::string &why) {
  const Contraction &c = planned.contraction;
  auto it = llvm::find_if(
      c.loops, [](const ProgramLoop &l) { return l.extent == kDynamic; });
  if (it == c.loops.end())
    return std::optional<DynamicLoop>();
  DynamicLoop d;
  d.loop = it - c.loops.begin();
  unsigned packed = planned.kernel->packedInput();
  FailureOr<SmallVector<std::optional<unsigned>, 3>> dims =
      runTimeLoopBlocks(c, packed, d.loop, why);
  if (failed(dims))
    return failure();
  if (!(*dims)[2]) {
    why = "loop " + c.loops[d.loop].name +
          " has a dynamic extent but does not index the output";
    return failure();
  }
  llvm::copy(*dims, d.programDims.begin());
  d.blockSize = runTimeBlock(c, planned.kernel->plan(), d.loop);
  d.inputArg = 1 - packed;
  if (std::optional<unsigned> in = (*dims)[1 - packed])
    d.viewed.push_back({op.getInputMutable().getOperandNumber(), *in});
  // A fused epilogue's generic runs over the output's dimensions (its map
  // for the output is the identity).
  d.outputDim = *(*dims)[2];
  d.viewed.push_back({op.getOutputMutable().getOperandNumber(), d.outputDim});
  d.addEpilogueOperands(op, d.outputDim);
  return std::optional<DynamicLoop>(std::move(d));
}

void DynamicLoop::addEpilogueOperands(ComputeOp op, unsigned outputDim) {
  linalg::GenericOp generic = op.getEpilogueOp();
  if (!generic)
    return;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineExpr along = getAffineDimExpr(outputDim, op.getContext());
  for (auto [i, operand] : llvm::enumerate(op.getEpilogueOperandsMutable()))
    if (std::optional<unsigned> dim = maps[i + 1].getResultPosition(along))
      viewed.push_back({operand.getOperandNumber(), *dim});
}

/// `v` at [start, start + size) along `dim`, whole in the others.
Value subviewAlong(OpBuilder &b, Location loc, Value v, unsigned dim,
                   Value start, int64_t size) {
  auto type = cast<MemRefType>(v.getType());
  unsigned rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  for (unsigned d = 0; d < rank; ++d)
    sizes.push_back(d != dim && type.isDynamicDim(d)
                        ? OpFoldResult(memref::DimOp::create(b, loc, v, d))
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  offsets[dim] = start;
  sizes[dim] = b.getIndexAttr(size);
  return memref::SubViewOp::create(b, loc, v, offsets, sizes, strides);
}

/// `arg`'s type with extent `size` in `dim`.
void setExtent(BlockArgument arg, unsigned dim, int64_t size) {
  auto type = cast<MemRefType>(arg.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  arg.setType(MemRefType::get(shape, type.getElementType(), type.getLayout(),
                              type.getMemorySpace()));
}

ComputeOp DynamicLoop::block(OpBuilder &b, Location loc, ComputeOp op,
                             Value start, int64_t size) const {
  SmallVector<Value> views;
  for (auto [number, dim] : viewed)
    views.push_back(
        subviewAlong(b, loc, op->getOperand(number), dim, start, size));
  auto copy = cast<ComputeOp>(b.clone(*op));
  for (auto [v, viewedOperand] : llvm::zip(views, viewed))
    copy->setOperand(viewedOperand.first, v);
  // The block is planned as the program was.
  linalg::LinalgOp contraction = copy.getContraction();
  SmallVector<int64_t> runTime;
  if (auto given =
          contraction->getAttrOfType<DenseI64ArrayAttr>(kRunTimeLoopsAttr))
    llvm::append_range(runTime, given.asArrayRef());
  runTime.push_back(loop);
  contraction->setAttr(kRunTimeLoopsAttr,
                       b.getDenseI64ArrayAttr(runTime));
  // The program's operands take the block's extent; an input the op passes
  // as it is (no zero border) has the view's type exactly.
  Block &program = copy.getProgram().front();
  for (auto [i, dim] : llvm::enumerate(programDims))
    if (dim)
      setExtent(program.getArgument(i), *dim, size);
  if (!copy.getInputPadding())
    program.getArgument(inputArg).setType(copy.getInput().getType());
  // The epilogue's accumulators as the contraction's output; its operands
  // and output of the op's (viewed) types.
  if (!copy.getEpilogue().empty()) {
    Block &epilogue = copy.getEpilogue().front();
    setExtent(epilogue.getArgument(0), outputDim, size);
    SmallVector<Value> values(copy.getEpilogueOperands());
    values.push_back(copy.getOutput());
    for (auto [arg, v] : llvm::zip(epilogue.getArguments().drop_front(), values))
      arg.setType(v.getType());
  }
  return copy;
}

void DynamicLoop::split(ComputeOp op) const {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value extent = memref::DimOp::create(b, loc, op.getOutput(), outputDim);
  Value block = cIndex(b, loc, blockSize);
  Value full = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, extent, block), block);
  scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), full, block, ValueRange{},
      [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
        this->block(b, loc, op, iv, blockSize);
        scf::YieldOp::create(b, loc);
      });
  // The remainder, largest digit first: the digit 2^j starts after `full`
  // and the digits above it.
  Value rest = arith::SubIOp::create(b, loc, extent, full);
  for (int64_t size = blockSize / 2; size >= 1; size /= 2) {
    Value digit = arith::AndIOp::create(b, loc, rest, cIndex(b, loc, size));
    Value present = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                          digit, cIndex(b, loc, 0));
    Value above = arith::AndIOp::create(b, loc, rest,
                                        cIndex(b, loc, ~(2 * size - 1)));
    Value start = arith::AddIOp::create(b, loc, full, above);
    scf::IfOp::create(b, loc, present, [&](OpBuilder &b, Location loc) {
      this->block(b, loc, op, start, size);
      scf::YieldOp::create(b, loc);
    });
  }
  op.erase();
}

struct SplitDynamicPass
    : public tisa::impl::TisaSplitDynamicPassBase<SplitDynamicPass> {
  using TisaSplitDynamicPassBase::TisaSplitDynamicPassBase;
  explicit SplitDynamicPass(std::shared_ptr<const TensorizeInputs> given)
      : inputs(std::move(given)) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    TisaSplitDynamicPassBase::getDependentDialects(registry);
    registerDescriptionDialects(registry); // descriptions parse here
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    return TensorizeInputs::ensure(inputs, ctx, "tisa-split-dynamic", isa,
                                   isaDirs, target, targetDir);
  }

  void runOnOperation() override {
    // Blocks of one loop may still have run-time extents in another: split
    // until none has.
    SmallVector<ComputeOp> work;
    getOperation().walk([&](ComputeOp op) { work.push_back(op); });
    while (!work.empty()) {
      ComputeOp op = work.pop_back_val();
      FailureOr<std::optional<DynamicLoop>> loop = find(op);
      if (failed(loop))
        return signalPassFailure();
      if (!*loop)
        continue;
      Block *parent = op->getBlock();
      Operation *next = op->getNextNode();
      (*loop)->split(op);
      // The new computations lie between the ops around the old one.
      for (Operation *o = parent->empty() ? nullptr : &parent->front(); o;
           o = o->getNextNode()) {
        if (o == next)
          break;
        o->walk([&](ComputeOp c) { work.push_back(c); });
      }
    }
  }

  FailureOr<std::optional<DynamicLoop>> find(ComputeOp op) const {
    if (!llvm::any_of(op.getBody()->getArgumentTypes(), [](Type t) {
          return !cast<ShapedType>(t).hasStaticShape();
        }))
      return std::optional<DynamicLoop>();
    if (!op.getRange().empty())
      return op.emitOpError()
             << "has a range and a loop of run-time extent; give each "
                "thread its own rows of that loop instead";
    std::string why;
    FailureOr<PlannedKernel> planned =
        planKernel(op.getContraction(), *inputs, "", why);
    if (failed(planned)) {
      if (why == "error")
        return failure();
      return op.emitOpError() << "its contraction has no plan: " << why;
    }
    auto loop = DynamicLoop::find(op, *planned, why);
    if (failed(loop))
      return op.emitOpError() << why;
    return loop;
  }

  std::shared_ptr<const TensorizeInputs> inputs;
};

} // namespace

std::unique_ptr<Pass>
createTisaSplitDynamicPass(std::shared_ptr<const TensorizeInputs> inputs) {
  return std::make_unique<SplitDynamicPass>(std::move(inputs));
}

} // namespace tisa
