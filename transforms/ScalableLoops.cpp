//===- ScalableLoops.cpp - loops shared by the scalable generators --------===//

#include "ScalableLoops.h"

#include "tisa/Targets/Target.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {
namespace scalable {

Value maskOf(OpBuilder &b, Location loc, Value count, VectorType like) {
  auto maskType = VectorType::get(like.getShape(), b.getI1Type(),
                                  like.getScalableDims());
  return vector::CreateMaskOp::create(b, loc, maskType, ValueRange{count});
}

void columnBlocks(
    OpBuilder &b, Location loc, int64_t n, Value perVector, int64_t tn,
    function_ref<void(OpBuilder &, Location, int64_t, Value)> body) {
  Value stepCols = arith::MulIOp::create(b, loc, perVector, cIndex(b, loc, tn));
  auto cols = scf::ForOp::create(b, loc, cIndex(b, loc, 0), cIndex(b, loc, n),
                                 stepCols);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(cols.getBody());
  Value col = cols.getInductionVar();
  if (tn == 1)
    return body(b, loc, 1, col);
  Value left = arith::CeilDivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, cIndex(b, loc, n), col),
      perVector);
  SmallVector<int64_t> cases;
  for (int64_t v = 1; v < tn; ++v)
    cases.push_back(v);
  auto narrow = scf::IndexSwitchOp::create(b, loc, TypeRange{}, left, cases,
                                           cases.size());
  auto fill = [&](Region &r, int64_t vectors) {
    b.setInsertionPointToStart(b.createBlock(&r));
    body(b, loc, vectors, col);
    scf::YieldOp::create(b, loc);
  };
  for (auto [i, v] : llvm::enumerate(cases))
    fill(narrow.getCaseRegions()[i], v);
  fill(narrow.getDefaultRegion(), tn);
}

int64_t rowBlockCount(ArrayRef<int64_t> extent,
                      ArrayRef<unsigned> parallelLoops, int64_t tm) {
  int64_t rows = parallelLoops.empty() ? 1 : extent[parallelLoops.back()];
  int64_t tiles = llvm::divideCeil(rows, tm);
  for (unsigned l : parallelLoops.drop_back(parallelLoops.empty() ? 0 : 1))
    tiles *= extent[l];
  return tiles;
}

void rowBlockTiles(
    OpBuilder &b, Location loc, Value lo, Value hi, ArrayRef<int64_t> extent,
    ArrayRef<unsigned> parallelLoops, int64_t tm,
    function_ref<void(OpBuilder &, Location, ArrayRef<Value>, int64_t)> body) {
  auto tiles = scf::ForOp::create(b, loc, lo, hi, cIndex(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tiles.getBody());
  // t = (other parallel loops...) * row blocks + row block
  int64_t rows = parallelLoops.empty() ? 1 : extent[parallelLoops.back()];
  int64_t rowBlocks = llvm::divideCeil(rows, tm);
  ArrayRef<unsigned> outer =
      parallelLoops.drop_back(parallelLoops.empty() ? 0 : 1);
  SmallVector<int64_t> radices = {rowBlocks};
  for (unsigned l : llvm::reverse(outer))
    radices.push_back(extent[l]);
  SmallVector<Value> digits =
      codegen::splitIndex(b, loc, tiles.getInductionVar(), radices);
  SmallVector<Value> ivs(extent.size(), cIndex(b, loc, 0));
  for (auto [l, v] : llvm::zip(llvm::reverse(outer), llvm::drop_begin(digits)))
    ivs[l] = v;
  Value rowBlock = digits[0];
  if (!parallelLoops.empty())
    ivs[parallelLoops.back()] =
        arith::MulIOp::create(b, loc, rowBlock, cIndex(b, loc, tm));
  int64_t tail = rows % tm;
  if (!tail)
    return body(b, loc, ivs, tm);
  // The last row block has fewer rows: a nest of its own.
  Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rowBlock,
                                     cIndex(b, loc, rowBlocks - 1));
  scf::IfOp::create(
      b, loc, last,
      [&](OpBuilder &b, Location loc) {
        body(b, loc, ivs, tail);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &b, Location loc) {
        body(b, loc, ivs, tm);
        scf::YieldOp::create(b, loc);
      });
}

void packGroupsByColumn(OpBuilder &b, Location loc, const Contraction &c,
                        ArrayRef<int64_t> extent, unsigned in,
                        ArrayRef<unsigned> outer, unsigned groupLoop,
                        unsigned laneLoop, int64_t group, int64_t lanesPadded,
                        Value src, Value view) {
  Type elt = cast<MemRefType>(view.getType()).getElementType();
  int64_t groups = llvm::divideCeil(extent[groupLoop], group);
  SmallVector<int64_t> extents;
  for (unsigned l : outer)
    extents.push_back(extent[l]);
  extents.append({groups, lanesPadded, group});
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    unsigned n = outer.size();
    AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
               d1 = getAffineDimExpr(1, b.getContext());
    Value at = cIndex(b, loc, 0);
    for (unsigned i = 0; i < n; ++i)
      at = affine::makeComposedAffineApply(b, loc, d0 * extent[outer[i]] + d1,
                                           {at, iv[i]})
               .getResult();
    Value g = iv[n], col = iv[n + 1], kk = iv[n + 2];
    at = affine::makeComposedAffineApply(
             b, loc,
             AffineMap::get(4, 0,
                            ((d0 * groups + d1) * lanesPadded +
                             getAffineDimExpr(2, b.getContext())) *
                                    group +
                                getAffineDimExpr(3, b.getContext())),
             {at, g, col, kk})
             .getResult();
    Value k = affine::makeComposedAffineApply(b, loc, d0 * group + d1, {g, kk})
                  .getResult();
    SmallVector<Value> ivs(extent.size(), cIndex(b, loc, 0));
    for (unsigned i = 0; i < n; ++i)
      ivs[outer[i]] = iv[i];
    Value v = elementOrZero(b, loc, src, c.operands[in].map, ivs,
                            {{groupLoop, k, extent[groupLoop]},
                             {laneLoop, col, extent[laneLoop]}},
                            zero);
    memref::StoreOp::create(b, loc, v, view, ValueRange{at});
  });
}

