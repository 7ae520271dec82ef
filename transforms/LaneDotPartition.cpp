//===- LaneDotPartition.cpp - cache blocks and the partition into ranges --===//
//
// The block levels around the lane-dot register nest: a cache block of the
// lane loop (Schedule::laneBlock) and the partition that the range entry
// (`_packed_range(begin, end)`) shares out: tiles [begin, end) of
// `partitionTiles`, which callers split between threads as tiles
// [n p / parts, n (p + 1) / parts). The partition is one level, or two
// levels numbered as one when no single level shares out evenly; and the
// loops of those blocks around emitCompute's register nest.
//
//===----------------------------------------------------------------------===//

#include "LaneDotCompute.h"

namespace tisa {

namespace {

/// The thread counts a partition is made for: its tiles should share out
/// evenly between each.
constexpr std::array<int64_t, 2> kPartitionThreads = {2, 4};
/// A partition whose largest share is on average at most this much over the
/// even share is kept; one over two levels must do better by kBalanceGain.
constexpr double kBalanced = 1.05, kBalanceGain = 0.02;

/// A level's blocks: full blocks of `size`, the partial last one.
SmallVector<int64_t> blockSizes(int64_t whole, int64_t size) {
  SmallVector<int64_t> sizes(whole / size, size);
  if (whole % size)
    sizes.push_back(whole % size);
  return sizes;
}

/// The largest share of the work over the even share, for tiles of `work`
/// split as the callers split a range, averaged over kPartitionThreads.
double imbalance(ArrayRef<int64_t> work) {
  int64_t n = work.size(), total = 0;
  for (int64_t w : work)
    total += w;
  double sum = 0;
  for (int64_t parts : kPartitionThreads) {
    int64_t largest = 0;
    for (int64_t p = 0; p < parts; ++p) {
      int64_t share = 0;
      for (int64_t t = n * p / parts; t < n * (p + 1) / parts; ++t)
        share += work[t];
      largest = std::max(largest, share);
    }
    sum += double(largest) * parts / double(total);
  }
  return sum / kPartitionThreads.size();
}

/// The work of the tiles of two levels' blocks numbered major first.
SmallVector<int64_t> productWork(ArrayRef<int64_t> major,
                                 ArrayRef<int64_t> minor) {
  SmallVector<int64_t> work;
  for (int64_t a : major)
    for (int64_t b : minor)
      work.push_back(a * b);
  return work;
}

} // namespace

SmallVector<LaneDotKernel::Impl::BlockLevel>
LaneDotKernel::Impl::blockLevels(const Schedule &s,
                                 int64_t *partitionTiles) const {
  bool laneBlocked = s.laneBlock > 0 && s.laneBlock < lanesPadded;
  auto level = [](unsigned loop, int64_t size, bool cache) {
    BlockLevel l;
    l.loop = loop;
    l.size = size;
    l.partitioned = true;
    l.cache = cache;
    return l;
  };
  struct Candidate {
    BlockLevel level;
    SmallVector<int64_t> sizes;
  };
  SmallVector<Candidate> candidates;
  if (laneBlocked)
    candidates.push_back({level(laneLoop, s.laneBlock, true),
                          blockSizes(lanesPadded, s.laneBlock)});
  for (unsigned l : parallelOrder(s)) {
    if (laneBlocked && l == laneLoop)
      continue;
    int64_t size = unrollOf(l, s) * step(l);
    candidates.push_back(
        {level(l, size, false), blockSizes(whole(l, s), size)});
  }
  // One level: the outermost whose tiles share out evenly between 2 or 4
  // threads (a multiple of 4, or at least 16), else the one with the most.
  // (5 row tiles of a 28x28 conv2d on 2 threads run 3:2, capping the
  // speedup at 1.67x; its 28 column tiles run 14:14.)
  unsigned best = 0;
  for (unsigned i = 0; i < candidates.size(); ++i) {
    int64_t t = candidates[i].sizes.size();
    if (t >= 16 || (t >= 4 && t % 4 == 0)) {
      best = i;
      break;
    }
    if (t > int64_t(candidates[best].sizes.size()))
      best = i;
  }
  // Two levels, when the best one's tiles still share out unevenly (7
  // columns of a 7x7 conv2d run 4:3 on 2 threads, 1.67x one thread), and
  // not with edge tiles, whose ranges follow the rows of one level.
  SmallVector<unsigned, 2> chosen = {best};
  unsigned major = best;
  double cost = imbalance(candidates[best].sizes);
  if (cost > kBalanced && !s.edge) {
    double single = cost;
    for (unsigned i = 0; i < candidates.size(); ++i)
      for (unsigned j = i + 1; j < candidates.size(); ++j)
        for (unsigned maj : {i, j}) {
          unsigned min = maj == i ? j : i;
          double c = imbalance(
              productWork(candidates[maj].sizes, candidates[min].sizes));
          if (c < cost && c < single - kBalanceGain) {
            cost = c;
            chosen = {i, j};
            major = maj;
          }
        }
  }
  SmallVector<BlockLevel> levels;
  SmallVector<unsigned, 2> at; // chosen[k]'s index in `levels`
  for (unsigned i = 0; i < candidates.size(); ++i) {
    bool partitioned = llvm::is_contained(chosen, i);
    if (!partitioned && !(laneBlocked && i == 0))
      continue;
    BlockLevel level = candidates[i].level;
    level.partitioned = partitioned;
    level.major = i == major;
    level.blocks = candidates[i].sizes.size();
    if (partitioned)
      at.push_back(levels.size());
    levels.push_back(level);
  }
  if (at.size() == 2) {
    levels[at[0]].partner = at[1];
    levels[at[1]].partner = at[0];
  }
  if (partitionTiles) {
    *partitionTiles = 1;
    for (unsigned i : chosen)
      *partitionTiles *= candidates[i].sizes.size();
  }
  return levels;
}

/// Loop `l` in blocks of `size` of its `whole` iterations (after `base`):
/// full blocks in a loop, the partial last block once, so every loop inside
/// keeps constant bounds; with `lo`/`hi`, only the blocks [lo, hi). `body`
/// gets the block's number.
void LaneDotKernel::Impl::Compute::blockLoop(
    OpBuilder &b, Location loc, unsigned l, int64_t size, int64_t whole,
    Value base, Value lo, Value hi,
    function_ref<void(OpBuilder &, Location, Value)> body) {
  int64_t full = whole / size, tail = whole % size;
  auto at = [&](OpBuilder &b, Location loc, Value block) -> Value {
    Value o = arith::MulIOp::create(b, loc, block, cIndex(b, loc, size));
    return base ? Value(arith::AddIOp::create(b, loc, base, o)) : o;
  };
  if (full) {
    Value from = lo ? lo : cIndex(b, loc, 0);
    Value to =
        hi ? Value(arith::MinSIOp::create(b, loc, hi, cIndex(b, loc, full)))
           : cIndex(b, loc, full);
    auto loop = scf::ForOp::create(
        b, loc, from, to, cIndex(b, loc, 1), ValueRange{},
        [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
          offset[l] = at(b, loc, iv);
          span[l] = size;
          body(b, loc, iv);
          scf::YieldOp::create(b, loc);
        });
    loop->setAttr(kLoopAttr, b.getStringAttr("parallel"));
  }
  if (tail) {
    auto emitTail = [&](OpBuilder &b, Location loc) {
      Value block = cIndex(b, loc, full);
      offset[l] = at(b, loc, block);
      span[l] = tail;
      body(b, loc, block);
    };
    if (!lo) {
      emitTail(b, loc);
    } else {
      Value fullV = cIndex(b, loc, full);
      Value owned = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, lo, fullV),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, hi, fullV));
      scf::IfOp::create(b, loc, owned, [&](OpBuilder &b, Location loc) {
        emitTail(b, loc);
        scf::YieldOp::create(b, loc);
      });
    }
  }
  offset[l] = base;
  span[l] = whole;
}

