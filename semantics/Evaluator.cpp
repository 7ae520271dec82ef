//===- Evaluator.cpp - run a description's semantics on values ------------===//

#include "tisa/Semantics/Evaluator.h"
#include "tisa/Semantics/AffineEval.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using llvm::APFloat;
using llvm::APInt;

namespace tisa {

const llvm::fltSemantics &semanticsOf(Type t) {
  return cast<FloatType>(t).getFloatSemantics();
}

//===----------------------------------------------------------------------===//
// FloatModel
//===----------------------------------------------------------------------===//

static APFloat signedZero(const APFloat &like) {
  return APFloat::getZero(like.getSemantics(), like.isNegative());
}

APFloat FloatModel::input(APFloat x, unsigned operand) const {
  if (b.denormalsAreZero[operand] && x.isDenormal())
    return signedZero(x);
  return x;
}

APFloat FloatModel::finish(APFloat r, APFloat::opStatus status) const {
  if (r.isNaN()) {
    if (b.defaultNaN)
      return APFloat::getQNaN(r.getSemantics());
    return r;
  }
  if (b.flushOutputDenormals && r.isDenormal())
    return signedZero(r);
  return r;
}

/// Round to odd: truncate, and make the last bit 1 when anything was discarded
/// (a sticky bit that keeps a later rounding to a narrower format exact); a
/// magnitude of 2^(emax+1) or more becomes infinity (Arm FPRound with
/// FPRounding_ODD). APFloat has no such mode, and its toward-zero rounding
/// returns the largest finite value both on overflow and just below it, so the
/// operation runs exactly enough in double (operands of at most single
/// precision: products are exact, sums truncate the same way) and is then
/// truncated to the operand format.
static APFloat roundToOdd(APFloat wide, APFloat::opStatus wideStatus,
                          const llvm::fltSemantics &sem) {
  if (wide.isNaN())
    return APFloat::getQNaN(sem, wide.isNegative());
  if (wide.isInfinity())
    return APFloat::getInf(sem, wide.isNegative());
  APFloat threshold =
      scalbn(APFloat(1.0), APFloat::semanticsMaxExponent(sem) + 1,
             APFloat::rmTowardZero);
  if (abs(wide).compare(threshold) != APFloat::cmpLessThan)
    return APFloat::getInf(sem, wide.isNegative());
  bool losesInfo = false;
  APFloat::opStatus status =
      wide.convert(sem, APFloat::rmTowardZero, &losesInfo);
  if ((wideStatus & APFloat::opInexact) || (status & APFloat::opInexact)) {
    APInt bits = wide.bitcastToAPInt();
    bits.setBit(0);
    wide = APFloat(sem, bits);
  }
  return wide;
}

APFloat FloatModel::extend(APFloat x, const llvm::fltSemantics &to) const {
  bool losesInfo = false;
  x.convert(to, APFloat::rmNearestTiesToEven, &losesInfo); // widening: exact
  // A widened input is not a result: a NaN takes its default, but the
  // output's flush does not apply (it read every denormal input of an
  // instruction that flushes its output as zero, whatever input_denormals
  // said, so a wrong "keep" verified).
  if (x.isNaN() && b.defaultNaN)
    return APFloat::getQNaN(to);
  return x;
}

/// One binary operation under the model: `op(lhs, rhs, mode)` updates lhs and
/// returns the status.
template <typename Op>
static APFloat
binary(const FloatBehaviour &b, APFloat x, const APFloat &y, Op op,
       llvm::function_ref<APFloat(APFloat, APFloat::opStatus)> finish) {
  if (b.rounding != Rounding::Odd) {
    APFloat::opStatus status = op(x, y, APFloat::rmNearestTiesToEven);
    return finish(x, status);
  }
  const llvm::fltSemantics &sem = x.getSemantics();
  bool losesInfo = false;
  APFloat wy = y;
  x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  wy.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  APFloat::opStatus status = op(x, wy, APFloat::rmTowardZero);
  return finish(roundToOdd(x, status, sem), status);
}

APFloat FloatModel::mul(APFloat x, const APFloat &y) const {
  return binary(
      b, x, y,
      [](APFloat &l, const APFloat &r, APFloat::roundingMode m) {
        return l.multiply(r, m);
      },
      [&](APFloat r, APFloat::opStatus s) { return finish(r, s); });
}

APFloat FloatModel::add(APFloat x, const APFloat &y) const {
  return binary(
      b, x, y,
      [](APFloat &l, const APFloat &r, APFloat::roundingMode m) {
        return l.add(r, m);
      },
      [&](APFloat r, APFloat::opStatus s) { return finish(r, s); });
}

APFloat FloatModel::fma(APFloat acc, const APFloat &x, const APFloat &y) const {
  assert(b.rounding == Rounding::NearestEven &&
         "fused round-to-odd is not modelled");
  // APFloat's fusedMultiplyAdd computes this * multiplicand + addend.
  APFloat r = x;
  APFloat::opStatus status =
      r.fusedMultiplyAdd(y, acc, APFloat::rmNearestTiesToEven);
  return finish(r, status);
}

bool resultBitsAgree(const Description &d, uint64_t x, uint64_t y) {
  if (x == y)
    return true;
  if (!d.mulAcc.isFloat || !d.fp || d.fp->defaultNaN)
    return false;
  Type t = d.mulAcc.accType;
  unsigned w = t.getIntOrFloatBitWidth();
  APFloat fx(semanticsOf(t), APInt(w, x)), fy(semanticsOf(t), APInt(w, y));
  return fx.isNaN() && fy.isNaN();
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

namespace {

APInt extendInt(const APInt &v, MulAcc::Ext ext, unsigned width) {
  if (v.getBitWidth() == width)
    return v;
  return ext == MulAcc::Ext::Sign ? v.sext(width) : v.zext(width);
}

/// A factor read in a narrower format (arith.truncf with its rounding mode).
/// A NaN stays a NaN (quiet), whatever its payload.
APFloat narrow(APFloat x, const MulAcc::Narrowing &n) {
  bool losesInfo = false;
  x.convert(n.type.getFloatSemantics(), n.rounding, &losesInfo);
  return x;
}

} // namespace

TensorValue evaluate(const Description &d, ArrayRef<TensorValue> operands) {
  assert(operands.size() == 3 && "two inputs and the accumulator");
  const MulAcc &m = d.mulAcc;
  unsigned segments = operands[2].segments;
  TensorValue result = operands[2];
  SmallVector<int64_t> ranges = d.body.getStaticLoopRanges();
  SmallVector<AffineMap> maps = d.body.getIndexingMapsArray();
  auto linearIndex = [](ArrayRef<int64_t> shape, ArrayRef<int64_t> idx) {
    int64_t l = 0;
    for (auto [s, i] : llvm::zip(shape, idx))
      l = l * s + i;
    return l;
  };
  int64_t outPerSegment = result.elementsPerSegment();
  std::optional<FloatModel> fm;
  if (m.isFloat)
    fm.emplace(*d.fp);

  for (unsigned seg = 0; seg < segments; ++seg) {
    std::vector<std::vector<APInt>> intProducts(outPerSegment);
    std::vector<std::vector<APFloat>> floatProducts(outPerSegment);
    std::vector<std::vector<std::pair<APFloat, APFloat>>> floatFactors(
        outPerSegment);
    forEachIndex(ranges, [&](ArrayRef<int64_t> point) {
      auto read = [&](unsigned op) {
        const TensorValue &v = operands[op];
        SmallVector<int64_t> idx = valueAt(maps[op], point);
        return v.bits[seg * v.elementsPerSegment() + linearIndex(v.shape, idx)];
      };
      int64_t out = linearIndex(result.shape, valueAt(maps[2], point));
      uint64_t lhsBits = read(m.lhsInput), rhsBits = read(m.rhsInput);
      if (!m.isFloat) {
        unsigned mw = m.mulType.getIntOrFloatBitWidth();
        APInt lhs = extendInt(APInt(m.lhsType.getIntOrFloatBitWidth(), lhsBits),
                              m.lhsExt, mw);
        APInt rhs = extendInt(APInt(m.rhsType.getIntOrFloatBitWidth(), rhsBits),
                              m.rhsExt, mw);
        APInt p =
            lhs *
            rhs; // wraps at the multiplication's width, as arith.muli does
        intProducts[out].push_back(
            extendInt(p, m.productExt, m.accType.getIntOrFloatBitWidth()));
        return;
      }
      auto operand = [&](unsigned index, uint64_t bits, Type t,
                         MulAcc::Ext ext,
                         const std::optional<MulAcc::Narrowing> &narrowing) {
        APFloat x = fm->input(
            APFloat(semanticsOf(t), APInt(t.getIntOrFloatBitWidth(), bits)),
            index);
        if (narrowing)
          x = narrow(x, *narrowing);
        if (ext == MulAcc::Ext::Float)
          x = fm->extend(x, semanticsOf(m.mulType));
        return x;
      };
      APFloat lhs =
          operand(m.lhsInput, lhsBits, m.lhsType, m.lhsExt, m.lhsNarrowing);
      APFloat rhs =
          operand(m.rhsInput, rhsBits, m.rhsType, m.rhsExt, m.rhsNarrowing);
      if (d.fp->accumulation == Accumulation::EvenOddFused) {
        floatFactors[out].push_back({lhs, rhs});
        return;
      }
      APFloat p = fm->mul(lhs, rhs);
      if (m.productExt == MulAcc::Ext::Float)
        p = fm->extend(p, semanticsOf(m.accType));
      floatProducts[out].push_back(p);
    });

    unsigned accWidth = m.accType.getIntOrFloatBitWidth();
    for (int64_t o = 0; o < outPerSegment; ++o) {
      uint64_t &slot = result.bits[seg * outPerSegment + o];
      if (!m.isFloat) {
        APInt acc(accWidth, slot);
        if (d.saturation == Saturation::None) {
          for (const APInt &p : intProducts[o])
            acc += p;
          slot = acc.getZExtValue();
          continue;
        }
        // Saturating forms add the exact sum of the products once, then clamp.
        bool isSigned = d.saturation == Saturation::Signed;
        unsigned wide = accWidth + 32;
        APInt sum = isSigned ? acc.sext(wide) : acc.zext(wide);
        for (const APInt &p : intProducts[o])
          sum += isSigned ? p.sext(wide) : p.zext(wide);
        APInt lo = isSigned ? APInt::getSignedMinValue(accWidth).sext(wide)
                            : APInt(wide, 0);
        APInt hi = isSigned ? APInt::getSignedMaxValue(accWidth).sext(wide)
                            : APInt::getMaxValue(accWidth).zext(wide);
        bool below = isSigned ? sum.slt(lo) : sum.isNegative();
        bool above = isSigned ? sum.sgt(hi) : sum.ugt(hi);
        APInt clamped = below ? lo : above ? hi : sum;
        slot = clamped.trunc(accWidth).getZExtValue();
        continue;
      }
      APFloat acc =
          fm->input(APFloat(semanticsOf(m.accType), APInt(accWidth, slot)), 2);
      std::vector<APFloat> &ps = floatProducts[o];
      switch (d.fp->accumulation) {
      case Accumulation::Sequential:
      case Accumulation::Unordered:
        for (const APFloat &p : ps)
          acc = fm->add(acc, p);
        break;
      case Accumulation::Reverse:
        for (auto it = ps.rbegin(); it != ps.rend(); ++it)
          acc = fm->add(acc, *it);
        break;
      case Accumulation::Pairwise:
        for (size_t k = 0; k + 1 < ps.size(); k += 2)
          acc = fm->add(acc, fm->add(ps[k], ps[k + 1]));
        break;
      case Accumulation::EvenOddFused: {
        const llvm::fltSemantics &sem = semanticsOf(m.accType);
        APFloat even = APFloat::getZero(sem), odd = APFloat::getZero(sem);
        auto &fs = floatFactors[o];
        for (size_t k = 0; k + 1 < fs.size(); k += 2) {
          even = fm->fma(even, fs[k].first, fs[k].second);
          odd = fm->fma(odd, fs[k + 1].first, fs[k + 1].second);
        }
        acc = fm->add(acc, fm->add(even, odd));
        break;
      }
      }
      slot = acc.bitcastToAPInt().getZExtValue();
    }
  }
  return result;
}

} // namespace tisa
