//===- LaneDotPack.cpp - the packed operand ---------------------------------===//

#include "LaneDotKernelImpl.h"

namespace tisa {

void LaneDotKernel::emitPack(OpBuilder &b, Location loc, Value src,
                             Value buffer, const Schedule &s) const {
  const Impl &m = *impl;
  MLIRContext *ctx = b.getContext();
  Value data = memref::ViewOp::create(b, loc, m.dataType(ctx, s), buffer,
                                      cIndex(b, loc, 0), ValueRange{});
  if (m.emitVectorPack(b, loc, src, data, s))
    return m.emitPackSums(b, loc, src, buffer, s);
  Type elt = m.elementType(m.pkInput);
  bool biased = m.bias[m.pkInput] != 0;
  int64_t panel = m.panelLanes(s);
  // In the source's order (the panels inside the group tiles), so that
  // reads are contiguous runs of lanes.
  SmallVector<int64_t> extents;
  for (unsigned l : m.pkOuter)
    extents.push_back(m.extent[l]);
  extents.append({m.groupTiles, m.panels(s), panel, m.group});
  int64_t groupExtent = m.extent[m.groupLoop];
  int64_t laneExtent = m.extent[m.laneLoop];
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    unsigned n = m.pkOuter.size();
    SmallVector<Value> ivs(m.c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, v] : llvm::zip(m.pkOuter, iv.take_front(n)))
      ivs[l] = v;
    Value gi = iv[n], p = iv[n + 1], within = iv[n + 2], k = iv[n + 3];
    Value lane = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, p, cIndex(b, loc, panel)),
        within);
    Value g = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gi, cIndex(b, loc, m.group)), k);
    // Padding positions read a valid element and store the padding value.
    Value valid = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, g,
                              cIndex(b, loc, groupExtent)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lane,
                              cIndex(b, loc, laneExtent)));
    ivs[m.groupLoop] =
        arith::MinSIOp::create(b, loc, g, cIndex(b, loc, groupExtent - 1));
    ivs[m.laneLoop] =
        arith::MinSIOp::create(b, loc, lane, cIndex(b, loc, laneExtent - 1));
    Value v = memref::LoadOp::create(
        b, loc, src, applyMap(b, loc, m.c.operands[m.pkInput].map, ivs));
    if (biased)
      v = flipSignBits(b, loc, v);
    Value pad = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
    v = arith::SelectOp::create(b, loc, valid, v, pad);
    SmallVector<Value> at = {p};
    at.append(iv.begin(), iv.begin() + n);
    at.push_back(gi);
    at.push_back(arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, within, cIndex(b, loc, m.group)), k));
    memref::StoreOp::create(b, loc, v, data, at);
  });
  m.emitPackSums(b, loc, src, buffer, s);
}

void LaneDotKernel::Impl::emitPackSums(OpBuilder &b, Location loc, Value src,
                                       Value buffer, const Schedule &s) const {
  if (!pkSumFactor)
    return;
  Value sums = memref::ViewOp::create(
      b, loc, sumType(pkSumLoops, b.getContext()), buffer,
      cIndex(b, loc, sumOffset(s)), ValueRange{});
  emitSums(b, loc, pkInput, src, pkSumLoops, pkSumFactor, sums);
}

namespace {

/// How the vector pack reads a chunk of lanes of each of a group's rows of
/// the source.
struct ChunkRead {
  Value src;
  AffineMap map;
  unsigned groupLoop;
  int64_t group, groupExtent;
  VectorType laneVec;
  Value pad;

  /// Row `k` of group tile `gi`.
  Value row(OpBuilder &b, Location loc, Value gi, int64_t k) const {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, gi, cIndex(b, loc, group)),
        cIndex(b, loc, k));
  }

  /// The chunk's lanes (at `ivs`) of each row of group tile `gi`, rows past
  /// the reduction's end read at its last row; with `inBounds`, as whole
  /// registers, else masked at the source's end (lanes past it hold `pad`).
  SmallVector<Value> rows(OpBuilder &b, Location loc, SmallVector<Value> ivs,
                          Value gi, bool inBounds) const {
    SmallVector<Value> out;
    for (int64_t k = 0; k < group; ++k) {
      ivs[groupLoop] = arith::MinSIOp::create(b, loc, row(b, loc, gi, k),
                                              cIndex(b, loc, groupExtent - 1));
      out.push_back(vector::TransferReadOp::create(
          b, loc, laneVec, src, applyMap(b, loc, map, ivs), pad,
          ArrayRef<bool>{inBounds}));
    }
    return out;
  }
};

} // namespace

