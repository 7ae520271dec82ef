//===- TileSegmentA.cpp - the tile generator's A of matrix segments ------===//
//
// NEON matrix segments read A from a copy packed per call (packA: one
// group of registers per m block, so that every tap of a block reads one
// run), with the taps that move A's m dimension unrolled (each is then a
// constant residue and member) and the filter rows that read only a zero
// border skipped per block (tapBounds).
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "tisa/Transforms/TileKernel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {

SmallVector<int64_t> TileKernel::aMCoefficients() const {
  return *linearCoefficients(c.operands[aInput].map.getResult(aMDim),
                             c.loops.size());
}

SmallVector<int64_t> TileKernel::packedAShape(ArrayRef<int64_t> aShape,
                                              const Schedule &s) const {
  // A group per m block: its tm registers and the aShift more its taps
  // reach.
  int64_t g = registerTile(s).first;
  int64_t groups = paddedExtents(s)[mLoop] / (mI * g);
  SmallVector<int64_t> shape;
  for (unsigned d = 0; d + 1 < aShape.size(); ++d)
    if (d != aMDim)
      shape.push_back(aShape[d]);
  shape.append({aResidues, groups, kSteps(), g + aShift, mI * kI});
  return shape;
}

Value TileKernel::packA(OpBuilder &b, Location loc, const AOperand &a,
                        ArrayRef<int64_t> aShape, const Schedule &s) const {
  Type elt = cast<MemRefType>(a.value.getType()).getElementType();
  unsigned kDim = aShape.size() - 1;
  int64_t r = mI * aMStride, g = registerTile(s).first;
  SmallVector<int64_t> shape = packedAShape(aShape, s);
  unsigned other = shape.size() - 5;
  Value packed = memref::AllocOp::create(b, loc, MemRefType::get(shape, elt),
                                         b.getI64IntegerAttr(64));
  auto rowType = VectorType::get({kI}, elt);
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  Value zeros =
      arith::ConstantOp::create(b, loc, rowType, b.getZeroAttr(rowType));
  SmallVector<int64_t> extents(shape.begin(), shape.end() - 1);
  extents.push_back(mI);
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    Value res = iv[other], step = iv[other + 2], row = iv[other + 4];
    // Row `row` of register P = group * g + member, whose first row is at
    // P * R + residue.
    AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
               d1 = getAffineDimExpr(1, b.getContext()),
               d2 = getAffineDimExpr(2, b.getContext()),
               d3 = getAffineDimExpr(3, b.getContext());
    Value pos = affine::makeComposedAffineApply(
                    b, loc, (d0 * g + d3) * r + d1 + d2 * aMStride,
                    {iv[other + 1], res, row, iv[other + 3]})
                    .getResult();
    // A's row (clamped into the input) and whether it lies inside.
    Value inside = arith::ConstantIntOp::create(b, loc, 1, 1);
    SmallVector<Value> idx;
    for (unsigned d = 0, o = 0; d <= kDim; ++d) {
      if (d == kDim) {
        idx.push_back(
            arith::MulIOp::create(b, loc, step, cIndex(b, loc, kI)));
        continue;
      }
      // m's last group reaches past A's extent.
      Value at = d == aMDim ? pos : iv[o++];
      if (d != aMDim && a.low[d] == 0 && a.size[d] >= aShape[d]) {
        idx.push_back(at);
        continue;
      }
      Value in = arith::SubIOp::create(b, loc, at, cIndex(b, loc, a.low[d]));
      Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          in, cIndex(b, loc, 0));
      Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          in, cIndex(b, loc, a.size[d]));
      Value out = arith::OrIOp::create(b, loc, below, above);
      inside = arith::AndIOp::create(
          b, loc, inside,
          arith::XOrIOp::create(b, loc, out,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
      in = arith::MaxSIOp::create(b, loc, in, cIndex(b, loc, 0));
      idx.push_back(arith::MinSIOp::create(b, loc, in,
                                           cIndex(b, loc, a.size[d] - 1)));
    }
    // In bounds: A covers whole k steps, and the rows are clamped.
    Value v = vector::TransferReadOp::create(b, loc, rowType, a.value, idx,
                                             zero, ArrayRef<bool>{true});
    v = arith::SelectOp::create(b, loc, inside, v, zeros);
    SmallVector<Value> to(iv.take_front(other + 4));
    to.push_back(arith::MulIOp::create(b, loc, row, cIndex(b, loc, kI)));
    vector::StoreOp::create(b, loc, v, packed, to);
  });
  return packed;
}

