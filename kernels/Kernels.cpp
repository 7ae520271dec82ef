//===- Kernels.cpp - kernel specs: element types, shapes, names -----------===//
//
// What a generated kernel computes (KernelSpec, KernelTypes); the library
// itself is built in KernelLibrary.cpp.
//
//===----------------------------------------------------------------------===//

#include "tisa/Kernels/Kernels.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cmath>

using namespace mlir;

namespace tisa {

//===----------------------------------------------------------------------===//
// Types and specs
//===----------------------------------------------------------------------===//

namespace {

/// The float formats by name.
constexpr std::pair<llvm::StringLiteral, ElementType> kFloats[] = {
    {"f16", ElementType::F16},   {"bf16", ElementType::BF16},
    {"tf32", ElementType::TF32}, {"f32", ElementType::F32},
    {"f64", ElementType::F64},
};

/// The longest element type name `text` starts with ("" if none).
StringRef leadingTypeName(StringRef text) {
  for (size_t n : {4, 3, 2}) // "bf16", "s16", "u8"
    if (n <= text.size() && ElementType::parse(text.take_front(n)))
      return text.take_front(n);
  return "";
}

/// Why three types are no kernel's, or "".
std::string typeCombinationError(const KernelTypes &t) {
  if (t.a.isFloat() != t.c.isFloat() || t.b.isFloat() != t.c.isFloat())
    return "the inputs and the accumulator must be all integers or all "
           "floats";
  bool tf32 = t.a == ElementType::TF32 || t.b == ElementType::TF32;
  if (tf32 && !(t.a == t.b && t.c == ElementType::F32))
    return "tf32 is read only as tf32,tf32,f32";
  if (!t.c.isFloat())
    return t.c.bits >= t.a.bits && t.c.bits >= t.b.bits
               ? ""
               : "the accumulator must be at least as wide as each input";
  if (t.c != ElementType::F32 && t.c != ElementType::F64)
    return "a float accumulator is f32 or f64";
  if (t.c.precision() < t.a.precision() || t.c.precision() < t.b.precision())
    return "the accumulator must be at least as precise as each input";
  return "";
}

} // namespace

std::optional<ElementType> ElementType::parse(StringRef name) {
  for (const auto &[text, type] : kFloats)
    if (text == name)
      return type;
  unsigned bits;
  if (name.size() < 2 || (name[0] != 'u' && name[0] != 's') ||
      name.drop_front().getAsInteger(10, bits) ||
      !llvm::is_contained({8u, 16u, 32u, 64u}, bits))
    return std::nullopt;
  return integer(bits, name[0] == 's');
}

std::string ElementType::name() const {
  for (const auto &[text, type] : kFloats)
    if (type == *this)
      return text.str();
  return (isSigned ? "s" : "u") + std::to_string(bits);
}

StringRef ElementType::cType() const {
  switch (format) {
  case Format::F16:
  case Format::BF16:
    return "uint16_t";
  case Format::TF32:
  case Format::F32:
    return "float";
  case Format::F64:
    return "double";
  case Format::Int:
    break;
  }
  static constexpr llvm::StringLiteral names[2][4] = {
      {"uint8_t", "uint16_t", "uint32_t", "uint64_t"},
      {"int8_t", "int16_t", "int32_t", "int64_t"}};
  return names[isSigned][llvm::Log2_32(bits) - 3];
}

Type ElementType::mlirType(MLIRContext *ctx) const {
  switch (format) {
  case Format::Int:
    return IntegerType::get(ctx, bits);
  case Format::F16:
    return Float16Type::get(ctx);
  case Format::BF16:
    return BFloat16Type::get(ctx);
  case Format::TF32: // stored as f32
  case Format::F32:
    return Float32Type::get(ctx);
  case Format::F64:
    return Float64Type::get(ctx);
  }
  llvm_unreachable("element format");
}

unsigned ElementType::precision() const {
  switch (format) {
  case Format::F16:
    return 11;
  case Format::BF16:
    return 8;
  case Format::TF32:
    return 11;
  case Format::F32:
    return 24;
  case Format::F64:
    return 53;
  case Format::Int:
    break;
  }
  return 0;
}

llvm::Expected<KernelTypes> KernelTypes::parse(StringRef text) {
  // "u8,s8,s32" or the same without commas ("u8s8s32", as in kernel names).
  SmallVector<StringRef> parts;
  if (text.contains(',')) {
    text.split(parts, ',');
  } else {
    StringRef rest = text;
    for (StringRef token; !(token = leadingTypeName(rest)).empty();
         rest = rest.drop_front(token.size()))
      parts.push_back(token);
    if (!rest.empty())
      parts.clear();
  }
  auto bad = [&]() {
    return llvm::createStringError(
        "--types expects A,B,C, each u8, s8, u16, s16, u32, s32, u64, s64, "
        "f16, bf16, tf32, f32 or f64; got '" +
        text + "'");
  };
  if (parts.size() != 3)
    return bad();
  std::optional<ElementType> k[3];
  for (int i = 0; i < 3; ++i)
    if (!(k[i] = ElementType::parse(parts[i].trim())))
      return bad();
  KernelTypes t{*k[0], *k[1], *k[2]};
  if (std::string why = typeCombinationError(t); !why.empty())
    return llvm::createStringError("unsupported type combination '" + text +
                                   "': " + why);
  return t;
}

bool KernelTypes::tensorCoreOnly() const { return a == ElementType::TF32; }

std::string KernelTypes::text() const {
  return a.name() + b.name() + c.name();
}

llvm::Error KernelSpec::validate(Names names) const {
  // An extent's name in the messages: the option, or the C field.
  auto named = [&](StringRef what) -> std::string {
    if (names == Names::Options)
      return ("--" + what).str();
    if (op == Op::Conv2d && what == "n")
      return "spec.batch";
    if (op == Op::Conv2d && what == "k")
      return "spec.filters";
    return ("spec." + what).str();
  };
  if (epilogue.requant && types.c != ElementType::S32)
    return llvm::createStringError("--epilogue requant=" +
                                   epilogue.requant->name() +
                                   " takes an s32 result, not " +
                                   types.c.name());
  if (epilogue.bf16 && types.c != ElementType::F32)
    return llvm::createStringError("--epilogue bf16 takes an f32 result, not " +
                                   types.c.name());
  if (epilogue.any() && types.c != ElementType::S32 &&
      types.c != ElementType::F32)
    return llvm::createStringError("--epilogue takes an s32 or f32 result, "
                                   "not " +
                                   types.c.name());
  auto positive = [&](StringRef what, int64_t v) -> llvm::Error {
    if (v < 1)
      return llvm::createStringError(named(what) + " must be a positive "
                                     "integer, got " + std::to_string(v));
    if (v > (int64_t(1) << 20))
      return llvm::createStringError(named(what) + " = " + std::to_string(v) +
                                     " is larger than 2^20");
    return llvm::Error::success();
  };
  // A run-time extent: any, or none chosen yet.
  int64_t rowsChecked = runTimeRows && rows() == 0 ? 1 : rows();
  if ((runTimeN || runTimeK) && op != Op::Gemm)
    return llvm::createStringError(
        "only a GEMM's n and k may be given at run time");
  if ((runTimeH || runTimeW) && op != Op::Conv2d)
    return llvm::createStringError(
        "only a conv2d's h and w may be given at run time");
  if (op == Op::Gemm) {
    for (auto [what, v] :
         {std::pair<StringRef, int64_t>{"m", rowsChecked},
          {"n", runTimeN && n == 0 ? 1 : n},
          {"k", runTimeK && k == 0 ? 1 : k}})
      if (auto e = positive(what, v))
        return e;
    return llvm::Error::success();
  }
  int64_t hChecked = runTimeH && h == 0 ? r : h,
          wChecked = runTimeW && w == 0 ? s : w;
  for (auto [what, v] :
       {std::pair<StringRef, int64_t>{"n", rowsChecked},
        {"h", hChecked},
        {"w", wChecked},
        {"c", c},
        {"k", filters},
        {"r", r},
        {"s", s},
        {"stride", stride}})
    if (auto e = positive(what, v))
      return e;
  if (pad < 0)
    return llvm::createStringError(named("pad") + " must be >= 0, got " +
                                   std::to_string(pad));
  if (pad >= r || pad >= s)
    return llvm::createStringError(
        named("pad") + " " + std::to_string(pad) +
        " must be smaller than the filter (" + std::to_string(r) + "x" +
        std::to_string(s) + ")");
  if (hChecked + 2 * pad < r || wChecked + 2 * pad < s)
    return llvm::createStringError("the filter is larger than the padded "
                                   "input: no output");
  // Each extent fits, but their products may not (a 4096x4096 filter of
  // 2^20 channels and filters wrapped the packed size to 0).
  int64_t oh = (hChecked + 2 * pad - r) / stride + 1,
          ow = (wChecked + 2 * pad - s) / stride + 1;
  double elements[] = {
      double(rowsChecked) * (hChecked + 2 * pad) * (wChecked + 2 * pad) * c,
      double(r) * s * c * filters, double(rowsChecked) * oh * ow * filters};
  StringRef input = pad ? "zero-padded input" : "input";
  for (auto [what, v] : llvm::zip(
           std::array<StringRef, 3>{input, "filter", "output"}, elements))
    if (v > std::ldexp(1.0, 40))
      return llvm::createStringError(
          llvm::formatv("the {0} would have {1:E1} elements, more than 2^40",
                        what, v));
  return llvm::Error::success();
}

std::string KernelSpec::symbol() const {
  if (!name.empty())
    return name;
  std::string suffix = epilogue.symbolSuffix();
  // A run-time extent is "M" (GEMM) or "N" (the batch) in the name.
  std::string rowsText =
      runTimeRows ? rowsName().upper() : std::to_string(rows());
  if (op == Op::Gemm)
    return llvm::formatv("tisa_gemm_{0}_{1}x{2}x{3}{4}", types.text(),
                         rowsText, runTimeN ? "N" : std::to_string(n),
                         runTimeK ? "K" : std::to_string(k), suffix);
  // Run-time h and w are "H" and "W".
  return llvm::formatv(
      "tisa_conv2d_{0}_n{1}h{2}w{3}c{4}k{5}r{6}s{7}u{8}p{9}{10}",
      types.text(), rowsText, runTimeH ? "H" : std::to_string(h),
      runTimeW ? "W" : std::to_string(w), c, filters, r, s, stride, pad,
      suffix);
}

std::string KernelSpec::key() const {
  // One kernel for every run-time extent.
  KernelSpec code = withCall(0, 0, 0);
  return code.symbol() + ":" + code.describe();
}

std::vector<std::pair<std::string, int64_t>>
KernelSpec::runTimeExtents(Extents which) const {
  std::vector<std::pair<std::string, int64_t>> out;
  if (runTimeRows && which != Extents::Weights)
    out.push_back({rowsName().str(), rows()});
  // A conv2d's range tiles with h or w at run time are output rows.
  if (which == Extents::Rows) {
    if (runTimeH)
      out.push_back({"h", h});
    return out;
  }
  if (runTimeN)
    out.push_back({"n", n});
  if (runTimeK)
    out.push_back({"k", k});
  // The weights do not depend on a convolution's h and w.
  if (which == Extents::Weights)
    return out;
  if (runTimeH)
    out.push_back({"h", h});
  if (runTimeW)
    out.push_back({"w", w});
  return out;
}

std::string KernelSpec::describe() const {
  std::string epi = epilogue.any() ? " + " + epilogue.text() : "";
  // "?", or "?=128" for a call's extent of a run-time one.
  auto extent = [](bool runTime, int64_t v) {
    if (!runTime)
      return std::to_string(v);
    return v ? "?=" + std::to_string(v) : std::string("?");
  };
  std::string rowsText = extent(runTimeRows, rows());
  if (op == Op::Gemm)
    return llvm::formatv("gemm {0}x{1}x{2} {3}{4}", rowsText,
                         extent(runTimeN, n), extent(runTimeK, k),
                         types.text(), epi);
  return llvm::formatv("conv2d n={0} h={1} w={2} c={3} k={4} {5}x{6} "
                       "stride={7} pad={8} {9}{10}",
                       rowsText, extent(runTimeH, h), extent(runTimeW, w), c,
                       filters, r, s, stride, pad, types.text(), epi);
}

double KernelSpec::ops() const {
  if (op == Op::Gemm)
    return 2.0 * m * n * k;
  // Taps on padding multiply zeros: not counted (the vendors skip them, and
  // so does the generated code).
  auto taps = [&](int64_t in, int64_t out, int64_t window) {
    int64_t sum = 0;
    for (int64_t o = 0; o < out; ++o)
      for (int64_t t = 0; t < window; ++t) {
        int64_t i = o * stride + t - pad;
        sum += i >= 0 && i < in;
      }
    return double(sum);
  };
  return 2.0 * batch * filters * c * taps(h, outH(), r) *
         taps(w, outW(), s);
}

int64_t KernelSpec::inputElements() const {
  return op == Op::Gemm ? m * k : batch * h * w * c;
}
int64_t KernelSpec::weightElements() const {
  return op == Op::Gemm ? k * n : r * s * c * filters;
}
int64_t KernelSpec::outputElements() const {
  return op == Op::Gemm ? m * n : batch * outH() * outW() * filters;
}

} // namespace tisa
