//===- LaneDotCompute.cpp - the computation ---------------------------------===//
//
// emitCompute's nest, outermost first: cache and partition blocks
// (LaneDotPartition.cpp), the kinds of columns a zero border makes
// (columns), tile loops over each parallel loop (parallel), point loops of
// one tile for -tisa-register-tile (points, with the filter taps the tile
// needs: tapBounds), one register of accumulators (registerBody), the
// reduction loops (reduce) and one instruction step (step).
//
//===----------------------------------------------------------------------===//

#include "LaneDotCompute.h"

namespace tisa {

LaneDotKernel::Impl::Compute::Compute(const Impl &m, OpBuilder &b,
                                      Location loc,
                                      const ComputeOperands &operands,
                                      const Schedule &s)
    : m(m), d(*m.d), ctx(b.getContext()), input(operands.input),
      buffer(operands.buffer), output(operands.output), begin(operands.begin),
      end(operands.end), overwrite(operands.overwrite),
      epilogue(operands.epilogue), s(s),
      i32(b.getI32Type()), elt(m.elementType(m.bcInput)),
      groupInt(b.getIntegerType(elt.getIntOrFloatBitWidth() * m.group)),
      accVec(d.registers[2].type), bc(m.c.operands[m.bcInput]),
      inputType(cast<MemRefType>(input.getType())), rank(bc.shape.size()),
      border(m.borderOf(inputType.getShape(), operands.inputPadding)),
      copy(border.padded(rank - 1) || (border.any() && m.groupTiles < 4)),
      inPlaceBorder(border.any() && !copy), bcMem(input),
      maskLastGroup(m.partialGroup && !copy), numLoops(m.c.loops.size()),
      tapLow(numLoops), tapHigh(numLoops), edgeSchedule(s), cur(&s),
      panel(m.panelLanes(s)), ivs(numLoops), offset(numLoops),
      span(numLoops), order(m.parallelOrder(s)), fusedPair(m.fused(s)),
      tileStart(numLoops), tileLength(numLoops), blocks(m.blockLevels(s)),
      blockIndex(blocks.size()) {
  assert(s.unroll.size() == m.c.loops.size() && "schedule for another kernel");
  for (unsigned l = 0; l < numLoops; ++l)
    span[l] = m.whole(l, s);
  prepareInput(b, loc);
  prepareZeroRow(b, loc);
  tapDims = m.tapDimsOf(border);
  prepareEdges();
  prepareOperands(b, loc);
  prepareActive(b, loc, operands.active);
}

void LaneDotKernel::Impl::Compute::emit(OpBuilder &b, Location loc) {
  emitBlocks(b, loc, 0);
  for (Value t : temporaries)
    memref::DeallocOp::create(b, loc, t);
}

/// The padded copy of the broadcast input, when one is read.
void LaneDotKernel::Impl::Compute::prepareInput(OpBuilder &b, Location loc) {
  if (!copy)
    return;
  SmallVector<int64_t> shape(bc.shape);
  shape.back() = m.groupTiles * m.group;
  bcMem = memref::AllocOp::create(b, loc, MemRefType::get(shape, elt),
                                  b.getI64IntegerAttr(64));
  temporaries.push_back(bcMem);
  // With a range, only the rows its tiles read (each thread copies its
  // own share).
  bool groupCopy = !border.padded(rank - 1);
  std::optional<RowRange> rows;
  if (begin && groupCopy)
    rows = m.rangeRows(b, loc, s, border, begin, end);
  Value filled = bcMem;
  if (rows) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
        ones(rank, b.getIndexAttr(1));
    for (int64_t x : shape)
      sizes.push_back(b.getIndexAttr(x));
    offsets[rows->dim] = rows->lo;
    sizes[rows->dim] =
        arith::SubIOp::create(b, loc, rows->hi, rows->lo).getResult();
    filled = memref::SubViewOp::create(b, loc, bcMem, offsets, sizes, ones);
  }
  linalg::FillOp::create(
      b, loc,
      ValueRange{arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt))},
      ValueRange{filled});
  if (groupCopy) {
    m.emitGroupCopy(b, loc, input, bcMem, border, rows);
    return;
  }
  SmallVector<OpFoldResult> offsets, sizes, ones(rank, b.getIndexAttr(1));
  for (unsigned dim = 0; dim < rank; ++dim) {
    offsets.push_back(b.getIndexAttr(border.low[dim]));
    sizes.push_back(b.getIndexAttr(border.size[dim]));
  }
  Value interior =
      memref::SubViewOp::create(b, loc, bcMem, offsets, sizes, ones);
  linalg::CopyOp::create(b, loc, input, interior);
}

