//===- LibraryBuilder.h - one CPU kernel library under construction -*- C++ -*-===//
//
// Internal to kernels/: the builder of generateKernel (KernelLibrary.cpp
// builds the plan and the C entries, LibraryCompile.cpp the object and the
// header) and one C entry point under construction.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_LIBRARYBUILDER_H
#define TISA_KERNELS_LIBRARYBUILDER_H

#include "Contraction.h"
#include "KernelEpilogue.h"
#include "tisa/Kernels/Kernels.h"
#include "tisa/Transforms/PlanSelection.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

namespace tisa::detail {

using namespace mlir;

/// One C entry point under construction; records its symbol and its C
/// prototype (for the header) in `out`. A kernel of run-time extents
/// (KernelSpec::runTimeExtents) takes those `which` names first, as i64.
struct Entry {
  func::FuncOp func;
  OpBuilder body;
  unsigned next = 0;
  /// The rows (i64; a constant when only other extents are run-time ones,
  /// whose kernels have dynamic rows too) and as an index; a GEMM's n and k
  /// and a conv2d's h and w (i64) when run time gives them.
  Value rows, rowsIndex, n, k, h, w;
  /// The run-time extents' leading arguments.
  unsigned extentArgs = 0;
  /// A range entry of run-time rows: its first row (i64), which every
  /// operand's pointer is advanced by.
  Value rowOffset;
  Entry(OpBuilder &mb, Location loc, StringRef name, ArrayRef<Type> argTypes,
        ArrayRef<std::string> params, GeneratedKernel &out,
        std::vector<std::string> &prototypes, const KernelSpec &spec,
        KernelSpec::Extents which = KernelSpec::Extents::All)
      : body(mb.getContext()) {
    SmallVector<Type> types;
    std::vector<std::string> names;
    for (const auto &extent : spec.runTimeExtents(which)) {
      types.push_back(mb.getI64Type());
      names.push_back("int64_t " + extent.first);
    }
    extentArgs = types.size();
    llvm::append_range(types, argTypes);
    names.insert(names.end(), params.begin(), params.end());
    func = func::FuncOp::create(mb, loc, name, mb.getFunctionType(types, {}));
    body.setInsertionPointToStart(func.addEntryBlock());
    out.symbols.push_back(name.str());
    prototypes.push_back(
        ("void " + name + "(" + llvm::join(names, ", ") + ");").str());
    using Extents = KernelSpec::Extents;
    if (spec.runTimeRows && which != Extents::Weights)
      rows = atLeastZero(arg());
    else if (spec.runTimeShape())
      rows = arith::ConstantIntOp::create(body, loc, spec.rows(), 64);
    if (spec.runTimeN && which != Extents::Rows)
      n = atLeastZero(arg());
    if (spec.runTimeK && which != Extents::Rows)
      k = atLeastZero(arg());
    if (spec.runTimeH && which != Extents::Weights)
      h = atLeastZero(arg());
    if (spec.runTimeW && which == Extents::All)
      w = atLeastZero(arg());
    if (rows)
      rowsIndex = arith::IndexCastOp::create(body, loc, body.getIndexType(),
                                             rows);
  }
  Value arg() { return func.getArgument(next++); }
  /// A negative extent is taken as 0: a negative m, batch, h or w (or n)
  /// computes nothing (it wrote before the output), a negative k sums
  /// nothing (it crashed: the packed size and the blocks of K went
  /// negative).
  Value atLeastZero(Value v) {
    return arith::MaxSIOp::create(
        body, v.getLoc(), v,
        arith::ConstantIntOp::create(body, v.getLoc(), 0, 64));
  }
  /// The leading arguments of run-time extents.
  ValueRange extents() { return func.getArguments().take_front(extentArgs); }
};

/// Builds one kernel library: the plan and schedule, the C entries around
/// the kernel generator's pack and compute (or plain code without an
/// instruction), the object and the C header.
class LibraryBuilder {
public:
  LibraryBuilder(MLIRContext &ctx, const KernelSpec &spec,
                 const Target &target, const GenerateOptions &options);
  /// Plans the kernel on one of `candidates` (at least one);
  /// `rateWarnings` (rates left at the defaults) join the kernel's warnings.
  llvm::Error plan(ArrayRef<const Description *> candidates,
                   ArrayRef<std::string> rateWarnings);
  void emitEntries();
  llvm::Error compile();
  /// -tisa-fuse-epilogue on the entries, which must take every epilogue.
  llvm::Error fuseEpilogues();
  std::string header() const;
  /// The header's lines on the operands' shapes, and on the extents run
  /// time gives.
  std::string operandsText() const;
  std::string runTimeText() const;
  GeneratedKernel take() { return std::move(out); }

private:
  /// The scratch function holding the contraction in `form`, on `types`.
  void buildProgram();
  /// The pixel form's counted cycles (countedCycles), with its input read
  /// in place when it is.
  double pixelCycles() const;
  /// A conv2d in ConvForm::TapRows when its kernel counts fewer cycles
  /// (its padded copy included), or when the given schedule has that
  /// form's loops: the program, types, kernel and padding switch to it.
  void chooseTapRows(ArrayRef<const Description *> candidates);
  llvm::Error chooseSchedule();
  void emitPlainEntry();
  void emitPackEntry();
  void emitPackedEntry(bool range);
  void emitConstants();
  /// Operand `i` of an entry: its pointer, then for GEMM the leading
  /// dimension; a padded convolution's input copied into a zeroed buffer
  /// unless the kernel reads it in place.
  Value operand(Entry &e, unsigned i);
  Value paddedInput(Entry &e, Value src);
  /// ConvForm::TapRows's view (types[0]) of the dense, padded `image`.
  Value tapRowsView(Entry &e, Value image);
  /// A conv2d's input `src` into `padded` (its extents with the zero
  /// border), zeros around it.
  void copyPadded(Entry &e, Value src, Value padded);
  /// The loop of copyPadded, in the function it calls.
  void emitPaddedCopy(OpBuilder &b, Value src, Value padded);
  std::vector<std::string> params(std::initializer_list<unsigned> ops) const;
  SmallVector<Type> argTypes(unsigned operands, unsigned buffers) const;
  /// With an epilogue, its struct's pointer after the output.
  void addEpilogueParam(SmallVector<Type> &types,
                        std::vector<std::string> &params) const;
  void emitPack(OpBuilder &b, Value src, Value buffer);
  /// The computation into `dst`, through the epilogue (its operands read
  /// from the tisa_epilogue at `epilogue`) when the spec has one.
  /// With `outputView`, on that view of `dst` (and of the epilogue's
  /// residual), `in` being the input it reads.
  void emitCompute(Entry &e, Value in, Value buffer, Value dst,
                   Value epilogue, Value begin = {}, Value end = {},
                   function_ref<Value(Value)> outputView = nullptr);
  void emitContraction(OpBuilder &b, Value in, Value buffer, Value dst,
                       Value begin, Value end);
  EpilogueValues epilogueValues(Entry &e, Value epilogue);
  /// The first parameter of every entry but the pack with run-time rows
  /// ("m" or "n"), else "".
  StringRef rowsParam() const {
    return spec.runTimeRows ? spec.rowsName() : "";
  }
  /// NAME_tiles's parameters ("n, h"), "" for none.
  std::string tilesParams() const {
    std::string names;
    for (const auto &e : spec.runTimeExtents(KernelSpec::Extents::Rows))
      names += (names.empty() ? "" : ", ") + e.first;
    return names;
  }
  /// The i64 values of an operand's (or a bias's) dynamic dimensions, in
  /// order: `i` 0 (A: m, k; the input: n, h, w, or with `padded` its
  /// extents with the zero border), 1 (B: k, n), 2 (C: m, n; the output: n,
  /// its rows and columns), 3 (a vector of n).
  SmallVector<Value> dynamicSizes(Entry &e, MemRefType type, unsigned i,
                                  bool padded = false) const;
  /// A conv2d's dynamic extents of dimensions 0-2 of operand `i` (see
  /// dynamicSizes), null where static.
  SmallVector<Value> convExtents(Entry &e, unsigned i, bool padded) const;
  /// Elements from one row (image) of `type` to the next (i64), the
  /// dynamic dimensions' extents `sizes` (as dynamicSizes).
  Value rowElements(Entry &e, MemRefType type, ValueRange sizes) const;
  /// The packed buffer's bytes (i64) in `e`: constant, or with n or k at
  /// run time computed from them (packedBufferBytes).
  Value packedBytes(Entry &e);
  /// The packed buffer at the C pointer `p`.
  Value bufferFromPointer(Entry &e, Value p);
  /// Makes `e` return `result` (i64), in its prototype too.
  void setResult(Entry &e, Value result);
  /// Elements of a bias or scale vector: n (dynamic with n at run time), or
  /// the filters.
  int64_t channels() const {
    return spec.runTimeN ? ShapedType::kDynamic : spec.channels();
  }
  /// With run-time rows, a range entry's tiles are this many rows (a GEMM's
  /// rows, a convolution's images).
  int64_t rowsPerTile() const { return gemm ? 16 : 1; }
  /// Whether the range entry's tiles are output rows (of every image): a
  /// conv2d with h or w at run time.
  bool imageRows() const { return !gemm && (spec.runTimeH || spec.runTimeW); }
  /// The range entry's tiles as the header states them: 0 where NAME_tiles
  /// counts them per call.
  int64_t rangeTiles() const;
  /// The range entry of imageRows(): output rows [begin, end) (i64) of the
  /// images stacked, image by image, each on the window of `in` they read.
  void emitImageRowRange(Entry &e, Value in, Value buffer, Value dst,
                         Value epilogue, Value begin, Value end);
  /// A range entry of run-time rows: rows [begin, end) x rowsPerTile(),
  /// within the call's, become `e`'s rows and row offset.
  void restrictRows(Entry &e, Value begin, Value end);
  /// What NAME_tiles returns, for `e`'s run-time extents.
  Value tileCount(Entry &e);
  /// A range entry's [begin, end) within [0, tiles): a negative begin
  /// wrote before the output, an end past the tiles (a convolution's)
  /// after it.
  std::pair<Value, Value> clampRange(Entry &e, Value begin, Value end);
  /// `p` advanced by `e.rowOffset` rows of `rowElements` elements of
  /// `elt` (or `p` without an offset).
  Value atFirstRow(Entry &e, Value p, Type elt, Value rowElements);
  /// Whether the kernel generator applies the epilogue in registers (range
  /// entries could not run it apart); else why.
  llvm::Error checkEpilogue();
  void emitPlainCompute(OpBuilder &b, Value in, Value buffer, Value dst);
  void deallocPadded(OpBuilder &b, Value v, unsigned i);
  std::string name(StringRef suffix) const { return out.name + suffix.str(); }

