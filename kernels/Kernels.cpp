//===- Kernels.cpp - generated GEMM and conv2d kernel libraries -----------===//

#include "tisa/Kernels/Kernels.h"
#include "tisa/Config.h"
#include "tisa/Matcher/Matcher.h"
#include "tisa/Targets/Codegen.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

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
    {ElementKind::BF16, "bf16", 2, true, true, "uint16_t"},
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
        "for C, or bf16,bf16,f32; got '" + text + "'");
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
  if (t.a == ElementKind::BF16 && t.b == ElementKind::BF16 &&
      t.c == ElementKind::F32)
    return t;
  return llvm::createStringError(
      "unsupported type combination '" + text +
      "': 8- and 16-bit integers accumulate into s32, bf16 into f32");
}

std::string KernelTypes::text() const {
  return (elementInfo(a).name + elementInfo(b).name + elementInfo(c).name)
      .str();
}

llvm::Error KernelSpec::validate() const {
  auto positive = [](StringRef what, int64_t v) -> llvm::Error {
    if (v < 1)
      return llvm::createStringError("--" + what + " must be a positive "
                                     "integer, got " + std::to_string(v));
    if (v > (int64_t(1) << 20))
      return llvm::createStringError("--" + what + " = " + std::to_string(v) +
                                     " is larger than 2^20");
    return llvm::Error::success();
  };
  if (op == Op::Gemm) {
    for (auto [what, v] : {std::pair<StringRef, int64_t>{"m", m},
                           {"n", n},
                           {"k", k}})
      if (auto e = positive(what, v))
        return e;
    return llvm::Error::success();
  }
  for (auto [what, v] :
       {std::pair<StringRef, int64_t>{"n", batch},
        {"h", h},
        {"w", w},
        {"c", c},
        {"k", filters},
        {"r", r},
        {"s", s},
        {"stride", stride}})
    if (auto e = positive(what, v))
      return e;
  if (pad < 0)
    return llvm::createStringError("--pad must be >= 0, got " +
                                   std::to_string(pad));
  if (pad >= r || pad >= s)
    return llvm::createStringError(
        "--pad " + std::to_string(pad) +
        " must be smaller than the filter (" + std::to_string(r) + "x" +
        std::to_string(s) + ")");
  if (h + 2 * pad < r || w + 2 * pad < s)
    return llvm::createStringError("the filter is larger than the padded "
                                   "input: no output");
  return llvm::Error::success();
}

std::string KernelSpec::symbol() const {
  if (!name.empty())
    return name;
  if (op == Op::Gemm)
    return llvm::formatv("tisa_gemm_{0}_{1}x{2}x{3}", types.text(), m, n, k);
  return llvm::formatv("tisa_conv2d_{0}_n{1}h{2}w{3}c{4}k{5}r{6}s{7}u{8}p{9}",
                       types.text(), batch, h, w, c, filters, r, s, stride,
                       pad);
}

std::string KernelSpec::key() const { return symbol() + ":" + describe(); }

