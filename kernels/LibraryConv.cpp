//===- LibraryConv.cpp - a conv2d library's input and output rows ---------===//
//
// LibraryBuilder's pieces for a convolution: its form (pixels or rows of
// taps, and the view rows of taps read), the extents of its operands
// (run-time ones from h and w), the copy of its input with the zero border,
// and the range entry of a convolution of run-time h or w, whose tiles are
// output rows of the images stacked.
//
//===----------------------------------------------------------------------===//

#include "LibraryBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tisa {
namespace detail {

SmallVector<Value> LibraryBuilder::convExtents(Entry &e, unsigned i,
                                               bool padded) const {
  OpBuilder &b = e.body;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  // The input's extent (with its border), or the output's from it.
  auto extent = [&](Value in, int64_t window) -> Value {
    if (!in || (i == 0 && !padded))
      return in;
    Value bordered = arith::AddIOp::create(b, loc, in, constant(2 * spec.pad));
    if (i == 0)
      return bordered;
    // floor((bordered - window) / stride) + 1, and none when the window does
    // not fit (truncating division gave a row for h + 2p = r - 1 at stride
    // 2, read past the input and written past the output).
    Value reach = arith::SubIOp::create(b, loc, bordered, constant(window));
    Value out = arith::AddIOp::create(
        b, loc,
        arith::FloorDivSIOp::create(b, loc, reach, constant(spec.stride)),
        constant(1));
    return arith::MaxSIOp::create(b, loc, out, constant(0));
  };
  if (i == 3)
    return {};
  // A static h or w of a kernel whose image extents are dynamic.
  auto given = [&](Value v, int64_t x) {
    return v || !imageRows() ? v : constant(x);
  };
  return {e.rows, extent(given(e.h, spec.h), spec.r),
          extent(given(e.w, spec.w), spec.s)};
}

double LibraryBuilder::pixelCycles() const {
  return countedCycles(
      contraction, *kernel, target,
      inPlacePadding ? plainInput.getShape() : ArrayRef<int64_t>(),
      inputPadding);
}

void LibraryBuilder::chooseTapRows(ArrayRef<const Description *> candidates) {
  // Only where a filter row has several taps, on static image extents (a
  // batch may come at run time), packing the filter (the entries view the
  // input).
  if (gemm || !kernel || packed != 1 || spec.s == 1 || spec.runTimeH ||
      spec.runTimeW)
    return;
  std::optional<Schedule> given;
  if (!options.schedule.empty()) {
    std::string why;
    FailureOr<Schedule> s = Schedule::parse(options.schedule, why);
    if (failed(s))
      return; // chooseSchedule says why
    given = *s;
  }
  double pixels = pixelCycles();
  func::FuncOp pixelScratch = scratch;
  linalg::LinalgOp pixelProgram = program;
  MemRefType pixelTypes[2] = {types[0], types[1]};
  form = ConvForm::TapRows;
  types[0] = programInputType(spec, elts[0], form);
  types[1] = MemRefType::get(programShapes(spec, form).weights, elts[1]);
  buildProgram();
  std::string why;
  FailureOr<PlannedKernel> taps =
      planKernel(program, candidates, &target, /*schedule=*/"", why);
  // The entries copy a padded input into a zeroed buffer first: counted
  // for as many images as the cycles (kNominalExtent of a run-time batch).
  int64_t images = spec.runTimeRows ? kNominalExtent : spec.rows();
  double copy = spec.pad ? double(images * (spec.h + 2 * spec.pad) *
                                  (spec.w + 2 * spec.pad) * spec.c *
                                  spec.types.a.bytes()) /
                               target.cost.overheadBytesPerCycle
                         : 0;
  bool better = false;
  if (succeeded(taps) && taps->kernel->packedInput() == 1)
    // A given schedule picks the form it is written for, which has one loop
    // less (chooseSchedule then says why its kernel refuses it, if so).
    better = given ? given->unroll.size() == taps->contraction.loops.size()
                   : countedCycles(taps->contraction, *taps->kernel, target) +
                             copy <
                         pixels * (1 - target.cost.tieWindow);
  if (!better) {
    scratch.erase();
    scratch = pixelScratch;
    program = pixelProgram;
    form = ConvForm::Pixels;
    types[0] = pixelTypes[0];
    types[1] = pixelTypes[1];
    return;
  }
  pixelScratch.erase();
  contraction = taps->contraction;
  kernel = std::move(taps->kernel);
  inPlacePadding = false;
  inputPadding.clear();
}

Value LibraryBuilder::tapRowsView(Entry &e, Value image) {
  // A view of the dense image whose rows overlap.
  auto view = cast<MemRefType>(types[0]);
  auto [strides, offset] = view.getStridesAndOffset();
  SmallVector<OpFoldResult> extents =
      getAsIndexOpFoldResult(&ctx, view.getShape());
  if (view.isDynamicDim(0))
    extents[0] = e.rowsIndex;
  return memref::ReinterpretCastOp::create(
      e.body, loc, view, image, e.body.getIndexAttr(offset), extents,
      getAsIndexOpFoldResult(&ctx, strides));
}

Value LibraryBuilder::paddedInput(Entry &e, Value src) {
  OpBuilder &b = e.body;
  SmallVector<Value> dynamic;
  for (Value size : dynamicSizes(e, paddedImage, 0, /*padded=*/true))
    dynamic.push_back(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), size));
  Value padded = memref::AllocOp::create(b, loc, paddedImage, dynamic,
                                         b.getI64IntegerAttr(64));
  copyPadded(e, src, padded);
  return padded;
}

