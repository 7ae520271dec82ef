//===- KernelLibrary.cpp - a GEMM or conv2d kernel library ----------------===//
//
// LibraryBuilder's first half: the contraction of a KernelSpec planned for a
// target (the same plan selection as -tisa-select-plan) and the C entries
// (plain, pack, pre-packed, range, sizes) built around the contraction's
// tisa.pack and tisa.compute. LibraryCompile.cpp lowers them by the same
// passes as `tisa gen FILE.mlir` and writes the C header; LibraryConv.cpp
// holds a convolution's form, padded input and ranges of output rows. The
// ABI is a wrapper: it adds pointers, leading dimensions, run-time rows,
// ranges and the padded input, never code of a register class.
//
//===----------------------------------------------------------------------===//

#include "tisa/Config.h"
#include "tisa/Kernels/Kernels.h"
#include "Contraction.h"
#include "KernelEpilogue.h"
#include "LibraryBuilder.h"
#include "tisa/Matcher/Matcher.h"
#include "tisa/Targets/Codegen.h"
#include "tisa/Targets/Rates.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa {

namespace {

/// A memref view of a C pointer: `type`'s dynamic dimensions take `sizes`
/// (i64, in order); its strides are dense except that a 2-D operand with a
/// leading dimension `ld` uses it.
Value memrefFromPointer(OpBuilder &b, Location loc, Value ptr,
                        MemRefType type, Value ld, ValueRange sizes = {}) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = type.getRank();
  Type i64 = b.getI64Type();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto arr = LLVM::LLVMArrayType::get(i64, rank);
  auto descTy =
      LLVM::LLVMStructType::getLiteral(ctx, {ptrTy, ptrTy, i64, arr, arr});
  Value desc = LLVM::PoisonOp::create(b, loc, descTy);
  auto constant = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(0),
                                     ArrayRef<int64_t>{2});
  assert(sizes.size() == size_t(type.getNumDynamicDims()) &&
         "a size per dynamic dimension");
  SmallVector<Value> extents;
  for (unsigned i = 0, next = 0; i < rank; ++i)
    extents.push_back(type.isDynamicDim(i) ? sizes[next++]
                                           : constant(type.getDimSize(i)));
  // Dense strides (the first dimension's `ld` when given): constants, and
  // from a dimension of run-time extent on, products at run time.
  SmallVector<Value> strides(rank);
  int64_t dense = 1;
  Value below; // the stride so far, once run time knows it
  for (int i = int(rank) - 1; i >= 0; --i) {
    strides[i] = (ld && i == 0) ? ld : below ? below : constant(dense);
    if (below || type.isDynamicDim(i))
      below = LLVM::MulOp::create(b, loc, below ? below : constant(dense),
                                  extents[i]);
    else
      dense *= type.getDimSize(i);
  }
  for (unsigned i = 0; i < rank; ++i) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, extents[i],
                                       ArrayRef<int64_t>{3, i});
    desc = LLVM::InsertValueOp::create(b, loc, desc, strides[i],
                                       ArrayRef<int64_t>{4, i});
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

} // namespace

