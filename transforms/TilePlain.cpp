//===- TilePlain.cpp - -tisa-tile-plain -----------------------------------===//
//
// Plain code (a contraction no instruction took) in a register tile, as the
// instruction kernels hold theirs: the output's contiguous last dimension in
// vectors, a few of its rows, each vector an accumulator loaded once,
// carried through the reduction loops and stored once. The contraction's
// body is applied to vectors where its values vary along that dimension and
// to scalars elsewhere (A's element is read and widened once per row, then
// broadcast). What the tile cannot take is left to -tisa-order-plain-loops.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"

#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/APFloat.h"

#include <map>
#include <tuple>

namespace tisa {
#define GEN_PASS_DEF_TISATILEPLAINPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

using codegen::cIndex;

/// A plain contraction's loops as the tile uses them.
struct PlainNest {
  linalg::GenericOp op;
  /// Per loop: its extent, or ShapedType::kDynamic (known at run time).
  SmallVector<int64_t> extent;
  /// The loop of the output's last dimension, in vectors.
  unsigned lanes;
  /// The loop of the output's next-to-last dimension, in rows of the tile.
  std::optional<unsigned> rows;
  /// The other parallel loops, and the reductions, in the op's order.
  SmallVector<unsigned> outer, reductions;
};

bool isScalar(Type t) { return t.isIntOrIndexOrFloat(); }

/// Whether `op` is scalar arithmetic that applies to vectors element by
/// element (or a constant, which stays scalar).
bool appliesToVectors(Operation &op) {
  if (op.hasTrait<OpTrait::ConstantLike>())
    return true;
  return op.getNumRegions() == 0 && op.getNumResults() == 1 && isPure(&op) &&
         !isa<linalg::IndexOp>(op) &&
         OpTrait::hasElementwiseMappableTraits(&op) &&
         llvm::all_of(op.getOperandTypes(), isScalar) &&
         isScalar(op.getResult(0).getType());
}

/// Whether every op in an ancestor of `op` up to its function is a plain
/// loop or branch (not a tisa kernel op's program region).
bool inPlainCode(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p);
       p = p->getParentOp())
    if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::IndexSwitchOp,
             scf::ExecuteRegionOp>(p))
      return false;
  return true;
}

/// The buffer `v` is a view of.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether the tile may hold `op`'s output in registers while it reads the
/// inputs from memory: every operand a memref of a vector element type, no
/// input a view of the output's buffer, and no output dimension of stride
/// 0 (outputs sharing a place).
bool operandsAllowTile(linalg::GenericOp op) {
  for (Type t : op->getOperandTypes()) {
    auto m = dyn_cast<MemRefType>(t);
    if (!m || !VectorType::isValidElementType(m.getElementType()))
      return false;
  }
  Value out = op.getDpsInitOperand(0)->get();
  for (OpOperand *in : op.getDpsInputOperands())
    if (rootOf(in->get()) == rootOf(out))
      return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(cast<MemRefType>(out.getType())
                       .getStridesAndOffset(strides, offset)) &&
         !llvm::is_contained(strides, 0);
}

