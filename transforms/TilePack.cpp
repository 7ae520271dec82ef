//===- TilePack.cpp - the tile generator's packed operand -----------------===//
//
// B into the description's register image, one tile per (B's other loops,
// n panel, k step), zeros past B's extents:
//   packed[bTile(outer..., panel, step)][offset(k, n)] = B[..., k, n]
// where offset is the register layout of the description as bytes. Matrix
// segments of a row-major B load kI rows of kI registers' width and
// transpose them into kI registers (packsRowGroups); at B's edges a
// register's kI rows of nI elements, shuffled into it (packsRegisterRows).
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Transforms/TileKernel.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {

bool TileKernel::packsRegisterRows(Value src) const {
  // A register n-major, k contiguous: offset(k, n) = (n * kI + k) bytes of
  // an element.
  const OperandRegister &r = d->registers[bReg];
  int64_t eltBytes = r.type.getElementTypeBitWidth() / 8;
  std::optional<SmallVector<int64_t>> coef =
      linearCoefficients(bTileOffset().getResult(0), 2);
  if (!segments || !coef ||
      *coef != SmallVector<int64_t>{eltBytes, kI * eltBytes, 0})
    return false;
  // n alone on B's last dimension, contiguous.
  return codegen::contiguousAlong(src, c.operands[bInput].map, nLoop);
}

Value TileKernel::registerOfRows(OpBuilder &b, Location loc, Value src,
                                 MutableArrayRef<Value> ivs, Value k0) const {
  // B's kI rows of nI elements, one load each, joined into (k, n) order,
  // then shuffled into the register's (n, k).
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  SmallVector<Value> parts =
      codegen::loadRows(b, loc, src, c.operands[bInput].map, ivs, kLoop, k0, kI,
                        VectorType::get({nI}, elt));
  while (parts.size() > 1) {
    SmallVector<Value> joined;
    for (size_t i = 0; i < parts.size(); i += 2) {
      if (i + 1 == parts.size()) {
        joined.push_back(parts[i]);
        continue;
      }
      int64_t size = cast<VectorType>(parts[i].getType()).getNumElements() +
                     cast<VectorType>(parts[i + 1].getType()).getNumElements();
      joined.push_back(vector::ShuffleOp::create(
          b, loc, parts[i], parts[i + 1],
          llvm::to_vector(llvm::seq<int64_t>(0, size))));
    }
    parts = std::move(joined);
  }
  SmallVector<int64_t> order;
  for (int64_t n = 0; n < nI; ++n)
    for (int64_t k = 0; k < kI; ++k)
      order.push_back(k * nI + n);
  return vector::ShuffleOp::create(b, loc, parts[0], parts[0], order);
}

Value TileKernel::packedElement(OpBuilder &b, Location loc, Value tile,
                                Value kk, Value nn) const {
  int64_t eltBytes = d->registers[bReg].type.getElementTypeBitWidth() / 8;
  Value within = affine::AffineApplyOp::create(b, loc, bTileOffset(),
                                               ValueRange{kk, nn});
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  return affine::AffineApplyOp::create(
      b, loc,
      AffineMap::get(2, 0, (d0 * tileBytes(bReg) + d1).floorDiv(eltBytes)),
      ValueRange{tile, within});
}

void TileKernel::packElement(OpBuilder &b, Location loc, Value src,
                             Value view, const PackedTile &t, Value kk,
                             Value nn) const {
  // B[..., k, n], zero past its extents.
  Value at = packedElement(b, loc, t.tile, kk, nn);
  AffineExpr d0 = getAffineDimExpr(0, b.getContext()),
             d1 = getAffineDimExpr(1, b.getContext());
  Value k = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(2, 0, d0 * kI + d1), ValueRange{t.step, kk});
  Value n = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(2, 0, d0 * nI + d1), ValueRange{t.panel, nn});
  SmallVector<Value> ivs(extent.size(), cIndex(b, loc, 0));
  for (auto [l, v] : llvm::zip(bOuter, t.outer))
    ivs[l] = v;
  Value v = elementOrZero(b, loc, src, c.operands[bInput].map, ivs,
                          {{kLoop, k, extent[kLoop]}, {nLoop, n, extent[nLoop]}},
                          t.zero);
  memref::StoreOp::create(b, loc, v, view, ValueRange{at});
}

void TileKernel::packRegister(OpBuilder &b, Location loc, Value src,
                              Value view, const PackedTile &t) const {
  // Inside B: its rows in one piece; at its edges element by element.
  Value k0 = arith::MulIOp::create(b, loc, t.step, cIndex(b, loc, kI));
  Value n0 = arith::MulIOp::create(b, loc, t.panel, cIndex(b, loc, nI));
  Value whole = codegen::spansFit(
      b, loc, {{k0, kI, extent[kLoop]}, {n0, nI, extent[nLoop]}});
  auto ifOp = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
  OpBuilder in = ifOp.getThenBodyBuilder();
  SmallVector<Value> ivs(extent.size(), cIndex(in, loc, 0));
  for (auto [l, v] : llvm::zip(bOuter, t.outer))
    ivs[l] = v;
  ivs[nLoop] = n0;
  Value reg = registerOfRows(in, loc, src, ivs, k0);
  Value first = cIndex(in, loc, 0);
  vector::StoreOp::create(in, loc, reg, view,
                          ValueRange{packedElement(in, loc, t.tile, first,
                                                   first)});
  OpBuilder edge = ifOp.getElseBodyBuilder();
  loopNest(edge, loc, {kI, nI}, [&](OpBuilder &b, Location loc, ValueRange kn) {
    packElement(b, loc, src, view, t, kn[0], kn[1]);
  });
}