namespace detail {

LibraryBuilder::LibraryBuilder(MLIRContext &ctx, const KernelSpec &spec,
                               const Target &target,
                               const GenerateOptions &options)
    : ctx(ctx), spec(spec), target(target), options(options),
      gemm(spec.op == KernelSpec::Op::Gemm),
      loc(FileLineColLoc::get(&ctx, spec.symbol(), 0, 0)),
      module(ModuleOp::create(loc)), mb(&ctx) {
  ctx.loadDialect<func::FuncDialect, arith::ArithDialect, linalg::LinalgDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  vector::VectorDialect, LLVM::LLVMDialect>();
  out.name = spec.symbol();
  mb.setInsertionPointToEnd(module->getBody());
  ptr = LLVM::LLVMPointerType::get(&ctx);
  i64 = mb.getI64Type();
  const KernelTypes &t = spec.types;
  ElementType kinds[3] = {t.a, t.b, t.c};
  ProgramShapes shapes = programShapes(spec);
  ArrayRef<int64_t> shape[3] = {shapes.in, shapes.weights, shapes.out};
  const char *gemmNames[3] = {"A", "B", "C"},
             *convNames[3] = {"input", "filter", "output"};
  for (unsigned i = 0; i < 3; ++i) {
    elts[i] = kinds[i].mlirType(&ctx);
    names[i] = gemm ? gemmNames[i] : convNames[i];
    // GEMM operands take a leading dimension: strided<[?, 1]>.
    types[i] = gemm ? MemRefType::get(shape[i], elts[i],
                                      StridedLayoutAttr::get(
                                          &ctx, 0, {ShapedType::kDynamic, 1}))
                    : MemRefType::get(shape[i], elts[i]);
  }
  int64_t image = spec.runTimeH || spec.runTimeW ? ShapedType::kDynamic : 0;
  paddedImage = types[0];
  plainInput = MemRefType::get({shapes.in[0], image ? image : spec.h,
                                image ? image : spec.w, spec.c},
                               elts[0]);
  outType = MemRefType::get(shape[2], spec.outputKind().mlirType(&ctx),
                            types[2].getLayout());
}

void LibraryBuilder::buildProgram() {
  // The contraction in a scratch function, planned there.
  scratch = func::FuncOp::create(
      mb, loc, "tisa_scratch",
      mb.getFunctionType({types[0], types[1], types[2]}, {}));
  OpBuilder sb(&ctx);
  sb.setInsertionPointToStart(scratch.addEntryBlock());
  program = cast<linalg::LinalgOp>(
      buildKernelContraction(sb, loc, spec, scratch.getArgument(0),
                             scratch.getArgument(1), scratch.getArgument(2),
                             form)
          .getOperation());
  func::ReturnOp::create(sb, loc);
}

llvm::Error LibraryBuilder::plan(ArrayRef<const Description *> candidates,
                                 ArrayRef<std::string> rateWarnings) {
  llvm::append_range(out.warnings, rateWarnings);
  buildProgram();
  std::string why;
  FailureOr<Contraction> c = readContraction(program, why);
  if (failed(c))
    return llvm::createStringError("internal error: the generated " +
                                   spec.describe() +
                                   " is not a contraction: " + why);
  contraction = *c;
  inputs = std::make_shared<TensorizeInputs>(candidates, target);
  // The schedule is chosen below, knowing whether the input is padded in
  // place.
  FailureOr<PlannedKernel> planned =
      planKernel(program, candidates, &target, /*schedule=*/"", why);
  if (succeeded(planned)) {
    // With the loops it runs in blocks (a convolution's filters).
    contraction = planned->contraction;
    kernel = std::move(planned->kernel);
  } else {
    std::string msg =
        options.isa == "auto"
            ? "no instruction " + target.name + " executes applies to " +
                  spec.describe() + ": " + why
            : "--isa " + options.isa + " cannot generate " + spec.describe() +
                  " for " + target.name + ": " + why;
    if (!options.allowFallback || options.isa != "auto")
      return llvm::createStringError(msg);
    out.warnings.push_back(msg + "; generating plain vector code");
  }
  packed = kernel ? kernel->packedInput() : 1;
  other = 1 - packed;
  // The kernel reads a padded convolution's input in place; with h or w at
  // run time its blocks of output rows and columns read windows of the
  // padded input, which the entries then copy.
  inPlacePadding = !gemm && spec.pad && kernel && packed == 1 &&
                   !spec.runTimeH && !spec.runTimeW;
  if (inPlacePadding)
    inputPadding = {0, spec.pad, spec.pad, 0};
  chooseTapRows(candidates);
  out.packedOperand = llvm::StringRef(names[packed]).lower();
  if (auto e = chooseSchedule())
    return e;
  return checkEpilogue();
}

llvm::Error LibraryBuilder::checkEpilogue() {
  if (!spec.epilogue.any() || !kernel)
    return llvm::Error::success();
  if (spec.runTimeK)
    return llvm::createStringError(
        "--epilogue " + spec.epilogue.text() + " needs k fixed: with k at run "
        "time the blocks of K add up in memory, not in registers");
  // A probe on the scratch function: the epilogue as the entries build it.
  OpBuilder b(scratch.getBody().front().getTerminator());
  auto alloc = [&](MemRefType t) -> Value {
    SmallVector<Value> dynamic(t.getNumDynamicDims(),
                               arith::ConstantIndexOp::create(b, loc, 1));
    return memref::AllocOp::create(
        b, loc, MemRefType::get(t.getShape(), t.getElementType()), dynamic);
  };
  EpilogueValues v;
  v.bias = alloc(MemRefType::get({spec.channels()}, elts[2]));
  v.residual = alloc(types[2]);
  v.scale = alloc(MemRefType::get({spec.channels()}, b.getF32Type()));
  v.zeroPoint = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value acc = alloc(types[2]), dst = alloc(outType);
  linalg::GenericOp generic = buildEpilogue(b, loc, spec, acc, v, dst);
  SmallVector<Value> inputs(generic.getDpsInputs());
  SmallVector<Value> values(llvm::drop_begin(inputs));
  values.push_back(dst);
  std::string why;
  if (failed(appliesInRegisters(*kernel, Epilogue(generic, values), why)))
    return llvm::createStringError("--epilogue " + spec.epilogue.text() +
                                   " is not generated for " +
                                   out.instruction + ": " + why);
  return llvm::Error::success();
}

llvm::Error LibraryBuilder::chooseSchedule() {
  ProgramShapes shapes = programShapes(spec);
  // The fallback's "packed" operand: a dense copy of the program's own.
  plainPacked = MemRefType::get(packed == 1 ? shapes.weights : shapes.in,
                                elts[packed]);
  if (!kernel && (spec.runTimeN || spec.runTimeK))
    return llvm::createStringError(
        "no instruction " + target.name + " executes applies to " +
        spec.describe() +
        ", and plain code does not take n or k at run time");
  if (!kernel) {
    out.plan = "plain vector code (no instruction)";
    out.packedLayout = "the program's own layout, dense";
    out.packedBytes = spec.weightElements() * spec.types.b.bytes();
    bufferType = MemRefType::get({out.packedBytes}, mb.getI8Type());
    out.tiles = rangeTiles();
    return llvm::Error::success();
  }
  schedule = kernel->defaultSchedule(
      target, inPlacePadding ? plainInput.getShape() : ArrayRef<int64_t>(),
      inputPadding);
  if (!options.schedule.empty()) {
    std::string why;
    FailureOr<Schedule> s = Schedule::parse(options.schedule, why);
    if (succeeded(s) && succeeded(kernel->verify(*s, &target, why)))
      schedule = *s;
    else if (!options.scheduleSource.empty()) {
      // A damaged file may hold any bytes: they are shown escaped.
      std::string text;
      llvm::raw_string_ostream os(text);
      llvm::printEscapedString("'" + options.schedule + "': " + why, os);
      out.warnings.push_back("ignoring the schedule in " +
                             options.scheduleSource + " (" + text +
                             "); using the default (`tisa tune` again "
                             "replaces the file)");
    }
    else
      return llvm::createStringError("bad schedule '" + options.schedule +
                                     "' for " + spec.describe() + ": " + why);
  }
  recordPlan(program, contraction, kernel->plan(), schedule);
  out.schedule = schedule.text();
  out.scheduleSpace = kernel->space().text();
  out.tiles = rangeTiles();
  const TensorizePlan &plan = kernel->plan();
  out.instruction = plan.desc->name;
  out.mnemonic = plan.desc->mnemonic;
  if (plan.desc->fp)
    for (unsigned j = 0; j < 2; ++j)
      out.denormalsAreZero[plan.programInputOf[j]] =
          plan.desc->fp->denormalsAreZero[j];
  out.macsPerInstruction = 1;
  for (int64_t extent : kernel->plan().desc->body.getStaticLoopRanges())
    out.macsPerInstruction *= extent;
  out.scalable = plan.desc->isScalable();
  llvm::raw_string_ostream os(out.plan);
  printPlanSummary(contraction, kernel->plan(), os);
  out.tapRows = form == ConvForm::TapRows;
  if (out.tapRows)
    os << llvm::formatv(" | kw and c as one reduction of {0} taps per "
                        "filter row",
                        spec.s * spec.c);
  out.packedLayout = kernel->packedLayoutText(schedule);
  // Filters blocked for L2 (filterBlock): each block packed on its own.
  for (const ProgramLoop &l : contraction.loops)
    if (l.extent != kDynamic && l.runsInBlocks())
      out.packedLayout =
          llvm::formatv("{0} blocks of {1} {2}{3}, each {4}",
                        llvm::divideCeil(l.extent, l.block), l.block,
                        gemm ? "columns" : "filters",
                        l.extent % l.block ? " (the last zero-padded)" : "",
                        out.packedLayout)
              .str();
  // With n or k at run time the buffer holds a block's bytes per block: a
  // call's are NAME_packed_bytes(n, k), and packedBytes is 0.
  // Filters in blocks hold a block's bytes per block too.
  int64_t bytes = packedBufferBytes(contraction, *kernel, schedule);
  out.packedBytes = bytes == kDynamic ? 0 : bytes;
  bufferType = MemRefType::get({bytes}, mb.getI8Type());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Pieces of the entries
//===----------------------------------------------------------------------===//

Value LibraryBuilder::operand(Entry &e, unsigned i) {
  Value p = e.arg();
  Value ld = gemm ? e.arg() : Value();
  MemRefType type = i == 2 ? outType : types[i];
  if (!gemm && i == 0)
    type = plainInput;
  SmallVector<Value> sizes = dynamicSizes(e, type, i);
  // A row (an image) of the operand as the caller lays it out.
  if (e.rowOffset && i != 1)
    p = atFirstRow(e, p, type.getElementType(),
                   ld ? ld : rowElements(e, type, sizes));
  Value v = memrefFromPointer(e.body, loc, p, type, ld, sizes);
  if (gemm || i != 0)
    return v;
  if (spec.pad && !inPlacePadding)
    v = paddedInput(e, v);
  return form == ConvForm::Pixels ? v : tapRowsView(e, v);
}

Value LibraryBuilder::rowElements(Entry &e, MemRefType type,
                                  ValueRange sizes) const {
  int64_t dense = 1;
  for (int64_t x : type.getShape().drop_front())
    if (!ShapedType::isDynamic(x))
      dense *= x;
  Value out = arith::ConstantIntOp::create(e.body, loc, dense, 64);
  // The dynamic dimensions but the first.
  unsigned first = type.isDynamicDim(0) ? 1 : 0;
  for (Value size : sizes.drop_front(first))
    out = arith::MulIOp::create(e.body, loc, out, size);
  return out;
}

SmallVector<Value> LibraryBuilder::dynamicSizes(Entry &e, MemRefType type,
                                                unsigned i, bool padded) const {
  // The extents of the operands' dimensions, as in programShapes.
  SmallVector<Value> extents;
  if (!gemm)
    extents = convExtents(e, i, padded);
  else if (i == 0)
    extents = {e.rows, e.k};
  else if (i == 1)
    extents = {e.k, e.n};
  else if (i == 2)
    extents = {e.rows, e.n};
  else
    extents = {e.n};
  SmallVector<Value> sizes;
  for (auto [d, v] : llvm::enumerate(extents))
    if (d < size_t(type.getRank()) && type.isDynamicDim(d)) {
      assert(v && "a dynamic dimension without its extent");
      sizes.push_back(v);
    }
  return sizes;
}

Value LibraryBuilder::packedBytes(Entry &e) {
  OpBuilder &b = e.body;
  if (!bufferType.isDynamicDim(0))
    return arith::ConstantIntOp::create(b, loc, out.packedBytes, 64);
  auto index = [&](Value v) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  // GEMM loops (m, n, k).
  Value bytes = packedBufferBytes(b, loc, contraction, *kernel, schedule,
                                  [&](unsigned l) {
                                    return index(l == 1 ? e.n : e.k);
                                  });
  return arith::IndexCastOp::create(b, loc, i64, bytes);
}

Value LibraryBuilder::atFirstRow(Entry &e, Value p, Type elt,
                                 Value rowElements) {
  if (!e.rowOffset)
    return p;
  Value offset = arith::MulIOp::create(e.body, loc, e.rowOffset, rowElements);
  return LLVM::GEPOp::create(e.body, loc, ptr, elt, p, ValueRange{offset});
}

void LibraryBuilder::restrictRows(Entry &e, Value begin, Value end) {
  OpBuilder &b = e.body;
  Value size = arith::ConstantIntOp::create(b, loc, rowsPerTile(), 64);
  auto row = [&](Value tile) -> Value {
    return arith::MinSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tile, size), e.rows);
  };
  Value lo = row(begin), hi = arith::MaxSIOp::create(b, loc, row(end), lo);
  e.rowOffset = lo;
  e.rows = arith::SubIOp::create(b, loc, hi, lo);
  e.rowsIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), e.rows);
}