/// The row of zeros that rows outside the input read.
void LaneDotKernel::Impl::Compute::prepareZeroRow(OpBuilder &b,
                                                  Location loc) {
  if (!inPlaceBorder)
    return;
  SmallVector<int64_t> offsets(rank, ShapedType::kDynamic), sizes(rank, 1),
      strides(rank, 1);
  sizes.back() = bc.shape.back();
  rowType = memref::SubViewOp::inferRankReducedResultType(
      {bc.shape.back()}, inputType, offsets, sizes, strides);
  Value row =
      memref::AllocOp::create(b, loc, MemRefType::get({bc.shape.back()}, elt),
                              b.getI64IntegerAttr(64));
  temporaries.push_back(row);
  linalg::FillOp::create(
      b, loc,
      ValueRange{arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt))},
      ValueRange{row});
  zeroRow = memref::CastOp::create(b, loc, rowType, row);
}

void LaneDotKernel::Impl::Compute::prepareEdges() {
  if (!s.edge || s.fuse)
    return;
  auto interior = m.interiorColumns(border, tapDims);
  if (!interior)
    return;
  edges = true;
  std::tie(edgeLow, edgeHigh) = *interior;
  edgeSchedule.unroll[m.parallelLoops.back()] = 1;
  edgeSchedule.unroll[m.parallelLoops[m.parallelLoops.size() - 2]] = s.edge;
}

/// The broadcast input's sums (repairs), the packed operand and its sums.
void LaneDotKernel::Impl::Compute::prepareOperands(OpBuilder &b,
                                                   Location loc) {
  if (m.bcSumFactor) {
    bcSums = memref::AllocOp::create(b, loc, m.sumType(m.bcSumLoops, ctx),
                                     b.getI64IntegerAttr(64));
    temporaries.push_back(bcSums);
    m.emitSums(b, loc, m.bcInput, input, m.bcSumLoops, m.bcSumFactor, bcSums,
               &border);
  }
  data = memref::ViewOp::create(b, loc, m.dataType(ctx, s), buffer,
                                cIndex(b, loc, 0), ValueRange{});
  if (m.pkSumFactor)
    pkSums = memref::ViewOp::create(b, loc, m.sumType(m.pkSumLoops, ctx),
                                    buffer, cIndex(b, loc, m.sumOffset(s)),
                                    ValueRange{});
}

void LaneDotKernel::Impl::Compute::prepareActive(
    OpBuilder &b, Location loc, ArrayRef<std::pair<unsigned, Value>> active) {
  for (auto [l, v] : active) {
    if (l == m.laneLoop)
      activeLanes = v;
    else if (l == m.groupLoop)
      // The group loop's bound, made once: a bound each register's copy
      // made for itself would keep -tisa-register-tile from jamming them.
      activeGroups = arith::MinSIOp::create(
          b, loc,
          arith::CeilDivSIOp::create(b, loc, v, cIndex(b, loc, m.group)),
          cIndex(b, loc, m.groupTiles - (maskLastGroup ? 1 : 0)));
  }
}

Value LaneDotKernel::Impl::Compute::column(OpBuilder &b, Location loc,
                                           Value p) const {
  if (!borderColumns || edgeHigh == m.extent[m.parallelLoops.back()])
    return p;
  Value skipped =
      arith::AddIOp::create(b, loc, p, cIndex(b, loc, edgeHigh - edgeLow));
  if (edgeLow == 0)
    return skipped;
  Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, p,
                                    cIndex(b, loc, edgeLow));
  return arith::SelectOp::create(b, loc, low, p, skipped);
}