std::optional<PlainNest> analyze(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0 || !inPlainCode(op) ||
      !operandsAllowTile(op) ||
      !llvm::all_of(op.getBody()->without_terminator(), appliesToVectors))
    return std::nullopt;
  // Vector loads of sub-byte elements read them bit-packed, memref.load one
  // per byte: every operand whole bytes.
  for (Value v : op->getOperands()) {
    Type t = getElementTypeOrSelf(v);
    if (!t.isIntOrFloat() || t.getIntOrFloatBitWidth() < 8)
      return std::nullopt;
  }
  SmallVector<int64_t> extent = op.getStaticLoopRanges();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!last)
    return std::nullopt;
  PlainNest n;
  n.op = op;
  n.extent = extent;
  n.lanes = last.getPosition();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.isFunctionOfDim(n.lanes) &&
        !codegen::contiguousAlong(operand.get(), map, n.lanes))
      return std::nullopt;
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // The accumulators are loaded before the reductions and stored after
  // them: the output indexed by exactly the parallel loops (a parallel loop
  // it does not vary along would sum out of the reductions' order).
  for (unsigned l = 0; l < extent.size(); ++l)
    if ((iterators[l] == utils::IteratorType::reduction) ==
        outMap.isFunctionOfDim(l))
      return std::nullopt;
  if (outMap.getNumResults() >= 2)
    if (auto r = dyn_cast<AffineDimExpr>(
            outMap.getResults()[outMap.getNumResults() - 2]))
      if (r.getPosition() != n.lanes)
        n.rows = r.getPosition();
  for (unsigned l = 0; l < extent.size(); ++l) {
    if (l == n.lanes || (n.rows && l == *n.rows))
      continue;
    (iterators[l] == utils::IteratorType::reduction ? n.reductions : n.outer)
        .push_back(l);
  }
  return n;
}

/// Whether the product of values widened from `a` and `b` to `to` is exact
/// in `to` (every significand bit and exponent fits), so a fused
/// multiply-add rounds as the multiply and add do.
bool exactProduct(Type a, Type b, Type to) {
  auto fa = dyn_cast<FloatType>(a), fb = dyn_cast<FloatType>(b),
       ft = dyn_cast<FloatType>(to);
  if (!fa || !fb || !ft)
    return false;
  using llvm::APFloat;
  const llvm::fltSemantics &sa = fa.getFloatSemantics(),
                           &sb = fb.getFloatSemantics(),
                           &st = ft.getFloatSemantics();
  int64_t precision =
      APFloat::semanticsPrecision(sa) + APFloat::semanticsPrecision(sb);
  // The largest product's exponent, and the smallest subnormal product's.
  int64_t top = int64_t(APFloat::semanticsMaxExponent(sa)) +
                APFloat::semanticsMaxExponent(sb) + 1;
  int64_t bottom = int64_t(APFloat::semanticsMinExponent(sa)) -
                   APFloat::semanticsPrecision(sa) + 1 +
                   APFloat::semanticsMinExponent(sb) -
                   APFloat::semanticsPrecision(sb) + 1;
  return precision <= APFloat::semanticsPrecision(st) &&
         top <= APFloat::semanticsMaxExponent(st) &&
         bottom >= APFloat::semanticsMinExponent(st);
}

/// Marks a float multiply of two widened values whose product is exact, and
/// the add that accumulates it, as contractible into a fused multiply-add.
void allowExactFusedMultiplyAdd(linalg::GenericOp op) {
  op.getBody()->walk([](arith::MulFOp mul) {
    auto lhs = mul.getLhs().getDefiningOp<arith::ExtFOp>();
    auto rhs = mul.getRhs().getDefiningOp<arith::ExtFOp>();
    if (!lhs || !rhs ||
        !exactProduct(lhs.getIn().getType(), rhs.getIn().getType(),
                      mul.getType()))
      return;
    mul.setFastmath(mul.getFastmath() | arith::FastMathFlags::contract);
    for (Operation *user : mul->getUsers())
      if (auto add = dyn_cast<arith::AddFOp>(user))
        add.setFastmath(add.getFastmath() | arith::FastMathFlags::contract);
  });
}

/// The loops of one plain contraction around its register tiles.
class PlainTile {
public:
  PlainTile(PlainNest &n, int64_t lanes, int64_t rows, int64_t vectors)
      : n(n), op(n.op), vectorLanes(lanes), tileRows(rows),
        tileVectors(vectors), body(op.getBody()), loc(op.getLoc()) {}

