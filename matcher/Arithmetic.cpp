//===- Arithmetic.cpp - arithmetic isomorphism, repairs, relaxations ------===//
//
// The program's multiply-accumulate and the instruction's must agree up to
// the order of the two factors. Integer signedness differences of 8-bit
// factors are repaired exactly (bias by 128, subtract a compensation term;
// everything wraps modulo 2^32 on both sides); saturating instructions admit
// no repair. Floating-point instructions whose accumulation order, rounding,
// denormal or NaN handling differ from the program's sequential sum are
// relaxations, listed in the plan, or rejected with --strict-fp. An instruction
// that reads float inputs in a narrower format (tf32 for f32) matches only
// with --allow-reduced-precision, and the plan lists it as a relaxation.
// Products agree when both are exact, or both are rounded (wrapped) in the
// same type: a same-precision instruction (f32 x f32 -> f32) matches a
// same-precision program.
//
//===----------------------------------------------------------------------===//

#include "MatcherImpl.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa::detail {

namespace {

SmallVector<std::string> floatRelaxations(const FloatBehaviour &fp) {
  SmallVector<std::string> r;
  switch (fp.accumulation) {
  case Accumulation::Sequential:
    break;
  case Accumulation::Reverse:
    r.push_back("accumulation order: each group's products in descending "
                "order (the program sums in ascending order)");
    break;
  case Accumulation::Pairwise:
    r.push_back("accumulation order: products added in pairs before they "
                "reach the accumulator");
    break;
  case Accumulation::Unordered:
    r.push_back("accumulation order: unspecified by the vendor");
    break;
  case Accumulation::EvenOddFused:
    r.push_back("accumulation order: separate even and odd partial sums by "
                "fused multiply-add, then added");
    break;
  }
  if (fp.rounding == Rounding::Odd)
    r.push_back("intermediate sums rounded to odd");
  if (llvm::all_of(fp.denormalsAreZero, [](bool z) { return z; }))
    r.push_back("denormal inputs read as zero");
  else if (fp.anyDenormalsAreZero())
    r.push_back("denormal " + denormalsAreZeroText(fp) + " read as zero");
  if (fp.flushOutputDenormals)
    r.push_back("denormal results flushed to zero");
  if (fp.defaultNaN)
    r.push_back("NaN results replaced by the default NaN");
  return r;
}

/// Sum over the program's reduction loops, as text: "sum_k B".
std::string sumText(const Contraction &c, unsigned input) {
  std::string loops;
  for (const ProgramLoop &l : c.loops)
    if (l.reduction)
      loops += (loops.empty() ? "" : ",") + l.name;
  return "sum_" + loops + " " + c.operands[input].name;
}

/// Additions to compute sum_red X for every output element: one per
/// iteration of the loops X depends on.
int64_t compensationWork(const Contraction &c, unsigned input) {
  int64_t n = 1;
  for (auto [l, loop] : llvm::enumerate(c.loops))
    if (c.operands[input].map.isFunctionOfDim(l))
      n *= loop.extent == kDynamic ? 256 : loop.extent;
  return n;
}

/// The repair of 8-bit factors of the wrong signedness: `bias[i]` added to
/// program input i (0: none), and the compensation that makes the result
/// exact: sum a*b = sum (a+ba)(b+bb) - bb*sum a - ba*sum b - K*ba*bb.
Repair buildRepair(const Contraction &c, const int64_t bias[2]) {
  const NormalArith &p = c.arith;
  Repair r;
  r.bias[0] = bias[0];
  r.bias[1] = bias[1];
  std::string text;
  for (unsigned pi = 0; pi < 2; ++pi)
    if (bias[pi])
      text += llvm::formatv(
          "{0}{1} is {2}, the instruction takes {3}: add {4} to {1} (xor "
          "0x80)",
          text.empty() ? "" : "; ", c.operands[pi].name,
          typeText(p.factorType[pi], p.factorSigned[pi]),
          typeText(p.factorType[pi], !p.factorSigned[pi]), bias[pi]);
  std::string comp;
  auto term = [&](int64_t coefficient, std::string what) {
    if (!coefficient)
      return;
    comp += llvm::formatv(" {0} {1} * {2}", coefficient > 0 ? "-" : "+",
                          std::abs(coefficient), what);
  };
  term(bias[1], sumText(c, 0));
  term(bias[0], sumText(c, 1));
  if (bias[0] && bias[1])
    term(bias[0] * bias[1], "K (reduction length)");
  text += "; then " + c.operands[2].name + " = instruction result" + comp +
          " (exact modulo 2^32); padding of a biased operand holds the "
          "value that biases to 0";
  r.text = text;
  if (bias[1])
    r.compensationElements += compensationWork(c, 0);
  if (bias[0])
    r.compensationElements += compensationWork(c, 1);
  return r;
}

/// How the program's product differs from the instruction's, of factors of
/// the same types ("" when they agree): both exact, or both rounded (or
/// wrapped) in the same type and widened alike to the accumulator.
std::string productDifference(const MulAcc &pm, const NormalArith &p,
                              const MulAcc &im, const NormalArith &in) {
  const char *rounded = p.isFloat ? "rounded" : "wrapped";
  if (p.exactProduct && in.exactProduct)
    return "";
  if (!p.exactProduct && in.exactProduct)
    return llvm::formatv("the program's product is {0} before it is "
                         "accumulated ({1}); the instruction's is exact",
                         rounded, p.text);
  if (p.exactProduct)
    return llvm::formatv("the instruction's product is {0} before it is "
                         "accumulated ({1}); the program's is exact",
                         rounded, in.text);
  if (pm.mulType != im.mulType)
    return llvm::formatv("the program's product is {0} in {1}, the "
                         "instruction's in {2}",
                         rounded, typeText(pm.mulType, true),
                         typeText(im.mulType, true));
  if (pm.productExt != im.productExt)
    return llvm::formatv("the program's and the instruction's products are "
                         "{0} in {1} and then widened differently",
                         rounded, typeText(pm.mulType, true));
  return "";
}

} // namespace