namespace {
/// The i64 extent of dimension `d` of the dense memref `v`.
Value extentOf(OpBuilder &b, Location loc, Value v, unsigned d) {
  Value x = memref::DimOp::create(b, loc, v, d);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), x);
}

/// The aligned base pointer of memref `v`.
Value basePointer(OpBuilder &b, Location loc, Value v) {
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(
                                              b.getContext()),
                                  i);
}
} // namespace

void LibraryBuilder::copyPadded(Entry &e, Value src, Value padded) {
  // Out of line: the copy's memset and memcpy calls run in a loop, and LLVM
  // reloads an AMX tile configuration after every call that tile
  // instructions follow; called once, it configures once, after the call.
  auto key = std::make_pair(src.getType(), padded.getType());
  func::FuncOp &fn = paddedCopies[key];
  if (!fn) {
    fn = func::FuncOp::create(
        mb, loc, name("_copy_padded_" + std::to_string(paddedCopies.size())),
        mb.getFunctionType({key.first, key.second}, {}));
    fn.setPrivate();
    fn->setAttr("passthrough", mb.getArrayAttr({mb.getStringAttr("noinline")}));
    OpBuilder b(fn.getContext());
    b.setInsertionPointToStart(fn.addEntryBlock());
    emitPaddedCopy(b, fn.getArgument(0), fn.getArgument(1));
    func::ReturnOp::create(b, loc);
  }
  func::CallOp::create(e.body, loc, fn, ValueRange{src, padded});
}