  void emit();

private:
  /// One tile's shape: `rows` rows from ivs[rows] and `vectors` vectors
  /// from ivs[lanes], the last one masked when narrower than a vector.
  struct Shape {
    int64_t rows, vectors;
    Value mask; ///< of the last vector, when narrower than a vector
  };
  void emitOuter(OpBuilder &b, SmallVector<Value> ivs, unsigned depth);
  /// The tiles of one block of rows from ivs[rows], along the lanes.
  void emitColumns(OpBuilder &b, SmallVector<Value> ivs, int64_t rows);
  void emitTile(OpBuilder &b, SmallVector<Value> ivs, const Shape &t);
  SmallVector<Value> reduce(OpBuilder &b, SmallVector<Value> ivs,
                            ValueRange acc, const Shape &t, unsigned depth);
  SmallVector<Value> step(OpBuilder &b, ArrayRef<Value> ivs, ValueRange acc,
                          const Shape &t);
  /// Applies the body to operand values `args` (scalars or vectors).
  Value applyBody(OpBuilder &b, ArrayRef<Value> args);
  /// `ivs` at row r and vector v of the tile.
  SmallVector<Value> at(OpBuilder &b, ArrayRef<Value> ivs, int64_t r,
                        int64_t v);
  Value load(OpBuilder &b, OpOperand &operand, ArrayRef<Value> ivs, Value mask);
  VectorType vectorOf(Type t) const {
    return VectorType::get({vectorLanes}, t);
  }
  /// Blocks of `size` of loop `l`'s iterations: full ones in a loop, the
  /// rest once (of a run-time extent: in blocks of 1); `fn` gets the first
  /// iteration and the block's size.
  void blocks(OpBuilder &b, unsigned l, int64_t size,
              function_ref<void(OpBuilder &, Value, int64_t)> fn);
  /// Loop `l`'s extent as a value.
  Value extentOf(OpBuilder &b, unsigned l);
  /// `v` rounded down to a multiple of `unit`.
  Value roundDown(OpBuilder &b, Value v, int64_t unit);
  /// scf.for from `from` to `to` by `step`, `fn` building its body.
  void stepLoop(OpBuilder &b, Value from, Value to, int64_t step,
                function_ref<void(OpBuilder &, Value)> fn);

  const PlainNest &n;
  linalg::GenericOp op;
  int64_t vectorLanes, tileRows, tileVectors;
  Block *body;
  Location loc;
  /// Per loop, its extent (made once, before the loops).
  SmallVector<OpFoldResult> sizes;
};