/// One instruction step: broadcast, packed load, the instruction.
/// `partial`: the last group, of fewer than g elements (read with a mask,
/// zeros in the rest: the packed operand's padding there is zero too).
Value LaneDotKernel::Impl::Compute::step(OpBuilder &b, Location loc, Value acc,
                                         bool partial) {
  Value first = arith::MulIOp::create(b, loc, ivs[m.groupLoop],
                                      cIndex(b, loc, m.group));
  SmallVector<Value> at;
  if (bcRow) {
    at.push_back(first);
  } else {
    at = applyMap(b, loc, bc.map, ivs);
    at.back() = first;
  }
  Value mem = bcRow ? bcRow : bcMem;
  auto groupVec = VectorType::get({m.group}, elt);
  Value g;
  if (partial) {
    Value mask = vector::ConstantMaskOp::create(
        b, loc, VectorType::get({m.group}, b.getI1Type()),
        ArrayRef<int64_t>{m.extent[m.groupLoop] % m.group});
    Value zeros = arith::ConstantOp::create(b, loc, groupVec,
                                            b.getZeroAttr(groupVec));
    g = vector::MaskedLoadOp::create(b, loc, groupVec, mem, at, mask, zeros);
  } else {
    g = vector::LoadOp::create(b, loc, groupVec, mem, at);
    // The instruction takes this register by element: -tisa-by-element
    // loads a register of groups at once where the loop allows.
    if (byElementLoop)
      g.getDefiningOp()->setAttr(kByElementAttr,
                                 b.getI64IntegerAttr(m.lanes));
  }
  g = vector::BitCastOp::create(b, loc, VectorType::get({1}, groupInt), g);
  g = vector::ExtractOp::create(b, loc, g, ArrayRef<int64_t>{0});
  if (m.bias[m.bcInput])
    g = flipSignBits(b, loc, g);
  Value bcReg = vector::BroadcastOp::create(b, loc, laneVec(groupInt), g);
  bcReg =
      vector::BitCastOp::create(b, loc, d.registers[m.bcInstr].type, bcReg);
  SmallVector<Value> pkAt;
  Value within = lane;
  if (panel == m.lanesPadded) {
    pkAt.push_back(cIndex(b, loc, 0));
  } else {
    Value p = cIndex(b, loc, panel);
    pkAt.push_back(arith::DivUIOp::create(b, loc, lane, p));
    within = arith::RemUIOp::create(b, loc, lane, p);
  }
  for (unsigned l : m.pkOuter)
    pkAt.push_back(ivs[l]);
  pkAt.push_back(ivs[m.groupLoop]);
  pkAt.push_back(
      arith::MulIOp::create(b, loc, within, cIndex(b, loc, m.group)));
  Value pkReg = vector::LoadOp::create(b, loc, d.registers[m.pkInstr].type,
                                       data, pkAt);
  return m.apply(b, loc, {bcReg, pkReg, acc});
}

/// In place with a border: the row of the group dimension the other loops
/// select (or the zero row).
void LaneDotKernel::Impl::Compute::selectRow(OpBuilder &b, Location loc) {
  ivs[m.groupLoop] = cIndex(b, loc, 0);
  SmallVector<Value> at = applyMap(b, loc, bc.map, ivs);
  at.pop_back();
  Value inside = border.clamp(b, loc, at);
  SmallVector<OpFoldResult> offsets(at.begin(), at.end()),
      sizes(rank, b.getIndexAttr(1)), strides(rank, b.getIndexAttr(1));
  offsets.push_back(b.getIndexAttr(0));
  sizes.back() = b.getIndexAttr(bc.shape.back());
  bcRow = memref::SubViewOp::create(b, loc, rowType, input, offsets, sizes,
                                    strides);
  if (inside)
    bcRow = arith::SelectOp::create(b, loc, inside, bcRow, zeroRow);
}