TileKernel::PackedTile TileKernel::packedTile(OpBuilder &b, Location loc,
                                              ValueRange outer, Value panel,
                                              Value step, Value zero,
                                              const Schedule &s) const {
  // The tile's first element (bTile), B's other loops linearized.
  Value linear = codegen::rowMajorIndex(b, loc, extent, bOuter, outer);
  return {outer, panel, step, bTile(b, loc, linear, panel, step, s), zero};
}

bool TileKernel::packsRowGroups(Value src) const {
  // The register holds kI x nI elements, so kI rows of kI registers' width
  // transpose into kI registers.
  return packsRegisterRows(src) && llvm::isPowerOf2_64(kI) &&
         d->registers[bReg].type.getNumElements() == kI * nI;
}

void TileKernel::packRowGroup(OpBuilder &b, Location loc, Value src, Value view,
                              ValueRange outer, Value group, Value step,
                              Value zero, const Schedule &s) const {
  int64_t width = kI * nI;
  Value p0 = arith::MulIOp::create(b, loc, group, cIndex(b, loc, kI));
  Value k0 = arith::MulIOp::create(b, loc, step, cIndex(b, loc, kI));
  Value n0 = arith::MulIOp::create(b, loc, group, cIndex(b, loc, width));
  Value whole = codegen::spansFit(b, loc,
                                  {{p0, kI, panels(s)},
                                   {k0, kI, extent[kLoop]},
                                   {n0, width, extent[nLoop]}});
  auto ifOp = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
  // Inside B: one load per row, a transpose, one store per register.
  OpBuilder in = ifOp.getThenBodyBuilder();
  SmallVector<Value> ivs(extent.size(), cIndex(in, loc, 0));
  for (auto [l, v] : llvm::zip(bOuter, outer))
    ivs[l] = v;
  ivs[nLoop] = n0;
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  SmallVector<Value> rows =
      codegen::loadRows(in, loc, src, c.operands[bInput].map, ivs, kLoop, k0,
                        kI, VectorType::get({width}, elt));
  Value first = cIndex(in, loc, 0);
  for (auto [j, reg] : llvm::enumerate(codegen::zipTranspose(in, loc, rows))) {
    Value panel = arith::AddIOp::create(in, loc, p0, cIndex(in, loc, j));
    PackedTile t = packedTile(in, loc, outer, panel, step, zero, s);
    vector::StoreOp::create(
        in, loc, reg, view,
        ValueRange{packedElement(in, loc, t.tile, first, first)});
  }
  // At B's edges or past the last panel: the group's panels one by one.
  OpBuilder edge = ifOp.getElseBodyBuilder();
  loopNest(edge, loc, {kI}, [&](OpBuilder &b, Location loc, ValueRange j) {
    Value panel = arith::AddIOp::create(b, loc, p0, j[0]);
    auto inPanels = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, panel,
                              cIndex(b, loc, panels(s))),
        /*withElseRegion=*/false);
    OpBuilder then = inPanels.getThenBodyBuilder();
    packRegister(then, loc, src, view,
                 packedTile(then, loc, outer, panel, step, zero, s));
  });
}

void TileKernel::emitPack(OpBuilder &b, Location loc, Value src, Value buffer,
                          const Schedule &s) const {
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  int64_t eltBytes = elt.getIntOrFloatBitWidth() / 8;
  Value view = memref::ViewOp::create(
      b, loc, MemRefType::get({packedBytes(s) / eltBytes}, elt), buffer,
      cIndex(b, loc, 0), ValueRange{});
  SmallVector<int64_t> extents;
  for (unsigned l : bOuter)
    extents.push_back(extent[l]);
  // kI registers at a time where B's rows transpose into them, else a
  // register at a time where B's rows hold it, else element by element.
  bool groups = packsRowGroups(src);
  bool rows = packsRegisterRows(src);
  extents.append({groups ? int64_t(llvm::divideCeil(panels(s), kI)) : panels(s),
                  kSteps()});
  if (!rows)
    extents.append({kI, nI});
  unsigned outer = bOuter.size();
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    ValueRange others = iv.take_front(outer);
    if (groups)
      return packRowGroup(b, loc, src, view, others, iv[outer], iv[outer + 1],
                          zero, s);
    PackedTile t =
        packedTile(b, loc, others, iv[outer], iv[outer + 1], zero, s);
    if (rows)
      packRegister(b, loc, src, view, t);
    else
      packElement(b, loc, src, view, t, iv[outer + 2], iv[outer + 3]);
  });
}

} // namespace tisa
