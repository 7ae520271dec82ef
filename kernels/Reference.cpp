//===- Reference.cpp - data, reference results and calls for kernels ------===//

#include "tisa/Kernels/Reference.h"
#include "KernelEpilogue.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <memory>
#include <random>
#include <tuple>

namespace tisa {

namespace {

float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16ToFloat(uint16_t v) { return bitsToFloat(uint32_t(v) << 16); }

/// Exact, and fast (the reference reads each element K times). Written
/// apart from the warp-level mma reference's decoding on purpose: the host
/// runs of the Tensor Core kernels compare the two.
float halfToFloat(uint16_t v) {
  float sign = v & 0x8000 ? -1.0f : 1.0f;
  int exponent = (v >> 10) & 0x1f, mantissa = v & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0) // zero or a denormal
    return sign * std::ldexp(float(mantissa), -24);
  return bitsToFloat((v & 0x8000u) << 16 | uint32_t(exponent + 112) << 23 |
                     uint32_t(mantissa) << 13);
}

uint16_t floatToHalf(float f) { // round to nearest even
  llvm::APFloat x(f);
  bool lost;
  x.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return uint16_t(x.bitcastToAPInt().getZExtValue());
}


uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

uint16_t floatToBf16(float f) { // round to nearest even (no NaNs here)
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

} // namespace

namespace {
/// The low bits of `x` as integer type `k` holds them: sign- or
/// zero-extended from its width.
int64_t extendFrom(ElementType k, uint64_t x) {
  unsigned unused = 64 - k.bits;
  if (!unused)
    return int64_t(x);
  uint64_t low = x << unused;
  return k.isSigned ? int64_t(low) >> unused : int64_t(low >> unused);
}
} // namespace

int64_t loadInteger(ElementType k, const uint8_t *v, int64_t i) {
  uint64_t x = 0;
  std::memcpy(&x, &v[k.bytes() * i], k.bytes()); // little-endian: low bytes
  return extendFrom(k, x);
}

double loadElement(ElementType k, const uint8_t *v, int64_t i,
                   bool denormalsAreZero) {
  using F = ElementType::Format;
  switch (k.format) {
  case F::Int:
    return k.isSigned ? double(loadInteger(k, v, i))
                      : double(uint64_t(loadInteger(k, v, i)));
  case F::BF16: {
    uint16_t x;
    std::memcpy(&x, &v[2 * i], 2);
    if (denormalsAreZero && (x & 0x7f80) == 0)
      x &= 0x8000;
    return bf16ToFloat(x);
  }
  case F::F16: {
    uint16_t x;
    std::memcpy(&x, &v[2 * i], 2);
    if (denormalsAreZero && (x & 0x7c00) == 0)
      x &= 0x8000;
    return halfToFloat(x);
  }
  case F::TF32: { // the top 19 bits; a NaN stays one
    uint32_t x;
    std::memcpy(&x, &v[4 * i], 4);
    if ((x & 0x7f800000) == 0x7f800000 && (x & 0x7fffff))
      return NAN;
    return bitsToFloat(x & ~uint32_t(0x1fff));
  }
  case F::F32: {
    float x;
    std::memcpy(&x, &v[4 * i], 4);
    return x;
  }
  case F::F64: {
    double x;
    std::memcpy(&x, &v[8 * i], 8);
    return x;
  }
  }
  return 0;
}

namespace {

/// Where an operand's logical elements (numbered densely, row-major) sit in
/// its buffer: rows of `rowLength` elements `ld` apart, after `base` bytes.
struct Placement {
  int64_t rowLength = 1, ld = 1, base = 0;
  int64_t at(int64_t i) const { return i / rowLength * ld + i % rowLength; }
};

enum class Role { Input, Weights, Output };

Placement placement(const KernelSpec &s, const KernelData &d, Role role) {
  int64_t elements = role == Role::Input     ? s.inputElements()
                     : role == Role::Weights ? s.weightElements()
                                             : s.outputElements();
  int64_t base = role == Role::Output ? d.guard : 0;
  if (s.op != KernelSpec::Op::Gemm)
    return {elements, elements, base};
  switch (role) {
  case Role::Input:
    return {s.k, d.lda, base};
  case Role::Weights:
    return {s.n, d.ldb, base};
  case Role::Output:
    return {s.n, d.ldc, base};
  }
  return {};
}

/// Bytes an operand of `elements` occupies in `p` (the last row's gap too).
/// The bytes from the first element to the last: the last row ends
/// without its gap, as a caller's buffer does.
int64_t spanBytes(const Placement &p, int64_t elements, ElementType k) {
  if (elements == 0)
    return 0;
  return (p.at(elements - 1) + 1) * k.bytes();
}

/// An extreme value of a `bits`-wide integer: 0, +-1, the largest and the
/// smallest (signed), or 0, 1, the middle two and the largest (unsigned).
uint64_t pickInt(bool isSigned, unsigned bits, uint64_t r) {
  // Two's complement modulo 2^64: only the low `bits` are stored.
  uint64_t top = uint64_t(1) << (bits - 1);
  const uint64_t s[] = {0, 1, ~uint64_t(0), top - 1, top};
  const uint64_t u[] = {0, 1, top - 1, top, 2 * top - 1};
  return isSigned ? s[r % 5] : u[r % 5];
}

float pickBf16(std::mt19937_64 &rng) {
  switch (rng() % 5) {
  case 0:
    return 0.0f;
  case 1:
    return rng() % 2 ? 1.0f : -1.0f;
  case 2:
  case 3:
    return (rng() % 2 ? 1.0f : -1.0f) * std::ldexp(1.5f, 40 + int(rng() % 8));
  default: // a denormal: exponent 0, a nonzero mantissa
    return (rng() % 2 ? 1.0f : -1.0f) *
           std::ldexp(float(1 + rng() % 127), -133);
  }
}

/// An extreme f16: 0, +-1, large magnitudes, a denormal.
float pickF16(std::mt19937_64 &rng) {
  float sign = rng() % 2 ? 1.0f : -1.0f;
  switch (rng() % 5) {
  case 0:
    return 0.0f;
  case 1:
    return sign;
  case 2:
  case 3:
    return sign * std::ldexp(1.5f, 10 + int(rng() % 5));
  default:
    return sign * std::ldexp(float(1 + rng() % 1023), -24);
  }
}

/// A float element's value for `how`: multiples of 2^-10 in [-1, 1], the
/// largest magnitudes the type's products allow (f16: 1.5 * 2^14; bf16 and
/// tf32: up to 1.5 * 2^47), or the type's extremes.
float floatValue(ElementType k, std::mt19937_64 &rng, Fill how, bool extreme,
                 int64_t i) {
  float f = std::ldexp(float(int(rng() % 2001) - 1000), -10);
  float sign = i % 3 ? 1.0f : -1.0f;
  bool half = k == ElementType::F16;
  if (how == Fill::Saturating)
    return sign * std::ldexp(1.5f, half ? 14 : 40 + int(rng() % 8));
  if (extreme)
    return half ? pickF16(rng) : pickBf16(rng);
  return f;
}

/// Stores `f` as a `k` element: bf16 and f16 rounded to nearest even, tf32
/// as its f32 with random bits below tf32's precision (that the kernel must
/// ignore) when `noise` is given, except in infinities and NaNs.
void storeFloat(ElementType k, float f, uint8_t *dst, std::mt19937_64 *noise) {
  if (k == ElementType::F64) {
    double x = f;
    std::memcpy(dst, &x, 8);
    return;
  }
  if (k == ElementType::BF16 || k == ElementType::F16) {
    uint16_t h = k == ElementType::F16 ? floatToHalf(f) : floatToBf16(f);
    std::memcpy(dst, &h, 2);
    return;
  }
  uint32_t bits = floatBits(f);
  if (noise && k == ElementType::TF32 && (bits & 0x7f800000) != 0x7f800000)
    bits |= uint32_t((*noise)()) & 0x1fff;
  std::memcpy(dst, &bits, 4);
}

/// One element's value for `how` (the float specials are placed
/// afterwards).
void fillElement(ElementType k, uint8_t *dst, std::mt19937_64 &rng, Fill how,
                 int64_t i) {
  bool extreme = how == Fill::Extreme && rng() % 2;
  if (k.isFloat()) {
    storeFloat(k, floatValue(k, rng, how, extreme, i), dst, &rng);
    return;
  }
  uint64_t v = rng();
  if (how == Fill::Saturating) // the smallest signed, the largest unsigned
    v = k.isSigned ? uint64_t(1) << (k.bits - 1) : ~uint64_t(0);
  else if (extreme)
    v = pickInt(k.isSigned, k.bits, rng());
  std::memcpy(dst, &v, k.bytes()); // little-endian: the low bytes
}

/// Fills the `elements` of an operand placed as `p`; its gaps hold 0x5a
/// bytes, which change any result they enter.
void fill(ElementType k, Bytes &v, int64_t elements, const Placement &p,
          std::mt19937_64 &rng, Fill how, bool specials) {
  unsigned eb = k.bytes();
  v.assign(spanBytes(p, elements, k), 0x5a);
  for (int64_t i = 0; i < elements; ++i)
    fillElement(k, &v[p.at(i) * eb], rng, how, i);
  if (how != Fill::Extreme || !k.isFloat() || !specials)
    return;
  // Two infinities and a NaN, so most outputs stay finite and still check
  // the arithmetic.
  float values[] = {INFINITY, -INFINITY, NAN};
  for (float f : values) {
    int64_t i = int64_t(rng() % uint64_t(elements));
    storeFloat(k, f, &v[p.at(i) * eb], /*noise=*/nullptr);
  }
}

/// Visits the taps of a conv2d's output pixel (b, y, x) that read the image
/// (taps on the zero padding add nothing): f(i, j) with the input's element
/// i and the weights' row j (filter 0), in the order r, s, c.
template <typename F>
void forEachTapOf(const KernelSpec &s, int64_t b, int64_t y, int64_t x, F f) {
  for (int64_t r = 0; r < s.r; ++r)
    for (int64_t q = 0; q < s.s; ++q) {
      int64_t iy = y * s.stride + r - s.pad, ix = x * s.stride + q - s.pad;
      if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
        continue; // zero padding
      for (int64_t c = 0; c < s.c; ++c)
        f(((b * s.h + iy) * s.w + ix) * s.c + c,
          ((r * s.s + q) * s.c + c) * s.filters);
    }
}

/// Visits the multiply-accumulates of output `o` (a logical index): the
/// input's and the weights' logical indices.
template <typename F>
void forEachMacOf(const KernelSpec &s, int64_t o, F f) {
  if (s.op == KernelSpec::Op::Gemm) {
    int64_t m = o / s.n, n = o % s.n;
    for (int64_t k = 0; k < s.k; ++k)
      f(m * s.k + k, k * s.n + n);
    return;
  }
  int64_t oh = s.outH(), ow = s.outW();
  int64_t f2 = o % s.filters, x = o / s.filters % ow,
          y = o / (s.filters * ow) % oh, b = o / (s.filters * ow * oh);
  forEachTapOf(s, b, y, x, [&](int64_t i, int64_t j) { f(i, j + f2); });
}

/// Element `i` of a buffer of type `k` as a T: integers exactly (modulo
/// 2^bits of T), floats through loadElement.
template <typename T>
T loadAs(ElementType k, const uint8_t *v, int64_t i, bool denormalsAreZero) {
  if constexpr (std::is_integral_v<T>)
    return T(loadInteger(k, v, i));
  else
    return T(loadElement(k, v, i, denormalsAreZero));
}

/// Visits output `o`'s multiply-accumulates with their two factors read
/// from `d` as T.
template <typename T, typename F>
void forEachProductOf(const KernelSpec &s, const KernelData &d, int64_t o,
                      F f) {
  Placement in = placement(s, d, Role::Input),
            w = placement(s, d, Role::Weights);
  const uint8_t *inBytes = d.input.data(), *wBytes = d.weights.data();
  forEachMacOf(s, o, [&](int64_t i, int64_t j) {
    f(loadAs<T>(s.types.a, inBytes, in.at(i), d.denormalsAreZero[0]),
      loadAs<T>(s.types.b, wBytes, w.at(j), d.denormalsAreZero[1]));
  });
}

/// A float output of sum `acc`, whose products' magnitudes sum to
/// `magnitude`: the sum rounded to the accumulator, and the bound
/// (K + 2) * 2^-p * magnitude (K additions in the accumulator's precision p
/// in any order, plus the conversion); for f64 the reference's own sum in
/// double errs as much again.
ReferenceValue floatValueOf(const KernelSpec &s, double acc,
                            double magnitude) {
  ReferenceValue v;
  int64_t reduction = s.op == KernelSpec::Op::Gemm ? s.k : s.r * s.s * s.c;
  ElementType c = s.types.c;
  v.bound = magnitude * double(reduction + 2) *
            std::ldexp(1.0, -int(c.precision())) *
            (c == ElementType::F64 ? 2 : 1);
  v.real = c == ElementType::F64 ? acc : double(float(acc));
  return v;
}

/// Output `o` of the contraction, before any epilogue.
ReferenceValue sumAt(const KernelSpec &s, const KernelData &d, int64_t o) {
  ReferenceValue v;
  if (!s.types.isFloat()) {
    uint64_t acc = 0; // wraps; extendFrom keeps the accumulator's bits
    forEachProductOf<int64_t>(s, d, o, [&](int64_t a, int64_t b) {
      acc += uint64_t(a) * uint64_t(b);
    });
    v.integer = extendFrom(s.types.c, acc);
    return v;
  }
  double acc = 0, magnitude = 0;
  forEachProductOf<double>(s, d, o, [&](double a, double b) {
    acc += a * b;
    magnitude += std::fabs(a * b);
  });
  return floatValueOf(s, acc, magnitude);
}

/// `v`, output `o` of the contraction, through the epilogue (which takes
/// s32 and f32 results: KernelSpec::validate).
ReferenceValue throughEpilogue(const KernelSpec &s, const KernelData &d,
                               int64_t o, ReferenceValue v) {
  if (!s.epilogue.any())
    return v;
  uint32_t bits = s.types.isFloat() ? floatBits(float(v.real))
                                    : uint32_t(v.integer);
  applyEpilogueAt(s, d, o, bits, v.bound);
  if (s.outputKind().isFloat())
    v.real = bitsToFloat(bits);
  else
    v.integer = int32_t(bits);
  return v;
}

} // namespace

KernelData makeData(const KernelSpec &spec, uint64_t seed, Fill how,
                    Layout layout, Fence fence) {
  std::mt19937_64 rng(seed);
  KernelData d;
  d.fence = fence;
  // Every buffer placed as `fence` says, from its first allocation on.
  for (Bytes *b :
       {&d.input, &d.weights, &d.output, &d.bias, &d.residual, &d.scale})
    *b = Bytes(BufferAllocator<uint8_t>(fence));
  d.rows = spec.rows();
  d.callExtents = spec.callExtents();
  bool padded = layout == Layout::Padded;
  if (spec.op == KernelSpec::Op::Gemm) {
    // Gaps of odd sizes: a kernel that takes the tight stride, or rounds
    // the given one, reads or writes the wrong rows.
    d.lda = spec.k + (padded ? 3 : 0);
    d.ldb = spec.n + (padded ? 5 : 0);
    d.ldc = spec.n + (padded ? 7 : 0);
  }
  // Canaries around the output, except where the fence page is.
  int64_t guard = layout == Layout::Tight ? 0 : 64;
  d.guard = fence == Fence::Before ? 0 : guard;
  int64_t guardAfter = fence == Fence::After ? 0 : guard;
  // No infinities or NaNs in a padded convolution's filter: whether a tap on
  // the padding multiplies it by zero (NaN) or is skipped is not settled
  // (tisa skips most such taps but not all: see docs/codegen.md).
  bool filterSpecials = spec.op == KernelSpec::Op::Gemm || spec.pad == 0;
  fill(spec.types.a, d.input, spec.inputElements(),
       placement(spec, d, Role::Input), rng, how, true);
  fill(spec.types.b, d.weights, spec.weightElements(),
       placement(spec, d, Role::Weights), rng, how, filterSpecials);
  d.output.resize(spanBytes(placement(spec, d, Role::Output),
                            spec.outputElements(), spec.outputKind()) +
                  d.guard + guardAfter);
  fillEpilogue(spec, d, rng, how, padded);
  poisonOutput(d);
  return d;
}

void poisonOutput(KernelData &d) {
  std::fill(d.output.begin(), d.output.end(), kOutputPoison);
}

ReferenceValue referenceAt(const KernelSpec &spec, const KernelData &d,
                           int64_t o) {
  return throughEpilogue(spec, d, o, sumAt(spec, d, o));
}

namespace {

/// An operand's logical elements decoded once (integers exactly, bf16 and
/// f16 denormals as the data says): the reference reads each of them many
/// times.
template <typename T>
std::vector<T> decodeOperand(const KernelSpec &s, const KernelData &d,
                             Role role) {
  bool input = role == Role::Input;
  int64_t elements = input ? s.inputElements() : s.weightElements();
  Placement p = placement(s, d, role);
  const uint8_t *bytes = input ? d.input.data() : d.weights.data();
  ElementType k = input ? s.types.a : s.types.b;
  bool flush = d.denormalsAreZero[input ? 0 : 1];
  std::vector<T> out(elements);
  for (int64_t i = 0; i < elements; ++i)
    out[i] = loadAs<T>(k, bytes, p.at(i), flush);
  return out;
}

/// forEachMacOf for all outputs at once, a row of channels at a time:
/// f(o, i, j) for output o's channels (channels() outputs from o on) times
/// the input's element i and the weights' row j (channels() elements, from
/// j on). Each output sees its products in forEachMacOf's order, so sums
/// taken in this order are the per-output reference's bit for bit.
template <typename F> void forEachMacRow(const KernelSpec &s, F f) {
  if (s.op == KernelSpec::Op::Gemm) {
    for (int64_t m = 0; m < s.m; ++m)
      for (int64_t k = 0; k < s.k; ++k)
        f(m * s.n, m * s.k + k, k * s.n);
    return;
  }
  int64_t oh = s.outH(), ow = s.outW();
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        int64_t o = ((b * oh + y) * ow + x) * s.filters;
        forEachTapOf(s, b, y, x, [&](int64_t i, int64_t j) { f(o, i, j); });
      }
}

/// The integer results modulo 2^(bits of U): U is uint32_t for
/// accumulators of up to 32 bits (products and sums agree with the
/// accumulator's modulo 2^32), uint64_t for wider ones.
template <typename U>
std::vector<uint64_t> integerSums(const KernelSpec &s, const KernelData &d) {
  using S = std::make_signed_t<U>;
  std::vector<S> a = decodeOperand<S>(s, d, Role::Input),
                 w = decodeOperand<S>(s, d, Role::Weights);
  std::vector<U> sums(s.outputElements(), 0);
  int64_t channels = s.channels();
  forEachMacRow(s, [&](int64_t o, int64_t i, int64_t j) {
    U x = U(a[i]);
    const S *row = &w[j];
    U *out = &sums[o];
    for (int64_t c = 0; c < channels; ++c)
      out[c] += x * U(row[c]);
  });
  return std::vector<uint64_t>(sums.begin(), sums.end());
}

/// The float results: sums in double (every product is exact there) and
/// the sums of the products' magnitudes, for the bound.
void floatSums(const KernelSpec &s, const KernelData &d,
               std::vector<double> &sums, std::vector<double> &magnitudes) {
  std::vector<double> a = decodeOperand<double>(s, d, Role::Input),
                      w = decodeOperand<double>(s, d, Role::Weights);
  sums.assign(s.outputElements(), 0.0);
  magnitudes.assign(s.outputElements(), 0.0);
  int64_t channels = s.channels();
  forEachMacRow(s, [&](int64_t o, int64_t i, int64_t j) {
    double x = a[i];
    const double *row = &w[j];
    double *out = &sums[o], *magnitude = &magnitudes[o];
    for (int64_t c = 0; c < channels; ++c) {
      double p = x * row[c];
      out[c] += p;
      magnitude[c] += std::fabs(p);
    }
  });
}

} // namespace

