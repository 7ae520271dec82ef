//===- KernelEpilogue.cpp - a kernel's --epilogue ---------------------------===//
//
// The epilogue of a named kernel: its text form, its linalg.generic (which
// -tisa-fuse-epilogue moves into the kernel's tisa.compute, as it does a
// file's), the C struct its entries take, and its value in the reference.
//
//===----------------------------------------------------------------------===//

#include "KernelEpilogue.h"
#include "tisa/Kernels/Reference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace tisa {

llvm::Expected<EpilogueSpec> EpilogueSpec::parse(llvm::StringRef list) {
  EpilogueSpec e;
  list = list.trim();
  if (list.empty() || list == "none")
    return e;
  SmallVector<StringRef> steps;
  list.split(steps, ',');
  // The steps run in one order; a list in another would mean other
  // arithmetic (relu then bias is not bias then relu), so it is refused, not
  // reordered.
  static constexpr llvm::StringLiteral order[] = {"bias", "residual", "relu",
                                                  "requant", "bf16"};
  auto rank = [](StringRef step) {
    return size_t(llvm::find(order, step.split('=').first) - std::begin(order));
  };
  StringRef previous;
  for (StringRef step : steps) {
    step = step.trim();
    if (!previous.empty() && rank(step) < std::size(order) &&
        rank(step) <= rank(previous))
      return llvm::createStringError(
          "--epilogue: '" + step + "' after '" + previous +
          (rank(step) == rank(previous) ? "' repeats a step"
                                        : "' is out of order") +
          " (the steps run once each, in the order bias, residual, relu, "
          "then requant=u8|s8 or bf16)");
    previous = step;
    if (step == "bias")
      e.bias = true;
    else if (step == "residual")
      e.residual = true;
    else if (step == "relu")
      e.relu = true;
    else if (step == "bf16")
      e.bf16 = true;
    else if (step == "requant=u8")
      e.requant = ElementType::U8;
    else if (step == "requant=s8")
      e.requant = ElementType::S8;
    else
      return llvm::createStringError(
          "--epilogue: unknown step '" + step +
          "' (steps: bias, residual, relu, requant=u8, requant=s8, bf16)");
  }
  if (e.requant && e.bf16)
    return llvm::createStringError(
        "--epilogue: requant and bf16 both convert the result; take one");
  return e;
}

std::string EpilogueSpec::text() const {
  SmallVector<std::string> steps;
  if (bias)
    steps.push_back("bias");
  if (residual)
    steps.push_back("residual");
  if (relu)
    steps.push_back("relu");
  if (requant)
    steps.push_back("requant=" + requant->name());
  if (bf16)
    steps.push_back("bf16");
  return llvm::join(steps, ",");
}

std::string EpilogueSpec::symbolSuffix() const {
  std::string suffix;
  for (char c : text())
    suffix += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return suffix.empty() ? suffix : "_" + suffix;
}

ElementType EpilogueSpec::outputKind(ElementType acc) const {
  if (requant)
    return *requant;
  return bf16 ? ElementType::BF16 : acc;
}

namespace {

/// The body of the epilogue generic on one element.
struct BodyBuilder {
  OpBuilder &b;
  Location loc;
  const EpilogueSpec &e;
  bool isFloat;

  Value add(Value x, Value y) {
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  }
  Value constantF32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value relu(Value x) {
    Value zero = arith::ConstantOp::create(b, loc, x.getType(),
                                           b.getZeroAttr(x.getType()));
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, x, zero))
                   : Value(arith::MaxSIOp::create(b, loc, x, zero));
  }
  /// round_even(f32(x) * scale) + zero point, saturated, as u8/s8.
  Value requantize(Value x, Value scale, Value zeroPoint) {
    Type f32 = b.getF32Type();
    Value f = arith::SIToFPOp::create(b, loc, f32, x);
    f = arith::MulFOp::create(b, loc, f, scale);
    f = math::RoundEvenOp::create(b, loc, f);
    f = arith::AddFOp::create(b, loc, f,
                              arith::SIToFPOp::create(b, loc, f32, zeroPoint));
    // maxnum/minnum: a NaN (a scale of inf times 0) saturates instead of
    // reaching fptosi (poison), and each is one vmaxps/vminps against a
    // constant, where NaN-propagating maximum/minimum add a compare and a
    // blend per register.
    bool isSigned = e.requant->isSigned;
    f = arith::MaxNumFOp::create(b, loc, f, constantF32(isSigned ? -128 : 0));
    f = arith::MinNumFOp::create(b, loc, f, constantF32(isSigned ? 127 : 255));
    Value i = arith::FPToSIOp::create(b, loc, b.getI32Type(), f);
    return arith::TruncIOp::create(b, loc, b.getI8Type(), i);
  }
};

} // namespace

