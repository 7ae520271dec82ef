//===- Schedule.cpp - schedules, their text and cost ------------------------===//

#include "LaneDotKernelImpl.h"

#include "llvm/ADT/StringSet.h"

namespace tisa {

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

std::string Schedule::text() const {
  std::string out = "unroll=";
  for (auto [i, u] : llvm::enumerate(unroll))
    out += (i ? "x" : "") + std::to_string(u);
  out += ",block=" + std::to_string(laneBlock);
  out += lanesOuter ? ",order=lanes-outer" : ",order=lanes-inner";
  if (panel)
    out += ",panel=" + std::to_string(panel);
  if (fuse)
    out += ",fuse=1";
  if (edge)
    out += ",edge=" + std::to_string(edge);
  if (reductionUnroll != 1)
    out += ",kunroll=" + std::to_string(reductionUnroll);
  if (hold)
    out += ",hold=" + std::to_string(hold);
  if (evenRows)
    out += ",even=1";
  return out;
}

ScheduleAttr Schedule::attr(MLIRContext *ctx) const {
  return ScheduleAttr::get(ctx, unroll, laneBlock, lanesOuter, panel, fuse,
                           edge, reductionUnroll, hold, evenRows);
}

Schedule Schedule::fromAttr(ScheduleAttr attr) {
  Schedule s;
  s.unroll.assign(attr.getUnroll().begin(), attr.getUnroll().end());
  s.laneBlock = attr.getBlock();
  s.lanesOuter = attr.getLanesOuter();
  s.panel = attr.getPanel();
  s.fuse = attr.getFuse();
  s.edge = attr.getEdge();
  s.reductionUnroll = attr.getKunroll();
  s.hold = attr.getHold();
  s.evenRows = attr.getEvenRows();
  return s;
}

FailureOr<Schedule> Schedule::parse(StringRef text, std::string &why) {
  Schedule s;
  bool sawUnroll = false;
  SmallVector<StringRef> fields;
  text.split(fields, ',');
  llvm::StringSet<> seen;
  for (StringRef f : fields) {
    auto [key, value] = f.trim().split('=');
    if (!seen.insert(key).second) {
      why = "schedule field '" + key.str() + "' is given twice";
      return failure();
    }
    if (key == "unroll") {
      sawUnroll = true;
      SmallVector<StringRef> parts;
      value.split(parts, 'x');
      for (StringRef p : parts) {
        int64_t u;
        if (p.getAsInteger(10, u) || u < 1 || u > 64) {
          why = "unroll factor '" + p.str() + "' is not an integer in [1, 64]";
          return failure();
        }
        s.unroll.push_back(u);
      }
    } else if (key == "block") {
      if (value.getAsInteger(10, s.laneBlock) || s.laneBlock < 0) {
        why = "block '" + value.str() + "' is not a non-negative integer";
        return failure();
      }
    } else if (key == "order") {
      if (value != "lanes-inner" && value != "lanes-outer") {
        why = "order '" + value.str() +
              "' is neither lanes-inner nor lanes-outer";
        return failure();
      }
      s.lanesOuter = value == "lanes-outer";
    } else if (key == "fuse") {
      if (value != "0" && value != "1") {
        why = "fuse '" + value.str() + "' is neither 0 nor 1";
        return failure();
      }
      s.fuse = value == "1";
    } else if (key == "edge") {
      if (value.getAsInteger(10, s.edge) || s.edge < 0 || s.edge > 64) {
        why = "edge '" + value.str() + "' is not an integer in [0, 64]";
        return failure();
      }
    } else if (key == "kunroll") {
      if (value.getAsInteger(10, s.reductionUnroll) || s.reductionUnroll < 1 ||
          s.reductionUnroll > 16) {
        why = "kunroll '" + value.str() + "' is not an integer in [1, 16]";
        return failure();
      }
    } else if (key == "hold") {
      if (value.getAsInteger(10, s.hold) || s.hold < 0 || s.hold > 64) {
        why = "hold '" + value.str() + "' is not an integer in [0, 64]";
        return failure();
      }
    } else if (key == "even") {
      if (value != "0" && value != "1") {
        why = "even '" + value.str() + "' is neither 0 nor 1";
        return failure();
      }
      s.evenRows = value == "1";
    } else if (key == "panel") {
      if (value.getAsInteger(10, s.panel) || s.panel < 0) {
        why = "panel '" + value.str() + "' is not a non-negative integer";
        return failure();
      }
    } else {
      why = "unknown schedule field '" + key.str() +
            "' (expected unroll, block, order, panel, fuse, edge, kunroll, "
            "hold, even)";
      return failure();
    }
  }
  if (!sawUnroll) {
    why = "the schedule has no unroll field";
    return failure();
  }
  return s;
}

std::string ScheduleSpace::text() const {
  std::string out = "parallel=";
  for (auto [i, p] : llvm::enumerate(parallel))
    out += (i ? "x" : "") + std::string(p ? "1" : "0");
  return out + ",lane=" + std::to_string(laneLoop) +
         ",lanes=" + std::to_string(lanes) +
         ",padded=" + std::to_string(lanesPadded);
}

FailureOr<ScheduleSpace> ScheduleSpace::parse(StringRef text) {
  ScheduleSpace s;
  SmallVector<StringRef> fields;
  text.split(fields, ',');
  bool ok = fields.size() == 4;
  for (StringRef f : fields) {
    auto [key, value] = f.split('=');
    if (key == "parallel") {
      SmallVector<StringRef> bits;
      value.split(bits, 'x');
      for (StringRef b : bits) {
        ok &= b == "0" || b == "1";
        s.parallel.push_back(b == "1");
      }
    } else if (key == "lane") {
      ok &= !value.getAsInteger(10, s.laneLoop);
    } else if (key == "lanes") {
      ok &= !value.getAsInteger(10, s.lanes) && s.lanes > 0;
    } else if (key == "padded") {
      ok &= !value.getAsInteger(10, s.lanesPadded) && s.lanesPadded > 0;
    } else {
      ok = false;
    }
  }
  if (!ok || s.laneLoop >= s.parallel.size())
    return failure();
  return s;
}

ScheduleSpace LaneDotKernel::space() const {
  const Impl &m = *impl;
  ScheduleSpace s;
  for (const auto &loop : m.c.loops)
    s.parallel.push_back(!loop.reduction);
  s.laneLoop = m.laneLoop;
  s.lanes = m.lanes;
  s.lanesPadded = m.lanesPadded;
  return s;
}

/// The default schedule's search (defaultSchedule). Register tile: `a` rows
/// of one parallel loop (or of the two innermost fused) by `b` registers of
/// lanes, chosen by counting cycles, remainders included: the rows and
/// registers left over form one smaller tile. A tile's reduction step costs
/// its instructions; or, with fewer accumulators than the target's
/// accumulator chains x latency x issue rate (measured: 8 independent
/// vpdpbusd chains of latency 4 reach the peak, 4 do not), that many; or its
/// loads (b packed vectors and a broadcasts); plus the loop overhead. Tiles
/// stay within the target's largest tile and leave registers to spare. The
/// constants are the target's cost model.
class LaneDotKernel::Impl::TileSearch {
public:
  TileSearch(const Impl &m, const Target &target,
             ArrayRef<int64_t> inputShape, ArrayRef<int64_t> inputPadding);
  ScheduleEstimate run();

private:
  /// Tiles of the same number of rows: how many, and the sum of their
  /// fractions of the reduction.
  struct Tiles {
    int64_t rows, count;
    double frac;
    int loop = -1; ///< the loop the rows are of
  };
  /// A register tile shape and the tiles it makes (they do not depend on b);
  /// evenTiles: those of Schedule::evenRows, where they differ.
  struct Candidate {
    SmallVector<Tiles> tiles;
    int64_t a;
    int row;
    bool fuse;
    int64_t edge;
    SmallVector<Tiles> evenTiles = {};
  };