/// The border columns of the rows [begin, end) of the partitioned level
/// `bl` (of `whole` rows), in tiles of `edge` rows: the tiles whose first
/// row lies in the range.
void LaneDotKernel::Impl::Compute::emitBorderTiles(OpBuilder &b, Location loc,
                                                   const BlockLevel &bl,
                                                   int64_t whole) {
  auto firstTile = [&](Value block) -> Value {
    // ceil(min(block * size, whole) / edge)
    Value row = arith::MinSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, block, cIndex(b, loc, bl.size)),
        cIndex(b, loc, whole));
    return arith::CeilDivSIOp::create(b, loc, row, cIndex(b, loc, s.edge));
  };
  which = Columns::Border;
  blockLoop(b, loc, bl.loop, s.edge, whole, Value(), firstTile(begin),
            firstTile(end),
            [&](OpBuilder &b, Location loc, Value) { columns(b, loc); });
  which = Columns::All;
}

/// The block levels from `i` in, around the columns. The partition's levels
/// run over the blocks the range [begin, end) owns (rangeOf).
void LaneDotKernel::Impl::Compute::emitBlocks(OpBuilder &b, Location loc,
                                              unsigned i) {
  if (i == blocks.size())
    return columns(b, loc);
  const BlockLevel &bl = blocks[i];
  // Without a range, a level that is only there for the partition would
  // split what the register tile splits anyway.
  if (!bl.cache && !begin)
    return emitBlocks(b, loc, i + 1);
  unsigned l = bl.loop;
  int64_t whole = span[l];
  Value saved = offset[l];
  bool dynamic = bl.partitioned && begin && !bl.partner;
  // A range over the rows that edge tiles run along: its blocks (one
  // register tile of rows) hold the interior columns only, and the border
  // columns run after them in tiles of `edge` rows, each range taking the
  // tiles whose first row is among its rows. (In the blocks, edge tiles
  // would shrink to the block's rows: 14x14x256 3x3 pad 1 on 2 threads at
  // 1.75x.)
  if (dynamic && edges && i + 1 == blocks.size() && !saved &&
      m.parallelLoops.size() >= 2 &&
      l == m.parallelLoops[m.parallelLoops.size() - 2])
    which = Columns::Interior;
  auto [lo, hi] = rangeOf(b, loc, i);
  blockLoop(b, loc, l, bl.size, whole, saved, lo, hi,
            [&](OpBuilder &b, Location loc, Value block) {
              blockIndex[i] = block;
              emitBlocks(b, loc, i + 1);
            });
  if (which == Columns::Interior)
    emitBorderTiles(b, loc, bl, whole);
}