FailureOr<SmallVector<ArithMatch, 2>>
matchArithmetic(const Contraction &c, const Description &d,
                const MatchOptions &options, std::string &why) {
  const NormalArith &p = c.arith;
  NormalArith in = normalizeArith(d.mulAcc);
  auto reject = [&](std::string reason) {
    why = std::move(reason);
    return failure();
  };
  if (p.isFloat != in.isFloat)
    return reject(llvm::formatv("the program is {0} ({1}), the instruction {2} "
                                "({3})",
                                p.isFloat ? "floating point" : "integer",
                                p.text,
                                in.isFloat ? "floating point" : "integer",
                                in.text));
  if (p.accType != in.accType)
    return reject(llvm::formatv("the program accumulates in {0}, the "
                                "instruction in {1}",
                                typeText(p.accType, true),
                                typeText(in.accType, true)));
  // An instruction that reads a factor in a narrower format than the program
  // multiplies it (tf32 for f32) computes something else: only on request.
  // A program that narrows neither factor gets the general reason here; one
  // that narrows one of them is checked per factor below.
  std::optional<unsigned> narrowed;
  bool narrowsProgram = false;
  for (unsigned j = 0; j < 2; ++j) {
    if (in.factorNarrowing[j] && !p.factorNarrowing[0] && !p.factorNarrowing[1])
      narrowed = j;
    narrowsProgram |= in.factorNarrowing[j] &&
                      !(p.factorNarrowing[0] && p.factorNarrowing[1]);
  }
  if (narrowed && !options.allowReducedPrecision)
    return reject(llvm::formatv(
        "the instruction reads its {0} inputs as {1}, the program multiplies "
        "them in full {0} (--allow-reduced-precision accepts this)",
        typeText(in.factorType[*narrowed], true),
        detail::narrowingText(*in.factorNarrowing[*narrowed])));
  // Differently typed factors are named below, in the instruction's terms.
  bool sameFactorTypes =
      (p.factorType[0] == in.factorType[0] &&
       p.factorType[1] == in.factorType[1]) ||
      (p.factorType[0] == in.factorType[1] &&
       p.factorType[1] == in.factorType[0]);
  if (!narrowsProgram && sameFactorTypes)
    if (std::string differ = productDifference(c.mulAcc, p, d.mulAcc, in);
        !differ.empty())
      return reject(differ);
  if (d.saturation != Saturation::None)
    return reject("the instruction saturates its accumulator; the program's "
                  "sum wraps");

  SmallVector<ArithMatch, 2> matches;
  std::string firstReason;
  // Both orders, also for symmetric types: feeding program B to the
  // instruction's A computes transposed tiles, which can be the better plan.
  for (unsigned swap = 0; swap < 2; ++swap) {
    ArithMatch m;
    m.programInputOf[0] = swap;
    m.programInputOf[1] = 1 - swap;
    std::string reason;
    int64_t bias[2] = {0, 0};
    for (unsigned j = 0; j < 2 && reason.empty(); ++j) {
      unsigned pi = m.programInputOf[j];
      Type pt = p.factorType[pi], it = in.factorType[j];
      const std::string &name = c.operands[pi].name;
      if (pt != it) {
        reason = llvm::formatv("{0} is {1}, the instruction's operand {2} "
                               "needs {3}",
                               name, typeText(pt, p.factorSigned[pi]), j,
                               typeText(it, in.factorSigned[j]));
        continue;
      }
      if (p.factorNarrowing[pi] && p.factorNarrowing[pi] != in.factorNarrowing[j]) {
        reason = llvm::formatv("{0} is read as {1}, the instruction's operand "
                               "{2} reads {3}",
                               name, detail::narrowingText(*p.factorNarrowing[pi]),
                               j,
                               in.factorNarrowing[j]
                                   ? detail::narrowingText(*in.factorNarrowing[j])
                                   : typeText(it, true));
        continue;
      }
      if (in.factorNarrowing[j] && !p.factorNarrowing[pi] &&
          !options.allowReducedPrecision) {
        reason = llvm::formatv("the instruction's operand {0} reads {1} ({2}) "
                               "as {3} (--allow-reduced-precision accepts "
                               "this)",
                               j, name, typeText(pt, true),
                               detail::narrowingText(*in.factorNarrowing[j]));
        continue;
      }
      if (p.isFloat || p.factorSigned[pi] == in.factorSigned[j])
        continue;
      if (pt.getIntOrFloatBitWidth() != 8) {
        reason = llvm::formatv("{0} is {1}, the instruction's operand {2} "
                               "needs {3}, and only 8-bit operands are "
                               "repaired",
                               name, typeText(pt, p.factorSigned[pi]), j,
                               typeText(it, in.factorSigned[j]));
        continue;
      }
      bias[pi] = p.factorSigned[pi] ? 128 : -128;
    }
    if (!reason.empty()) {
      if (firstReason.empty())
        firstReason = reason;
      continue;
    }
    if (bias[0] || bias[1])
      m.repair = buildRepair(c, bias);
    if (d.fp) {
      m.relaxations = floatRelaxations(*d.fp);
      if (options.strictFloat && !m.relaxations.empty())
        return reject("the instruction's floating-point arithmetic differs "
                      "from the program's sequential sum (" +
                      m.relaxations.front() + ") and --strict-fp is set");
      for (unsigned j = 0; j < 2; ++j) {
        unsigned pi = m.programInputOf[j];
        if (in.factorNarrowing[j] && !p.factorNarrowing[pi])
          m.relaxations.push_back(
              llvm::formatv("{0} ({1}) read as {2}, allowed by "
                            "--allow-reduced-precision",
                            c.operands[pi].name, typeText(p.factorType[pi], true),
                            detail::narrowingText(*in.factorNarrowing[j])));
      }
    }
    matches.push_back(m);
  }
  if (matches.empty())
    return reject(firstReason);
  return matches;
}

} // namespace tisa::detail
