//===- WarpMma.cpp - CPU reference of PTX mma.sync fragments --------------===//
//
// The fragment rules and the floating-point model are stated in WarpMma.h.
// They come from the PTX ISA, section "Warp Level Matrix Multiply-Accumulate
// Instructions", the "Matrix Fragments for mma.m16n8k*" and "mma.m8n8k*"
// subsections, and the form list of "mma" (9.7.14.5.14).
//
// This file must be compiled with -ffp-contract=off (set in CMakeLists.txt):
// the model rounds every product and every add separately, and a fused
// multiply-add would skip a rounding.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/WarpMma.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cassert>
#include <optional>

using namespace llvm;

namespace tisa {
namespace nvptx {

unsigned registerBits(PtxType t) {
  switch (t) {
  case PtxType::S4:
  case PtxType::U4:
    return 4;
  case PtxType::S8:
  case PtxType::U8:
    return 8;
  case PtxType::F16:
  case PtxType::BF16:
    return 16;
  case PtxType::S32:
  case PtxType::TF32:
  case PtxType::F32:
    return 32;
  case PtxType::F64:
    return 64;
  }
  llvm_unreachable("unknown PtxType");
}

bool isFloat(PtxType t) {
  return t == PtxType::F16 || t == PtxType::BF16 || t == PtxType::TF32 ||
         t == PtxType::F32 || t == PtxType::F64;
}

bool isSigned(PtxType t) {
  return t == PtxType::S4 || t == PtxType::S8 || t == PtxType::S32;
}

StringRef ptxName(PtxType t) {
  switch (t) {
  case PtxType::S4:
    return "s4";
  case PtxType::U4:
    return "u4";
  case PtxType::S8:
    return "s8";
  case PtxType::U8:
    return "u8";
  case PtxType::S32:
    return "s32";
  case PtxType::F16:
    return "f16";
  case PtxType::BF16:
    return "bf16";
  case PtxType::TF32:
    return "tf32";
  case PtxType::F32:
    return "f32";
  case PtxType::F64:
    return "f64";
  }
  llvm_unreachable("unknown PtxType");
}

std::string MmaForm::mnemonic() const {
  std::string s = "mma.sync.aligned.m" + std::to_string(m) + "n" +
                  std::to_string(n) + "k" + std::to_string(k) + ".row.col";
  if (satfinite)
    s += ".satfinite";
  for (PtxType t : {d, a, b, c})
    s += "." + ptxName(t).str();
  return s;
}

namespace {

std::optional<PtxType> parseType(StringRef s) {
  return StringSwitch<std::optional<PtxType>>(s)
      .Case("s4", PtxType::S4)
      .Case("u4", PtxType::U4)
      .Case("s8", PtxType::S8)
      .Case("u8", PtxType::U8)
      .Case("s32", PtxType::S32)
      .Case("f16", PtxType::F16)
      .Case("bf16", PtxType::BF16)
      .Case("tf32", PtxType::TF32)
      .Case("f32", PtxType::F32)
      .Case("f64", PtxType::F64)
      .Default(std::nullopt);
}

/// "m16n8k32" -> {16, 8, 32}.
bool parseShape(StringRef s, MmaForm &form) {
  auto number = [&](char letter, unsigned &out) {
    if (!s.consume_front(StringRef(&letter, 1)))
      return false;
    size_t digits = s.find_first_not_of("0123456789");
    StringRef text = s.take_front(digits);
    s = s.drop_front(text.size());
    return !text.empty() && !text.getAsInteger(10, out);
  };
  return number('m', form.m) && number('n', form.n) && number('k', form.k) &&
         s.empty();
}

/// The K extents PTX defines for each multiplicand family; an empty list
/// when the family is not modelled.
SmallVector<std::pair<unsigned, unsigned>, 4> shapesOf(PtxType a) {
  switch (a) {
  case PtxType::F16:
  case PtxType::BF16:
    return {{16, 8}, {16, 16}};
  case PtxType::TF32:
    return {{16, 4}, {16, 8}};
  case PtxType::F64:
    return {{8, 4}, {16, 4}, {16, 8}, {16, 16}};
  case PtxType::S8:
  case PtxType::U8:
    return {{8, 16}, {16, 16}, {16, 32}};
  case PtxType::S4:
  case PtxType::U4:
    return {{8, 32}, {16, 32}, {16, 64}};
  default:
    return {};
  }
}

/// The accumulator type of a multiplicand family.
PtxType accumulatorOf(PtxType a) {
  if (a == PtxType::F64)
    return PtxType::F64;
  return isFloat(a) ? PtxType::F32 : PtxType::S32;
}

/// Why `form` is not a form the reference models ("" when it is).
std::string unmodelledReason(const MmaForm &form) {
  bool intA = !isFloat(form.a), intB = !isFloat(form.b);
  bool sameFamily =
      intA && intB ? registerBits(form.a) == registerBits(form.b)
                   : form.a == form.b;
  if (!sameFamily)
    return "multiplicands ." + ptxName(form.a).str() + " and ." +
           ptxName(form.b).str() + " do not form one PTX mma type";
  if (form.n != 8 || !llvm::is_contained(shapesOf(form.a),
                                         std::make_pair(form.m, form.k)))
    return (form.m == 8 && form.n == 8 && form.k == 4 && form.a == PtxType::F16
                ? std::string("the m8n8k4 .f16 form (sm_70) has quad-pair "
                              "fragments the reference does not model")
                : "m" + std::to_string(form.m) + "n" + std::to_string(form.n) +
                      "k" + std::to_string(form.k) + " is not a PTX shape of ." +
                      ptxName(form.a).str() + " multiplicands");
  PtxType acc = accumulatorOf(form.a);
  if (form.c != acc || form.d != acc)
    return "." + ptxName(form.a).str() + " multiplicands with ." +
           ptxName(form.d).str() + " D and ." + ptxName(form.c).str() +
           " C: the reference models ." + ptxName(acc).str() +
           " accumulators only";
  if (form.satfinite && isFloat(form.a))
    return ".satfinite on floating-point multiplicands is not modelled";
  return "";
}

} // namespace

Expected<MmaForm> parseMma(StringRef mnemonic) {
  auto error = [&](const Twine &why) {
    return createStringError("'" + mnemonic + "': " + why);
  };
  SmallVector<StringRef, 12> parts;
  mnemonic.split(parts, '.');
  if (parts.size() < 10 || parts[0] != "mma" || parts[1] != "sync" ||
      parts[2] != "aligned")
    return error("not a PTX mma.sync.aligned mnemonic "
                 "(mma.sync.aligned.SHAPE.row.col[.satfinite].D.A.B.C)");
  MmaForm form;
  if (!parseShape(parts[3], form))
    return error("'" + parts[3] + "' is not a shape mMnNkK");
  if (parts[4] != "row" || parts[5] != "col")
    return error("the reference models the .row.col layouts only");
  unsigned next = 6;
  if (parts[next] == "satfinite") {
    form.satfinite = true;
    ++next;
  }
  if (parts.size() != next + 4)
    return error("expected four types D.A.B.C after the layouts");
  PtxType *slots[] = {&form.d, &form.a, &form.b, &form.c};
  for (unsigned i = 0; i < 4; ++i) {
    std::optional<PtxType> t = parseType(parts[next + i]);
    if (!t)
      return error("'." + parts[next + i] + "' is not a PTX mma type");
    *slots[i] = *t;
  }
  if (std::string why = unmodelledReason(form); !why.empty())
    return error(why);
  return form;
}

FragmentSizes fragmentSizes(const MmaForm &form) {
  return {form.m * form.k / kWarpSize, form.k * form.n / kWarpSize,
          form.m * form.n / kWarpSize};
}

std::pair<unsigned, unsigned> fragmentCoord(const MmaForm &form, char which,
                                            unsigned lane, unsigned i) {
  assert(lane < kWarpSize && "lane out of range");
  unsigned g = lane / 4, t = lane % 4;
  if (which == 'c' || which == 'd') {
    assert(i < fragmentSizes(form).c && "C/D element out of range");
    return {g + 8 * (i / 2), 2 * t + i % 2};
  }
  PtxType type = which == 'a' ? form.a : form.b;
  unsigned p = std::max(1u, 32 / registerBits(type));
  unsigned r = i / p, j = i % p;
  if (which == 'a') {
    assert(i < fragmentSizes(form).a && "A element out of range");
    return {g + 8 * (r % 2), p * t + j + 4 * p * (r / 2)};
  }
  assert(which == 'b' && "fragment must be 'a', 'b', 'c' or 'd'");
  assert(i < fragmentSizes(form).b && "B element out of range");
  return {p * t + j + 4 * p * r, g};
}

namespace {

/// IEEE binary16 bits to the binary32 bits of the same value (always exact).
/// NaN payloads are kept in the top mantissa bits, so a NaN stays a NaN.
uint32_t f16BitsToF32Bits(uint32_t h) {
  uint32_t sign = (h >> 15) & 0x1;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) // inf or NaN
    return (sign << 31) | (0xffu << 23) | (mantissa << 13);
  if (exponent != 0) // normal: rebias 15 -> 127
    return (sign << 31) | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  if (mantissa == 0) // signed zero
    return sign << 31;
  // Subnormal mantissa * 2^-24: normalise, fp32 has the range to keep it.
  int unbiased = -14;
  while (!(mantissa & 0x400)) {
    mantissa <<= 1;
    --unbiased;
  }
  mantissa &= 0x3ff;
  return (sign << 31) | (uint32_t(unbiased + 127) << 23) | (mantissa << 13);
}

/// The value a multiplicand's bits stand for, as fp32 bits (exact for f16,
/// bf16 and tf32; tf32 is read from the top 19 bits of its register, a NaN
/// staying a NaN).
uint32_t multiplicandF32Bits(uint64_t bits, PtxType t) {
  switch (t) {
  case PtxType::F16:
    return f16BitsToF32Bits(bits & 0xffff);
  case PtxType::BF16: // the top half of a binary32
    return (bits & 0xffff) << 16;
  case PtxType::TF32: {
    uint32_t top = bits & 0xffffe000u;
    bool isNaN = (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu);
    // A NaN whose payload lies in the ignored bits stays a (quiet) NaN.
    return isNaN && !(top & 0x7fffffu) ? top | 0x400000u : top;
  }
  default:
    llvm_unreachable("not a 16- or 19-bit float multiplicand");
  }
}

/// An integer multiplicand's value.
int64_t integerValue(uint64_t bits, PtxType t) {
  unsigned w = registerBits(t);
  uint64_t v = bits & ((uint64_t(1) << w) - 1);
  if (isSigned(t) && (v >> (w - 1)))
    return static_cast<int64_t>(v) - (int64_t(1) << w);
  return static_cast<int64_t>(v);
}

/// Row-major matrices of raw element bits.
struct Matrices {
  std::vector<uint64_t> a, b, c;
};

/// D[m][n] of an integer form: exact products and an exact sum from C, then
/// wrapped modulo 2^32 or, with .satfinite, clamped to the s32 range.
uint64_t dotInteger(const MmaForm &f, const Matrices &x, unsigned m,
                    unsigned n) {
  int64_t sum = static_cast<int32_t>(x.c[m * f.n + n]);
  for (unsigned k = 0; k < f.k; ++k)
    sum += integerValue(x.a[m * f.k + k], f.a) *
           integerValue(x.b[k * f.n + n], f.b);
  if (f.satfinite)
    sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
  return static_cast<uint32_t>(sum);
}

/// D[m][n] with f32 accumulators: fp32 products, then fp32 adds in ascending
/// k from C, each rounded to nearest even (separate statements and
/// -ffp-contract=off: two roundings, no FMA).
uint64_t dotF32(const MmaForm &f, const Matrices &x, unsigned m, unsigned n) {
  float acc = bit_cast<float>(static_cast<uint32_t>(x.c[m * f.n + n]));
  for (unsigned k = 0; k < f.k; ++k) {
    float p = bit_cast<float>(multiplicandF32Bits(x.a[m * f.k + k], f.a));
    float q = bit_cast<float>(multiplicandF32Bits(x.b[k * f.n + n], f.b));
    float product = p * q;
    acc = acc + product;
  }
  return bit_cast<uint32_t>(acc);
}

/// D[m][n] of the f64 forms: the same model in binary64.
uint64_t dotF64(const MmaForm &f, const Matrices &x, unsigned m, unsigned n) {
  double acc = bit_cast<double>(x.c[m * f.n + n]);
  for (unsigned k = 0; k < f.k; ++k) {
    double product = bit_cast<double>(x.a[m * f.k + k]) *
                     bit_cast<double>(x.b[k * f.n + n]);
    acc = acc + product;
  }
  return bit_cast<uint64_t>(acc);
}

/// Scatters one operand's fragments into its row-major matrix.
std::vector<uint64_t> unpack(const MmaForm &form, char which,
                             ArrayRef<uint64_t> fragment, unsigned perLane,
                             unsigned cols, unsigned rows) {
  std::vector<uint64_t> matrix(rows * cols);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < perLane; ++i) {
      auto [row, col] = fragmentCoord(form, which, lane, i);
      matrix[row * cols + col] = fragment[lane * perLane + i];
    }
  return matrix;
}

} // namespace