  MLIRContext &ctx;
  const KernelSpec &spec;
  const Target &target;
  const GenerateOptions &options;
  bool gemm;
  Location loc;
  OwningOpRef<ModuleOp> module;
  OpBuilder mb;
  Type ptr, i64;
  /// Input, weights, output: element types, program types, C names.
  Type elts[3];
  MemRefType types[3];
  /// The output as the entries take it: types[2] with the epilogue's element
  /// type.
  MemRefType outType;
  std::string names[3];
  /// The input as the caller lays it out, and with its zero border
  /// (dense; types[0] in the pixel form).
  MemRefType plainInput, paddedImage, bufferType, plainPacked;
  /// A conv2d's program form (types[0] and types[1] follow it).
  ConvForm form = ConvForm::Pixels;
  /// The contraction the plan was made for; it carries the plan and the
  /// schedule, and the entries' tisa.pack and tisa.compute copy it.
  func::FuncOp scratch;
  linalg::LinalgOp program;
  /// The descriptions the plan was chosen among and the target, for
  /// -tisa-tensorize.
  std::shared_ptr<const TensorizeInputs> inputs;
  /// Null: plain vector code.
  std::unique_ptr<KernelGenerator> kernel;
  Contraction contraction;
  Schedule schedule;
  unsigned packed = 1, other = 0;
  bool inPlacePadding = false;
  SmallVector<int64_t> inputPadding;
  std::vector<std::string> prototypes;
  /// copyPadded's functions, by source and padded type.
  llvm::DenseMap<std::pair<Type, Type>, func::FuncOp> paddedCopies;
  GeneratedKernel out;
};

} // namespace tisa::detail

#endif // TISA_KERNELS_LIBRARYBUILDER_H