void PlainTile::emit() {
  OpBuilder b(op);
  for (Range r :
       cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
    sizes.push_back(r.size);
  emitOuter(b, SmallVector<Value>(n.extent.size()), 0);
}

Value PlainTile::extentOf(OpBuilder &b, unsigned l) {
  return getValueOrCreateConstantIndexOp(b, loc, sizes[l]);
}

Value PlainTile::roundDown(OpBuilder &b, Value v, int64_t unit) {
  return arith::SubIOp::create(
      b, loc, v, arith::RemUIOp::create(b, loc, v, cIndex(b, loc, unit)));
}

void PlainTile::stepLoop(OpBuilder &b, Value from, Value to, int64_t step,
                         function_ref<void(OpBuilder &, Value)> fn) {
  scf::ForOp::create(b, loc, from, to, cIndex(b, loc, step), ValueRange{},
                     [&](OpBuilder &b, Location, Value iv, ValueRange) {
                       fn(b, iv);
                       scf::YieldOp::create(b, loc);
                     });
}

void PlainTile::blocks(OpBuilder &b, unsigned l, int64_t size,
                       function_ref<void(OpBuilder &, Value, int64_t)> fn) {
  auto loop = [&](Value from, Value to, int64_t step) {
    stepLoop(b, from, to, step,
             [&](OpBuilder &b, Value iv) { fn(b, iv, step); });
  };
  int64_t whole = n.extent[l];
  if (ShapedType::isDynamic(whole)) {
    Value extent = extentOf(b, l), full = roundDown(b, extent, size);
    loop(cIndex(b, loc, 0), full, size);
    if (size > 1)
      loop(full, extent, 1);
    return;
  }
  int64_t full = whole / size * size;
  if (full == size)
    fn(b, cIndex(b, loc, 0), size);
  else if (full)
    loop(cIndex(b, loc, 0), cIndex(b, loc, full), size);
  if (whole % size)
    fn(b, cIndex(b, loc, full), whole % size);
}

void PlainTile::emitOuter(OpBuilder &b, SmallVector<Value> ivs,
                          unsigned depth) {
  if (depth < n.outer.size()) {
    unsigned l = n.outer[depth];
    return blocks(b, l, 1, [&](OpBuilder &b, Value iv, int64_t) {
      ivs[l] = iv;
      emitOuter(b, ivs, depth + 1);
    });
  }
  if (!n.rows)
    return emitColumns(b, ivs, 1);
  blocks(b, *n.rows, tileRows, [&](OpBuilder &b, Value first, int64_t rows) {
    ivs[*n.rows] = first;
    emitColumns(b, ivs, rows);
  });
}

void PlainTile::emitColumns(OpBuilder &b, SmallVector<Value> ivs,
                            int64_t rows) {
  VectorType maskType = VectorType::get({vectorLanes}, b.getI1Type());
  int64_t width = vectorLanes * tileVectors, whole = n.extent[n.lanes];
  if (!ShapedType::isDynamic(whole)) {
    // Full tiles, then one of the lanes left, its last vector masked.
    return blocks(b, n.lanes, width,
                  [&](OpBuilder &b, Value first, int64_t lanes) {
                    ivs[n.lanes] = first;
                    Shape t{rows, (lanes + vectorLanes - 1) / vectorLanes, {}};
                    int64_t last = lanes - (t.vectors - 1) * vectorLanes;
                    if (last < vectorLanes)
                      t.mask = vector::ConstantMaskOp::create(
                          b, loc, maskType, ArrayRef<int64_t>{last});
                    emitTile(b, ivs, t);
                  });
  }
  // Run time: full tiles, then single vectors, then one masked vector.
  Value extent = extentOf(b, n.lanes);
  Value full = roundDown(b, extent, width),
        vectors = roundDown(b, extent, vectorLanes);
  auto loop = [&](Value from, Value to, int64_t step, int64_t count) {
    stepLoop(b, from, to, step, [&](OpBuilder &b, Value iv) {
      ivs[n.lanes] = iv;
      emitTile(b, ivs, Shape{rows, count, {}});
    });
  };
  loop(cIndex(b, loc, 0), full, width, tileVectors);
  loop(full, vectors, vectorLanes, 1);
  Value left = arith::SubIOp::create(b, loc, extent, vectors);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, left,
                                    cIndex(b, loc, 0));
  scf::IfOp::create(b, loc, any, [&](OpBuilder &b, Location) {
    ivs[n.lanes] = vectors;
    Value mask = vector::CreateMaskOp::create(b, loc, maskType, left);
    emitTile(b, ivs, Shape{rows, 1, mask});
    scf::YieldOp::create(b, loc);
  });
}

SmallVector<Value> PlainTile::at(OpBuilder &b, ArrayRef<Value> ivs, int64_t r,
                                 int64_t v) {
  SmallVector<Value> out(ivs);
  auto plus = [&](Value x, int64_t c) -> Value {
    return c ? arith::AddIOp::create(b, loc, x, cIndex(b, loc, c)).getResult()
             : x;
  };
  if (n.rows)
    out[*n.rows] = plus(out[*n.rows], r);
  out[n.lanes] = plus(out[n.lanes], v * vectorLanes);
  return out;
}