std::vector<uint64_t> warpMma(const MmaForm &form, ArrayRef<uint64_t> a,
                              ArrayRef<uint64_t> b, ArrayRef<uint64_t> c) {
  assert(unmodelledReason(form).empty() && "form not modelled");
  FragmentSizes sizes = fragmentSizes(form);
  if (a.size() != kWarpSize * sizes.a || b.size() != kWarpSize * sizes.b ||
      c.size() != kWarpSize * sizes.c) {
    assert(false && "fragment sizes do not match the mma form");
    return {};
  }
  Matrices x;
  x.a = unpack(form, 'a', a, sizes.a, form.k, form.m);
  x.b = unpack(form, 'b', b, sizes.b, form.n, form.k);
  x.c = unpack(form, 'c', c, sizes.c, form.n, form.m);
  auto dot = !isFloat(form.a)        ? dotInteger
             : form.a == PtxType::F64 ? dotF64
                                      : dotF32;
  // D has C's fragment layout.
  std::vector<uint64_t> result(kWarpSize * sizes.c);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < sizes.c; ++i) {
      auto [row, col] = fragmentCoord(form, 'c', lane, i);
      result[lane * sizes.c + i] = dot(form, x, row, col);
    }
  return result;
}

int64_t encodeMma(const MmaForm &f) {
  auto t = [](PtxType x) { return int64_t(x); };
  return int64_t(f.m) | int64_t(f.n) << 8 | int64_t(f.k) << 16 |
         t(f.d) << 24 | t(f.a) << 28 | t(f.b) << 32 | t(f.c) << 36 |
         int64_t(f.satfinite) << 40;
}