void computeReference(const KernelSpec &spec, KernelData &d) {
  int64_t n = spec.outputElements();
  d.expected.assign(n, ReferenceValue());
  if (!spec.types.isFloat()) {
    std::vector<uint64_t> sums = spec.types.c.bits <= 32
                                     ? integerSums<uint32_t>(spec, d)
                                     : integerSums<uint64_t>(spec, d);
    for (int64_t o = 0; o < n; ++o)
      d.expected[o].integer = extendFrom(spec.types.c, sums[o]);
  } else {
    std::vector<double> sums, magnitudes;
    floatSums(spec, d, sums, magnitudes);
    for (int64_t o = 0; o < n; ++o)
      d.expected[o] = floatValueOf(spec, sums[o], magnitudes[o]);
  }
  for (int64_t o = 0; o < n; ++o)
    d.expected[o] = throughEpilogue(spec, d, o, d.expected[o]);
}

namespace {

/// Whether a float result agrees: a NaN or an infinity must be met in kind.
bool floatAgrees(double got, double want, double bound) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isinf(want))
    return got == want;
  return std::fabs(got - want) <= bound;
}

/// The first byte of `d.output` outside its elements that no longer holds
/// the poison, or -1.
int64_t firstStrayWrite(const KernelSpec &spec, const KernelData &d) {
  Placement out = placement(spec, d, Role::Output);
  unsigned eb = spec.outputKind().bytes();
  std::vector<bool> owned(d.output.size(), false);
  for (int64_t o = 0, n = spec.outputElements(); o < n; ++o)
    std::fill_n(owned.begin() + out.base + out.at(o) * eb, eb, true);
  for (size_t i = 0; i < d.output.size(); ++i)
    if (!owned[i] && d.output[i] != kOutputPoison)
      return int64_t(i);
  return -1;
}

} // namespace