std::string KernelSpec::describe() const {
  if (op == Op::Gemm)
    return llvm::formatv("gemm {0}x{1}x{2} {3}", m, n, k, types.text());
  return llvm::formatv("conv2d n={0} h={1} w={2} c={3} k={4} {5}x{6} "
                       "stride={7} pad={8} {9}",
                       batch, h, w, c, filters, r, s, stride, pad,
                       types.text());
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

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

namespace {

Type mlirType(MLIRContext *ctx, ElementKind k) {
  const ElementInfo &e = elementInfo(k);
  if (!e.isFloat)
    return IntegerType::get(ctx, 8 * e.bytes);
  return k == ElementKind::BF16 ? Type(BFloat16Type::get(ctx))
                                : Type(Float32Type::get(ctx));
}

/// Shapes of the program's operands (the convolution's input is padded).
struct ProgramShapes {
  SmallVector<int64_t> in, weights, out;
};

ProgramShapes programShapes(const KernelSpec &s) {
  if (s.op == KernelSpec::Op::Gemm)
    return {{s.m, s.k}, {s.k, s.n}, {s.m, s.n}};
  return {{s.batch, s.h + 2 * s.pad, s.w + 2 * s.pad, s.c},
          {s.r, s.s, s.c, s.filters},
          {s.batch, s.outH(), s.outW(), s.filters}};
}

/// The contraction as a linalg.generic on `in`, `weights`, `out`.
linalg::GenericOp buildContraction(OpBuilder &b, Location loc,
                                   const KernelSpec &s, Value in,
                                   Value weights, Value out) {
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
  Type acc = mlirType(ctx, t.c);
  return linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{in, weights}, ValueRange{out}, maps,
      iters, [&](OpBuilder &b, Location loc, ValueRange args) {
        auto widen = [&](Value v, ElementKind k) -> Value {
          const ElementInfo &e = elementInfo(k);
          if (e.isFloat)
            return arith::ExtFOp::create(b, loc, acc, v);
          if (!e.isSigned)
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

/// A memref view of a C pointer: `type` has a static shape; its strides are
/// dense except that a 2-D operand with a leading dimension `ld` uses it.
Value memrefFromPointer(OpBuilder &b, Location loc, Value ptr,
                        MemRefType type, Value ld) {
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
  SmallVector<int64_t> strides(rank, 1);
  for (int i = int(rank) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * type.getDimSize(i + 1);
  for (unsigned i = 0; i < rank; ++i) {
    desc = LLVM::InsertValueOp::create(b, loc, desc,
                                       constant(type.getDimSize(i)),
                                       ArrayRef<int64_t>{3, i});
    Value stride = (ld && i == 0) ? ld : constant(strides[i]);
    desc = LLVM::InsertValueOp::create(b, loc, desc, stride,
                                       ArrayRef<int64_t>{4, i});
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

/// One C entry point under construction; records its symbol and its C
/// prototype (for the header) in `out`.
struct Entry {
  func::FuncOp func;
  OpBuilder body;
  unsigned next = 0;
  Entry(OpBuilder &mb, Location loc, StringRef name, ArrayRef<Type> argTypes,
        ArrayRef<std::string> params, GeneratedKernel &out,
        std::vector<std::string> &prototypes)
      : body(mb.getContext()) {
    func = func::FuncOp::create(mb, loc, name,
                                mb.getFunctionType(argTypes, {}));
    body.setInsertionPointToStart(func.addEntryBlock());
    out.symbols.push_back(name.str());
    prototypes.push_back(("void " + name + "(" + llvm::join(params, ", ") +
                          ");")
                             .str());
  }
  Value arg() { return func.getArgument(next++); }
};

} // namespace

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

llvm::Expected<GeneratedKernel>
generateKernel(MLIRContext &ctx, const KernelSpec &spec,
               ArrayRef<const Description *> descriptions,
               const Target &target, const GenerateOptions &options) {
  if (auto e = spec.validate())
    return std::move(e);
  if (target.arch == TargetArch::NVPTX)
    return llvm::createStringError(
        "kernels for " + target.name +
        " are not generated yet: tisa generates GEMM and conv2d libraries "
        "for CPU targets only (`tisa target list`); the mma.sync "
        "descriptions are checked by `tisa isa verify` and planned by "
        "`tisa match --target " +
        target.name + "`");
  ctx.loadDialect<func::FuncDialect, arith::ArithDialect, linalg::LinalgDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  vector::VectorDialect, LLVM::LLVMDialect>();
  GeneratedKernel out;
  out.name = spec.symbol();
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  const KernelTypes &t = spec.types;
  Location loc = FileLineColLoc::get(&ctx, out.name, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder mb(&ctx);
  mb.setInsertionPointToEnd(module->getBody());

  ProgramShapes shapes = programShapes(spec);
  Type inElt = mlirType(&ctx, t.a), wElt = mlirType(&ctx, t.b),
       outElt = mlirType(&ctx, t.c);
  // GEMM operands take a leading dimension: strided<[?, 1]>.
  auto programType = [&](ArrayRef<int64_t> shape, Type elt) {
    if (!gemm)
      return MemRefType::get(shape, elt);
    auto layout = StridedLayoutAttr::get(&ctx, 0, {ShapedType::kDynamic, 1});
    return MemRefType::get(shape, elt, layout);
  };
  MemRefType inType = programType(shapes.in, inElt),
             wType = programType(shapes.weights, wElt),
             outType = programType(shapes.out, outElt);

  // Plan on a scratch function holding the contraction.
  auto scratch = func::FuncOp::create(
      mb, loc, "tisa_scratch", mb.getFunctionType({inType, wType, outType}, {}));
  OpBuilder sb(&ctx);
  sb.setInsertionPointToStart(scratch.addEntryBlock());
  linalg::GenericOp program =
      buildContraction(sb, loc, spec, scratch.getArgument(0),
                       scratch.getArgument(1), scratch.getArgument(2));
  func::ReturnOp::create(sb, loc);
  std::string why;
  FailureOr<Contraction> contraction =
      readContraction(cast<linalg::LinalgOp>(program.getOperation()), why);
  if (failed(contraction))
    return llvm::createStringError("internal error: the generated " +
                                   spec.describe() +
                                   " is not a contraction: " + why);
  std::vector<const Description *> candidates;
  for (const Description *d : descriptions)
    if (options.isa == "auto" || d->name == options.isa)
      candidates.push_back(d);
  if (candidates.empty())
    return llvm::createStringError("no instruction description named '" +
                                   options.isa + "' (tisa isa list)");
  MatchOptions matchOptions;
  matchOptions.target = &target;
  MatchResult result = match(*contraction, candidates, matchOptions);
  FailureOr<std::unique_ptr<KernelGenerator>> kernel =
      selectKernel(result, why, &target);
  if (failed(kernel)) {
    std::string msg = "no instruction " + target.name + " executes applies to " +
                      spec.describe() + ": " + why;
    if (!options.allowFallback || options.isa != "auto")
      return llvm::createStringError(msg);
    out.warnings.push_back(msg + "; generating plain vector code");
  }

  unsigned packed = succeeded(kernel) ? (*kernel)->packedInput() : 1;
  // The kernel reads a padded convolution's input in place.
  bool inPlacePadding = !gemm && spec.pad && succeeded(kernel) && packed == 1;
  SmallVector<int64_t> inputPadding;
  if (inPlacePadding)
    inputPadding = {0, spec.pad, spec.pad, 0};
  auto plainInput =
      MemRefType::get({spec.batch, spec.h, spec.w, spec.c}, inElt);
  out.packedOperand =
      llvm::StringRef(gemm ? (packed ? "B" : "A")
                           : (packed ? "filter" : "input"))
          .lower();
  Schedule schedule;
  if (succeeded(kernel)) {
    schedule = (*kernel)->defaultSchedule(
        target,
        inPlacePadding ? plainInput.getShape() : ArrayRef<int64_t>(),
        inputPadding);
    if (!options.schedule.empty()) {
      FailureOr<Schedule> s = Schedule::parse(options.schedule, why);
      if (failed(s) || failed((*kernel)->verify(*s, target, why)))
        return llvm::createStringError("bad schedule '" + options.schedule +
                                       "' for " + spec.describe() + ": " +
                                       why);
      schedule = *s;
    }
    out.schedule = schedule.text();
    out.scheduleSpace = (*kernel)->space().text();
    out.tiles = (*kernel)->partitionTiles(schedule);
    out.instruction = (*kernel)->plan().desc->name;
    out.mnemonic = (*kernel)->plan().desc->mnemonic;
    llvm::raw_string_ostream os(out.plan);
    printPlanSummary(*contraction, (*kernel)->plan(), os);
    out.packedLayout = (*kernel)->packedLayoutText(schedule);
    out.packedBytes = (*kernel)->packedBytes(schedule);
  } else {
    out.plan = "plain vector code (no instruction)";
    out.packedLayout = "the program's own layout, dense";
    out.packedBytes = spec.weightElements() * elementBytes(t.b);
  }
  auto bufferType = MemRefType::get({out.packedBytes}, mb.getI8Type());
  // The fallback's "packed" weights: a dense copy of the program's operand.
  MemRefType plainPacked = MemRefType::get(
      packed == 1 ? shapes.weights : shapes.in, packed == 1 ? wElt : inElt);

  Type ptr = LLVM::LLVMPointerType::get(&ctx), i64 = mb.getI64Type();
  ElementKind kinds[3] = {t.a, t.b, t.c};
  std::string names[3] = {gemm ? "A" : "input", gemm ? "B" : "filter",
                          gemm ? "C" : "output"};
  MemRefType types[3] = {inType, wType, outType};
  // Operand `i` of an entry: its pointer, then for GEMM the leading dimension.
  auto operand = [&](Entry &e, unsigned i) -> Value {
    Value p = e.arg();
    Value ld = gemm ? e.arg() : Value();
    if (gemm || i != 0 || spec.pad == 0)
      return memrefFromPointer(e.body, loc, p, types[i], ld);
    if (inPlacePadding)
      return memrefFromPointer(e.body, loc, p, plainInput, Value());
    // The convolution's input: copy into a zero-padded buffer.
    Value src = memrefFromPointer(e.body, loc, p, plainInput, Value());
    Value padded = memref::AllocOp::create(e.body, loc, inType,
                                           e.body.getI64IntegerAttr(64));
    Value zero = arith::ConstantOp::create(e.body, loc, inElt,
                                           e.body.getZeroAttr(inElt));
    linalg::FillOp::create(e.body, loc, ValueRange{zero}, ValueRange{padded});
    SmallVector<OpFoldResult> offsets = {e.body.getIndexAttr(0),
                                         e.body.getIndexAttr(spec.pad),
                                         e.body.getIndexAttr(spec.pad),
                                         e.body.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes, ones(4, e.body.getIndexAttr(1));
    for (int64_t x : plainInput.getShape())
      sizes.push_back(e.body.getIndexAttr(x));
    Value interior =
        memref::SubViewOp::create(e.body, loc, padded, offsets, sizes, ones);
    linalg::CopyOp::create(e.body, loc, src, interior);
    return padded;
  };
  auto params = [&](std::initializer_list<unsigned> ops) {
    std::vector<std::string> p;
    for (unsigned i : ops) {
      p.push_back(((i < 2 ? "const " : "") + cTypeName(kinds[i]) + " *" +
                   names[i])
                      .str());
      if (gemm)
        p.push_back("int64_t ld" + llvm::StringRef(names[i]).lower());
    }
    return p;
  };
  auto argTypes = [&](unsigned operands, unsigned buffers) {
    SmallVector<Type> a;
    for (unsigned i = 0; i < operands; ++i) {
      a.push_back(ptr);
      if (gemm)
        a.push_back(i64);
    }
    a.append(buffers, ptr);
    return a;
  };
  unsigned other = 1 - packed;
  auto emitPack = [&](OpBuilder &b, Value src, Value buffer) {
    if (succeeded(kernel)) {
      (*kernel)->emitPack(b, loc, src, buffer, schedule);
      return;
    }
    Value view = memref::ViewOp::create(
        b, loc, plainPacked, buffer, arith::ConstantIndexOp::create(b, loc, 0),
        ValueRange{});
    linalg::CopyOp::create(b, loc, src, view);
  };
  auto emitCompute = [&](OpBuilder &b, Value in, Value buffer, Value dst,
                         Value begin = {}, Value end = {}) {
    if (succeeded(kernel)) {
      (*kernel)->emitCompute(b, loc, in, buffer, dst, /*overwrite=*/true,
                          schedule, begin, end, inputPadding);
      return;
    }
    std::optional<OpBuilder::InsertionGuard> guard;
    if (begin) {
      // One tile: compute everything when the range holds tile 0.
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
    }
    Value view = memref::ViewOp::create(
        b, loc, plainPacked, buffer, arith::ConstantIndexOp::create(b, loc, 0),
        ValueRange{});
    Value zero =
        arith::ConstantOp::create(b, loc, outElt, b.getZeroAttr(outElt));
    linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{dst});
    Value ins[2];
    ins[packed] = view;
    ins[other] = in;
    buildContraction(b, loc, spec, ins[0], ins[1], dst);
  };
  auto deallocPadded = [&](OpBuilder &b, Value v, unsigned i) {
    if (!gemm && i == 0 && spec.pad && !inPlacePadding)
      memref::DeallocOp::create(b, loc, v);
  };

  std::vector<std::string> prototypes;
  // NAME(in, weights, out): pack into a temporary, compute.
  {
    Entry e(mb, loc, out.name, argTypes(3, 0), params({0, 1, 2}), out,
            prototypes);
    Value buffer = memref::AllocOp::create(e.body, loc, bufferType,
                                           e.body.getI64IntegerAttr(64));
    // The pack and the computation are NAME_pack_X's and NAME_packed's:
    // call them rather than compile them twice (a padded conv2d's nests take
    // most of the generation time; a GEMM's vector pack a third of it).
    OpBuilder &b = e.body;
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    Value address64 = arith::IndexCastOp::create(b, loc, i64, address);
    Value pointer = LLVM::IntToPtrOp::create(b, loc, ptr, address64);
    // Operand i's pointer and, for a GEMM, its leading dimension.
    auto argsOf = [&](unsigned i) {
      unsigned perOperand = gemm ? 2 : 1;
      auto all = e.func.getArguments();
      return SmallVector<Value>(all.slice(i * perOperand, perOperand));
    };
    SmallVector<Value> packArgs = argsOf(packed);
    packArgs.push_back(pointer);
    func::CallOp::create(b, loc, out.name + "_pack_" + out.packedOperand,
                         TypeRange{}, packArgs);
    if (!gemm && spec.pad && !inPlacePadding) {
      Value vals[3]; // operand() takes the arguments in order
      for (unsigned i = 0; i < 3; ++i)
        vals[i] = operand(e, i);
      emitCompute(e.body, vals[other], buffer, vals[2]);
      deallocPadded(e.body, vals[0], 0);
    } else {
      // NAME_packed(other, packed, out)
      SmallVector<Value> args = argsOf(other);
      args.push_back(pointer);
      args.append(argsOf(2));
      func::CallOp::create(b, loc, out.name + "_packed", TypeRange{}, args);
    }
    memref::DeallocOp::create(e.body, loc, buffer);
    func::ReturnOp::create(e.body, loc);
  }
  // NAME_pack_X(X, packed)
  std::string packName = out.name + "_pack_" + out.packedOperand;
  {
    std::vector<std::string> p = params({packed});
    p.push_back("void *packed");
    Entry e(mb, loc, packName, argTypes(1, 1), p, out, prototypes);
    // Kept out of line: LLVM would otherwise inline it into the plain entry
    // and compile the pack twice.
    OpBuilder &fb = e.body;
    e.func->setAttr("passthrough",
                    fb.getArrayAttr({fb.getStringAttr("noinline")}));
    Value src = operand(e, packed);
    Value buffer = memrefFromPointer(e.body, loc, e.arg(), bufferType, Value());
    emitPack(e.body, src, buffer);
    deallocPadded(e.body, src, packed);
    func::ReturnOp::create(e.body, loc);
  }
  // NAME_packed(other, packed, out) and NAME_packed_range(..., begin, end)
  std::string packedName = out.name + "_packed";
  for (bool range : {false, true}) {
    SmallVector<Type> a;
    a.push_back(ptr);
    if (gemm)
      a.push_back(i64);
    a.push_back(ptr);
    a.push_back(ptr);
    if (gemm)
      a.push_back(i64);
    std::vector<std::string> p = params({other});
    p.push_back("const void *packed");
    for (const std::string &s : params({2}))
      p.push_back(s);
    if (range) {
      a.append({i64, i64});
      p.push_back("int64_t begin");
      p.push_back("int64_t end");
    }
    Entry e(mb, loc, range ? packedName + "_range" : packedName, a, p, out,
            prototypes);
    Value in = operand(e, other);
    Value buffer = memrefFromPointer(e.body, loc, e.arg(), bufferType, Value());
    Value dst = operand(e, 2);
    Value begin, end;
    if (range) {
      Type index = e.body.getIndexType();
      begin = arith::IndexCastOp::create(e.body, loc, index, e.arg());
      end = arith::IndexCastOp::create(e.body, loc, index, e.arg());
    }
    emitCompute(e.body, in, buffer, dst, begin, end);
    deallocPadded(e.body, in, other);
    func::ReturnOp::create(e.body, loc);
  }
  // NAME_packed_bytes(), NAME_tiles()
  std::string bytesName = out.name + "_packed_bytes";
  std::string tilesName = out.name + "_tiles";
  for (auto [name, value] : {std::pair{bytesName, out.packedBytes},
                             std::pair{tilesName, out.tiles}}) {
    auto f = func::FuncOp::create(mb, loc, name, mb.getFunctionType({}, {i64}));
    OpBuilder b(&ctx);
    b.setInsertionPointToStart(f.addEntryBlock());
    func::ReturnOp::create(
        b, loc,
        ValueRange{arith::ConstantOp::create(b, loc, i64,
                                             b.getI64IntegerAttr(value))});
    out.symbols.push_back(name);
    prototypes.push_back("int64_t " + name + "(void);");
  }
  scratch.erase();

  // Register tile, clean up, keep the IR for inspection, lower, compile.
  PassManager pm(&ctx);
  addTisaRegisterLevelPasses(pm);
  if (failed(pm.run(*module)))
    return llvm::createStringError("register tiling failed for " + out.name);
  {
    llvm::raw_string_ostream os(out.tensorizedIR);
    module->print(os);
  }
  if (failed(lowerToLLVMDialect(*module)))
    return llvm::createStringError("lowering " + out.name +
                                   " to the LLVM dialect failed");
  auto object = compileToObject(*module, codegenTargetFor(target));
  if (!object)
    return object.takeError();
  out.object = std::move(*object);

  // The C header.
  std::string guard = llvm::StringRef(out.name).upper() + "_H";
  std::string h;
  llvm::raw_string_ostream os(h);
  os << "/* " << out.name << ".h: generated by tisa " << TISA_VERSION
     << ". Do not edit.\n"
     << " *\n"
     << " * " << spec.describe() << " for " << target.name << " ("
     << target.cpu << ")\n"
     << " * instruction: "
     << (out.instruction.empty() ? "none (plain vector code)"
                                 : out.instruction + " (" + out.mnemonic + ")")
     << "\n"
     << " * plan: " << out.plan << "\n *\n";
  if (gemm)
    os << " * C = A x B, overwriting C. A is " << spec.m << " x " << spec.k
       << ", B " << spec.k << " x " << spec.n << ", C " << spec.m << " x "
       << spec.n << ", all row-major;\n"
       << " * ld* is the distance in elements between consecutive rows.\n";
  else
    os << " * output = conv2d(input, filter), overwriting output. Dense "
          "row-major arrays:\n"
       << " *   input  [n=" << spec.batch << "][h=" << spec.h
       << "][w=" << spec.w << "][c=" << spec.c << "] (NHWC)\n"
       << " *   filter [r=" << spec.r << "][s=" << spec.s << "][c=" << spec.c
       << "][k=" << spec.filters << "] (HWCF)\n"
       << " *   output [n=" << spec.batch << "][" << spec.outH() << "]["
       << spec.outW() << "][k=" << spec.filters << "] (NHWC), stride "
       << spec.stride << ", zero padding " << spec.pad << "\n";
  if (t.a == ElementKind::BF16)
    os << " * bf16 values are passed as their 16-bit patterns (uint16_t).\n";
  os << " *\n"
     << " * For repeated use of the same " << names[packed] << ": call "
     << packName << " once into a buffer of\n"
     << " * " << bytesName << "() bytes (any alignment; 64 is best), then "
     << packedName << ".\n"
     << " * Packed layout: " << out.packedLayout << "\n"
     << " * " << packedName << "_range computes the tiles [begin, end) of "
     << tilesName << "()\n"
     << " * disjoint parts of the output: give each thread one range.\n"
     << (out.schedule.empty() ? std::string()
                              : " * schedule: " + out.schedule + "\n")
     << " * Entry points are thread-safe; " << out.name
     << " allocates its packing buffer with malloc.\n */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const std::string &p : prototypes)
    os << p << "\n";
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  out.header = h;
  return out;
}

} // namespace tisa