MmaForm decodeMma(int64_t code) {
  MmaForm f;
  f.m = code & 0xff;
  f.n = (code >> 8) & 0xff;
  f.k = (code >> 16) & 0xff;
  f.d = PtxType((code >> 24) & 0xf);
  f.a = PtxType((code >> 28) & 0xf);
  f.b = PtxType((code >> 32) & 0xf);
  f.c = PtxType((code >> 36) & 0xf);
  f.satfinite = (code >> 40) & 1;
  return f;
}

namespace {

/// f32 -> bf16, rounded to nearest even (NaN stays NaN): the libcall LLVM's
/// x86 back end emits for a bf16 value it keeps in an f32 register.
__bf16 truncateToBF16(float x) {
  uint32_t bits = bit_cast<uint32_t>(x);
  uint16_t h;
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu))
    h = uint16_t((bits >> 16) | 0x40);
  else
    h = uint16_t((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
  return bit_cast<__bf16>(h);
}

} // namespace

std::vector<std::pair<StringRef, void *>> hostRuntimeSymbols() {
  return {{"tisa_emulate_mma", reinterpret_cast<void *>(&tisa_emulate_mma)},
          {"__truncsfbf2", reinterpret_cast<void *>(&truncateToBF16)}};
}

namespace {

/// The 32 lanes' `perLane` elements of `bits` each, from packed bytes.
std::vector<uint64_t> readFragment(const void *p, unsigned perLane,
                                   unsigned bits) {
  const auto *bytes = static_cast<const uint8_t *>(p);
  unsigned width = bits / 8;
  std::vector<uint64_t> out(kWarpSize * perLane);
  for (size_t e = 0; e < out.size(); ++e)
    for (unsigned b = 0; b < width; ++b)
      out[e] |= uint64_t(bytes[e * width + b]) << (8 * b);
  return out;
}

} // namespace

} // namespace nvptx
} // namespace tisa

extern "C" void tisa_emulate_mma(int64_t code, const void *a, const void *b,
                                 const void *c, void *d) {
  using namespace tisa::nvptx;
  MmaForm f = decodeMma(code);
  // Sub-byte elements (s4/u4) have no byte-per-element image; the host
  // lowering refuses them before it calls this.
  if (registerBits(f.a) % 8 || registerBits(f.b) % 8) {
    fprintf(stderr, "tisa_emulate_mma: %s has sub-byte elements\n",
            f.mnemonic().c_str());
    abort();
  }
  FragmentSizes sizes = fragmentSizes(f);
  std::vector<uint64_t> out =
      warpMma(f, readFragment(a, sizes.a, registerBits(f.a)),
              readFragment(b, sizes.b, registerBits(f.b)),
              readFragment(c, sizes.c, registerBits(f.c)));
  unsigned width = registerBits(f.d) / 8;
  auto *bytes = static_cast<uint8_t *>(d);
  for (size_t e = 0; e < out.size(); ++e)
    for (unsigned byte = 0; byte < width; ++byte)
      bytes[e * width + byte] = uint8_t(out[e] >> (8 * byte));
}