linalg::GenericOp buildEpilogue(OpBuilder &b, Location loc,
                                const KernelSpec &spec, Value acc,
                                const EpilogueValues &v, Value out) {
  MLIRContext *ctx = b.getContext();
  auto rank = cast<MemRefType>(acc.getType()).getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap channel =
      AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx), ctx);
  SmallVector<Value> ins{acc};
  SmallVector<AffineMap> maps{id};
  auto addInput = [&](Value x, AffineMap map) {
    ins.push_back(x);
    maps.push_back(map);
  };
  if (spec.epilogue.bias)
    addInput(v.bias, channel);
  if (spec.epilogue.residual)
    addInput(v.residual, id);
  if (spec.epilogue.requant)
    addInput(v.scale, channel);
  maps.push_back(id);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  const EpilogueSpec &e = spec.epilogue;
  return linalg::GenericOp::create(
      b, loc, TypeRange{}, ins, ValueRange{out}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        BodyBuilder body{nb, nloc, e, spec.types.isFloat()};
        Value x = args[0];
        unsigned next = 1;
        if (e.bias)
          x = body.add(x, args[next++]);
        if (e.residual)
          x = body.add(x, args[next++]);
        if (e.relu)
          x = body.relu(x);
        if (e.requant)
          x = body.requantize(x, args[next++], v.zeroPoint);
        if (e.bf16)
          x = arith::TruncFOp::create(nb, nloc, BFloat16Type::get(ctx), x);
        linalg::YieldOp::create(nb, nloc, x);
      });
}

std::string epilogueStructText() {
  return R"(#ifndef TISA_EPILOGUE_DEFINED
#define TISA_EPILOGUE_DEFINED
/* The operands of a kernel's epilogue (fields its epilogue does not name are
 * not read): */
typedef struct tisa_epilogue {
  const void *bias;     /* [n] or [k filters], of the accumulator type */
  const void *residual; /* the output's shape, of the accumulator type */
  int64_t ldresidual;   /* GEMM: distance in elements between its rows */
  const float *scale;   /* requant: [n] or [k filters] */
  int32_t zero_point;   /* requant */
} tisa_epilogue;
#endif
)";
}

double epilogueReference(const EpilogueSpec &e, double x, double bias,
                         double residual, float scale, int32_t zeroPoint,
                         bool isFloat) {
  if (!isFloat) {
    // s32 arithmetic wraps.
    uint32_t acc = uint32_t(int64_t(x));
    if (e.bias)
      acc += uint32_t(int64_t(bias));
    if (e.residual)
      acc += uint32_t(int64_t(residual));
    int32_t s = int32_t(acc);
    if (e.relu)
      s = std::max(s, 0);
    if (!e.requant)
      return s;
    // The same f32 operations the kernel runs, in the same order.
    float f = float(s) * scale;
    f = std::nearbyint(f) + float(zeroPoint);
    bool isSigned = e.requant->isSigned;
    f = std::fmin(std::fmax(f, isSigned ? -128.0f : 0.0f),
                  isSigned ? 127.0f : 255.0f);
    return int32_t(f);
  }
  if (e.bias)
    x += bias;
  if (e.residual)
    x += residual;
  if (e.relu && !std::isnan(x)) // arith.maximumf keeps a NaN
    x = std::max(x, 0.0);
  return x;
}

} // namespace tisa

