//===- Contraction.cpp - a kernel spec as a linalg contraction ------------===//

#include "Contraction.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace tisa {

ProgramShapes programShapes(const KernelSpec &s, ConvForm form) {
  // With any extent at run time, the rows (m, the batch) are dynamic too
  // (the range entry's rows).
  int64_t rows = s.runTimeShape() ? ShapedType::kDynamic : s.rows();
  if (s.op == KernelSpec::Op::Gemm) {
    int64_t n = s.runTimeN ? ShapedType::kDynamic : s.n,
            k = s.runTimeK ? ShapedType::kDynamic : s.k;
    return {{rows, k}, {k, n}, {rows, n}};
  }
  // With h or w at run time, both image extents are dynamic (the range
  // entry computes runs of output rows).
  bool image = s.runTimeH || s.runTimeW;
  auto runTime = [&](int64_t v) { return image ? ShapedType::kDynamic : v; };
  if (form == ConvForm::TapRows)
    return {{rows, s.h + 2 * s.pad, s.outW(), s.s * s.c},
            {s.r, s.s * s.c, s.filters},
            {rows, s.outH(), s.outW(), s.filters}};
  return {{rows, runTime(s.h + 2 * s.pad), runTime(s.w + 2 * s.pad), s.c},
          {s.r, s.s, s.c, s.filters},
          {rows, runTime(s.outH()), runTime(s.outW()), s.filters}};
}

MemRefType programInputType(const KernelSpec &s, Type element,
                            ConvForm form) {
  ProgramShapes shapes = programShapes(s, form);
  if (s.op == KernelSpec::Op::Gemm || form == ConvForm::Pixels)
    return MemRefType::get(shapes.in, element);
  return tapRowsViewType(
      MemRefType::get(programShapes(s, ConvForm::Pixels).in, element),
      s.outW(), s.stride, s.s * s.c);
}

linalg::GenericOp buildKernelContraction(OpBuilder &b, Location loc,
                                         const KernelSpec &s, Value in,
                                         Value weights, Value out,
                                         ConvForm form) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  SmallVector<utils::IteratorType> iters;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  using IT = utils::IteratorType;
  if (s.op == KernelSpec::Op::Gemm) {
    // (m, n, k)
    maps = {AffineMap::get(3, 0, {d(0), d(2)}, ctx),
            AffineMap::get(3, 0, {d(2), d(1)}, ctx),
            AffineMap::get(3, 0, {d(0), d(1)}, ctx)};
    iters = {IT::parallel, IT::parallel, IT::reduction};
  } else if (form == ConvForm::TapRows) {
    // (n, oh, ow, f, kh, t): t runs over a filter row's kw and c.
    maps = {AffineMap::get(6, 0, {d(0), d(1) * s.stride + d(4), d(2), d(5)},
                           ctx),
            AffineMap::get(6, 0, {d(4), d(5), d(3)}, ctx),
            AffineMap::get(6, 0, {d(0), d(1), d(2), d(3)}, ctx)};
    iters = {IT::parallel, IT::parallel,  IT::parallel,
             IT::parallel, IT::reduction, IT::reduction};
  } else {
    // (n, oh, ow, f, kh, kw, c), as linalg.conv_2d_nhwc_hwcf.
    maps = {AffineMap::get(7, 0,
                           {d(0), d(1) * s.stride + d(4),
                            d(2) * s.stride + d(5), d(6)},
                           ctx),
            AffineMap::get(7, 0, {d(4), d(5), d(6), d(3)}, ctx),
            AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, ctx)};
    iters = {IT::parallel,  IT::parallel,  IT::parallel, IT::parallel,
             IT::reduction, IT::reduction, IT::reduction};
  }
  const KernelTypes &t = s.types;
  Type acc = t.c.mlirType(ctx);
  return linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{in, weights}, ValueRange{out}, maps,
      iters, [&](OpBuilder &b, Location loc, ValueRange args) {
        // Each factor as the accumulator's type, as the program reads it.
        auto widen = [&](Value v, ElementType k) -> Value {
          if (k == ElementType::TF32) {
            // What the tf32 mma reads: the f32's top 19 bits.
            Value t = arith::TruncFOp::create(
                b, loc, FloatTF32Type::get(b.getContext()), v,
                arith::RoundingModeAttr::get(b.getContext(),
                                             arith::RoundingMode::toward_zero),
                arith::FastMathFlagsAttr());
            return arith::ExtFOp::create(b, loc, acc, t);
          }
          if (v.getType() == acc)
            return v;
          if (k.isFloat())
            return arith::ExtFOp::create(b, loc, acc, v);
          if (!k.isSigned)
            return arith::ExtUIOp::create(b, loc, acc, v);
          return arith::ExtSIOp::create(b, loc, acc, v);
        };
        Value x = widen(args[0], t.a), y = widen(args[1], t.b), r;
        if (t.isFloat())
          r = arith::AddFOp::create(b, loc, args[2],
                                    arith::MulFOp::create(b, loc, x, y));
        else
          r = arith::AddIOp::create(b, loc, args[2],
                                    arith::MulIOp::create(b, loc, x, y));
        linalg::YieldOp::create(b, loc, r);
      });
}

} // namespace tisa