std::vector<std::string>
LibraryBuilder::params(std::initializer_list<unsigned> ops) const {
  const KernelTypes &t = spec.types;
  ElementType kinds[3] = {t.a, t.b, spec.outputKind()};
  std::vector<std::string> p;
  for (unsigned i : ops) {
    p.push_back(((i < 2 ? "const " : "") + kinds[i].cType() + " *" +
                 names[i])
                    .str());
    if (gemm)
      p.push_back("int64_t ld" + llvm::StringRef(names[i]).lower());
  }
  return p;
}

SmallVector<Type> LibraryBuilder::argTypes(unsigned operands,
                                           unsigned buffers) const {
  SmallVector<Type> a;
  for (unsigned i = 0; i < operands; ++i) {
    a.push_back(ptr);
    if (gemm)
      a.push_back(i64);
  }
  a.append(buffers, ptr);
  return a;
}

void LibraryBuilder::addEpilogueParam(SmallVector<Type> &types,
                                      std::vector<std::string> &params) const {
  if (!spec.epilogue.any())
    return;
  types.push_back(ptr);
  params.push_back("const tisa_epilogue *epilogue");
}

void LibraryBuilder::emitPack(OpBuilder &b, Value src, Value buffer) {
  if (kernel) {
    buildPack(b, loc, program, src, buffer);
    return;
  }
  Value view = memref::ViewOp::create(
      b, loc, plainPacked, buffer, arith::ConstantIndexOp::create(b, loc, 0),
      ValueRange{});
  linalg::CopyOp::create(b, loc, src, view);
}

