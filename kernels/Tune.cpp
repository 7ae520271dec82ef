//===- Tune.cpp - search loop schedules by measuring them -----------------===//

#include "tisa/Kernels/Tune.h"
#include "tisa/Matcher/Matcher.h"
#include "tisa/Kernels/Reference.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Rates.h"
#include "tisa/Transforms/Tensorize.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cmath>

namespace tisa {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The register tiles worth measuring on the target, from its data: at least
/// the accumulators that cover the instruction's latency (the cost model's
/// chains x latency x issue rate), at most the vector registers less those
/// the broadcasts keep; rows a little past the default search's (which
/// counts, where the tuner measures), registers as many as it tries.
struct TileBounds {
  int64_t minAccumulators = 1, maxAccumulators = 1, maxRows = 1,
          maxRegisters = 1;
};

/// How far past the default search's rows the tuner looks.
constexpr int64_t kExtraRows = 2;

llvm::Expected<TileBounds> tileBounds(const JitOptions &jit,
                                      llvm::StringRef instruction) {
  // The target the kernels are generated for: with --features, the
  // registers the features give (tile bounds beyond them would spill).
  llvm::Expected<Target> target = jitTarget(jit);
  if (!target)
    return target.takeError();
  LoadedDescriptions loaded(jit.isaDirs);
  auto d = llvm::find_if(loaded.all, [&](const Description *x) {
    return x->name == instruction;
  });
  if (d == loaded.all.end())
    return llvm::createStringError("internal error: the kernel's instruction '" +
                                   instruction + "' is not loaded");
  // Every description, so a rate the target file does not give is scaled
  // from a sibling's as the code generator's is.
  resolveRates(*target, loaded.all);
  const CostModel &cm = target->cost;
  TileBounds b;
  b.minAccumulators = std::max<int64_t>(
      1, int64_t(std::ceil(cm.accumulatorChains * target->latency(**d) *
                           target->issueRate(**d))));
  b.maxAccumulators =
      target->vectorRegistersOrAssumed() - cm.spareRegistersWithBroadcasts;
  b.maxRows = cm.maxTileRows + kExtraRows;
  b.maxRegisters = cm.maxTileRegisters;
  return b;
}

/// Register tiles, lane blocks and loop orders around a schedule.
class Neighbourhood {
public:
  Neighbourhood(const ScheduleSpace &space, const Schedule &initial,
                const TileBounds &bounds)
      : space(space), initial(initial), bounds(bounds) {
    // The loop whose unroll pairs with the lanes: the innermost one the
    // default unrolls, else the innermost parallel loop besides the lanes.
    int innermost = -1;
    for (unsigned l = 0; l < space.parallel.size(); ++l) {
      if (!space.parallel[l] || l == space.laneLoop)
        continue;
      innermost = l;
      if (initial.unroll[l] > 1)
        other = l;
    }
    if (other < 0)
      other = innermost;
    unsigned count = 0;
    for (unsigned l = 0; l < space.parallel.size(); ++l)
      count += space.parallel[l] && l != space.laneLoop;
    fusable = count >= 2;
  }

  /// Register tiles with about as many accumulators as the default, nearest
  /// first (the default itself excluded).
  std::vector<Schedule> tiles(const Schedule &base) const {
    // (distance, order generated, schedule): sorted by distance, stable.
    std::vector<std::tuple<int64_t, size_t, Schedule>> out;
    int64_t u0 = other >= 0 ? base.unroll[other] : 1;
    int64_t v0 = base.unroll[space.laneLoop];
    // Without a row loop the registers alone hold the accumulators.
    int64_t least = other >= 0 ? bounds.minAccumulators
                               : std::min(bounds.minAccumulators,
                                          bounds.maxRegisters);
    for (int64_t u = 1; u <= (other >= 0 ? bounds.maxRows : 1); ++u)
      for (int64_t v = 1; v <= bounds.maxRegisters; ++v) {
        int64_t acc = u * v;
        if (acc < least || acc > bounds.maxAccumulators ||
            (u == u0 && v == v0))
          continue;
        Schedule s = with(base, u, v);
        out.push_back({std::abs(acc - u0 * v0) * 4 + std::abs(u - u0) +
                           std::abs(v - v0),
                       out.size(), s});
      }
    llvm::sort(out, [](auto &a, auto &b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) <
             std::tie(std::get<0>(b), std::get<1>(b));
    });
    std::vector<Schedule> result;
    for (auto &[d, i, s] : out)
      result.push_back(s);
    return result;
  }