/// The reduction loops from `level` in, carrying the accumulator.
Value LaneDotKernel::Impl::Compute::reduce(OpBuilder &b, Location loc,
                                           unsigned level, Value acc) {
  if (level == m.reductionLoops.size())
    return step(b, loc, acc);
  unsigned l = m.reductionLoops[level];
  int64_t trips = l == m.groupLoop ? m.groupTiles : m.extent[l];
  if (l == m.groupLoop && inPlaceBorder)
    selectRow(b, loc);
  // The partial last group runs after the loop.
  bool peel = l == m.groupLoop && maskLastGroup;
  if (peel)
    --trips;
  bool activeBound = l == m.groupLoop && activeGroups;
  byElementLoop = l == m.groupLoop && m.broadcastByElement() &&
                  !tapLow[l] && !tapHigh[l] && !activeBound &&
                  trips % m.lanes == 0;
  if (trips > 0) {
    Value lb = tapLow[l] ? tapLow[l] : cIndex(b, loc, 0);
    Value ub = tapHigh[l] ? tapHigh[l] : cIndex(b, loc, trips);
    if (activeBound)
      ub = activeGroups;
    auto loop = scf::ForOp::create(
        b, loc, lb, ub, cIndex(b, loc, 1), ValueRange{acc},
        [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
          ivs[l] = iv;
          scf::YieldOp::create(b, loc, reduce(b, loc, level + 1, args[0]));
        });
    loop->setAttr(kLoopAttr, b.getStringAttr("reduction"));
    acc = loop.getResult(0);
  }
  if (peel) {
    byElementLoop = false;
    assert(level + 1 == m.reductionLoops.size() && "the group loop is last");
    ivs[l] = cIndex(b, loc, trips);
    acc = step(b, loc, acc, /*partial=*/true);
  }
  return acc;
}

/// acc - the sums of `loops` (a repair's compensation), per lane or
/// broadcast.
Value LaneDotKernel::Impl::Compute::subtractSums(OpBuilder &b, Location loc,
                                                 Value acc, Value sums,
                                                 ArrayRef<unsigned> loops) {
  SmallVector<Value> at;
  for (unsigned l : loops)
    at.push_back(ivs[l]);
  Value v;
  if (!loops.empty() && loops.back() == m.laneLoop) {
    v = vector::LoadOp::create(b, loc, laneVec(i32), sums, at);
  } else {
    v = memref::LoadOp::create(b, loc, sums, at);
    v = vector::BroadcastOp::create(b, loc, laneVec(i32), v);
  }
  return arith::SubIOp::create(b, loc, acc, v);
}

/// The register: accumulate, repair, store the valid lanes.
void LaneDotKernel::Impl::Compute::registerBody(OpBuilder &b, Location loc) {
  ivs[m.laneLoop] = lane;
  SmallVector<Value> outAt = applyMap(b, loc, m.c.operands[2].map, ivs);
  Value left = arith::SubIOp::create(
      b, loc, cIndex(b, loc, m.extent[m.laneLoop]), lane);
  Value valid = arith::MinSIOp::create(b, loc, left, cIndex(b, loc, m.lanes));
  Value mask = vector::CreateMaskOp::create(
      b, loc, VectorType::get({m.lanes}, b.getI1Type()), ValueRange{valid});
  Value zero =
      arith::ConstantOp::create(b, loc, accVec, b.getZeroAttr(accVec));
  assert((!epilogue || overwrite) && "an epilogue starts from zero");
  Value init = overwrite ? zero
                         : Value(vector::MaskedLoadOp::create(
                               b, loc, accVec, output, outAt, mask, zero));
  Value acc = reduce(b, loc, 0, init);
  if (pkSums)
    acc = subtractSums(b, loc, acc, pkSums, m.pkSumLoops);
  if (bcSums)
    acc = subtractSums(b, loc, acc, bcSums, m.bcSumLoops);
  if (m.constantTerm) {
    Value k = arith::ConstantOp::create(
        b, loc, laneVec(i32),
        DenseElementsAttr::get(laneVec(i32),
                               b.getI32IntegerAttr(int32_t(m.constantTerm))));
    acc = arith::SubIOp::create(b, loc, acc, k);
  }
  if (epilogue)
    return epilogue->apply(b, loc, acc, outAt, m.outputLaneDim(), mask);
  vector::MaskedStoreOp::create(b, loc, output, outAt, mask, acc);
}