namespace tisa {

namespace {

int64_t reductionOf(const KernelSpec &s) {
  return s.op == KernelSpec::Op::Gemm ? s.k : s.r * s.s * s.c;
}

/// A value of the accumulators' magnitude (bits of an s32 or f32); with
/// `extreme`, sometimes one that makes s32 arithmetic wrap.
uint32_t accumulatorLike(const KernelSpec &s, std::mt19937_64 &rng,
                         bool extreme) {
  double spread = std::sqrt(double(reductionOf(s)));
  if (s.types.isFloat()) {
    float f = float(std::ldexp(double(int(rng() % 2001) - 1000), -10) * spread);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  if (extreme && rng() % 4 == 0) {
    const int32_t ends[] = {INT32_MIN, INT32_MAX, 0, -1};
    return uint32_t(ends[rng() % 4]);
  }
  return uint32_t(int32_t((int64_t(rng() % 65536) - 32768) * spread));
}

void put32(Bytes &v, int64_t i, uint32_t bits) {
  std::memcpy(&v[4 * i], &bits, 4);
}
uint32_t get32(const Bytes &v, int64_t i) {
  uint32_t bits;
  std::memcpy(&bits, &v[4 * i], 4);
  return bits;
}
float asFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace

void fillEpilogue(const KernelSpec &spec, KernelData &d, std::mt19937_64 &rng,
                  Fill how, bool padded) {
  const EpilogueSpec &e = spec.epilogue;
  bool extreme = how == Fill::Extreme;
  int64_t channels = spec.channels();
  if (e.bias) {
    d.bias.resize(4 * channels);
    for (int64_t j = 0; j < channels; ++j)
      put32(d.bias, j, accumulatorLike(spec, rng, extreme));
  }
  if (e.residual) {
    bool gemm = spec.op == KernelSpec::Op::Gemm;
    int64_t rows = gemm ? spec.m : 1,
            cols = gemm ? spec.n : spec.outputElements();
    d.ldr = gemm ? cols + (padded ? 3 : 0) : 0;
    // The last row without its gap, as a caller's buffer ends.
    d.residual.assign(4 * ((rows - 1) * (gemm ? d.ldr : cols) + cols), 0x5a);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        put32(d.residual, r * (gemm ? d.ldr : cols) + c,
              accumulatorLike(spec, rng, extreme));
  }
  if (e.requant) {
    // Scales that map a typical accumulator to tens of steps of the output,
    // spread over 2^-2..2^3 of that; some 0 and some huge (saturation).
    // Half are powers of two, whose products are exact: a result of exactly
    // half a step then tells rounding to nearest even from other roundings.
    double base = 32.0 / (std::sqrt(double(reductionOf(spec))) * 4096.0);
    d.scale.resize(4 * channels);
    for (int64_t j = 0; j < channels; ++j) {
      double nominal = j % 2 ? base : std::exp2(std::round(std::log2(base)));
      float scale = float(std::ldexp(nominal, int(rng() % 6) - 2));
      if (extreme && rng() % 4 == 0)
        scale = rng() % 2 ? 0.0f : 1e30f;
      uint32_t bits;
      std::memcpy(&bits, &scale, 4);
      put32(d.scale, j, bits);
    }
    bool isSigned = e.requant->isSigned;
    d.zeroPoint = int32_t(rng() % 256) - (isSigned ? 128 : 0);
  }
}

void applyEpilogueAt(const KernelSpec &spec, const KernelData &d, int64_t o,
                     uint32_t &bits, double &bound) {
  const EpilogueSpec &e = spec.epilogue;
  if (!e.any())
    return;
  int64_t j = o % spec.channels();
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  int64_t at = gemm ? o / spec.n * d.ldr + o % spec.n : o;
  uint32_t bias = e.bias ? get32(d.bias, j) : 0,
           residual = e.residual ? get32(d.residual, at) : 0;
  if (!spec.types.isFloat()) {
    float scale = e.requant ? asFloat(get32(d.scale, j)) : 1.0f;
    double r = epilogueReference(e, double(int32_t(bits)),
                                 double(int32_t(bias)),
                                 double(int32_t(residual)), scale,
                                 d.zeroPoint, /*isFloat=*/false);
    bits = uint32_t(int32_t(r));
    return;
  }
  double acc = asFloat(bits), b = e.bias ? asFloat(bias) : 0.0,
         res = e.residual ? asFloat(residual) : 0.0;
  double r = epilogueReference(e, acc, b, res, 1.0f, 0, /*isFloat=*/true);
  // Each f32 addition rounds once; bf16 rounds the result to 8 bits (and
  // vcvtneps2bf16 flushes results below 2^-126 to zero).
  bound += (std::fabs(acc) + std::fabs(b) + std::fabs(res)) *
           std::ldexp(1.0, -23);
  if (e.bf16)
    bound += std::fabs(r) * std::ldexp(1.0, -8) + std::ldexp(1.0, -126);
  float f = float(r);
  std::memcpy(&bits, &f, 4);
}

} // namespace tisa