EpilogueValues LibraryBuilder::epilogueValues(Entry &entry, Value epilogue) {
  OpBuilder &b = entry.body;
  // struct tisa_epilogue { ptr bias, residual; i64 ldresidual; ptr scale;
  //                        i32 zero_point; }
  auto structType = LLVM::LLVMStructType::getLiteral(
      &ctx, {ptr, ptr, i64, ptr, b.getI32Type()});
  Value fields = LLVM::LoadOp::create(b, loc, structType, epilogue);
  auto field = [&](int64_t i) -> Value {
    return LLVM::ExtractValueOp::create(b, loc, fields, ArrayRef<int64_t>{i});
  };
  EpilogueValues v;
  const EpilogueSpec &e = spec.epilogue;
  MemRefType vector = MemRefType::get({channels()}, elts[2]);
  if (e.bias)
    v.bias = memrefFromPointer(b, loc, field(0), vector, Value(),
                               dynamicSizes(entry, vector, 3));
  if (e.residual) {
    Value ld = gemm ? field(2) : Value();
    SmallVector<Value> sizes = dynamicSizes(entry, types[2], 2);
    Value row = ld ? ld : rowElements(entry, types[2], sizes);
    v.residual = memrefFromPointer(
        b, loc, atFirstRow(entry, field(1), elts[2], row), types[2], ld,
        sizes);
  }
  if (e.requant) {
    auto scales = MemRefType::get({channels()}, b.getF32Type());
    v.scale = memrefFromPointer(b, loc, field(3), scales, Value(),
                                dynamicSizes(entry, scales, 3));
    v.zeroPoint = field(4);
  }
  return v;
}