/// Index `i` of loop `l` of the register nest.
void LaneDotKernel::Impl::Compute::setIndex(OpBuilder &b, Location loc,
                                            unsigned l, Value i) {
  if (l == m.laneLoop) {
    lane = i;
  } else if (fusedPair && l == fusedPair->first) {
    Value inner = cIndex(b, loc, m.extent[fusedPair->second]);
    ivs[l] = arith::DivUIOp::create(b, loc, i, inner);
    ivs[fusedPair->second] = arith::RemUIOp::create(b, loc, i, inner);
  } else if (!m.parallelLoops.empty() && l == m.parallelLoops.back()) {
    ivs[l] = column(b, loc, i);
  } else {
    ivs[l] = i;
  }
}

/// The first and last rows [lo, hi] of the current tile, per parallel loop
/// (a fused pair: the image rows, and their columns within one row).
void LaneDotKernel::Impl::Compute::tileRows(OpBuilder &b, Location loc,
                                            SmallVectorImpl<Value> &lo,
                                            SmallVectorImpl<Value> &hi) {
  for (unsigned l : order) {
    if (l == m.laneLoop)
      continue;
    Value first = tileStart[l];
    Value last = arith::AddIOp::create(b, loc, first,
                                       cIndex(b, loc, tileLength[l] - 1));
    if (fusedPair && l == fusedPair->first) {
      unsigned inner = fusedPair->second;
      Value w = cIndex(b, loc, m.extent[inner]);
      lo[l] = arith::DivUIOp::create(b, loc, first, w);
      hi[l] = arith::DivUIOp::create(b, loc, last, w);
      // One image row: its columns; across rows: all of them.
      Value oneRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           lo[l], hi[l]);
      lo[inner] = arith::SelectOp::create(
          b, loc, oneRow, arith::RemUIOp::create(b, loc, first, w),
          cIndex(b, loc, 0));
      hi[inner] = arith::SelectOp::create(
          b, loc, oneRow, arith::RemUIOp::create(b, loc, last, w),
          cIndex(b, loc, m.extent[inner] - 1));
    } else if (!m.parallelLoops.empty() && l == m.parallelLoops.back()) {
      lo[l] = column(b, loc, first);
      hi[l] = column(b, loc, last);
    } else {
      lo[l] = first;
      hi[l] = last;
    }
  }
}

/// The taps the current tile needs: rows p in [lo, hi] of each parallel
/// loop read dimension `dim` at coef . p + c_t * t + constant, inside the
/// input for padLow <= that < padLow + size.
void LaneDotKernel::Impl::Compute::tapBounds(OpBuilder &b, Location loc) {
  SmallVector<Value> lo(numLoops), hi(numLoops);
  tileRows(b, loc, lo, hi);
  for (unsigned l = 0; l < numLoops; ++l)
    tapLow[l] = tapHigh[l] = Value();
  for (const TapDim &t : tapDims) {
    Value pMin = cIndex(b, loc, t.coef[numLoops]), pMax = pMin;
    for (unsigned l = 0; l < numLoops; ++l) {
      if (!t.coef[l] || l == t.loop)
        continue;
      Value c = cIndex(b, loc, t.coef[l]);
      pMin = arith::AddIOp::create(b, loc, pMin,
                                   arith::MulIOp::create(b, loc, lo[l], c));
      pMax = arith::AddIOp::create(b, loc, pMax,
                                   arith::MulIOp::create(b, loc, hi[l], c));
    }
    Value c = cIndex(b, loc, t.coef[t.loop]);
    Value low = arith::CeilDivSIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, cIndex(b, loc, border.low[t.dim]), pMax),
        c);
    Value high = arith::CeilDivSIOp::create(
        b, loc,
        arith::SubIOp::create(
            b, loc, cIndex(b, loc, border.low[t.dim] + border.size[t.dim]),
            pMin),
        c);
    low = arith::MaxSIOp::create(
        b, loc, low, tapLow[t.loop] ? tapLow[t.loop] : cIndex(b, loc, 0));
    high = arith::MinSIOp::create(
        b, loc, high,
        tapHigh[t.loop] ? tapHigh[t.loop] : cIndex(b, loc, m.extent[t.loop]));
    tapLow[t.loop] = low;
    tapHigh[t.loop] = high;
  }
}