FailureOr<int64_t> repairOnA(const Contraction &c, const TensorizePlan &plan,
                             unsigned aInput, unsigned bInput,
                             ArrayRef<unsigned> bOuter, std::string &why) {
  if (!plan.repair)
    return int64_t(0);
  const ProgramOperand &bOp = c.operands[bInput];
  if (plan.repair->bias[bInput])
    return codegen::refuse(why, "the repair biases the packed input " +
                                    bOp.name +
                                    ": its compensation needs sums of the "
                                    "other input per call, not generated for "
                                    "scalable vectors");
  for (unsigned l : bOuter)
    if (!c.loops[l].reduction)
      return codegen::refuse(why, "the repair's sums of " + bOp.name +
                                      " would depend on loop " +
                                      c.loops[l].name +
                                      "; not generated for scalable vectors");
  return -plan.repair->bias[aInput];
}

Value columnSums(OpBuilder &b, Location loc, Value buffer, int64_t dataBytes,
                 int64_t lanes) {
  return memref::ViewOp::create(b, loc,
                                MemRefType::get({lanes}, b.getI32Type()),
                                buffer, cIndex(b, loc, dataBytes), ValueRange{});
}

void packWithSums(OpBuilder &b, Location loc, const Contraction &c,
                  ArrayRef<int64_t> extent, unsigned in,
                  ArrayRef<unsigned> outer, unsigned groupLoop,
                  unsigned laneLoop, int64_t group, int64_t lanesPadded,
                  int64_t dataBytes, int64_t sumFactor, Value src,
                  Value buffer) {
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  int64_t bytes = dataBytes + (sumFactor ? 4 * lanesPadded : 0);
  Value view = memref::ViewOp::create(
      b, loc, MemRefType::get({bytes / eltBytes}, elt), buffer,
      cIndex(b, loc, 0), ValueRange{});
  packGroupsByColumn(b, loc, c, extent, in, outer, groupLoop, laneLoop, group,
                     lanesPadded, src, view);
  if (sumFactor)
    codegen::emitReductionSums(
        b, loc, c, extent, in, src, {laneLoop}, sumFactor,
        columnSums(b, loc, buffer, dataBytes, lanesPadded));
}

bool movesLastPosition(const Contraction &c, unsigned in, unsigned tap) {
  AffineMap map = c.operands[in].map;
  unsigned rank = map.getNumResults();
  if (rank < 2)
    return false;
  for (unsigned d = 0; d < rank; ++d) {
    std::optional<SmallVector<int64_t>> coef =
        linearCoefficients(map.getResult(d), c.loops.size());
    if (!coef || (*coef)[tap] != (d == rank - 2 ? 1 : 0))
      return false;
  }
  return true;
}

Value collapseLastTwo(OpBuilder &b, Location loc, Value v) {
  auto type = cast<MemRefType>(v.getType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (rank < 2 || failed(type.getStridesAndOffset(strides, offset)) ||
      strides[rank - 1] != 1 || strides[rank - 2] != type.getDimSize(rank - 1))
    return {};
  SmallVector<ReassociationIndices> dims;
  for (unsigned d = 0; d + 2 < rank; ++d)
    dims.push_back({int64_t(d)});
  dims.push_back({int64_t(rank - 2), int64_t(rank - 1)});
  return memref::CollapseShapeOp::create(b, loc, v, dims);
}

LogicalResult checkRegisterTile(int64_t tm, int64_t tn, int64_t accumulators,
                                int64_t budget, const Target &target,
                                std::string &why) {
  if (accumulators + tn <= budget)
    return success();
  return codegen::refuse(
      why, "a " + std::to_string(tm) + "x" + std::to_string(tn) +
               " register tile needs " + std::to_string(accumulators + tn + 1) +
               " vector registers; " + target.name + " has " +
               std::to_string(target.vectorRegistersOrAssumed()));
}

std::string noTileFits(int64_t budget, const Target &target) {
  if (budget >= 2)
    return "";
  return "no register tile fits: one accumulator, a packed vector and the "
         "broadcast need 3 vector registers, " +
         target.name + " has " + std::to_string(target.vectorRegistersOrAssumed());
}

std::pair<int64_t, int64_t> fewestLoadsTile(int64_t rows, int64_t vectors,
                                            int64_t budget) {
  auto loads = [&](int64_t m, int64_t n) {
    return llvm::divideCeil(vectors, n) * rows +
           llvm::divideCeil(rows, m) * vectors;
  };
  int64_t tm = 1, tn = 1;
  for (int64_t m = 1; m <= rows; ++m)
    for (int64_t n = 1; n <= vectors; ++n)
      if (m * n + n <= budget && loads(m, n) < loads(tm, tn))
        tm = m, tn = n;
  return {tm, tn};
}

} // namespace scalable
} // namespace tisa
