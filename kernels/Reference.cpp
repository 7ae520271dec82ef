//===- Reference.cpp - data, reference results and calls for kernels ------===//

#include "tisa/Kernels/Reference.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <random>

namespace tisa {

namespace {

float bf16ToFloat(uint16_t v) {
  uint32_t bits = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) { // round to nearest even (no NaNs here)
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

/// Reads element `i` of an operand as a double (integers exactly).
double load(ElementKind k, const Bytes &v, int64_t i) {
  switch (k) {
  case ElementKind::U8:
    return v[i];
  case ElementKind::S8:
    return int8_t(v[i]);
  case ElementKind::BF16: {
    uint16_t x;
    std::memcpy(&x, &v[2 * i], 2);
    return bf16ToFloat(x);
  }
  case ElementKind::S32: {
    int32_t x;
    std::memcpy(&x, &v[4 * i], 4);
    return x;
  }
  case ElementKind::F32: {
    float x;
    std::memcpy(&x, &v[4 * i], 4);
    return x;
  }
  }
  return 0;
}

void fill(ElementKind k, Bytes &v, int64_t n, std::mt19937_64 &rng,
          Fill how, bool weights) {
  v.assign(n * elementBytes(k), 0);
  for (int64_t i = 0; i < n; ++i) {
    switch (k) {
    case ElementKind::U8:
      v[i] = how == Fill::Extreme ? 255 : uint8_t(rng());
      break;
    case ElementKind::S8:
      v[i] = how == Fill::Extreme ? uint8_t(weights || i % 2 ? -128 : 127)
                                  : uint8_t(rng());
      break;
    case ElementKind::BF16: {
      float f;
      if (how == Fill::Extreme)
        f = (i % 3 ? 1.0f : -1.0f) * std::ldexp(1.5f, 40 + int(rng() % 8));
      else
        f = std::ldexp(float(int(rng() % 2001) - 1000), -10);
      uint16_t b = floatToBf16(f);
      std::memcpy(&v[2 * i], &b, 2);
      break;
    }
    default:
      break;
    }
  }
}

/// Visits every multiply-accumulate: out index, input index, weight index.
template <typename F> void forEachMac(const KernelSpec &s, F f) {
  if (s.op == KernelSpec::Op::Gemm) {
    for (int64_t m = 0; m < s.m; ++m)
      for (int64_t n = 0; n < s.n; ++n)
        for (int64_t k = 0; k < s.k; ++k)
          f(m * s.n + n, m * s.k + k, k * s.n + n);
    return;
  }
  int64_t oh = s.outH(), ow = s.outW();
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t f2 = 0; f2 < s.filters; ++f2)
          for (int64_t r = 0; r < s.r; ++r)
            for (int64_t q = 0; q < s.s; ++q) {
              int64_t iy = y * s.stride + r - s.pad, ix = x * s.stride + q - s.pad;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                continue; // zero padding
              for (int64_t c = 0; c < s.c; ++c)
                f(((b * oh + y) * ow + x) * s.filters + f2,
                  ((b * s.h + iy) * s.w + ix) * s.c + c,
                  ((r * s.s + q) * s.c + c) * s.filters + f2);
            }
}

} // namespace

KernelData makeData(const KernelSpec &spec, uint64_t seed, Fill how) {
  std::mt19937_64 rng(seed);
  KernelData d;
  fill(spec.types.a, d.input, spec.inputElements(), rng, how, false);
  fill(spec.types.b, d.weights, spec.weightElements(), rng, how, true);
  // Poison the output: the kernels overwrite it.
  d.output.assign(spec.outputElements() * elementBytes(spec.types.c), 0xa5);
  return d;
}

void computeReference(const KernelSpec &spec, KernelData &d) {
  int64_t n = spec.outputElements();
  const KernelTypes &t = spec.types;
  if (t.isFloat()) {
    std::vector<double> acc(n, 0.0);
    forEachMac(spec, [&](int64_t o, int64_t i, int64_t w) {
      acc[o] += load(t.a, d.input, i) * load(t.b, d.weights, w);
    });
    d.expected.resize(4 * n);
    for (int64_t o = 0; o < n; ++o) {
      float f = float(acc[o]);
      std::memcpy(&d.expected[4 * o], &f, 4);
    }
    return;
  }
  std::vector<uint32_t> acc(n, 0); // s32 arithmetic wraps
  forEachMac(spec, [&](int64_t o, int64_t i, int64_t w) {
    acc[o] += uint32_t(int64_t(load(t.a, d.input, i)) *
                       int64_t(load(t.b, d.weights, w)));
  });
  d.expected.resize(4 * n);
  std::memcpy(d.expected.data(), acc.data(), 4 * n);
}

std::string compareOutput(const KernelSpec &spec, const KernelData &d) {
  int64_t n = spec.outputElements();
  int64_t bad = 0, first = -1;
  std::vector<double> bound;
  if (spec.types.isFloat()) {
    // |error| <= (K + 2) * 2^-24 * sum |a * b|: K single-precision additions
    // in any order, plus the conversion; vdpbf16ps's flushes of denormals
    // cannot occur with these inputs.
    bound.assign(n, 0.0);
    int64_t reduction = spec.op == KernelSpec::Op::Gemm
                            ? spec.k
                            : spec.r * spec.s * spec.c;
    forEachMac(spec, [&](int64_t o, int64_t i, int64_t w) {
      bound[o] += std::fabs(load(spec.types.a, d.input, i) *
                            load(spec.types.b, d.weights, w));
    });
    for (double &b : bound)
      b *= (reduction + 2) * std::ldexp(1.0, -24);
  }
  for (int64_t o = 0; o < n; ++o) {
    bool ok;
    if (spec.types.isFloat()) {
      double got = load(ElementKind::F32, d.output, o),
             want = load(ElementKind::F32, d.expected, o);
      ok = std::fabs(got - want) <= bound[o];
    } else {
      ok = std::memcmp(&d.output[4 * o], &d.expected[4 * o], 4) == 0;
    }
    if (!ok && bad++ == 0)
      first = o;
  }
  if (!bad)
    return "";
  ElementKind k = spec.types.c;
  return llvm::formatv("{0} of {1} outputs differ; first at element {2}: got "
                       "{3}, expected {4}",
                       bad, n, first, load(k, d.output, first),
                       load(k, d.expected, first))
      .str();
}

namespace {

/// The operand the kernel packs (the weights, unless the plan packs the
/// input) and the other one, with their GEMM leading dimensions.
struct Operands {
  const void *packed, *other;
  int64_t packedLd, otherLd;
};

Operands splitOperands(const CompiledKernel &k, const KernelData &d) {
  const KernelSpec &s = k.spec();
  bool packsInput = k.packedOperand() == "a" || k.packedOperand() == "input";
  if (packsInput)
    return {d.input.data(), d.weights.data(), s.k, s.n};
  return {d.weights.data(), d.input.data(), s.n, s.k};
}

} // namespace

void packWeights(const CompiledKernel &k, const KernelData &d,
                 Bytes &packed) {
  bool gemm = k.spec().op == KernelSpec::Op::Gemm;
  packed.assign(k.packedBytes(), 0);
  Operands ops = splitOperands(k, d);
  const void *src = ops.packed;
  int64_t ld = ops.packedLd;
  void *pack = k.address("_pack_" + k.packedOperand());
  if (gemm)
    reinterpret_cast<void (*)(const void *, int64_t, void *)>(pack)(
        src, ld, packed.data());
  else
    reinterpret_cast<void (*)(const void *, void *)>(pack)(src, packed.data());
}

std::function<void()> bindKernel(const CompiledKernel &k, KernelData &d,
                                 const RunMode &mode, Bytes &packed) {
  const KernelSpec &s = k.spec();
  bool gemm = s.op == KernelSpec::Op::Gemm;
  const void *in = d.input.data(), *weights = d.weights.data();
  void *out = d.output.data();
  if (!mode.prepacked) {
    if (gemm) {
      auto *f = k.entry<void(const void *, int64_t, const void *, int64_t,
                             void *, int64_t)>();
      return [=, m = s.k, n = s.n] { f(in, m, weights, n, out, n); };
    }
    auto *f = k.entry<void(const void *, const void *, void *)>();
    return [=] { f(in, weights, out); };
  }
  if (packed.empty())
    packWeights(k, d, packed);
  Operands ops = splitOperands(k, d);
  const void *other = ops.other, *p = packed.data();
  int64_t ld = ops.otherLd, n = s.n;
  int64_t parts = mode.pool ? usefulParts(k, mode.ranges) : mode.ranges;
  if (!mode.ranges || (mode.pool && parts <= 1)) {
    if (gemm) {
      auto *f = k.entry<void(const void *, int64_t, const void *, void *,
                             int64_t)>("_packed");
      return [=] { f(other, ld, p, out, n); };
    }
    auto *f = k.entry<void(const void *, const void *, void *)>("_packed");
    return [=] { f(other, p, out); };
  }
  int64_t tiles = k.tiles();
  std::function<void(int64_t, int64_t)> range;
  if (gemm) {
    auto *f = k.entry<void(const void *, int64_t, const void *, void *,
                           int64_t, int64_t, int64_t)>("_packed_range");
    range = [=](int64_t part, int64_t parts) {
      f(other, ld, p, out, n, tiles * part / parts,
        tiles * (part + 1) / parts);
    };
  } else {
    auto *f = k.entry<void(const void *, const void *, void *, int64_t,
                           int64_t)>("_packed_range");
    range = [=](int64_t part, int64_t parts) {
      f(other, p, out, tiles * part / parts, tiles * (part + 1) / parts);
    };
  }
  if (ThreadPool *pool = mode.pool)
    return [=] { pool->run(parts, range); };
  return [=, ranges = mode.ranges] {
    for (int64_t part = 0; part < ranges; ++part)
      range(part, ranges);
  };
}

void runKernel(const CompiledKernel &k, KernelData &d, const RunMode &mode,
               Bytes *packed) {
  Bytes local;
  bindKernel(k, d, mode, packed ? *packed : local)();
}

int64_t usefulParts(const CompiledKernel &k, int64_t threads) {
  int64_t macs = int64_t(k.spec().ops() / 2);
  return std::max<int64_t>(
      1, std::min({threads, k.tiles(), macs / kMinMacsPerThread}));
}

std::string checkKernel(const CompiledKernel &k, uint64_t seed, int &runs) {
  const KernelSpec &spec = k.spec();
  runs = 0;
  for (Fill fill : {Fill::Random, Fill::Extreme}) {
    KernelData data = makeData(spec, seed, fill);
    computeReference(spec, data);
    // The plain entry, the pre-packed one, and the range entry in three
    // uneven parts (tiles * p / 3 boundaries).
    // The range entry first: a temporary it reads but did not write then
    // holds the previous inputs' values (left by the other entries' calls),
    // not by chance the same ones.
    const char *names[] = {"range (3 parts)", "pre-packed", "plain"};
    RunMode modes[] = {{true, 3}, {true, 0}, {false, 0}};
    for (unsigned i = 0; i < 3; ++i) {
      std::fill(data.output.begin(), data.output.end(), 0xa5);
      runKernel(k, data, modes[i]);
      std::string diff = compareOutput(spec, data);
      if (!diff.empty())
        return llvm::formatv("{0} inputs, {1} entry: {2}",
                             fill == Fill::Random ? "random" : "extreme",
                             names[i], diff)
            .str();
      ++runs;
    }
  }
  return "";
}

} // namespace tisa