bool LaneDotKernel::Impl::emitVectorPack(OpBuilder &b, Location loc, Value src,
                                         Value data, const Schedule &s) const {
  // The source's lanes must be contiguous: its last dimension is the lane
  // loop alone, at stride 1 (GEMM weights [K][N], conv2d filters HWCF).
  const ProgramOperand &pk = c.operands[pkInput];
  auto srcType = cast<MemRefType>(src.getType());
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(srcType.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return false;
  for (auto [i, e] : llvm::enumerate(pk.map.getResults())) {
    bool last = i + 1 == pk.map.getNumResults();
    if (last != (e == getAffineDimExpr(laneLoop, b.getContext())) ||
        (!last && e.isFunctionOfDim(laneLoop)))
      return false;
  }
  int64_t panel = panelLanes(s);
  if (!llvm::isPowerOf2_64(group))
    return false;
  Type elt = elementType(pkInput);
  bool biased = bias[pkInput] != 0;
  auto laneVec = VectorType::get({lanes}, elt);
  // Lanes past the end read the value that packs to zero.
  Value pad = arith::ConstantOp::create(
      b, loc, elt,
      biased ? TypedAttr(b.getIntegerAttr(
                   elt, APInt::getSplat(elt.getIntOrFloatBitWidth(),
                                        APInt(8, 0x80))))
             : TypedAttr(b.getZeroAttr(elt)));
  Value zeros =
      arith::ConstantOp::create(b, loc, laneVec, b.getZeroAttr(laneVec));
  int64_t groupExtent = extent[groupLoop];
  SmallVector<int64_t> extents;
  for (unsigned l : pkOuter)
    extents.push_back(extent[l]);
  extents.append({groupTiles, panels(s), panel / lanes});
  loopNest(b, loc, extents, [&](OpBuilder &b, Location loc, ValueRange iv) {
    unsigned n = pkOuter.size();
    SmallVector<Value> ivs(c.loops.size(), cIndex(b, loc, 0));
    for (auto [l, v] : llvm::zip(pkOuter, iv.take_front(n)))
      ivs[l] = v;
    Value gi = iv[n], p = iv[n + 1], chunk = iv[n + 2];
    Value within = arith::MulIOp::create(b, loc, chunk, cIndex(b, loc, lanes));
    ivs[laneLoop] = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, p, cIndex(b, loc, panel)),
        within);
    // One register of lanes per element of the group; rows past the
    // reduction's end are zeros.
    ChunkRead read{src, pk.map, groupLoop, group, groupExtent, laneVec, pad};
    SmallVector<Value> rows;
    if (panels(s) * panel == extent[laneLoop]) {
      rows = read.rows(b, loc, ivs, gi, /*inBounds=*/true);
    } else {
      // The last panel is wider than the lanes left (144 lanes in panels
      // of 128): the chunks the lanes end in or pass read masked, since
      // whole registers there would read past the source's last row, whose
      // bytes may be the last mapped ones. The others read whole registers.
      Value inside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::sle,
          arith::AddIOp::create(b, loc, ivs[laneLoop], cIndex(b, loc, lanes)),
          cIndex(b, loc, extent[laneLoop]));
      auto ifOp = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, read.rows(b, loc, ivs, gi, true));
          },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, read.rows(b, loc, ivs, gi, false));
          });
      rows.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    for (int64_t k = 0; k < group; ++k) {
      Value &v = rows[k];
      if (biased)
        v = flipSignBits(b, loc, v);
      if (groupExtent % group)
        v = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                  read.row(b, loc, gi, k),
                                  cIndex(b, loc, groupExtent)),
            v, zeros);
    }
    // Interleave: element i of row k goes to i * group + k. Concatenate the
    // rows pairwise, then permute once.
    while (rows.size() > 1) {
      SmallVector<Value> joined;
      for (size_t r = 0; r + 1 < rows.size(); r += 2) {
        int64_t len = cast<VectorType>(rows[r].getType()).getNumElements();
        joined.push_back(vector::ShuffleOp::create(
            b, loc, rows[r], rows[r + 1],
            llvm::to_vector(llvm::seq<int64_t>(0, 2 * len))));
      }
      rows = joined;
    }
    Value v = rows[0];
    if (group > 1) {
      SmallVector<int64_t> mask;
      for (int64_t i = 0; i < lanes; ++i)
        for (int64_t k = 0; k < group; ++k)
          mask.push_back(k * lanes + i);
      v = vector::ShuffleOp::create(b, loc, v, v, mask);
    }
    SmallVector<Value> at = {p};
    at.append(iv.begin(), iv.begin() + n);
    at.push_back(gi);
    at.push_back(arith::MulIOp::create(b, loc, within, cIndex(b, loc, group)));
    assert(cast<VectorType>(v.getType()).getNumElements() == lanes * group &&
           "interleaved rows");
    vector::StoreOp::create(b, loc, v, data, at);
  });
  return true;
}

} // namespace tisa