void LibraryBuilder::emitCompute(Entry &e, Value in, Value buffer, Value dst,
                                 Value epilogue, Value begin, Value end,
                                 function_ref<Value(Value)> outputView) {
  OpBuilder &b = e.body;
  std::optional<OpBuilder::InsertionGuard> guard;
  if (!kernel && begin) {
    // Plain code is one tile: everything when the range holds tile 0.
    Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
    Value owned = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, begin,
                              zeroIdx),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, end,
                              zeroIdx));
    auto ifOp = scf::IfOp::create(b, loc, owned, /*withElse=*/false);
    guard.emplace(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    begin = end = Value();
  }
  if (outputView)
    dst = outputView(dst);
  if (!spec.epilogue.any())
    return emitContraction(b, in, buffer, dst, begin, end);
  // The accumulators in a buffer of their own and the epilogue into `dst`:
  // -tisa-fuse-epilogue then applies it in registers, the buffer unused.
  EpilogueValues v = epilogueValues(e, epilogue);
  if (outputView && v.residual)
    v.residual = outputView(v.residual);
  SmallVector<Value> dynamic;
  if (outputView) {
    for (unsigned d = 0; d < types[2].getRank(); ++d)
      if (types[2].isDynamicDim(d))
        dynamic.push_back(memref::DimOp::create(b, loc, dst, d));
  } else {
    for (Value size : dynamicSizes(e, types[2], 2))
      dynamic.push_back(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), size));
  }
  Value acc = memref::AllocOp::create(
      b, loc, MemRefType::get(types[2].getShape(), elts[2]), dynamic,
      b.getI64IntegerAttr(64));
  emitContraction(b, in, buffer, acc, begin, end);
  buildEpilogue(b, loc, spec, acc, v, dst);
  memref::DeallocOp::create(b, loc, acc);
}