std::pair<Value, Value> TileKernel::tapBounds(OpBuilder &b, Location loc,
                                              ArrayRef<Value> ivs, unsigned l,
                                              const AOperand &a) const {
  // AMX tiles run every tap: with a bounded tap loop LLVM left a 14x14
  // bf16 convolution with no innermost loop of tdpbf16ps (not looked into).
  if (!segments)
    return {cIndex(b, loc, 0), cIndex(b, loc, extent[l])};
  AffineMap map = c.operands[aInput].map;
  unsigned loops = c.loops.size();
  for (auto [d, e] : llvm::enumerate(map.getResults())) {
    SmallVector<int64_t> coef = *linearCoefficients(e, loops);
    if (coef[l] <= 0 || coef[mLoop] != 0)
      continue;
    if (a.low[d] == 0 && a.size[d] >= operandExtents(aInput, extent)[d])
      continue; // no border on this dimension
    // The block's value of each other loop in it: parallel ones only.
    bool alone = llvm::all_of(llvm::seq(loops), [&](unsigned j) {
      return j == l || coef[j] == 0 || !c.loops[j].reduction;
    });
    if (alone)
      return tapRange(b, loc, coef, l, ivs, a.low[d], a.size[d], extent[l]);
  }
  return {cIndex(b, loc, 0), cIndex(b, loc, extent[l])};
}

bool TileKernel::outsideRegisters(const AOperand &a, int64_t rows,
                                  const Schedule &s) const {
  // Only where the test folds: one m block (its first row 0) and every
  // other loop that moves A's m dimension a tap unrollTapsOfA unrolls.
  if (!segments || s.hold)
    return false;
  int64_t tm = registerTile(s).first;
  if (paddedExtents(s)[mLoop] / (mI * tm) != 1 ||
      llvm::divideCeil(kSteps(), stepUnroll(s)) < kMinStepTripsForTaps)
    return false;
  unsigned loops = c.loops.size();
  SmallVector<int64_t> coef = aMCoefficients();
  SmallVector<unsigned> taps;
  for (unsigned l = 0; l < loops; ++l) {
    if (l == mLoop || !coef[l])
      continue;
    if (!llvm::is_contained(outerReduction, l) || extent[l] > kMaxTapUnroll)
      return false;
    taps.push_back(l);
  }
  if (taps.empty())
    return false;
  int64_t low = a.low[aMDim], high = low + a.size[aMDim];
  auto outside = [&](int64_t first) {
    return llvm::all_of(llvm::seq<int64_t>(0, mI), [&](int64_t q) {
      int64_t p = first + coef[mLoop] * q;
      return p < low || p >= high;
    });
  };
  // Every combination of the taps' values, each register's rows.
  SmallVector<int64_t> t(taps.size(), 0);
  while (true) {
    int64_t offset = coef[loops];
    for (auto [l, v] : llvm::zip(taps, t))
      offset += coef[l] * v;
    for (int64_t r = 0; r < rows; ++r)
      if (outside(offset + coef[mLoop] * r * mI))
        return true;
    unsigned i = 0;
    while (i < taps.size() && ++t[i] == extent[taps[i]])
      t[i++] = 0;
    if (i == taps.size())
      return false;
  }
}

Value TileKernel::registerInside(OpBuilder &b, Location loc, Value first,
                                 int64_t r, const AOperand &a) const {
  SmallVector<int64_t> coef = aMCoefficients();
  int64_t low = a.low[aMDim], high = low + a.size[aMDim];
  AffineExpr d0 = getAffineDimExpr(0, b.getContext());
  Value inside = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (int64_t q = 0; q < mI; ++q) {
    Value p = affine::makeComposedAffineApply(
                  b, loc, d0 + coef[mLoop] * (r * mI + q),
                  ArrayRef<OpFoldResult>{first})
                  .getResult();
    Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, p,
                                        cIndex(b, loc, low));
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, p,
                                        cIndex(b, loc, high));
    inside = arith::OrIOp::create(
        b, loc, inside, arith::AndIOp::create(b, loc, above, below));
  }
  return inside;
}

void TileKernel::unrollTapsOfA(Location loc, scf::LoopNest &nest,
                               int64_t stepTrips) const {
  // A tap that moves A's m dimension changes the packed A's residue and
  // register by a division (aTilePointer): unrolled, each is a constant
  // offset. Innermost first, so the outer loops' handles stay valid.
  if (stepTrips < kMinStepTripsForTaps)
    return;
  SmallVector<int64_t> coef = aMCoefficients();
  for (size_t i = outerReduction.size(); i-- > 0;) {
    unsigned l = outerReduction[i];
    if (!coef[l] || extent[l] > kMaxTapUnroll)
      continue;
    if (failed(loopUnrollFull(nest.loops[i])))
      emitWarning(loc) << "the tap loop " << c.loops[l].name
                       << " could not be unrolled";
  }
}

} // namespace tisa