/// The point loops of one tile from `level` in: a loop of constant trip
/// count per tile wider than one step, tagged for -tisa-register-tile to
/// unroll and jam.
void LaneDotKernel::Impl::Compute::points(OpBuilder &b, Location loc,
                                          unsigned level) {
  if (level == 0 && !tapDims.empty())
    tapBounds(b, loc);
  if (level == order.size())
    return registerBody(b, loc);
  unsigned l = order[level];
  int64_t count = tileLength[l] / m.step(l);
  if (count == 1) {
    setIndex(b, loc, l, tileStart[l]);
    return points(b, loc, level + 1);
  }
  auto loop = scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, count), cIndex(b, loc, 1),
      ValueRange{}, [&](OpBuilder &b, Location loc, Value p, ValueRange) {
        Value i = arith::AddIOp::create(
            b, loc, tileStart[l],
            arith::MulIOp::create(b, loc, p, cIndex(b, loc, m.step(l))));
        setIndex(b, loc, l, i);
        points(b, loc, level + 1);
        scf::YieldOp::create(b, loc);
      });
  loop->setAttr(kLoopAttr, kindOf(b, l));
  loop->setAttr(kUnrollAttr, b.getI64IntegerAttr(count));
}

/// The tile loops from `level` in: full tiles in a loop and the partial last
/// tile once, so remainders are tiles of their own (3 rows left over run as
/// one 3 x b tile), and values computed between the tile loops and the point
/// loops are the same in every copy, so loops bounded by them still jam.
void LaneDotKernel::Impl::Compute::parallel(OpBuilder &b, Location loc,
                                            unsigned level) {
  if (level == order.size())
    return points(b, loc, 0);
  unsigned l = order[level];
  int64_t size = m.unrollOf(l, *cur) * m.step(l);
  int64_t full = span[l] / size, tail = span[l] % size;
  if (cur->evenRows && l != m.laneLoop && full && tail)
    return evenRows(b, loc, level, size, full, tail);
  // Past the active lanes only padding: whole tiles up to them, the partial
  // last tile if they reach it.
  Value active = activeInSpan(b, loc, l);
  if (full)
    fullTiles(b, loc, level, size, full, active);
  if (!tail)
    return;
  if (!active)
    return tile(b, loc, level, full * size, tail);
  Value reached = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                        active, cIndex(b, loc, full * size));
  scf::IfOp::create(b, loc, reached, [&](OpBuilder &b, Location loc) {
    tile(b, loc, level, full * size, tail);
    scf::YieldOp::create(b, loc);
  });
}

/// The row loop's last full tile and its remainder as two tiles of nearly
/// even rows (Schedule::evenRows, Impl::rowTiles: 6 + 2 rows as 4 + 4).
void LaneDotKernel::Impl::Compute::evenRows(OpBuilder &b, Location loc,
                                            unsigned level, int64_t size,
                                            int64_t full, int64_t tail) {
  if (full > 1)
    fullTiles(b, loc, level, size, full - 1, Value());
  int64_t from = (full - 1) * size;
  for (int64_t rows : rowTiles(size + tail, size, /*even=*/true)) {
    tile(b, loc, level, from, rows);
    from += rows;
  }
}