void LibraryBuilder::emitContraction(OpBuilder &b, Value in, Value buffer,
                                     Value dst, Value begin, Value end) {
  if (!kernel)
    return emitPlainCompute(b, in, buffer, dst);
  ComputeOp op = buildCompute(b, loc, program, in, buffer, dst,
                              /*overwrite=*/true, begin, end, inputPadding);
  // A window of the input (a range of output rows) is the program's input
  // as it is.
  if (imageRows())
    op.getProgram().front().getArgument(other).setType(in.getType());
}

void LibraryBuilder::emitPlainCompute(OpBuilder &b, Value in, Value buffer,
                                      Value dst) {
  Value view = memref::ViewOp::create(
      b, loc, plainPacked, buffer, arith::ConstantIndexOp::create(b, loc, 0),
      ValueRange{});
  Value zero = arith::ConstantOp::create(b, loc, elts[2],
                                         b.getZeroAttr(elts[2]));
  linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{dst});
  Value ins[2];
  ins[packed] = view;
  ins[other] = in;
  // -tisa-order-plain-loops nests its loops for LLVM's vectorizer.
  buildKernelContraction(b, loc, spec, ins[0], ins[1], dst);
}

void LibraryBuilder::deallocPadded(OpBuilder &b, Value v, unsigned i) {
  if (gemm || i != 0 || !spec.pad || inPlacePadding)
    return;
  if (auto view = v.getDefiningOp<memref::ReinterpretCastOp>())
    v = view.getSource();
  memref::DeallocOp::create(b, loc, v);
}

//===----------------------------------------------------------------------===//
// The entries
//===----------------------------------------------------------------------===//

void LibraryBuilder::emitEntries() {
  emitPlainEntry();
  emitPackEntry();
  emitPackedEntry(/*range=*/false);
  emitPackedEntry(/*range=*/true);
  emitConstants();
  scratch.erase();
}

