//===- LaneDotBorders.cpp - zero borders, sums, range rows ------------------===//

#include "LaneDotKernelImpl.h"

namespace tisa {


/// out[loops] = factor * sum over every reduction loop of input `in`, for the
/// parallel loops `loops` (the lane loop, if present, last and padded: the
/// padding holds zero).
void LaneDotKernel::Impl::emitSums(OpBuilder &b, Location loc, unsigned in,
                                   Value src, ArrayRef<unsigned> loops,
                                   int64_t factor, Value out,
                                   const Border *border) const {
  auto inside = [&](OpBuilder &b, MutableArrayRef<Value> at) {
    return border->clamp(b, loc, at);
  };
  size_t lastDim = cast<MemRefType>(src.getType()).getRank() - 1;
  emitReductionSums(
      b, loc, c, extent, in, src, loops, factor, out,
      border ? function_ref<Value(OpBuilder &, MutableArrayRef<Value>)>(inside)
             : nullptr,
      border && lastDim < border->low.size() && border->padded(lastDim));
}

std::optional<RowRange>
LaneDotKernel::Impl::rangeRows(OpBuilder &b, Location loc, const Schedule &s,
                               const Border &border, Value begin,
                               Value end) const {
  if (s.fuse)
    return std::nullopt;
  // Over two levels, the range's blocks of the major one (tiles are
  // numbered major first).
  SmallVector<BlockLevel> levels = blockLevels(s);
  std::optional<BlockLevel> part;
  for (const BlockLevel &bl : levels)
    if (bl.partitioned && (!bl.partner || bl.major))
      part = bl;
  if (!part || part->loop == laneLoop)
    return std::nullopt;
  if (part->partner) {
    Value minor = cIndex(b, loc, levels[*part->partner].blocks);
    begin = arith::DivSIOp::create(b, loc, begin, minor);
    end = arith::CeilDivSIOp::create(b, loc, end, minor);
  }
  const ProgramOperand &bc = c.operands[bcInput];
  unsigned numLoops = c.loops.size();
  std::optional<RowRange> rows;
  SmallVector<int64_t> coef;
  for (unsigned dim = 0; dim < bc.shape.size(); ++dim) {
    auto k = linearCoefficients(bc.map.getResult(dim), numLoops);
    if (!k)
      return std::nullopt;
    if (!(*k)[part->loop])
      continue;
    if (rows ||
        llvm::any_of(ArrayRef(*k).drop_back(), [](int64_t x) { return x < 0; }))
      return std::nullopt;
    rows = RowRange{dim, Value(), Value()};
    coef = *k;
  }
  if (!rows)
    return std::nullopt;
  // Lowest index: the range's first iteration, every other loop at 0;
  // highest: its last iteration, every other loop at its last.
  unsigned l = part->loop;
  int64_t others = coef[numLoops];
  for (unsigned o = 0; o < numLoops; ++o)
    if (o != l)
      others += coef[o] * (extent[o] - 1);
  auto mul = [&](Value v, int64_t k) {
    return arith::MulIOp::create(b, loc, v, cIndex(b, loc, k)).getResult();
  };
  auto add = [&](Value v, int64_t k) {
    return arith::AddIOp::create(b, loc, v, cIndex(b, loc, k)).getResult();
  };
  auto clamp = [&](Value v) {
    v = arith::MaxSIOp::create(b, loc, v, cIndex(b, loc, 0));
    return arith::MinSIOp::create(b, loc, v,
                                  cIndex(b, loc, border.logical[rows->dim]))
        .getResult();
  };
  Value first = mul(begin, part->size);
  Value stop = arith::MinSIOp::create(b, loc, mul(end, part->size),
                                      cIndex(b, loc, extent[l]));
  // Edge tiles along this loop run whole from the range holding their first
  // row (emitCompute's emitBorderTiles), so they may reach past `stop`.
  if (s.edge && parallelLoops.size() >= 2 &&
      l == parallelLoops[parallelLoops.size() - 2])
    stop = arith::MinSIOp::create(
        b, loc,
        mul(arith::CeilDivSIOp::create(b, loc, stop, cIndex(b, loc, s.edge)),
            s.edge),
        cIndex(b, loc, extent[l]));
  Value last = add(stop, -1);
  rows->lo = clamp(add(mul(first, coef[l]), coef[numLoops]));
  rows->hi = clamp(add(mul(last, coef[l]), others + 1));
  // An empty range (begin >= end) copies nothing.
  rows->hi = arith::MaxSIOp::create(b, loc, rows->hi, rows->lo);
  return rows;
}

void LaneDotKernel::Impl::emitGroupCopy(OpBuilder &b, Location loc, Value input,
                                        Value dst, const Border &border,
                                        std::optional<RowRange> rows) const {
  unsigned rank = border.size.size();
  Type elt = cast<MemRefType>(input.getType()).getElementType();
  auto groupVec = VectorType::get({group}, elt);
  // Per dimension, the input indices [lo, hi) to copy: the rows asked for,
  // inside the input.
  SmallVector<Value> lo(rank), hi(rank);
  for (unsigned dim = 0; dim + 1 < rank; ++dim) {
    lo[dim] = cIndex(b, loc, 0);
    hi[dim] = cIndex(b, loc, border.size[dim]);
    if (!rows || rows->dim != dim)
      continue;
    auto inside = [&](Value v) -> Value {
      v = arith::SubIOp::create(b, loc, v, cIndex(b, loc, border.low[dim]));
      v = arith::MaxSIOp::create(b, loc, v, lo[dim]);
      return arith::MinSIOp::create(b, loc, v, hi[dim]);
    };
    std::tie(lo[dim], hi[dim]) =
        std::make_pair(inside(rows->lo), inside(rows->hi));
  }
  SmallVector<Value> at(rank);
  std::function<void(OpBuilder &, Location, unsigned)> nest =
      [&](OpBuilder &b, Location loc, unsigned dim) {
        if (dim + 1 < rank) {
          scf::ForOp::create(
              b, loc, lo[dim], hi[dim], cIndex(b, loc, 1), ValueRange{},
              [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
                at[dim] = iv;
                nest(b, loc, dim + 1);
                scf::YieldOp::create(b, loc);
              });
          return;
        }
        SmallVector<Value> to(rank);
        for (unsigned d = 0; d + 1 < rank; ++d)
          to[d] = border.low[d]
                      ? Value(arith::AddIOp::create(
                            b, loc, at[d], cIndex(b, loc, border.low[d])))
                      : at[d];
        int64_t row = border.size.back();
        for (int64_t first = 0; first < row; first += group) {
          at.back() = to.back() = cIndex(b, loc, first);
          Value g;
          if (first + group <= row) {
            g = vector::LoadOp::create(b, loc, groupVec, input, at);
          } else {
            Value mask = vector::ConstantMaskOp::create(
                b, loc, VectorType::get({group}, b.getI1Type()),
                ArrayRef<int64_t>{row - first});
            g = vector::MaskedLoadOp::create(
                b, loc, groupVec, input, at, mask,
                arith::ConstantOp::create(b, loc, groupVec,
                                          b.getZeroAttr(groupVec)));
          }
          vector::StoreOp::create(b, loc, g, dst, to);
        }
      };
  nest(b, loc, 0);
}

SmallVector<TapDim> LaneDotKernel::Impl::tapDimsOf(const Border &border) const {
  SmallVector<TapDim> out;
  if (!border.any() || bias[bcInput] != 0)
    return out;
  const ProgramOperand &bc = c.operands[bcInput];
  unsigned numLoops = c.loops.size();
  for (unsigned dim = 0; dim + 1 < bc.shape.size(); ++dim) {
    if (!border.padded(dim))
      continue;
    auto coef = linearCoefficients(bc.map.getResult(dim), numLoops);
    if (!coef || (*coef)[laneLoop] != 0)
      continue;
    SmallVector<unsigned> taps;
    bool monotone = true;
    for (unsigned l = 0; l < numLoops; ++l) {
      if (!(*coef)[l])
        continue;
      monotone &= (*coef)[l] > 0;
      if (c.loops[l].reduction)
        taps.push_back(l);
    }
    if (monotone && taps.size() == 1 && taps[0] != groupLoop)
      out.push_back({dim, taps[0], *coef});
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>>
LaneDotKernel::Impl::interiorColumns(const Border &border,
                                     ArrayRef<TapDim> taps) const {
  if (parallelLoops.size() < 2 || taps.empty())
    return std::nullopt;
  unsigned inner = parallelLoops.back(), numLoops = c.loops.size();
  for (const TapDim &t : taps)
    if (t.coef[inner])
      for (unsigned l = 0; l < numLoops; ++l)
        if (l != inner && l != t.loop && t.coef[l])
          return std::nullopt;
  auto full = [&](int64_t p) {
    for (const TapDim &t : taps) {
      if (!t.coef[inner])
        continue;
      int64_t at = t.coef[numLoops] + t.coef[inner] * p;
      auto [lo, hi] = t.taps(border, at, at, extent[t.loop]);
      if (lo > 0 || hi < extent[t.loop])
        return false;
    }
    return true;
  };
  int64_t w = extent[inner], low = 0, high = w;
  while (low < w && !full(low))
    ++low;
  while (high > low && !full(high - 1))
    --high;
  for (int64_t p = low; p < high; ++p)
    if (!full(p))
      return std::nullopt;
  if (low == high || (low == 0 && high == w))
    return std::nullopt;
  return std::pair{low, high};
}

} // namespace tisa