/// `count` tiles of `size` iterations of loop order[level] in a loop from
/// the start of its span, stopping after the tile that holds the last of
/// the `active` lanes (if given).
void LaneDotKernel::Impl::Compute::fullTiles(OpBuilder &b, Location loc,
                                             unsigned level, int64_t size,
                                             int64_t count, Value active) {
  unsigned l = order[level];
  Value ub = cIndex(b, loc, count * size);
  if (active) {
    Value tiles =
        arith::CeilDivSIOp::create(b, loc, active, cIndex(b, loc, size));
    ub = arith::MinSIOp::create(
        b, loc, ub, arith::MulIOp::create(b, loc, tiles, cIndex(b, loc, size)));
  }
  auto loop = scf::ForOp::create(
      b, loc, cIndex(b, loc, 0), ub, cIndex(b, loc, size), ValueRange{},
      [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
        tileStart[l] = spanIndex(b, loc, l, iv);
        tileLength[l] = size;
        parallel(b, loc, level + 1);
        scf::YieldOp::create(b, loc);
      });
  loop->setAttr(kLoopAttr, kindOf(b, l));
}

/// One tile of `length` iterations of loop order[level] at `start` in its
/// span.
void LaneDotKernel::Impl::Compute::tile(OpBuilder &b, Location loc,
                                        unsigned level, int64_t start,
                                        int64_t length) {
  unsigned l = order[level];
  tileStart[l] = spanIndex(b, loc, l, cIndex(b, loc, start));
  tileLength[l] = length;
  parallel(b, loc, level + 1);
}

/// Index `i` of the current span of loop `l` as an index of the loop.
Value LaneDotKernel::Impl::Compute::spanIndex(OpBuilder &b, Location loc,
                                              unsigned l, Value i) const {
  return offset[l] ? Value(arith::AddIOp::create(b, loc, offset[l], i)) : i;
}

/// The active lanes of the current span of loop `l` (from its first), or
/// null when every iteration matters.
Value LaneDotKernel::Impl::Compute::activeInSpan(OpBuilder &b, Location loc,
                                                 unsigned l) const {
  if (l != m.laneLoop || !activeLanes)
    return Value();
  if (!offset[l])
    return activeLanes;
  return arith::SubIOp::create(b, loc, activeLanes, offset[l]);
}

/// Columns [from, to) of the innermost parallel loop besides the lanes
/// (border columns counted as one range) with schedule `sch`.
void LaneDotKernel::Impl::Compute::columnPiece(OpBuilder &b, Location loc,
                                               int64_t from, int64_t to,
                                               const Schedule &sch) {
  if (from >= to)
    return;
  unsigned inner = m.parallelLoops.back();
  offset[inner] = from ? cIndex(b, loc, from) : Value();
  span[inner] = to - from;
  cur = &sch;
  parallel(b, loc, 0);
}

/// The parallel nest, once per kind of column (Schedule::edge) when the
/// columns are not split by a block.
void LaneDotKernel::Impl::Compute::columns(OpBuilder &b, Location loc) {
  unsigned inner = m.parallelLoops.empty() ? 0 : m.parallelLoops.back();
  if (!edges || offset[inner] || span[inner] != m.extent[inner])
    return parallel(b, loc, 0);
  if (which != Columns::Border)
    columnPiece(b, loc, edgeLow, edgeHigh, s);
  // Both sides' border columns in one nest.
  borderColumns = true;
  if (which != Columns::Interior)
    columnPiece(b, loc, 0, edgeLow + m.extent[inner] - edgeHigh,
                edgeSchedule);
  borderColumns = false;
  cur = &s;
  offset[inner] = Value();
  span[inner] = m.extent[inner];
}

void LaneDotKernel::emitCompute(OpBuilder &b, Location loc,
                                const ComputeOperands &operands,
                                const Schedule &s) const {
  Impl::Compute(*impl, b, loc, operands, s).emit(b, loc);
}

LogicalResult LaneDotKernel::canFuse(const Epilogue &epilogue,
                                     std::string &why) const {
  return epilogue.checkLanes(impl->outputLaneDim(), why);
}

} // namespace tisa