// NAME(in, weights, out[, epilogue]): pack into a temporary, compute.
void LibraryBuilder::emitPlainEntry() {
  SmallVector<Type> a = argTypes(3, 0);
  std::vector<std::string> p = params({0, 1, 2});
  addEpilogueParam(a, p);
  Entry e(mb, loc, out.name, a, p, out, prototypes, spec);
  OpBuilder &b = e.body;
  SmallVector<Value> bytes;
  if (bufferType.isDynamicDim(0))
    bytes.push_back(arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                               packedBytes(e)));
  Value buffer = memref::AllocOp::create(b, loc, bufferType, bytes,
                                         b.getI64IntegerAttr(64));
  // The pack and the computation are NAME_pack_X's and NAME_packed's:
  // call them rather than compile them twice (a padded conv2d's nests take
  // most of the generation time; a GEMM's vector pack a third of it).
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value address64 = arith::IndexCastOp::create(b, loc, i64, address);
  Value pointer = LLVM::IntToPtrOp::create(b, loc, ptr, address64);
  // Operand i's pointer and, for a GEMM, its leading dimension.
  auto argsOf = [&](unsigned i) {
    unsigned perOperand = gemm ? 2 : 1;
    auto all = e.func.getArguments().drop_front(e.extentArgs);
    return SmallVector<Value>(all.slice(i * perOperand, perOperand));
  };
  // The pack takes n and k when run time gives them.
  SmallVector<Value> packArgs;
  for (Value v : {e.n, e.k})
    if (v)
      packArgs.push_back(v);
  llvm::append_range(packArgs, argsOf(packed));
  packArgs.push_back(pointer);
  func::CallOp::create(b, loc, name("_pack_" + out.packedOperand),
                       TypeRange{}, packArgs);
  // NAME_packed([rows, ]other, packed, out[, epilogue]), which makes a
  // padded conv2d's zero-bordered copy of the input itself.
  Value epilogue = spec.epilogue.any() ? e.func.getArguments().back() : Value();
  SmallVector<Value> args(e.extents());
  llvm::append_range(args, argsOf(other));
  args.push_back(pointer);
  args.append(argsOf(2));
  if (epilogue)
    args.push_back(epilogue);
  func::CallOp::create(b, loc, name("_packed"), TypeRange{}, args);
  memref::DeallocOp::create(b, loc, buffer);
  func::ReturnOp::create(b, loc);
}

// NAME_pack_X(X, packed)
void LibraryBuilder::emitPackEntry() {
  std::vector<std::string> p = params({packed});
  p.push_back("void *packed");
  Entry e(mb, loc, name("_pack_" + out.packedOperand), argTypes(1, 1), p, out,
          prototypes, spec, KernelSpec::Extents::Weights);
  // Kept out of line: LLVM would otherwise inline it into the plain entry
  // and compile the pack twice.
  OpBuilder &b = e.body;
  e.func->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
  Value src = operand(e, packed);
  Value buffer = bufferFromPointer(e, e.arg());
  emitPack(b, src, buffer);
  deallocPadded(b, src, packed);
  func::ReturnOp::create(b, loc);
}

// NAME_packed(other, packed, out) and NAME_packed_range(..., begin, end)
void LibraryBuilder::emitPackedEntry(bool range) {
  SmallVector<Type> a = argTypes(1, 2);
  if (gemm)
    a.push_back(i64);
  std::vector<std::string> p = params({other});
  p.push_back("const void *packed");
  for (const std::string &s : params({2}))
    p.push_back(s);
  addEpilogueParam(a, p);
  if (range) {
    a.append({i64, i64});
    p.push_back("int64_t begin");
    p.push_back("int64_t end");
  }
  Entry e(mb, loc, name(range ? "_packed_range" : "_packed"), a, p, out,
          prototypes, spec);
  OpBuilder &b = e.body;
  unsigned nargs = e.func.getNumArguments();
  // Run-time extents: the range's tiles are rows, each operand viewed from
  // its first; the computation then has no range of its own.
  bool rowRange = range && spec.runTimeShape() && !imageRows();
  if (rowRange) {
    auto [begin, end] = clampRange(e, e.func.getArgument(nargs - 2),
                                   e.func.getArgument(nargs - 1));
    restrictRows(e, begin, end);
  }
  Value in = operand(e, other);
  Value buffer = bufferFromPointer(e, e.arg());
  Value dst = operand(e, 2);
  Value epilogue = spec.epilogue.any() ? e.arg() : Value();
  if (range && imageRows()) {
    Value begin = e.arg(), end = e.arg();
    std::tie(begin, end) = clampRange(e, begin, end);
    emitImageRowRange(e, in, buffer, dst, epilogue, begin, end);
    deallocPadded(b, in, other);
    func::ReturnOp::create(b, loc);
    return;
  }
  Value begin, end;
  if (range && !rowRange) {
    begin = e.arg();
    end = e.arg();
    std::tie(begin, end) = clampRange(e, begin, end);
    begin = arith::IndexCastOp::create(b, loc, b.getIndexType(), begin);
    end = arith::IndexCastOp::create(b, loc, b.getIndexType(), end);
  }
  emitCompute(e, in, buffer, dst, epilogue, begin, end);
  deallocPadded(b, in, other);
  func::ReturnOp::create(b, loc);
}