  double tileBytes(int rowLoop, int64_t a);
  double tileCycles(int rowLoop, int64_t a, int64_t b, double frac);
  double cycles(ArrayRef<Tiles> tiles, int64_t b);
  double fraction(unsigned l, int64_t lo, int64_t hi) const;
  double rowsSum(unsigned l, int64_t from, int64_t to) const;
  void tilesOf(unsigned l, int64_t from, int64_t to, int64_t a, int64_t count,
               double frac, SmallVectorImpl<Tiles> &out,
               bool even = false) const;
  void fusedTiles(int64_t a, int64_t count, double frac,
                  SmallVectorImpl<Tiles> &out, bool even) const;
  static void addTile(SmallVectorImpl<Tiles> &out, int64_t rows, double frac,
                      int loop);
  static void appendScaled(ArrayRef<Tiles> tiles, int64_t count, double frac,
                           SmallVectorImpl<Tiles> &out);
  double allRows(unsigned l) const;
  void consider(const Candidate &c, int64_t b);
  void edgeCandidates();
  void rowCandidates();
  void fusedCandidates();
  void blockLanes();
  bool streamsFromL3() const;
  std::string noTileFits() const;

  const Impl &m;
  const CostModel &cm;
  double issue, chains;
  int64_t registers, steps, laneRegs;
  double packedRegisterBytes; // one register of the packed operand
  // The broadcast elements a tile reads over its reduction should stay in
  // L1 while the packed panel streams; the count adds a penalty beyond L1.
  // Rows of a conv2d share most of their windows (5 columns of 3x3 taps read
  // 7 columns).
  int64_t l1, l2Budget;
  const ProgramOperand &bcOperand;
  std::map<std::pair<int, int64_t>, double> tileBytesSeen;
  // The filter taps a zero border lets tiles skip (conv2d padding read in
  // place).
  Border border;
  SmallVector<TapDim> taps;
  unsigned numLoops;
  int64_t volume = 1; // iterations of the parallel loops besides the lanes
  double uniform = 1; // mean fraction of a row
  bool pair;
  unsigned outer, inner;
  int64_t edgeLow = 0, edgeHigh = 0;
  bool edges = false;
  SmallVector<Candidate> candidates;
  // The best so far.
  Schedule s;
  double bestCycles = 0, bestLoads = 0;
  int64_t rowsPerTile = 1;
};

LaneDotKernel::Impl::TileSearch::TileSearch(const Impl &m,
                                            const Target &target,
                                            ArrayRef<int64_t> inputShape,
                                            ArrayRef<int64_t> inputPadding)
    : m(m), cm(target.cost), issue(std::max(1e-3, target.issueRate(*m.d))),
      chains(cm.accumulatorChains * target.latency(*m.d) * issue),
      registers(target.vectorRegistersOrAssumed()),
      steps(m.reductionVolume() / m.extent[m.groupLoop] * m.groupTiles),
      laneRegs(m.lanesPadded / m.lanes),
      packedRegisterBytes(
          double(m.d->registers[m.pkInstr].type.getNumElements()) *
          m.d->registers[m.pkInstr].type.getElementTypeBitWidth() / 8),
      l1(int64_t(target.l1dBytesOrAssumed())),
      l2Budget(
          int64_t(double(target.l2BytesOrAssumed()) * cm.l2BlockFraction)),
      bcOperand(m.c.operands[m.bcInput]),
      border(m.borderOf(inputShape, inputPadding)), taps(m.tapDimsOf(border)),
      numLoops(m.c.loops.size()), pair(m.parallelLoops.size() >= 2),
      outer(pair ? m.parallelLoops[m.parallelLoops.size() - 2] : 0),
      inner(m.parallelLoops.empty() ? 0 : m.parallelLoops.back()) {
  s.unroll.assign(numLoops, 1);
  for (unsigned l : m.parallelLoops)
    volume *= m.extent[l];
  for (unsigned l : m.parallelLoops)
    uniform *= allRows(l);
  if (auto interior = m.interiorColumns(border, taps)) {
    edges = true;
    std::tie(edgeLow, edgeHigh) = *interior;
  }
}

double LaneDotKernel::Impl::TileSearch::tileBytes(int rowLoop, int64_t a) {
  auto [it, fresh] = tileBytesSeen.try_emplace({rowLoop, a}, 0.0);
  if (!fresh)
    return it->second;
  double elements = 1;
  for (AffineExpr e : bcOperand.map.getResults()) {
    auto coef = linearCoefficients(e, numLoops);
    int64_t range = 1;
    for (unsigned l = 0; l < numLoops; ++l) {
      int64_t span = m.c.loops[l].reduction ? m.extent[l]
                     : int(l) == rowLoop    ? a
                                            : 1;
      range += coef ? std::abs((*coef)[l]) * (span - 1) : span - 1;
    }
    elements *= range;
  }
  return it->second = elements * bcOperand.elementBytes();
}

/// A tile of `a` rows of loop `rowLoop` and `b` registers running `frac` of
/// the reduction's steps (the rest are taps on a zero border).
double LaneDotKernel::Impl::TileSearch::tileCycles(int rowLoop, int64_t a,
                                                   int64_t b, double frac) {
  double step = std::max({double(a * b), chains, double(a + b)}) / issue;
  // A packed panel larger than L1 streams from L2 for every row tile.
  double packed = double(b) * packedRegisterBytes;
  if (cm.l2BytesPerCycle > 0 && packed * steps > l1)
    step = std::max(step, packed / cm.l2BytesPerCycle);
  step += cm.loopOverheadCycles;
  if (tileBytes(rowLoop, a) > l1)
    step *= cm.l1OverflowFactor;
  return steps * frac * step +
         cm.accumulatorCycles * a * b; // and the accumulators
}

double LaneDotKernel::Impl::TileSearch::cycles(ArrayRef<Tiles> tiles,
                                               int64_t b) {
  double sum = 0;
  for (const Tiles &t : tiles) {
    if (!t.count)
      continue;
    double perTile = t.frac / t.count;
    sum += t.count * (laneRegs / b * tileCycles(t.loop, t.rows, b, perTile) +
                      (laneRegs % b
                           ? tileCycles(t.loop, t.rows, laneRegs % b, perTile)
                           : 0.0));
  }
  return sum;
}

/// The fraction of taps rows [lo, hi] of loop `l` need, over the tap loops
/// that loop alone indexes with.
double LaneDotKernel::Impl::TileSearch::fraction(unsigned l, int64_t lo,
                                                 int64_t hi) const {
  double f = 1;
  for (const TapDim &t : taps) {
    bool alone = t.coef[l] != 0;
    for (unsigned k = 0; k < numLoops; ++k)
      alone &= k == l || k == t.loop || !t.coef[k];
    if (!alone)
      continue;
    int64_t c = t.coef[numLoops];
    auto [from, to] = t.taps(border, c + t.coef[l] * lo, c + t.coef[l] * hi,
                             m.extent[t.loop]);
    f *= double(to - from) / m.extent[t.loop];
  }
  return f;
}

/// Sum of fractions over the rows of loop `l` in [from, to), one by one.
double LaneDotKernel::Impl::TileSearch::rowsSum(unsigned l, int64_t from,
                                                int64_t to) const {
  double f = 0;
  for (int64_t p = from; p < to; ++p)
    f += fraction(l, p, p);
  return f;
}

SmallVector<int64_t> LaneDotKernel::Impl::rowTiles(int64_t n, int64_t a,
                                                   bool even) {
  int64_t full = n / a, rest = n % a;
  if (even && full && rest) {
    SmallVector<int64_t> out(full - 1, a);
    out.push_back((a + rest + 1) / 2);
    out.push_back((a + rest) / 2);
    return out;
  }
  SmallVector<int64_t> out(full, a);
  if (rest)
    out.push_back(rest);
  return out;
}

/// Adds a tile of `rows` rows of loop `loop` running `frac` of the reduction
/// to the tiles of its size.
void LaneDotKernel::Impl::TileSearch::addTile(SmallVectorImpl<Tiles> &out,
                                              int64_t rows, double frac,
                                              int loop) {
  for (auto &t : out)
    if (t.rows == rows) {
      t.count += 1;
      t.frac += frac;
      return;
    }
  out.push_back({rows, 1, frac, loop});
}

/// The tiles of `a` rows of loop `l` over [from, to) (rowTiles), each coming
/// `count` times (once per row of the other loops), whose fractions add up
/// to `frac`.
void LaneDotKernel::Impl::TileSearch::tilesOf(unsigned l, int64_t from,
                                              int64_t to, int64_t a,
                                              int64_t count, double frac,
                                              SmallVectorImpl<Tiles> &out,
                                              bool even) const {
  SmallVector<Tiles> tiles;
  int64_t first = from;
  for (int64_t rows : rowTiles(to - from, a, even)) {
    addTile(tiles, rows, fraction(l, first, first + rows - 1), int(l));
    first += rows;
  }
  appendScaled(tiles, count, frac, out);
}

/// `tiles` of one row of the other loops, appended to `out` as they come
/// `count` times with their fractions scaled by `frac`.
void LaneDotKernel::Impl::TileSearch::appendScaled(ArrayRef<Tiles> tiles,
                                                   int64_t count, double frac,
                                                   SmallVectorImpl<Tiles> &out) {
  for (Tiles t : tiles) {
    t.count *= count;
    t.frac *= frac;
    out.push_back(t);
  }
}

/// All rows of loop `l` once, and of every other parallel loop.
double LaneDotKernel::Impl::TileSearch::allRows(unsigned l) const {
  return m.extent[l] ? rowsSum(l, 0, m.extent[l]) / m.extent[l] : 1.0;
}

void LaneDotKernel::Impl::TileSearch::consider(const Candidate &c, int64_t b) {
  // And all a broadcasts live at once with a packed vector (LLVM loads the
  // broadcasts first).
  // By element, the rows' registers live with a step's packed vectors.
  int64_t packedWithRows = m.broadcastByElement() ? b : 0;
  auto fits = [&](int64_t rows) {
    return rows * b + b + cm.spareRegistersWithPacked <= registers &&
           rows * b + rows + packedWithRows +
                   cm.spareRegistersWithBroadcasts <=
               registers;
  };
  if (!fits(c.a) || (c.edge && !fits(c.edge)))
    return;
  double cost = cycles(c.tiles, b);
  bool even = false;
  if (!c.evenTiles.empty())
    if (double e = cycles(c.evenTiles, b); e < cost) {
      cost = e;
      even = true;
    }
  // Within the tie window, fewer loads per instruction win (measured on
  // vdpbf16ps: 4x4 beats 2x8 by 8%, 7x3 beats 2x8 by 30% on a 7x7
  // conv2d, where the count favours 2x8 by 1-3%).
  double loads = double(c.a + b) / (c.a * b);
  if (bestCycles == 0 || cost < bestCycles * (1 - cm.tieWindow) ||
      (cost < bestCycles * (1 + cm.tieWindow) && loads < bestLoads)) {
    bestCycles = cost;
    bestLoads = loads;
    rowsPerTile = c.a;
    s.unroll.assign(numLoops, 1);
    if (c.row >= 0)
      s.unroll[c.row] = c.a;
    s.unroll[m.laneLoop] = b;
    s.fuse = c.fuse;
    s.edge = c.edge;
    s.evenRows = even;
  }
}

/// Why not even a tile of one row by one vector fits: the registers it
/// needs (consider's two counts) against the target's.
std::string LaneDotKernel::Impl::TileSearch::noTileFits() const {
  int64_t packedWithRows = m.broadcastByElement() ? 1 : 0;
  int64_t need = std::max(2 + cm.spareRegistersWithPacked,
                          2 + packedWithRows + cm.spareRegistersWithBroadcasts);
  return llvm::formatv("no register tile fits: one row of one vector needs {0} "
                       "vector registers with the cost model's spares, the "
                       "target has {1}",
                       need, registers)
      .str();
}

/// Edge tiles: rows of the inner loop on interior columns and of the outer
/// on border columns.
void LaneDotKernel::Impl::TileSearch::edgeCandidates() {
  if (!edges)
    return;
  // Per (outer, inner) row: the other loops' count and fractions.
  int64_t count = volume / m.extent[inner] / m.extent[outer];
  double frac = count * uniform / allRows(outer) / allRows(inner);
  double outerRows = rowsSum(outer, 0, m.extent[outer]);
  // Border columns in tiles about as tall as the interior tile is wide,
  // split evenly (7 rows for a = 5: 4 + 3; 14 for a = 6: 5 + 5 + 4).
  // Measured on 7x7 3x3 pad 1 with 5x4 interior tiles: edge 4 ran at
  // 460 GOPS, 2 at 444, 6 (6 + 1) at 435-449.
  for (int64_t a = 1; a <= std::min<int64_t>(cm.maxTileRows, edgeHigh - edgeLow);
       ++a) {
    int64_t h = m.extent[outer];
    int64_t e = llvm::divideCeil(h, llvm::divideCeil(h, a));
    Candidate c{{}, a, a > 1 ? int(inner) : -1, false, e};
    tilesOf(inner, edgeLow, edgeHigh, a, count * m.extent[outer],
            frac * outerRows, c.tiles);
    for (int64_t p = 0; p < m.extent[inner]; ++p)
      if (p < edgeLow || p >= edgeHigh)
        tilesOf(outer, 0, m.extent[outer], e, count,
                frac * fraction(inner, p, p), c.tiles);
    candidates.push_back(std::move(c));
  }
}

/// No rows, and rows of each parallel loop.
void LaneDotKernel::Impl::TileSearch::rowCandidates() {
  candidates.push_back({{{1, volume, volume * uniform}}, 1, -1, false, 0});
  for (unsigned l : m.parallelLoops) {
    if (m.extent[l] < 2)
      continue;
    int64_t count = volume / m.extent[l];
    double frac = count * uniform / allRows(l);
    for (int64_t a = 2; a <= std::min<int64_t>(cm.maxTileRows, m.extent[l]);
         ++a) {
      Candidate c{{}, a, int(l), false, 0};
      tilesOf(l, 0, m.extent[l], a, count, frac, c.tiles);
      if (m.extent[l] % a && m.extent[l] > a)
        tilesOf(l, 0, m.extent[l], a, count, frac, c.evenTiles, true);
      candidates.push_back(std::move(c));
    }
  }
}

/// Rows of the innermost two parallel loops fused.
void LaneDotKernel::Impl::TileSearch::fusedCandidates() {
  if (!pair || m.extent[outer] <= 1 || m.extent[inner] <= 1)
    return;
  int64_t rows = m.extent[outer] * m.extent[inner];
  int64_t count = volume / rows;
  double frac = count * uniform / allRows(outer) / allRows(inner);
  for (int64_t a = 2; a <= std::min<int64_t>(cm.maxTileRows, rows); ++a) {
    Candidate c{{}, a, int(inner), true, 0};
    fusedTiles(a, count, frac, c.tiles, false);
    if (rows % a && rows > a)
      fusedTiles(a, count, frac, c.evenTiles, true);
    candidates.push_back(std::move(c));
  }
}

/// The tiles of `a` fused rows (rowTiles), each coming `count` times, whose
/// fractions add up to `frac`.
void LaneDotKernel::Impl::TileSearch::fusedTiles(int64_t a, int64_t count,
                                                 double frac,
                                                 SmallVectorImpl<Tiles> &out,
                                                 bool even) const {
  int64_t w = m.extent[inner], rows = m.extent[outer] * w, first = 0;
  SmallVector<Tiles> tiles;
  for (int64_t n : rowTiles(rows, a, even)) {
    int64_t last = first + n - 1;
    int64_t o0 = first / w, o1 = last / w;
    double f = taps.empty()
                   ? 1.0
                   : fraction(outer, o0, o1) *
                         (o0 == o1 ? fraction(inner, first % w, last % w)
                                   : fraction(inner, 0, w - 1));
    addTile(tiles, n, f, int(inner));
    first += n;
  }
  appendScaled(tiles, count, frac, out);
}

/// Whether the chosen tile keeps up reading all of the packed operand from
/// L3: its packed bytes per step within what L3 streams in the step's
/// cycles (the instructions' issue, as tileCycles counts it).
bool LaneDotKernel::Impl::TileSearch::streamsFromL3() const {
  if (cm.l3BytesPerCycle <= 0)
    return false;
  int64_t a = rowsPerTile, b = s.unroll[m.laneLoop];
  double step = std::max({double(a * b), chains, double(a + b)}) / issue;
  return double(b) * packedRegisterBytes <= step * cm.l3BytesPerCycle;
}

/// Panels as wide as the tile; when the packed operand does not fit in the
/// target's share of L2, is reused by more than one row tile and the tile
/// would wait for it streamed from L3, the lane loop is blocked so that one
/// block's panels do.
void LaneDotKernel::Impl::TileSearch::blockLanes() {
  int64_t tile = m.lanes * s.unroll[m.laneLoop];
  // One panel per register tile of lanes: its reduction is contiguous.
  if (tile < m.lanesPadded)
    s.panel = tile;
  if (volume > rowsPerTile && m.dataBytes > l2Budget && !streamsFromL3()) {
    int64_t perLane = m.dataBytes / m.lanesPadded;
    int64_t block = std::max<int64_t>(1, l2Budget / perLane / tile) * tile;
    if (block < m.lanesPadded)
      s.laneBlock = block;
  }
}

ScheduleEstimate LaneDotKernel::Impl::TileSearch::run() {
  // Edge tiles are considered first (winning ties) when border columns are a
  // large enough fraction of the columns: exact taps measured faster there
  // (14x14x256 3x3 pad 1 u8s8s32: 456 GOPS against 422-435 for rows of oh),
  // slower where there are few (224x224x3 7x7/2 pad 3: 280 against 328).
  bool edgesFirst =
      edges && double(edgeLow + m.extent[inner] - edgeHigh) >=
                   cm.edgeFirstFraction * m.extent[inner] - 1e-9;
  // Rows and columns that run time gives run in blocks down to one row or
  // column (-tisa-split-dynamic): fused, a block's outputs still fill
  // register tiles (7x7x512 u8 at run-time h and w on Zen 5: 757 GOPS
  // against 498 in tiles of one row's columns).
  bool runTimeImage =
      pair && m.c.loops[outer].block && m.c.loops[inner].block;
  if (runTimeImage)
    fusedCandidates();
  if (candidates.empty()) {
    if (edgesFirst)
      edgeCandidates();
    rowCandidates();
    fusedCandidates();
    if (!edgesFirst)
      edgeCandidates();
  }
  for (int64_t b = 1; b <= std::min<int64_t>(cm.maxTileRegisters, laneRegs);
       ++b)
    for (const Candidate &c : candidates)
      consider(c, b);
  if (bestCycles == 0)
    return {s, 0, noTileFits()};
  blockLanes();
  return {s, bestCycles, ""};
}

ScheduleEstimate
LaneDotKernel::estimate(const Target &target, ArrayRef<int64_t> inputShape,
                        ArrayRef<int64_t> inputPadding) const {
  return Impl::TileSearch(*impl, target, inputShape, inputPadding).run();
}

LogicalResult LaneDotKernel::verify(const Schedule &s, const Target *,
                                    std::string &why) const {
  const Impl &m = *impl;
  if (s.unroll.size() != m.c.loops.size()) {
    why = "the schedule unrolls " + std::to_string(s.unroll.size()) +
          " loops but the kernel has " + std::to_string(m.c.loops.size());
    return failure();
  }
  for (auto [l, u] : llvm::enumerate(s.unroll))
    if (u != 1 && m.c.loops[l].reduction) {
      why = "loop " + std::to_string(l) + " is a reduction; only parallel "
            "loops are unrolled into registers";
      return failure();
    }
  if (s.reductionUnroll != 1) {
    why = "kunroll applies to tile kernels (AMX tiles, matrix segments); a "
          "lane-dot kernel's reduction is unrolled by -tisa-by-element";
    return failure();
  }
  if (s.hold) {
    why = "hold applies to AMX tile kernels; a lane-dot kernel's packed "
          "operand is read from memory";
    return failure();
  }
  int64_t accumulators = 1;
  for (int64_t u : s.unroll)
    accumulators *= u;
  if (accumulators > 64) {
    why = "the register tile has " + std::to_string(accumulators) +
          " accumulators (at most 64)";
    return failure();
  }
  int64_t tile = m.lanes * s.unroll[m.laneLoop];
  if (s.fuse) {
    if (m.parallelLoops.size() < 2) {
      why = "fuse needs two parallel loops besides the lanes";
      return failure();
    }
    unsigned outer = m.parallelLoops[m.parallelLoops.size() - 2];
    if (s.unroll[outer] != 1) {
      why = "loop " + std::to_string(outer) +
            " is fused with the next one; the fused loop's unroll factor "
            "is the inner loop's, so its own must be 1";
      return failure();
    }
  }
  if (s.edge) {
    if (s.fuse || m.parallelLoops.size() < 2) {
      why = "edge needs unfused rows and two parallel loops besides the lanes";
      return failure();
    }
    // The edge tile: `edge` rows of the outer loop, one column, the other
    // factors as they are.
    unsigned inner = m.parallelLoops.back();
    unsigned outer = m.parallelLoops[m.parallelLoops.size() - 2];
    int64_t edgeAccumulators =
        accumulators / s.unroll[inner] / s.unroll[outer] * s.edge;
    if (edgeAccumulators > 64) {
      why = "the edge tile has " + std::to_string(edgeAccumulators) +
            " accumulators (at most 64)";
      return failure();
    }
  }
  if (s.panel % m.lanes) {
    why = "panel " + std::to_string(s.panel) +
          " is not a multiple of the instruction's " +
          std::to_string(m.lanes) + " lanes";
    return failure();
  }
  if (s.laneBlock % tile) {
    why = "block " + std::to_string(s.laneBlock) +
          " is not a multiple of the register tile's " + std::to_string(tile) +
          " lanes";
    return failure();
  }
  return success();
}

int64_t LaneDotKernel::partitionTiles(const Schedule &s) const {
  int64_t tiles = 1;
  impl->blockLevels(s, &tiles);
  return tiles;
}

} // namespace tisa
