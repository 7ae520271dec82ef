//===- TilePack.cpp - the tile generator's packed operand -----------------===//
//
// B into the description's register image, one tile per (B's other loops,
// n panel, k step), zeros past B's extents:
//   packed[bTile(outer..., panel, step)][offset(k, n)] = B[..., k, n]
// where offset is the register layout of the description as bytes.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Transforms/TileKernel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tisa {

void TileKernel::emitPack(OpBuilder &b, Location loc, Value src, Value buffer,
                          const Schedule &s) const {
  auto srcType = cast<MemRefType>(src.getType());
  Type elt = srcType.getElementType();
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  int64_t bytes = packedBytes(s);
  Value view = memref::ViewOp::create(
      b, loc, MemRefType::get({bytes / eltBytes}, elt), buffer,
      cIndex(b, loc, 0), ValueRange{});
  SmallVector<int64_t> extents;
  for (unsigned l : bOuter)
    extents.push_back(extent[l]);
  int64_t nPanels = panels(s), steps = kSteps();
  extents.append({nPanels, steps, kI, nI});
  AffineMap offset = bTileOffset();
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    unsigned outer = bOuter.size();
    Value panel = iv[outer], step = iv[outer + 1], kk = iv[outer + 2],
          nn = iv[outer + 3];
    // The tile's first element (bTile).
    Value tile = cIndex(b, loc, 0);
    for (unsigned i = 0; i < outer; ++i)
      tile = affine::makeComposedAffineApply(
                 b, loc,
                 getAffineDimExpr(0, b.getContext()) * extent[bOuter[i]] +
                     getAffineDimExpr(1, b.getContext()),
                 {tile, iv[i]})
                 .getResult();
    AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
               d1 = getAffineDimExpr(1, b.getContext());
    tile = bTile(b, loc, tile, panel, step, s);
    Value within =
        affine::AffineApplyOp::create(b, loc, offset, ValueRange{kk, nn});
    Value at = affine::AffineApplyOp::create(
        b, loc,
        AffineMap::get(2, 0,
                       (d0 * tileBytes(bReg) + d1).floorDiv(eltBytes)),
        ValueRange{tile, within});
    // B[..., k, n], zero past its extents.
    Value k = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(2, 0, d0 * kI + d1), ValueRange{step, kk});
    Value n = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(2, 0, d0 * nI + d1), ValueRange{panel, nn});
    SmallVector<Value> ivs(extent.size(), cIndex(b, loc, 0));
    for (unsigned i = 0; i < outer; ++i)
      ivs[bOuter[i]] = iv[i];
    Value v = elementOrZero(b, loc, src, c.operands[bInput].map, ivs,
                            {{kLoop, k, extent[kLoop]},
                             {nLoop, n, extent[nLoop]}},
                            zero);
    memref::StoreOp::create(b, loc, v, view, ValueRange{at});
  });
}

} // namespace tisa