void LibraryBuilder::emitPaddedCopy(OpBuilder &b, Value src, Value padded) {
  // Row by row of the padded buffer [n][hp][wp][c] (dense, like `src`
  // [n][h][w][c]): a border row zeroed, an interior row as its left border,
  // src's row, its right border (memset and memcpy: the rows are
  // contiguous).
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  Value eb = i64(elts[0].getIntOrFloatBitWidth() / 8);
  Value hp = extentOf(b, loc, padded, 1), wp = extentOf(b, loc, padded, 2);
  Value h = extentOf(b, loc, src, 1), w = extentOf(b, loc, src, 2);
  Value pixel = arith::MulIOp::create(b, loc, i64(spec.c), eb);
  Value rowBytes = arith::MulIOp::create(b, loc, wp, pixel);
  Value srcBytes = arith::MulIOp::create(b, loc, w, pixel);
  Value left = arith::MulIOp::create(b, loc, i64(spec.pad), pixel);
  Value right = arith::SubIOp::create(
      b, loc, rowBytes, arith::AddIOp::create(b, loc, left, srcBytes));
  Value dst = basePointer(b, loc, padded), from = basePointer(b, loc, src);
  Value zero8 = arith::ConstantIntOp::create(b, loc, 0, 8);
  Type ptr = dst.getType(), i8 = b.getI8Type();
  auto at = [&](OpBuilder &b, Value p, Value offset) -> Value {
    return LLVM::GEPOp::create(b, loc, ptr, i8, p, ValueRange{offset});
  };
  Value rows = arith::MulIOp::create(b, loc, extentOf(b, loc, src, 0), hp);
  Value first = i64(spec.pad);
  Value last = arith::AddIOp::create(b, loc, first, h);
  scf::ForOp::create(
      b, loc, i64(0), rows, i64(1), ValueRange{},
      [&](OpBuilder &b, Location loc, Value row, ValueRange) {
        Value out = at(b, dst, arith::MulIOp::create(b, loc, row, rowBytes));
        Value y = arith::RemSIOp::create(b, loc, row, hp);
        Value inside = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, y, first),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, last));
        scf::IfOp::create(
            b, loc, inside,
            [&](OpBuilder &b, Location loc) {
              // src's row (image, y - pad).
              Value image = arith::DivSIOp::create(b, loc, row, hp);
              Value srcRow = arith::AddIOp::create(
                  b, loc, arith::MulIOp::create(b, loc, image, h),
                  arith::SubIOp::create(b, loc, y, first));
              Value in = at(b, from,
                            arith::MulIOp::create(b, loc, srcRow, srcBytes));
              Value mid = at(b, out, left);
              LLVM::MemsetOp::create(b, loc, out, zero8, left, false);
              LLVM::MemcpyOp::create(b, loc, mid, in, srcBytes, false);
              LLVM::MemsetOp::create(b, loc, at(b, mid, srcBytes), zero8,
                                     right, false);
              scf::YieldOp::create(b, loc);
            },
            [&](OpBuilder &b, Location loc) {
              LLVM::MemsetOp::create(b, loc, out, zero8, rowBytes, false);
              scf::YieldOp::create(b, loc);
            });
        scf::YieldOp::create(b, loc);
      });
}

void LibraryBuilder::emitImageRowRange(Entry &e, Value in, Value buffer,
                                       Value dst, Value epilogue,
                                       Value begin64, Value end64) {
  OpBuilder &b = e.body;
  auto index = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // Tile t is output row t % oh of image t / oh. An image the filter does
  // not fit has no output row (oh = 0) and the range no tile: the divisor
  // is kept from 0 (a SIGFPE before), the loop then runs no image.
  Value oh = memref::DimOp::create(b, loc, dst, 1);
  Value divisor = arith::MaxUIOp::create(b, loc, oh, c(1));
  Value begin = index(begin64), end = index(end64);
  Value first = arith::DivUIOp::create(b, loc, begin, divisor);
  Value last = arith::CeilDivUIOp::create(b, loc, end, divisor);
  scf::ForOp::create(
      b, loc, first, last, c(1), ValueRange{},
      [&](OpBuilder &lb, Location loc, Value image, ValueRange) {
        // The body before its terminator (`lb` is the entry's builder).
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(scf::YieldOp::create(lb, loc));
        Value base = arith::MulIOp::create(b, loc, image, oh);
        Value lo = arith::MaxSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, begin, base), c(0));
        Value hi = arith::MinSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, end, base), oh);
        Value rows = arith::SubIOp::create(b, loc, hi, lo);
        auto some = scf::IfOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, rows,
                                  c(0)),
            /*withElse=*/false);
        b.setInsertionPointToStart(some.thenBlock());
        // Rows [lo, hi) of the image's output, and the input rows their
        // taps read: from lo * stride, (rows - 1) * stride + r of them.
        auto rowsOf = [&](Value v, Value start, Value size) -> Value {
          auto type = cast<MemRefType>(v.getType());
          SmallVector<OpFoldResult> offsets = {image, start, c(0), c(0)};
          SmallVector<OpFoldResult> sizes = {
              c(1), size, memref::DimOp::create(b, loc, v, 2).getResult(),
              b.getIndexAttr(type.getDimSize(3))};
          SmallVector<OpFoldResult> ones(4, b.getIndexAttr(1));
          return memref::SubViewOp::create(b, loc, v, offsets, sizes, ones);
        };
        Value window = rowsOf(
            in, arith::MulIOp::create(b, loc, lo, c(spec.stride)),
            arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(
                    b, loc, arith::SubIOp::create(b, loc, rows, c(1)),
                    c(spec.stride)),
                c(spec.r)));
        emitCompute(e, window, buffer, dst, epilogue, {}, {},
                    [&](Value v) { return rowsOf(v, lo, rows); });
      });
}

} // namespace detail
} // namespace tisa
