//===- LaneDotPartition.cpp - cache blocks and the partition into ranges --===//
//
// The block levels around the lane-dot register nest: a cache block of the
// lane loop (Schedule::laneBlock) and the partition that the range entry
// (`_packed_range(begin, end)`) shares out: tiles [begin, end) of
// `partitionTiles`, which callers split between threads as tiles
// [n p / parts, n (p + 1) / parts). The partition is one level, or two
// levels numbered as one when no single level shares out evenly.
//
//===----------------------------------------------------------------------===//

#include "LaneDotKernelImpl.h"

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

} // namespace tisa
