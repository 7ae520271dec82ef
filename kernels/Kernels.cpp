//===- Kernels.cpp - kernel specs: element types, shapes, names -----------===//
//
// What a generated kernel computes (KernelSpec, KernelTypes); the library
// itself is built in KernelLibrary.cpp.
//
//===----------------------------------------------------------------------===//

#include "tisa/Kernels/Kernels.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cmath>

using namespace mlir;

namespace tisa {

//===----------------------------------------------------------------------===//
// Types and specs
//===----------------------------------------------------------------------===//

namespace {

constexpr ElementInfo kElements[] = {
    {ElementKind::U8, "u8", 1, false, false, "uint8_t"},
    {ElementKind::S8, "s8", 1, true, false, "int8_t"},
    {ElementKind::U16, "u16", 2, false, false, "uint16_t"},
    {ElementKind::S16, "s16", 2, true, false, "int16_t"},
    {ElementKind::S32, "s32", 4, true, false, "int32_t"},
    {ElementKind::F16, "f16", 2, true, true, "uint16_t"},
    {ElementKind::BF16, "bf16", 2, true, true, "uint16_t"},
    {ElementKind::TF32, "tf32", 4, true, true, "float"},
    {ElementKind::F32, "f32", 4, true, true, "float"},
};

std::optional<ElementKind> parseKind(StringRef s) {
  for (const ElementInfo &e : kElements)
    if (e.name == s)
      return e.kind;
  return std::nullopt;
}

/// The input kinds that accumulate into s32.
bool smallInteger(ElementKind k) {
  const ElementInfo &e = elementInfo(k);
  return !e.isFloat && e.bytes <= 2;
}

} // namespace

const ElementInfo &elementInfo(ElementKind k) {
  for (const ElementInfo &e : kElements)
    if (e.kind == k)
      return e;
  llvm_unreachable("element kind");
}

unsigned elementBytes(ElementKind k) { return elementInfo(k).bytes; }

StringRef cTypeName(ElementKind k) { return elementInfo(k).cType; }

llvm::Expected<KernelTypes> KernelTypes::parse(StringRef text) {
  // "u8,s8,s32" or the same without commas ("u8s8s32", as in kernel names).
  SmallVector<StringRef> parts;
  if (text.contains(',')) {
    text.split(parts, ',');
  } else {
    StringRef rest = text;
    while (!rest.empty()) {
      StringRef token;
      for (const ElementInfo &e : kElements)
        if (rest.starts_with(e.name) && e.name.size() > token.size())
          token = e.name;
      if (token.empty())
        break; // reported below: not three known types
      parts.push_back(token);
      rest = rest.drop_front(token.size());
    }
    if (!rest.empty())
      parts.clear();
  }
  auto bad = [&]() {
    return llvm::createStringError(
        "--types expects A,B,C with u8, s8, u16 or s16 for A and B and s32 "
        "for C, or bf16,bf16,f32, f16,f16,f32 or tf32,tf32,f32; got '" +
        text + "'");
  };
  if (parts.size() != 3)
    return bad();
  std::optional<ElementKind> k[3];
  for (int i = 0; i < 3; ++i)
    if (!(k[i] = parseKind(parts[i].trim())))
      return bad();
  KernelTypes t{*k[0], *k[1], *k[2]};
  if (smallInteger(t.a) && smallInteger(t.b) && t.c == ElementKind::S32)
    return t;
  for (ElementKind f : {ElementKind::BF16, ElementKind::F16, ElementKind::TF32})
    if (t.a == f && t.b == f && t.c == ElementKind::F32)
      return t;
  return llvm::createStringError(
      "unsupported type combination '" + text +
      "': 8- and 16-bit integers accumulate into s32, bf16, f16 and tf32 "
      "(both inputs the same) into f32");
}

bool KernelTypes::tensorCoreOnly() const {
  return a == ElementKind::TF32;
}

std::string KernelTypes::text() const {
  return (elementInfo(a).name + elementInfo(b).name + elementInfo(c).name)
      .str();
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
  if (epilogue.requant && types.c != ElementKind::S32)
    return llvm::createStringError("--epilogue requant=" +
                                   elementInfo(*epilogue.requant).name +
                                   " takes an s32 result, not " +
                                   elementInfo(types.c).name);
  if (epilogue.bf16 && types.c != ElementKind::F32)
    return llvm::createStringError("--epilogue bf16 takes an f32 result, not " +
                                   elementInfo(types.c).name);
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