  /// Blocks and orders for `base`'s register tile.
  std::vector<Schedule> layouts(const Schedule &base) const {
    std::vector<Schedule> out;
    int64_t tile = space.lanes * base.unroll[space.laneLoop];
    llvm::SmallVector<int64_t> blocks = {0};
    int64_t b0 = initial.laneBlock ? initial.laneBlock : space.lanesPadded;
    for (int64_t b : {b0 / 4, b0 / 2, b0, b0 * 2, base.laneBlock}) {
      int64_t aligned = b / tile * tile;
      if (aligned > 0 && aligned < space.lanesPadded &&
          !llvm::is_contained(blocks, aligned))
        blocks.push_back(aligned);
    }
    for (bool fuse : {base.fuse, !base.fuse})
      for (bool outer : {false, true})
        for (int64_t b : blocks) {
          if (fuse != base.fuse && !fusable)
            continue;
          Schedule s = base;
          s.laneBlock = b;
          s.lanesOuter = outer;
          s.fuse = fuse;
          if (fuse)
            s.edge = 0; // edge tiles are for unfused rows
          out.push_back(s);
        }
    return out;
  }

  /// One step away in each direction of each choice.
  std::vector<Schedule> steps(const Schedule &base) const {
    std::vector<Schedule> out;
    int64_t u = other >= 0 ? base.unroll[other] : 1;
    int64_t v = base.unroll[space.laneLoop];
    for (auto [du, dv] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1},
                          {-1, 1}}) {
      if (other < 0 && du)
        continue;
      if (u + du < 1 || v + dv < 1 ||
          (u + du) * (v + dv) > bounds.maxAccumulators)
        continue;
      out.push_back(with(base, u + du, v + dv));
    }
    // Nearly even row tiles or a full tile and its remainder (the same
    // kernel when the rows divide evenly; the cache's text still differs).
    Schedule even = base;
    even.evenRows = !base.evenRows;
    out.push_back(even);
    return out;
  }

private:
  Schedule with(const Schedule &base, int64_t u, int64_t v) const {
    Schedule s = base;
    if (other >= 0)
      s.unroll[other] = u;
    s.unroll[space.laneLoop] = v;
    int64_t tile = space.lanes * v;
    s.laneBlock = base.laneBlock ? std::max<int64_t>(tile,
                                                     base.laneBlock / tile *
                                                         tile)
                                 : 0;
    if (s.laneBlock >= space.lanesPadded)
      s.laneBlock = 0;
    // Panels follow the tile (see Schedule::panel).
    s.panel = base.panel ? (tile < space.lanesPadded ? tile : 0) : 0;
    // Edge tiles stay within the accumulators the register tile may have.
    if (s.edge * v > bounds.maxAccumulators)
      s.edge = std::max<int64_t>(1, bounds.maxAccumulators / v);
    return s;
  }

  ScheduleSpace space;
  Schedule initial;
  TileBounds bounds;
  int other = -1;
  bool fusable = false; ///< two parallel loops besides the lanes
};

} // namespace