// NAME_packed_bytes() (with n or k at run time: NAME_packed_bytes(n, k)),
// NAME_tiles() (with run-time rows: NAME_tiles(rows), their tiles of
// rowsPerTile()).
void LibraryBuilder::emitConstants() {
  {
    Entry e(mb, loc, name("_packed_bytes"), {}, {}, out, prototypes, spec,
            KernelSpec::Extents::Weights);
    setResult(e, packedBytes(e));
  }
  Entry e(mb, loc, name("_tiles"), {}, {}, out, prototypes, spec,
          KernelSpec::Extents::Rows);
  setResult(e, tileCount(e));
}

int64_t LibraryBuilder::rangeTiles() const {
  // With run-time rows the tiles are counted per call (NAME_tiles(rows));
  // with only n or k at run time the range entry's tiles are rows too;
  // with h or w, output rows (NAME_tiles(...)), a constant when the batch
  // and h are not given at run time. Plain code runs as one tile.
  if (spec.runTimeRows || (imageRows() && spec.runTimeH))
    return 0;
  int64_t reach = spec.h + 2 * spec.pad - spec.r;
  if (imageRows())
    return spec.rows() * (reach < 0 ? 0 : reach / spec.stride + 1);
  if (spec.runTimeShape())
    return (spec.rows() + rowsPerTile() - 1) / rowsPerTile();
  return kernel ? kernel->partitionTiles(schedule) : 1;
}

Value LibraryBuilder::tileCount(Entry &e) {
  OpBuilder &b = e.body;
  if (imageRows())
    return arith::MulIOp::create(b, loc, e.rows,
                                 convExtents(e, 2, /*padded=*/false)[1]);
  if (spec.runTimeShape())
    return arith::CeilDivSIOp::create(
        b, loc, e.rows,
        arith::ConstantIntOp::create(b, loc, rowsPerTile(), 64));
  return arith::ConstantIntOp::create(b, loc, out.tiles, 64);
}

std::pair<Value, Value> LibraryBuilder::clampRange(Entry &e, Value begin,
                                                   Value end) {
  OpBuilder &b = e.body;
  Value tiles = tileCount(e);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  begin = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, begin, zero), tiles);
  end = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, end, begin), tiles);
  return {begin, end};
}

void LibraryBuilder::setResult(Entry &e, Value result) {
  // An entry returns void; these return the i64 `result`.
  e.func.setType(
      FunctionType::get(&ctx, e.func.getArgumentTypes(), {result.getType()}));
  func::ReturnOp::create(e.body, loc, ValueRange{result});
  std::string &prototype = prototypes.back();
  prototype.replace(0, 4, "int64_t");
  if (llvm::StringRef(prototype).ends_with("();"))
    prototype.insert(prototype.size() - 2, "void");
}

Value LibraryBuilder::bufferFromPointer(Entry &e, Value p) {
  SmallVector<Value> sizes;
  if (bufferType.isDynamicDim(0))
    sizes.push_back(packedBytes(e));
  return memrefFromPointer(e.body, loc, p, bufferType, Value(), sizes);
}

} // namespace detail
} // namespace tisa