Value PlainTile::load(OpBuilder &b, OpOperand &operand, ArrayRef<Value> ivs,
                      Value mask) {
  Value src = operand.get();
  AffineMap map = op.getMatchingIndexingMap(&operand);
  SmallVector<Value> idx = codegen::applyMap(b, loc, map, ivs);
  Type elt = getElementTypeOrSelf(src.getType());
  if (!map.isFunctionOfDim(n.lanes))
    return memref::LoadOp::create(b, loc, src, idx);
  if (!mask)
    return vector::LoadOp::create(b, loc, vectorOf(elt), src, idx);
  Value zero = arith::ConstantOp::create(b, loc, vectorOf(elt),
                                         b.getZeroAttr(vectorOf(elt)));
  return vector::MaskedLoadOp::create(b, loc, vectorOf(elt), src, idx, mask,
                                      zero);
}

void PlainTile::emitTile(OpBuilder &b, SmallVector<Value> ivs, const Shape &t) {
  int64_t rows = t.rows;
  auto maskOf = [&](int64_t v) {
    return v + 1 == t.vectors ? t.mask : Value();
  };
  OpOperand &out = *op.getDpsInitOperand(0);
  SmallVector<Value> acc;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < t.vectors; ++v)
      acc.push_back(load(b, out, at(b, ivs, r, v), maskOf(v)));
  SmallVector<Value> result = reduce(b, ivs, acc, t, 0);
  AffineMap map = op.getMatchingIndexingMap(&out);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t v = 0; v < t.vectors; ++v) {
      SmallVector<Value> idx = codegen::applyMap(b, loc, map, at(b, ivs, r, v));
      Value value = result[r * t.vectors + v];
      if (Value mask = maskOf(v))
        vector::MaskedStoreOp::create(b, loc, out.get(), idx, mask, value);
      else
        vector::StoreOp::create(b, loc, value, out.get(), idx);
    }
}

SmallVector<Value> PlainTile::reduce(OpBuilder &b, SmallVector<Value> ivs,
                                     ValueRange acc, const Shape &t,
                                     unsigned depth) {
  if (depth == n.reductions.size())
    return step(b, ivs, acc, t);
  unsigned l = n.reductions[depth];
  auto loop = scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), extentOf(b, l), cIndex(b, loc, 1), acc,
      [&](OpBuilder &b, Location, Value iv, ValueRange carried) {
        ivs[l] = iv;
        scf::YieldOp::create(b, loc, reduce(b, ivs, carried, t, depth + 1));
      });
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> PlainTile::step(OpBuilder &b, ArrayRef<Value> ivs,
                                   ValueRange acc, const Shape &t) {
  // An input's value depends on the row only if its map reads the rows'
  // loop, on the vector only if it reads the lanes' loop: each is read once.
  std::map<std::tuple<unsigned, int64_t, int64_t>, Value> read;
  SmallVector<Value> out;
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t v = 0; v < t.vectors; ++v) {
      SmallVector<Value> args;
      for (OpOperand *in : op.getDpsInputOperands()) {
        AffineMap map = op.getMatchingIndexingMap(in);
        int64_t row = n.rows && map.isFunctionOfDim(*n.rows) ? r : -1;
        int64_t vec = map.isFunctionOfDim(n.lanes) ? v : -1;
        Value &value = read[{in->getOperandNumber(), row, vec}];
        if (!value)
          value = load(
              b, *in,
              at(b, ivs, std::max<int64_t>(row, 0), std::max<int64_t>(vec, 0)),
              v + 1 == t.vectors ? t.mask : Value());
        args.push_back(value);
      }
      args.push_back(acc[r * t.vectors + v]);
      out.push_back(applyBody(b, args));
    }
  return out;
}