/// The blocks [lo, hi) of level `i` that the range [begin, end) owns (null
/// for all of them). Over two levels, tile t = major * minorBlocks + minor:
/// the outer level in the nest bounds the inner one through its block.
std::pair<Value, Value>
LaneDotKernel::Impl::Compute::rangeOf(OpBuilder &b, Location loc, unsigned i) {
  const BlockLevel &bl = blocks[i];
  if (!bl.partitioned || !begin)
    return {};
  if (!bl.partner)
    return {begin, end};
  const BlockLevel &other = blocks[*bl.partner];
  bool outer = i < *bl.partner;
  if (outer && !bl.major)
    return {};
  auto c = [&](int64_t v) { return cIndex(b, loc, v); };
  auto atLeast0 = [&](Value v) {
    return arith::MaxSIOp::create(b, loc, v, c(0)).getResult();
  };
  if (outer) // the major blocks with a tile in the range
    return {arith::DivSIOp::create(b, loc, begin, c(other.blocks)),
            arith::CeilDivSIOp::create(b, loc, end, c(other.blocks))};
  Value enclosing = blockIndex[*bl.partner];
  if (bl.major) { // begin <= major * minorBlocks + enclosing < end
    auto bound = [&](Value v) {
      return atLeast0(arith::CeilDivSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, v, enclosing),
          c(other.blocks)));
    };
    return {bound(begin), bound(end)};
  }
  // begin <= enclosing * blocks + minor < end
  Value first = arith::MulIOp::create(b, loc, enclosing, c(bl.blocks));
  return {atLeast0(arith::SubIOp::create(b, loc, begin, first)),
          atLeast0(arith::SubIOp::create(b, loc, end, first))};
}

} // namespace tisa