llvm::Expected<TuneResult> tuneKernel(const KernelSpec &spec,
                                      const TuneOptions &options) {
  auto start = Clock::now();
  JitOptions jit = options.jit;
  jit.warnings = nullptr;
  jit.useTuned = false; // start from the analytical default
  jit.schedule.clear();
  auto key = kernelKey(spec, jit);
  if (!key)
    return key.takeError();
  std::string cacheDir = jit.cacheDir;
  jit.cacheDir.clear(); // candidates are not worth caching
  auto first = compileKernel(spec, jit);
  if (!first)
    return first.takeError();
  if ((*first)->schedule().empty())
    return llvm::createStringError(
        "nothing to tune: no instruction applies to " + spec.describe() +
        " on this target (plain vector code)");
  llvm::FailureOr<ScheduleSpace> space =
      ScheduleSpace::parse((*first)->scheduleSpace());
  std::string why;
  llvm::FailureOr<Schedule> initial = Schedule::parse((*first)->schedule(), why);
  if (failed(space) || failed(initial))
    return llvm::createStringError("internal error: unreadable schedule '" +
                                   (*first)->schedule() + "'");

  llvm::Expected<TileBounds> bounds =
      tileBounds(options.jit, (*first)->instruction());
  if (!bounds)
    return bounds.takeError();

  TuneResult result;
  result.key = *key;
  result.initial = initial->text();
  // A kernel of run-time rows is timed at its spec's rows (256 when none):
  // its schedule serves every block (-tisa-split-dynamic).
  KernelSpec call = spec.runTimeRows && spec.rows() == 0
                        ? spec.withRows(kNominalExtent)
                        : spec;
  KernelData data = makeData(call, options.seed, Fill::Random);
  data.denormalsAreZero = (*first)->denormalsAreZero();
  computeReference(call, data);
  ThreadPool pool(options.threads);
  llvm::StringSet<> seen;
  int planned = 1;

  // Compiles, checks and times one schedule; returns its median seconds or 0.
  auto measure = [&](const Schedule &s,
                     std::unique_ptr<CompiledKernel> compiled = nullptr) {
    TuneCandidate c;
    c.schedule = s.text();
    seen.insert(c.schedule);
    if (!compiled) {
      jit.schedule = c.schedule;
      auto k = compileKernel(spec, jit);
      if (!k) {
        c.error = llvm::toString(k.takeError());
        result.tried.push_back(c);
        return 0.0;
      }
      compiled = std::move(*k);
    }
    const CompiledKernel &k = *compiled;
    Bytes packed;
    RunMode mode{true, options.threads, options.threads > 1 ? &pool : nullptr};
    std::fill(data.output.begin(), data.output.end(), 0xa5);
    runKernel(k, data, mode, &packed);
    std::string diff = compareOutput(call, data);
    if (!diff.empty()) {
      c.error = "wrong result: " + diff;
      result.tried.push_back(c);
      return 0.0;
    }
    std::function<void()> call = bindKernel(k, data, mode, packed);
    auto t0 = Clock::now();
    call();
    double once = std::max(since(t0), 1e-7);
    int64_t runs = std::clamp<int64_t>(int64_t(0.15 / once), 5, 400);
    std::vector<double> times;
    for (int64_t i = 0; i < runs; ++i) {
      auto t = Clock::now();
      call();
      times.push_back(since(t));
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2,
                     times.end());
    c.seconds = times[times.size() / 2];
    result.tried.push_back(c);
    if (result.bestSeconds == 0 || c.seconds < result.bestSeconds) {
      result.bestSeconds = c.seconds;
      result.best = c.schedule;
    }
    if (options.progress)
      options.progress({int(result.tried.size()), planned, since(start),
                        options.timeLimit, result.best, result.bestSeconds});
    return c.seconds;
  };
  auto timeLeft = [&] { return since(start) < options.timeLimit; };
  // Measures the unseen schedules of `list` while time is left; true if one
  // beat the best by more than 1%.
  auto explore = [&](const std::vector<Schedule> &list) {
    bool improved = false;
    std::vector<Schedule> fresh;
    for (const Schedule &s : list)
      if (!seen.contains(s.text()))
        fresh.push_back(s);
    planned += fresh.size();
    for (const Schedule &s : fresh) {
      if (!timeLeft()) {
        result.timedOut = true;
        break;
      }
      double before = result.bestSeconds;
      double t = measure(s);
      improved |= t > 0 && t < before * 0.99;
    }
    return improved;
  };

  result.initialSeconds = measure(*initial, std::move(*first));
  if (result.initialSeconds == 0)
    return llvm::createStringError("the default schedule of " +
                                   spec.describe() + " failed: " +
                                   result.tried.front().error);
  Neighbourhood around(*space, *initial, *bounds);
  auto best = [&] { return *Schedule::parse(result.best, why); };
  // Register tiles, then blocks and orders for the best one, then single
  // steps from the best until nothing improves.
  explore(around.tiles(*initial));
  explore(around.layouts(best()));
  while (timeLeft() && explore(around.steps(best())))
    explore(around.layouts(best()));
  if (!timeLeft())
    result.timedOut = true;

  if (options.store && !cacheDir.empty()) {
    std::string comment = llvm::formatv(
        "tisa tune: {0} candidates, {1} thread(s): {2:f1} us (default "
        "{3:f1} us)",
        result.tried.size(), options.threads, result.bestSeconds * 1e6,
        result.initialSeconds * 1e6);
    if (auto e = storeTunedSchedule(cacheDir, spec, *key, result.best,
                                    comment))
      return std::move(e);
  }
  return result;
}

} // namespace tisa