namespace {

/// Compares the outputs `indices` (logical, ascending) with `want(o)`.
template <typename Want>
std::string compareAt(const KernelSpec &spec, const KernelData &d,
                      llvm::ArrayRef<int64_t> indices, Want want) {
  int64_t bad = 0, first = -1;
  ReferenceValue firstWant;
  Placement out = placement(spec, d, Role::Output);
  const uint8_t *got = d.output.data() + out.base;
  ElementType k = spec.outputKind();
  for (int64_t o : indices) {
    ReferenceValue v = want(o);
    bool ok = k.isFloat()
                  ? floatAgrees(loadElement(k, got, out.at(o)), v.real, v.bound)
                  : loadInteger(k, got, out.at(o)) == v.integer;
    if (!ok && bad++ == 0) {
      first = o;
      firstWant = v;
    }
  }
  auto text = [&](int64_t integer, double real) {
    return k.isFloat() ? llvm::formatv("{0}", real).str()
                       : std::to_string(integer);
  };
  if (bad)
    return llvm::formatv("{0} of {1} outputs differ; first at element {2}: "
                         "got {3}, expected {4}",
                         bad, indices.size(), first,
                         text(loadInteger(k, got, out.at(first)),
                              loadElement(k, got, out.at(first))),
                         text(firstWant.integer, firstWant.real))
        .str();
  int64_t stray = firstStrayWrite(spec, d);
  if (stray < 0)
    return "";
  int64_t guard = d.guard;
  int64_t eb = k.bytes();
  int64_t end = guard + (out.at(spec.outputElements() - 1) + 1) * eb;
  std::string where =
      stray < guard ? llvm::formatv("{0} bytes before the first element",
                                    guard - stray)
                          .str()
      : stray >= end
          ? llvm::formatv("{0} bytes after the last row", stray - end).str()
          : llvm::formatv("byte {0} of the gap after output row {1} "
                          "(ldc = {2})",
                          (stray - guard) % (d.ldc * eb) - eb * spec.n,
                          (stray - guard) / (d.ldc * eb), d.ldc)
                .str();
  return "the kernel wrote outside its output: " + where;
}

} // namespace

std::string compareOutput(const KernelSpec &spec, const KernelData &d) {
  std::vector<int64_t> all(spec.outputElements());
  std::iota(all.begin(), all.end(), 0);
  return compareAt(spec, d, all, [&](int64_t o) { return d.expected[o]; });
}

std::string compareSampled(const KernelSpec &spec, const KernelData &d,
                           int64_t samples, uint64_t seed) {
  int64_t n = spec.outputElements();
  std::vector<int64_t> indices;
  if (n <= samples) {
    indices.resize(n);
    std::iota(indices.begin(), indices.end(), 0);
  } else {
    std::mt19937_64 rng(seed);
    for (int64_t i = 0; i < samples; ++i)
      indices.push_back(int64_t(rng() % uint64_t(n)));
    llvm::sort(indices);
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  }
  return compareAt(spec, d, indices,
                   [&](int64_t o) { return referenceAt(spec, d, o); });
}

} // namespace tisa