Value PlainTile::applyBody(OpBuilder &b, ArrayRef<Value> args) {
  IRMapping map;
  map.map(body->getArguments(), args);
  auto vectorized = [&](Value v) {
    return isa<VectorType>(map.lookupOrDefault(v).getType());
  };
  for (Operation &inner : body->without_terminator()) {
    if (!llvm::any_of(inner.getOperands(), vectorized)) {
      b.clone(inner, map);
      continue;
    }
    // The op on vectors: its scalar operands broadcast, its result a vector.
    SmallVector<Value> broadcast;
    for (Value v : inner.getOperands()) {
      Value mapped = map.lookupOrDefault(v);
      broadcast.push_back(isa<VectorType>(mapped.getType())
                              ? mapped
                              : vector::BroadcastOp::create(
                                    b, loc, vectorOf(v.getType()), mapped)
                                    .getResult());
    }
    Operation *copy = b.clone(inner, map);
    copy->setOperands(broadcast);
    copy->getResult(0).setType(vectorOf(inner.getResult(0).getType()));
    map.map(inner.getResult(0), copy->getResult(0));
  }
  Value result = map.lookupOrDefault(body->getTerminator()->getOperand(0));
  if (!isa<VectorType>(result.getType()))
    result =
        vector::BroadcastOp::create(b, loc, vectorOf(result.getType()), result);
  return result;
}

/// The register tile (rows, vectors per row) for `n` in vectors of `lanes`:
/// of those whose accumulators and one step's vectors leave `spare`
/// registers, the one with the fewest operand reads (and conversions) per
/// accumulator update, (rows + vectors) / (rows x vectors), no larger than
/// the output.
std::pair<int64_t, int64_t> tileShape(const PlainNest &n, int64_t lanes,
                                      int64_t registers, int64_t spare,
                                      int64_t maxRows, int64_t maxVectors) {
  auto wanted = [](int64_t extent, int64_t unit, int64_t most) {
    return ShapedType::isDynamic(extent) ? most : (extent + unit - 1) / unit;
  };
  int64_t rowsWanted = n.rows ? wanted(n.extent[*n.rows], 1, maxRows) : 1;
  int64_t vectorsWanted = wanted(n.extent[n.lanes], lanes, maxVectors);
  std::pair<int64_t, int64_t> best = {1, 1};
  double fewest = 2;
  for (int64_t r = 1; r <= std::min(maxRows, rowsWanted); ++r)
    for (int64_t v = 1; v <= std::min(maxVectors, vectorsWanted); ++v) {
      double reads = double(r + v) / double(r * v);
      if (r * v + v + spare <= registers && reads < fewest) {
        fewest = reads;
        best = {r, v};
      }
    }
  return best;
}

struct TilePlainPass : impl::TisaTilePlainPassBase<TilePlainPass> {
  using Base::Base;

  void runOnOperation() override {
    if (vectorBits < 0) {
      getOperation().emitError("-tisa-tile-plain: vector-bits is ")
          << int64_t(vectorBits)
          << "; it must be 0 (off) or the target's vector width";
      return signalPassFailure();
    }
    if (vectorBits == 0)
      return;
    generalizeNamedContractions();
    SmallVector<PlainNest> nests;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<PlainNest> n = analyze(op))
        nests.push_back(std::move(*n));
    });
    for (PlainNest &n : nests) {
      Type out = getElementTypeOrSelf(n.op.getDpsInitOperand(0)->get());
      int64_t bits = out.getIntOrFloatBitWidth();
      if (vectorBits % bits || vectorBits / bits < 2)
        continue;
      int64_t lanes = vectorBits / bits;
      auto [rows, vectors] = tileShape(n, lanes, vectorRegisters,
                                       spareRegisters, maxRows, maxVectors);
      allowExactFusedMultiplyAdd(n.op);
      PlainTile(n, lanes, rows, vectors).emit();
      n.op.erase();
    }
  }

  /// Named contractions in plain code (linalg.matmul on f32, a depthwise
  /// conv2d, ...) as the linalg.generic they stand for.
  void generalizeNamedContractions() {
    SmallVector<linalg::LinalgOp> named;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op) && op.hasPureBufferSemantics() &&
          op.getNumReductionLoops() > 0 && inPlainCode(op))
        named.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
  }
};

} // namespace
} // namespace tisa
