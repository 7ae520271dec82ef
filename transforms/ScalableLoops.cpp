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

namespace {

/// packGroupsByColumn's operands and layout.
struct GroupPack {
  const Contraction &c;
  ArrayRef<int64_t> extent;
  unsigned in;
  ArrayRef<unsigned> outer;
  unsigned groupLoop, laneLoop;
  int64_t group, lanesPadded, groups;
  Value src, view, zero;

  /// The view's element of reduction element `kk` of group `g`, column
  /// `col`, B's other loops at `others`.
  Value position(OpBuilder &b, Location loc, ValueRange others, Value g,
                 Value col, Value kk) const;
  /// That element: src's, or zero past its extents.
  void element(OpBuilder &b, Location loc, ValueRange others, Value g,
               Value col, Value kk) const;
  /// Columns `chunk` * W to `chunk` * W + W - 1 of group g, W the columns of
  /// a 128-bit vector: inside src, `group` loads of W columns transposed
  /// (zipTranspose) into `group` vectors of whole groups, stored; at its
  /// edges element by element, up to lanesPadded.
  void columns(OpBuilder &b, Location loc, ValueRange others, Value g,
               Value chunk) const;
  /// Whether `columns` applies: `group` a power of two dividing W and the
  /// columns contiguous in src.
  bool transposes() const;
  int64_t width() const {
    return 128 / cast<MemRefType>(view.getType()).getElementTypeBitWidth();
  }
  /// The program loop values of src's element at `others`.
  SmallVector<Value> ivs(OpBuilder &b, Location loc, ValueRange others) const {
    SmallVector<Value> v(extent.size(), cIndex(b, loc, 0));
    for (auto [l, x] : llvm::zip(outer, others))
      v[l] = x;
    return v;
  }
};

Value GroupPack::position(OpBuilder &b, Location loc, ValueRange others,
                          Value g, Value col, Value kk) const {
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext()),
             d2 = getAffineDimExpr(2, b.getContext()),
             d3 = getAffineDimExpr(3, b.getContext());
  Value at = codegen::rowMajorIndex(b, loc, extent, outer, others);
  AffineExpr flat = ((d0 * groups + d1) * lanesPadded + d2) * group + d3;
  return affine::makeComposedAffineApply(b, loc, AffineMap::get(4, 0, flat),
                                         {at, g, col, kk})
      .getResult();
}

void GroupPack::element(OpBuilder &b, Location loc, ValueRange others, Value g,
                        Value col, Value kk) const {
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  Value k = affine::makeComposedAffineApply(b, loc, d0 * group + d1, {g, kk})
                .getResult();
  Value v = elementOrZero(
      b, loc, src, c.operands[in].map, ivs(b, loc, others),
      {{groupLoop, k, extent[groupLoop]}, {laneLoop, col, extent[laneLoop]}},
      zero);
  memref::StoreOp::create(b, loc, v, view,
                          ValueRange{position(b, loc, others, g, col, kk)});
}

bool GroupPack::transposes() const {
  return llvm::isPowerOf2_64(group) && width() % group == 0 &&
         codegen::contiguousAlong(src, c.operands[in].map, laneLoop);
}

void GroupPack::columns(OpBuilder &b, Location loc, ValueRange others, Value g,
                        Value chunk) const {
  int64_t w = width();
  Value k0 = arith::MulIOp::create(b, loc, g, cIndex(b, loc, group));
  Value col0 = arith::MulIOp::create(b, loc, chunk, cIndex(b, loc, w));
  Value whole = codegen::spansFit(
      b, loc, {{k0, group, extent[groupLoop]}, {col0, w, extent[laneLoop]}});
  auto ifOp = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
  OpBuilder inside = ifOp.getThenBodyBuilder();
  SmallVector<Value> at = ivs(inside, loc, others);
  at[laneLoop] = col0;
  Type elt = cast<MemRefType>(view.getType()).getElementType();
  SmallVector<Value> rows =
      codegen::loadRows(inside, loc, src, c.operands[in].map, at, groupLoop, k0,
                        group, VectorType::get({w}, elt));
  Value first = position(inside, loc, others, g, col0, cIndex(inside, loc, 0));
  for (auto [j, v] : llvm::enumerate(codegen::zipTranspose(inside, loc, rows)))
    vector::StoreOp::create(
        inside, loc, v, view,
        ValueRange{arith::AddIOp::create(inside, loc, first,
                                         cIndex(inside, loc, j * w))});
  OpBuilder edge = ifOp.getElseBodyBuilder();
  loopNest(edge, loc, {w, group},
           [&](OpBuilder &b, Location loc, ValueRange ck) {
             Value col = arith::AddIOp::create(b, loc, col0, ck[0]);
             auto padded = scf::IfOp::create(
                 b, loc,
                 arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, col,
                                       cIndex(b, loc, lanesPadded)),
                 /*withElseRegion=*/false);
             OpBuilder then = padded.getThenBodyBuilder();
             element(then, loc, others, g, col, ck[1]);
           });
}

} // namespace

void packGroupsByColumn(OpBuilder &b, Location loc, const Contraction &c,
                        ArrayRef<int64_t> extent, unsigned in,
                        ArrayRef<unsigned> outer, unsigned groupLoop,
                        unsigned laneLoop, int64_t group, int64_t lanesPadded,
                        Value src, Value view) {
  Type elt = cast<MemRefType>(view.getType()).getElementType();
  GroupPack p{c,
              extent,
              in,
              outer,
              groupLoop,
              laneLoop,
              group,
              lanesPadded,
              int64_t(llvm::divideCeil(extent[groupLoop], group)),
              src,
              view,
              arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt))};
  // A vector's columns at a time where they transpose, else element by
  // element.
  bool transposes = p.transposes();
  SmallVector<int64_t> extents;
  for (unsigned l : outer)
    extents.push_back(extent[l]);
  extents.append(
      {p.groups, transposes ? int64_t(llvm::divideCeil(lanesPadded, p.width()))
                            : lanesPadded});
  if (!transposes)
    extents.push_back(group);
  unsigned n = outer.size();
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    if (transposes)
      p.columns(b, loc, iv.take_front(n), iv[n], iv[n + 1]);
    else
      p.element(b, loc, iv.take_front(n), iv[n], iv[n + 1], iv[n + 2]);
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
