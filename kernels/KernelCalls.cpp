//===- KernelCalls.cpp - calling a kernel's entries on test data ----------===//
//
// How `tisa run`, the benchmarks and the end-to-end tests call a compiled
// kernel on KernelData: the pack, the plain, pre-packed and range entries
// (with run-time extents and an epilogue's struct), on a thread pool or one
// part after another; and the check through every entry.
//
//===----------------------------------------------------------------------===//

#include "tisa/Kernels/Reference.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <tuple>

namespace tisa {

namespace {

/// The operand the kernel packs (the weights, unless the plan packs the
/// input) and the other one, with their GEMM leading dimensions.
struct Operands {
  const void *packed, *other;
  int64_t packedLd, otherLd;
};

Operands splitOperands(const CompiledKernel &k, const KernelData &d) {
  bool packsInput = k.packedOperand() == "a" || k.packedOperand() == "input";
  if (packsInput)
    return {d.input.data(), d.weights.data(), d.lda, d.ldb};
  return {d.weights.data(), d.input.data(), d.ldb, d.lda};
}

} // namespace

std::vector<int64_t> runTimeArgs(const CompiledKernel &k, const KernelData &d,
                                 KernelSpec::Extents which) {
  const KernelSpec &s = k.spec();
  std::vector<int64_t> args;
  for (const auto &extent :
       d.callOf(s).runTimeExtents(which))
    args.push_back(extent.second);
  return args;
}

namespace {

/// `f` with its leading int64_t arguments `prefix` (at most 3: run-time
/// extents) bound, then `lead`, as bindEntry.
template <typename... Trail, typename Lead>
std::function<void(Trail...)> bindEntry(void *f, const EpilogueArgs *epilogue,
                                        const std::vector<int64_t> &prefix,
                                        Lead lead);

} // namespace

int64_t packedBytes(const CompiledKernel &k, const KernelData &d) {
  std::vector<int64_t> extents =
      runTimeArgs(k, d, KernelSpec::Extents::Weights);
  if (extents.size() == 1)
    return k.entry<int64_t(int64_t)>("_packed_bytes")(extents[0]);
  if (extents.size() == 2)
    return k.entry<int64_t(int64_t, int64_t)>("_packed_bytes")(extents[0],
                                                               extents[1]);
  return k.packedBytes();
}

std::function<void()> bindPack(const CompiledKernel &k, const KernelData &d,
                               void *packed) {
  std::vector<int64_t> extents =
      runTimeArgs(k, d, KernelSpec::Extents::Weights);
  Operands ops = splitOperands(k, d);
  void *pack = k.address("_pack_" + k.packedOperand());
  if (k.spec().op == KernelSpec::Op::Gemm)
    return bindEntry<>(pack, nullptr, extents,
                       std::tuple(ops.packed, ops.packedLd, packed));
  return bindEntry<>(pack, nullptr, extents, std::tuple(ops.packed, packed));
}

std::string packWeights(const CompiledKernel &k, const KernelData &d,
                        Bytes &packed) {
  int64_t bytes = packedBytes(k, d);
  // The fence page, when there is one after, takes the guard's place.
  int64_t guard = d.fence == Fence::After ? 0 : kPackGuardBytes;
  packed =
      Bytes(bytes + guard, kOutputPoison, BufferAllocator<uint8_t>(d.fence));
  std::fill_n(packed.begin(), bytes, kPackPoison);
  bindPack(k, d, packed.data())();
  for (int64_t i = bytes; i < int64_t(packed.size()); ++i)
    if (packed[i] != kOutputPoison)
      return llvm::formatv("the pack wrote past its {0} bytes "
                           "(NAME_packed_bytes): byte {1}",
                           bytes, i)
          .str();
  return "";
}

namespace {

/// Entry `f`, whose parameters are `lead`, then the epilogue's struct when
/// the kernel has one, then `Trail` (given at each call).
template <typename... Trail, typename... Lead>
std::function<void(Trail...)> bindEntry(void *f, const EpilogueArgs *epilogue,
                                        std::tuple<Lead...> lead) {
  if (!epilogue)
    return [=](Trail... t) {
      std::apply(
          [&](auto... a) {
            reinterpret_cast<void (*)(Lead..., Trail...)>(f)(a..., t...);
          },
          lead);
    };
  return [=](Trail... t) {
    std::apply(
        [&](auto... a) {
          reinterpret_cast<void (*)(Lead..., const void *, Trail...)>(f)(
              a..., epilogue, t...);
        },
        lead);
  };
}

template <typename... Trail, typename Lead>
std::function<void(Trail...)> bindEntry(void *f, const EpilogueArgs *epilogue,
                                        const std::vector<int64_t> &prefix,
                                        Lead lead) {
  switch (prefix.size()) {
  case 0:
    return bindEntry<Trail...>(f, epilogue, lead);
  case 1:
    return bindEntry<Trail...>(f, epilogue,
                               std::tuple_cat(std::tuple(prefix[0]), lead));
  case 2:
    return bindEntry<Trail...>(
        f, epilogue, std::tuple_cat(std::tuple(prefix[0], prefix[1]), lead));
  default:
    assert(prefix.size() == 3 && "at most m, n and k");
    return bindEntry<Trail...>(
        f, epilogue,
        std::tuple_cat(std::tuple(prefix[0], prefix[1], prefix[2]), lead));
  }
}

} // namespace

std::function<void()> bindKernel(const CompiledKernel &k, KernelData &d,
                                 const RunMode &mode, Bytes &packed) {
  const KernelSpec &s = k.spec();
  bool gemm = s.op == KernelSpec::Op::Gemm;
  const void *in = d.input.data(), *weights = d.weights.data();
  void *out = d.out();
  // The struct lives as long as the call: in the returned function.
  std::shared_ptr<EpilogueArgs> args;
  if (s.epilogue.any())
    args = std::make_shared<EpilogueArgs>(d.epilogueArgs());
  const EpilogueArgs *epilogue = args.get();
  auto keep = [args](std::function<void()> f) -> std::function<void()> {
    if (!args)
      return f;
    return [args, f] { f(); };
  };
  // With run-time extents, every entry takes them first.
  auto withRows = [&, extents = runTimeArgs(k, d)](auto... trail) {
    return [=](void *f, auto lead) -> std::function<void(decltype(trail)...)> {
      return bindEntry<decltype(trail)...>(f, epilogue, extents, lead);
    };
  };
  auto bind = withRows();
  if (!mode.prepacked) {
    void *f = k.address("");
    if (gemm)
      return keep(bind(f, std::tuple(in, d.lda, weights, d.ldb, out, d.ldc)));
    return keep(bind(f, std::tuple(in, weights, out)));
  }
  if (packed.empty())
    packWeights(k, d, packed);
  Operands ops = splitOperands(k, d);
  const void *other = ops.other, *p = packed.data();
  int64_t ld = ops.otherLd, n = d.ldc;
  int64_t parts = mode.pool && !mode.everyPart ? usefulParts(k, d, mode.ranges)
                                                : mode.ranges;
  if (!mode.ranges || (mode.pool && parts <= 1)) {
    void *f = k.address("_packed");
    if (gemm)
      return keep(bind(f, std::tuple(other, ld, p, out, n)));
    return keep(bind(f, std::tuple(other, p, out)));
  }
  int64_t tiles = rangeTiles(k, d);
  void *f = k.address("_packed_range");
  auto bindRange = withRows(int64_t(), int64_t());
  std::function<void(int64_t, int64_t)> call =
      gemm ? bindRange(f, std::tuple(other, ld, p, out, n))
           : bindRange(f, std::tuple(other, p, out));
  // The first part starts before tile 0 and the last ends past the last
  // tile: range entries clamp [begin, end) to the tiles (once, a negative
  // begin wrote before the output and a conv2d's end past it after).
  std::function<void(int64_t, int64_t)> range = [=](int64_t part,
                                                    int64_t parts) {
    call(part ? tiles * part / parts : -tiles - 3,
         part + 1 < parts ? tiles * (part + 1) / parts : 2 * tiles + 3);
  };
  if (ThreadPool *pool = mode.pool)
    return keep([=] { pool->run(parts, range); });
  return keep([=, ranges = mode.ranges] {
    for (int64_t part = 0; part < ranges; ++part)
      range(part, ranges);
  });
}

void runKernel(const CompiledKernel &k, KernelData &d, const RunMode &mode,
               Bytes *packed) {
  Bytes local;
  bindKernel(k, d, mode, packed ? *packed : local)();
}

int64_t rangeTiles(const CompiledKernel &k, const KernelData &d) {
  std::vector<int64_t> extents = runTimeArgs(k, d, KernelSpec::Extents::Rows);
  if (extents.empty())
    return k.tiles();
  if (extents.size() == 1)
    return k.entry<int64_t(int64_t)>("_tiles")(extents[0]);
  return k.entry<int64_t(int64_t, int64_t)>("_tiles")(extents[0], extents[1]);
}

int64_t usefulParts(const CompiledKernel &k, const KernelData &d,
                    int64_t threads) {
  int64_t macs = int64_t(d.callOf(k.spec()).ops() / 2);
  return std::max<int64_t>(
      1, std::min({threads, rangeTiles(k, d), macs / kMinMacsPerThread}));
}

llvm::ArrayRef<CheckInputs> checkInputs() {
  static const CheckInputs inputs[] = {
      {Fill::Random, Layout::Padded, Fence::After,
       "random (padded rows, each buffer ending at a fence page)"},
      {Fill::Extreme, Layout::Guarded, Fence::Before,
       "extreme (each buffer starting at a fence page)"}};
  return inputs;
}

std::string checkKernel(const CompiledKernel &k, uint64_t seed, int &runs,
                        int64_t rows) {
  KernelSpec spec = k.spec().runTimeRows ? k.spec().withRows(rows) : k.spec();
  return checkKernel(k, seed, runs, spec);
}

std::string checkKernel(const CompiledKernel &k, uint64_t seed, int &runs,
                        const KernelSpec &spec) {
  runs = 0;
  for (const CheckInputs &in : checkInputs()) {
    KernelData data = makeData(spec, seed, in.fill, in.layout, in.fence);
    data.denormalsAreZero = k.denormalsAreZero();
    computeReference(spec, data);
    // The plain entry, the pre-packed one, and the range entry in three
    // uneven parts (tiles * p / 3 boundaries).
    // The range entry first: a temporary it reads but did not write then
    // holds the previous inputs' values (left by the other entries' calls),
    // not by chance the same ones.
    // The range entry's three parts run at once, on three threads, as a
    // caller's pool runs them: a part that writes or reads another's rows is
    // a race here, not an order that happens to work.
    static ThreadPool pool(3);
    const char *names[] = {"range (3 parts at once)", "pre-packed", "plain"};
    RunMode modes[] = {{true, 3, &pool, /*everyPart=*/true},
                       {true, 0},
                       {false, 0}};
    // Packed once into poisoned memory for both pre-packed entries.
    Bytes packed;
    if (std::string stray = packWeights(k, data, packed); !stray.empty())
      return llvm::formatv("{0} inputs: {1}", in.name, stray).str();
    for (unsigned i = 0; i < 3; ++i) {
      poisonOutput(data);
      runKernel(k, data, modes[i], &packed);
      std::string diff = compareOutput(spec, data);
      if (!diff.empty())
        return llvm::formatv("{0} inputs, {1} entry: {2}", in.name, names[i],
                             diff)
            .str();
      ++runs;
    }
  }
  return "";
}

} // namespace tisa
