//===- TileCompute.cpp - the tile generator's computation -----------------===//
//
// The loop nest of include/tisa/Transforms/TileKernel.h: padded copies of A
// and C where a register tile would leave them, the range of (other parallel
// loops x m blocks), and per block the accumulator tiles carried through
// every reduction loop as loop values, so they stay in tile registers.
// Tiles are loaded and stored through the register-class interface
// (loadRegister, storeRegister, zeroRegister) at pointers computed from the
// memrefs' strides; the instruction is a tisa.apply the legalization pass
// turns into the description's intrinsic.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Transforms/TileKernel.h"


#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tisa {

namespace {

/// A memref's aligned address, offset and strides, read once: element
/// pointers and row distances in bytes are computed from them.
struct Addressing {
  Value base, offset;
  SmallVector<Value> strides;
  int64_t eltBytes = 1;

  Addressing(OpBuilder &b, Location loc, Value memref) {
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    offset = meta.getOffset();
    strides.assign(meta.getStrides().begin(), meta.getStrides().end());
    eltBytes = cast<MemRefType>(memref.getType())
                   .getElementType()
                   .getIntOrFloatBitWidth() /
               8;
  }

  /// The address of the element at `indices`, as an !llvm.ptr.
  Value pointer(OpBuilder &b, Location loc, ArrayRef<Value> indices) const {
    Value linear = offset;
    for (auto [i, s] : llvm::zip(indices, strides))
      linear = arith::AddIOp::create(b, loc, linear,
                                     arith::MulIOp::create(b, loc, i, s));
    Value bytes = arith::AddIOp::create(
        b, loc, base,
        arith::MulIOp::create(b, loc, linear, cIndex(b, loc, eltBytes)));
    return toPointer(b, loc, bytes);
  }

  static Value toPointer(OpBuilder &b, Location loc, Value address) {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
  }

  /// Bytes between the elements of consecutive values of loop `loop` when
  /// dimension d's index moves by coef[d][loop] (an i64).
  Value rowBytes(OpBuilder &b, Location loc, AffineMap map, unsigned loop,
                 unsigned loops) const {
    Value total = cIndex(b, loc, 0);
    for (auto [e, s] : llvm::zip(map.getResults(), strides)) {
      int64_t k = (*linearCoefficients(e, loops))[loop];
      if (k)
        total = arith::AddIOp::create(
            b, loc, total,
            arith::MulIOp::create(b, loc, s, cIndex(b, loc, k * eltBytes)));
    }
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), total);
  }
};

/// Keeps LLVM from turning copy loops of the function holding `b`'s
/// insertion point into library calls (memcpy): after a call, LLVM reloads
/// the tile configuration.
void forbidLibraryCalls(OpBuilder &b) {
  auto func = b.getInsertionBlock()->getParentOp();
  while (func && !isa<FunctionOpInterface>(func))
    func = func->getParentOp();
  if (!func)
    return;
  SmallVector<Attribute> passthrough;
  if (auto old = func->getAttrOfType<ArrayAttr>("passthrough"))
    passthrough.assign(old.begin(), old.end());
  Attribute noBuiltins = b.getStringAttr("no-builtins");
  if (!llvm::is_contained(passthrough, noBuiltins))
    passthrough.push_back(noBuiltins);
  func->setAttr("passthrough", b.getArrayAttr(passthrough));
}

/// Whether reading `shape` (logical extents) from `v` placed at `offsets`
/// needs a padded copy.
bool needsCopy(Value v, ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets) {
  auto type = cast<MemRefType>(v.getType());
  for (unsigned d = 0; d < shape.size(); ++d)
    if ((!offsets.empty() && offsets[d]) || shape[d] > type.getDimSize(d))
      return true;
  return false;
}

} // namespace

void TileKernel::emitCompute(OpBuilder &b, Location loc,
                             const ComputeOperands &operands,
                             const Schedule &s) const {
  // Tiles have the description's whole shape: `active` is not used (the
  // padding computes zeros).
  auto [input, buffer, output, overwrite, begin, end, inputPadding, active,
        epilogue] = operands;
  assert((!epilogue || overwrite) && "an epilogue starts from zero");
  SmallVector<int64_t> padded = paddedExtents(s);
  SmallVector<int64_t> aShape = operandExtents(aInput, padded);
  // C is padded to whole register tiles, or where a last block is short
  // (shortRows, shortPanels) to whole segments.
  SmallVector<int64_t> cExtents(padded);
  if (shortRows(s))
    cExtents[mLoop] = llvm::alignTo(extent[mLoop], mI);
  if (shortPanels(s))
    cExtents[nLoop] = llvm::alignTo(extent[nLoop], nI);
  SmallVector<int64_t> cShape = operandExtents(2, cExtents);
  // Where the input lies in A's extents.
  auto inputType = cast<MemRefType>(input.getType());
  AOperand aIn{input, {}, {}};
  for (auto [d, extent] : llvm::enumerate(aShape)) {
    aIn.low.push_back(d < inputPadding.size() ? inputPadding[d] : 0);
    aIn.size.push_back(
        std::min(inputType.getDimSize(d), extent - aIn.low.back()));
  }
  // The packed A of segments reads a border as zeros, but not k's padding.
  unsigned kDim = aShape.size() - 1;
  bool wholeK = aIn.low[kDim] == 0 && aIn.size[kDim] == aShape[kDim];
  Value a = input, edge;
  bool copyA = needsCopy(input, aShape, inputPadding) && !(segments && wholeK);
  if (copyA)
    a = paddedCopy(b, loc, input, aShape, inputPadding);
  Value aPacked;
  if (segments)
    aPacked = packA(b, loc,
                    copyA ? AOperand{a, SmallVector<int64_t>(aShape.size(), 0),
                                     SmallVector<int64_t>(aShape)}
                          : aIn,
                    aShape, s);
  if (epilogue || needsCopy(output, cShape, {})) {
    forbidLibraryCalls(b);
    auto [tm, tn] = registerTile(s);
    edge = memref::AllocaOp::create(
        b, loc, MemRefType::get({tm * mI, tn * nI}, c.operands[2].elementType),
        b.getI64IntegerAttr(64));
  }
  aIn.value = aPacked ? aPacked : a;
  emitTileLoop(b, loc, aIn, buffer, CStore{output, edge, epilogue}, overwrite,
               s, begin, end);
  if (aPacked)
    memref::DeallocOp::create(b, loc, aPacked);
  if (copyA)
    memref::DeallocOp::create(b, loc, a);
}

/// The inputs of a step: A in place, the packed B; the block's
/// accumulators.
struct TileKernel::StepInputs {
  Addressing a, b;
  Value aRowBytes;
  BlockShape shape;
  /// Segments: A's operand when some register of the block lies wholly in
  /// its zero border at some unrolled tap (outsideRegisters), else null.
  const AOperand *skipOutside = nullptr;
};

SmallVector<Value> TileKernel::tileIvs(OpBuilder &b, Location loc, Value t,
                                       const Schedule &s) const {
  // t = ((outer parallel...) * m blocks + m block)
  int64_t tm = registerTile(s).first;
  int64_t mBlocks = paddedExtents(s)[mLoop] / (mI * tm);
  SmallVector<int64_t> radices = {mBlocks};
  for (unsigned l : llvm::reverse(outerParallel))
    radices.push_back(extent[l]);
  SmallVector<Value> digits = splitIndex(b, loc, t, radices);
  SmallVector<Value> ivs(extent.size(), cIndex(b, loc, 0));
  for (auto [l, v] : llvm::zip(llvm::reverse(outerParallel),
                               llvm::drop_begin(digits)))
    ivs[l] = v;
  // An affine value: aTilePointer divides it by mI.
  ivs[mLoop] = affine::makeComposedAffineApply(
                   b, loc, getAffineDimExpr(0, b.getContext()) * (mI * tm),
                   {digits[0]})
                   .getResult();
  return ivs;
}

Value TileKernel::rangeLoop(OpBuilder &b, Location loc, Value begin,
                            Value end, const Schedule &s) const {
  Value lo = begin ? begin : cIndex(b, loc, 0);
  Value hi = end ? end : cIndex(b, loc, partitionTiles(s));
  auto tiles = scf::ForOp::create(b, loc, lo, hi, cIndex(b, loc, 1));
  b.setInsertionPointToStart(tiles.getBody());
  return tiles.getInductionVar();
}

void TileKernel::emitTileLoop(OpBuilder &b, Location loc, const AOperand &a,
                              Value buffer, const CStore &out, bool overwrite,
                              const Schedule &s, Value begin,
                              Value end) const {
  if (s.hold)
    return emitHeldLoop(b, loc, a, buffer, out, overwrite, s, begin, end);
  int64_t tm = registerTile(s).first, rest = shortRows(s);
  OpBuilder::InsertionGuard guard(b);
  Value t = rangeLoop(b, loc, begin, end, s);
  SmallVector<Value> ivs = tileIvs(b, loc, t, s);
  if (!rest)
    return emitNBlocks(b, loc, ivs, tm, a, buffer, out, overwrite, s);
  // The last m block computes only its rows: a branch of its own.
  int64_t lastRow = paddedExtents(s)[mLoop] - mI * tm;
  Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       ivs[mLoop], cIndex(b, loc, lastRow));
  auto branch = scf::IfOp::create(b, loc, isLast, /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  emitNBlocks(b, loc, ivs, rest, a, buffer, out, overwrite, s);
  b.setInsertionPointToStart(branch.elseBlock());
  emitNBlocks(b, loc, ivs, tm, a, buffer, out, overwrite, s);
}

void TileKernel::emitNBlocks(OpBuilder &b, Location loc,
                             SmallVector<Value> ivs, int64_t rows,
                             const AOperand &a, Value buffer,
                             const CStore &out, bool overwrite,
                             const Schedule &s) const {
  int64_t tn = registerTile(s).second, rest = shortPanels(s);
  int64_t whole = panels(s) / tn - (rest ? 1 : 0);
  if (whole) {
    OpBuilder::InsertionGuard guard(b);
    auto blocks = scf::ForOp::create(b, loc, cIndex(b, loc, 0),
                                     cIndex(b, loc, whole), cIndex(b, loc, 1));
    b.setInsertionPointToStart(blocks.getBody());
    // The block's first panel.
    SmallVector<Value> at(ivs);
    at[nLoop] = affine::makeComposedAffineApply(
                    b, loc, getAffineDimExpr(0, b.getContext()) * tn,
                    {blocks.getInductionVar()})
                    .getResult();
    emitBlock(b, loc, at, {rows, tn}, a, buffer, out, overwrite, s, {});
  }
  if (rest) {
    ivs[nLoop] = cIndex(b, loc, whole * tn);
    emitBlock(b, loc, ivs, {rows, rest}, a, buffer, out, overwrite, s, {});
  }
}

void TileKernel::emitHeldLoop(OpBuilder &b, Location loc, const AOperand &a,
                              Value buffer, const CStore &out, bool overwrite,
                              const Schedule &s, Value begin,
                              Value end) const {
  // n blocks outermost, each block's B tiles of the first `hold` reduction
  // steps loaded once and held while the range's m blocks run under them;
  // the last block is narrower when tn does not divide n's tiles.
  int64_t tn = registerTile(s).second, whole = panels(s) / tn,
          rest = panels(s) % tn;
  auto nBlock = [&](OpBuilder &b, Location loc, Value first,
                    const Schedule &bs) {
    OpBuilder::InsertionGuard guard(b);
    BlockShape shape{registerTile(bs).first, registerTile(bs).second};
    StepInputs in{Addressing(b, loc, a.value), Addressing(b, loc, buffer), {},
                  shape};
    SmallVector<Value> held;
    int64_t count = 0;
    forEachStep([&](ArrayRef<int64_t> step) {
      if (count++ >= bs.hold)
        return;
      SmallVector<Value> iv;
      for (int64_t v : step)
        iv.push_back(cIndex(b, loc, v));
      SmallVector<Value> at(extent.size(), cIndex(b, loc, 0));
      at[nLoop] = first;
      llvm::append_range(held, loadB(b, loc, at, iv, in, bs, 0, shape.cols));
    });
    Value t = rangeLoop(b, loc, begin, end, bs);
    SmallVector<Value> ivs = tileIvs(b, loc, t, bs);
    ivs[nLoop] = first;
    emitBlock(b, loc, ivs, shape, a, buffer, out, overwrite, bs, held);
  };
  if (whole) {
    OpBuilder::InsertionGuard guard(b);
    auto blocks = scf::ForOp::create(b, loc, cIndex(b, loc, 0),
                                     cIndex(b, loc, whole), cIndex(b, loc, 1));
    b.setInsertionPointToStart(blocks.getBody());
    Value first = affine::makeComposedAffineApply(
                      b, loc, getAffineDimExpr(0, b.getContext()) * tn,
                      {blocks.getInductionVar()})
                      .getResult();
    nBlock(b, loc, first, s);
  }
  if (rest) {
    Schedule narrow = s;
    narrow.unroll[nLoop] = rest;
    nBlock(b, loc, cIndex(b, loc, whole * tn), narrow);
  }
}

void TileKernel::forEachStep(
    function_ref<void(ArrayRef<int64_t>)> body) const {
  // The other reduction loops, then the k steps innermost.
  SmallVector<int64_t> ubs;
  for (unsigned l : outerReduction)
    ubs.push_back(extent[l]);
  ubs.push_back(kSteps());
  SmallVector<int64_t> iv(ubs.size(), 0);
  while (true) {
    body(iv);
    unsigned d = iv.size();
    while (d > 0 && ++iv[d - 1] == ubs[d - 1])
      iv[--d] = 0;
    if (d == 0)
      return;
  }
}

/// A register tile's block of C: where its tiles are (in C, or for a block
/// that leaves C in the edge scratch) and how far apart their rows are.
struct TileKernel::CBlock {
  /// The block's first program loop values (m and n at the block's start).
  SmallVector<Value> at;
  Addressing c;
  std::optional<Addressing> edge;
  /// Edge blocks only: valid rows and columns, and whether all are.
  Value rows, cols, full;
  /// Bytes between tile rows (an i64).
  Value rowBytes;
  /// Segments: the block's first element (in C or the edge scratch, an
  /// !llvm.ptr) and the bytes between columns (an i64), from which every
  /// tile's address is one offset (cTile).
  Value first, colBytes;
};

TileKernel::CBlock TileKernel::cBlock(OpBuilder &b, Location loc,
                                      ArrayRef<Value> blockIvs,
                                      BlockShape shape,
                                      const CStore &out) const {
  int64_t tm = shape.rows, tn = shape.cols;
  Value edge = out.edge;
  CBlock blk{SmallVector<Value>(blockIvs), Addressing(b, loc, out.c),
             /*edge=*/std::nullopt, {}, {}, {}, {}, {}, {}};
  blk.at[nLoop] = affine::makeComposedAffineApply(
                      b, loc, getAffineDimExpr(0, b.getContext()) * nI,
                      {blockIvs[nLoop]})
                      .getResult();
  blk.rowBytes = blk.c.rowBytes(b, loc, c.operands[2].map, mLoop,
                                extent.size());
  auto i64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  if (segments) {
    blk.first =
        blk.c.pointer(b, loc, applyMap(b, loc, c.operands[2].map, blk.at));
    blk.colBytes = i64(blk.c.eltBytes);
  }
  if (!edge)
    return blk;
  blk.edge.emplace(b, loc, edge);
  auto valid = [&](unsigned l, int64_t size) {
    Value left = arith::SubIOp::create(b, loc, cIndex(b, loc, extent[l]),
                                       blk.at[l]);
    return arith::MinSIOp::create(b, loc, left, cIndex(b, loc, size))
        .getResult();
  };
  auto whole = [&](Value v, int64_t size) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v,
                                 cIndex(b, loc, size));
  };
  blk.rows = valid(mLoop, tm * mI);
  blk.cols = valid(nLoop, tn * nI);
  blk.full = arith::AndIOp::create(b, loc, whole(blk.rows, tm * mI),
                                   whole(blk.cols, tn * nI));
  // With an epilogue no accumulator reaches the output unchanged.
  if (out.epilogue)
    blk.full = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  // The scratch holds accumulators (with an epilogue, C is of another
  // type), in rows of the widest register tile (a narrower last one of held
  // B tiles uses their start).
  int64_t accBytes = c.operands[2].elementType.getIntOrFloatBitWidth() / 8;
  Value edgeRow = arith::ConstantOp::create(
      b, loc,
      b.getI64IntegerAttr(cast<MemRefType>(edge.getType()).getDimSize(1) *
                          accBytes));
  blk.rowBytes =
      arith::SelectOp::create(b, loc, blk.full, blk.rowBytes, edgeRow);
  if (segments) {
    Value inEdge = blk.edge->pointer(b, loc, {cIndex(b, loc, 0), cIndex(b, loc, 0)});
    blk.first = arith::SelectOp::create(b, loc, blk.full, blk.first, inEdge);
    blk.colBytes = arith::SelectOp::create(b, loc, blk.full, blk.colBytes,
                                           i64(accBytes));
  }
  return blk;
}

Value TileKernel::cTile(OpBuilder &b, Location loc, const CBlock &blk,
                        int64_t i, int64_t j) const {
  if (segments) {
    // m moves C's rows and n its contiguous columns (readOperands), in C
    // as in the edge scratch: one offset from the block's first element.
    auto times = [&](Value v, int64_t k) {
      return LLVM::MulOp::create(
          b, loc, v,
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(k)));
    };
    Value offset = LLVM::AddOp::create(b, loc, times(blk.rowBytes, i * mI),
                                       times(blk.colBytes, j * nI));
    return LLVM::GEPOp::create(b, loc, blk.first.getType(), b.getI8Type(),
                               blk.first, ValueRange{offset});
  }
  SmallVector<Value> at(blk.at);
  at[mLoop] = arith::AddIOp::create(b, loc, at[mLoop], cIndex(b, loc, i * mI));
  at[nLoop] = arith::AddIOp::create(b, loc, at[nLoop], cIndex(b, loc, j * nI));
  Value inC = blk.c.pointer(b, loc, applyMap(b, loc, c.operands[2].map, at));
  if (!blk.edge)
    return inC;
  Value inEdge = blk.edge->pointer(
      b, loc, {cIndex(b, loc, i * mI), cIndex(b, loc, j * nI)});
  return arith::SelectOp::create(b, loc, blk.full, inC, inEdge);
}

void TileKernel::moveEdge(OpBuilder &b, Location loc, const CBlock &blk,
                          const CStore &out, bool intoEdge) const {
  if (!out.edge)
    return;
  if (out.epilogue) {
    assert(!intoEdge && "an epilogue starts from zero");
    epilogueRows(b, loc, blk.at, *out.epilogue, out.edge, blk.rows,
                 blk.cols);
    return;
  }
  Value notFull = arith::XOrIOp::create(
      b, loc, blk.full, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  auto branch = scf::IfOp::create(b, loc, notFull);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  copyEdge(b, loc, blk.at, out.c, out.edge, blk.rows, blk.cols, intoEdge);
}

int64_t TileKernel::stepUnroll(const Schedule &s) const {
  int64_t unroll = std::min(s.reductionUnroll, kSteps());
  // Segments without taps: a loop that would run twice is unrolled
  // completely. LLVM kept such a loop on a flag, its B loads at register
  // offsets, unpaired (64^3 s8 on neoverse-v2 in 4x6 tiles: 17,855
  // instructions, 15,441 unrolled). Inside a tap loop LLVM unrolls it
  // itself, and better (56x56x64: 4,995,328 against 5,290,442 unrolled here).
  if (segments && outerReduction.empty() && unroll > 1 &&
      kSteps() <= 2 * unroll)
    unroll = kSteps();
  return unroll;
}

Value TileKernel::aTilePointer(OpBuilder &b, Location loc,
                               const StepInputs &in, ArrayRef<Value> at,
                               const Schedule &s) const {
  if (!segments)
    return in.a.pointer(b, loc, applyMap(b, loc, c.operands[aInput].map, at));
  // In the packed A: [other dims...][p mod R][block][k step][member][0]
  // (packA). The block's first row m0 is a multiple of mI * tm, and
  // p = m0 * s + rest: the register is m0 / mI + rest / R, the member
  // rest / R, the residue rest mod R. With the taps in `rest` unrolled
  // (emitBlock), both are constants.
  MLIRContext *ctx = b.getContext();
  AffineMap map = c.operands[aInput].map;
  int64_t r = mI * aMStride, g = registerTile(s).first;
  SmallVector<int64_t> coef = aMCoefficients();
  auto apply = [&](AffineExpr e, Value x) {
    return affine::makeComposedAffineApply(b, loc, AffineMap::get(1, 0, e),
                                           ArrayRef<OpFoldResult>{x})
        .getResult();
  };
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  Value rest = linearIndex(b, loc, coef, at, {mLoop});
  SmallVector<Value> idx = applyMap(b, loc, map, at);
  unsigned kDim = idx.size() - 1;
  SmallVector<Value> to;
  for (unsigned d = 0; d < kDim; ++d)
    if (d != aMDim)
      to.push_back(idx[d]);
  to.push_back(apply(d0 % r, rest));
  to.push_back(apply(d0.floorDiv(mI * g), at[mLoop]));
  to.push_back(arith::DivUIOp::create(b, loc, idx[kDim], cIndex(b, loc, kI)));
  to.push_back(apply(d0.floorDiv(r), rest));
  to.push_back(cIndex(b, loc, 0));
  return in.a.pointer(b, loc, to);
}

Value TileKernel::bTilePointer(OpBuilder &b, Location loc, ArrayRef<Value> at,
                               ValueRange iv, const StepInputs &in,
                               const Schedule &s, int64_t j) const {
  // B's tile: ((B's other loops) * panels + panel) * steps + step, its
  // reduction loops at `iv` (the k step last).
  SmallVector<Value> where(at);
  for (auto [l, v] : llvm::zip(outerReduction, iv))
    where[l] = v;
  AffineExpr x = getAffineDimExpr(0, b.getContext()),
             y = getAffineDimExpr(1, b.getContext());
  Value outer = cIndex(b, loc, 0);
  for (unsigned l : bOuter)
    outer = affine::makeComposedAffineApply(b, loc, x * extent[l] + y,
                                            {outer, where[l]})
                .getResult();
  Value panel =
      affine::makeComposedAffineApply(b, loc, x + j, {at[nLoop]}).getResult();
  Value byte = affine::makeComposedAffineApply(
                   b, loc, x * tileBytes(bReg),
                   {bTile(b, loc, outer, panel, iv.back(), s)})
                   .getResult();
  return in.b.pointer(b, loc, {byte});
}

SmallVector<Value> TileKernel::loadB(OpBuilder &b, Location loc,
                                     ArrayRef<Value> at, ValueRange iv,
                                     const StepInputs &in, const Schedule &s,
                                     int64_t first, int64_t count) const {
  SmallVector<Value> tiles;
  for (int64_t j = first; j < first + count; ++j)
    tiles.push_back(loadRegister(b, loc, d->registers[bReg],
                                 bTilePointer(b, loc, at, iv, in, s, j)));
  return tiles;
}

SmallVector<Value> TileKernel::emitStep(OpBuilder &b, Location loc,
                                        ArrayRef<Value> blockIvs,
                                        ValueRange iv, ValueRange carried,
                                        const StepInputs &in,
                                        const Schedule &s,
                                        const StepB &bIn) const {
  int64_t tm = in.shape.rows, tn = in.shape.cols;
  SmallVector<Value> at(blockIvs);
  for (auto [l, v] : llvm::zip(outerReduction, iv))
    at[l] = v;
  at[kLoop] = arith::MulIOp::create(b, loc, iv.back(), cIndex(b, loc, kI));
  Value m0 = at[mLoop];
  auto loadA = [&](int64_t i) { // an AMX tile of A, in place
    at[mLoop] = arith::AddIOp::create(b, loc, m0, cIndex(b, loc, i * mI));
    return loadRegister(b, loc, d->registers[aReg],
                        aTilePointer(b, loc, in, at, s), in.aRowBytes);
  };
  SmallVector<Value> next(tm * tn);
  auto apply = [&](int64_t i, int64_t j, Value aTile, Value bTile) {
    SmallVector<Value> regs(3);
    regs[aReg] = aTile;
    regs[bReg] = bTile;
    regs[cReg] = carried[i * tn + j];
    next[i * tn + j] = buildApply(b, loc, *d, signature, regs).getResult();
  };
  if (segments) {
    // Vector segments: B's tiles of the step, then A's two at a time, each
    // pair used by its two rows of the register tile (registersNeeded).
    // A step's A registers are adjacent in the pack (packA: rows R apart
    // are registers 1 apart), so one address serves all of them and LLVM
    // sees the pairs.
    SmallVector<Value> bTiles = loadB(b, loc, blockIvs, iv, in, s, 0, tn);
    Value a0 = aTilePointer(b, loc, in, at, s);
    auto loadSegment = [&](int64_t i) {
      Value offset = arith::ConstantOp::create(
          b, loc, b.getI64IntegerAttr(i * tileBytes(aReg)));
      return loadRegister(b, loc, d->registers[aReg],
                          LLVM::GEPOp::create(b, loc, a0.getType(),
                                              b.getI8Type(), a0,
                                              ValueRange{offset}));
    };
    if (in.skipOutside) {
      // Row by row, each under whether its register reads inside A: a
      // constant once the taps are unrolled and folded.
      Value first = linearIndex(b, loc, aMCoefficients(), at, {});
      for (int64_t r = 0; r < tm; ++r) {
        auto branch = scf::IfOp::create(
            b, loc, carried.slice(r * tn, tn).getTypes(),
            registerInside(b, loc, first, r, *in.skipOutside),
            /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        Value aTile = loadSegment(r);
        for (int64_t j = 0; j < tn; ++j)
          apply(r, j, aTile, bTiles[j]);
        scf::YieldOp::create(b, loc, ArrayRef(next).slice(r * tn, tn));
        b.setInsertionPointToStart(branch.elseBlock());
        scf::YieldOp::create(b, loc, carried.slice(r * tn, tn));
        llvm::copy(branch.getResults(), next.begin() + r * tn);
      }
      return next;
    }
    for (int64_t i = 0; i < tm; i += 2) {
      Value aTiles[2] = {loadSegment(i),
                         i + 1 < tm ? loadSegment(i + 1) : Value()};
      for (int64_t j = 0; j < tn; ++j)
        for (int64_t r = i; r < std::min(i + 2, tm); ++r)
          apply(r, j, aTiles[r - i], bTiles[j]);
    }
    return next;
  }
  SmallVector<Value> aTiles;
  for (int64_t i = 0; i < tm; ++i)
    aTiles.push_back(loadA(i));
  if (bIn.oneAtATime) {
    // B's tiles one by one, each used by its column of the register tile.
    for (int64_t j = 0; j < tn; ++j) {
      Value bTile = loadB(b, loc, blockIvs, iv, in, s, j, 1).front();
      for (int64_t i = 0; i < tm; ++i)
        apply(i, j, aTiles[i], bTile);
    }
    return next;
  }
  SmallVector<Value> bTiles(bIn.held);
  if (bTiles.empty())
    bTiles = loadB(b, loc, blockIvs, iv, in, s, 0, tn);
  for (int64_t i = 0; i < tm; ++i)
    for (int64_t j = 0; j < tn; ++j)
      apply(i, j, aTiles[i], bTiles[j]);
  return next;
}

void TileKernel::emitBlock(OpBuilder &b, Location loc, ArrayRef<Value> blockIvs,
                           BlockShape shape, const AOperand &a, Value buffer,
                           const CStore &out, bool overwrite,
                           const Schedule &s, ArrayRef<Value> held) const {
  int64_t tm = shape.rows, tn = shape.cols;
  const OperandRegister &cR = d->registers[cReg];
  CBlock blk = cBlock(b, loc, blockIvs, shape, out);
  StepInputs in{Addressing(b, loc, a.value), Addressing(b, loc, buffer), {},
                shape};
  if (outsideRegisters(a, tm, s))
    in.skipOutside = &a;
  if (!segments)
    in.aRowBytes = in.a.rowBytes(b, loc, c.operands[aInput].map, mLoop,
                                 extent.size());
  if (!overwrite)
    moveEdge(b, loc, blk, out, /*intoEdge=*/true);
  SmallVector<Value> acc;
  for (int64_t i = 0; i < tm; ++i)
    for (int64_t j = 0; j < tn; j += cPairs(tn, j)) {
      if (overwrite) {
        for (int64_t p = 0; p < cPairs(tn, j); ++p)
          acc.push_back(zeroRegister(b, loc, cR));
      } else if (segments) {
        llvm::append_range(acc, loadSegments(b, loc, cR,
                                             cTile(b, loc, blk, i, j),
                                             cPairs(tn, j), blk.rowBytes,
                                             segmentRows()));
      } else {
        acc.push_back(loadRegister(b, loc, cR, cTile(b, loc, blk, i, j),
                                   blk.rowBytes));
      }
    }
  // Every reduction loop, the k steps innermost, carrying the accumulators;
  // with held B tiles, every step unrolled, the first `hold` reading theirs.
  std::optional<scf::LoopNest> nest;
  if (!s.hold) {
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned l : outerReduction) {
      auto [lo, hi] = tapBounds(b, loc, blockIvs, l, a);
      lbs.push_back(lo);
      ubs.push_back(hi);
    }
    lbs.push_back(cIndex(b, loc, 0));
    ubs.push_back(cIndex(b, loc, kSteps()));
    steps.assign(ubs.size(), cIndex(b, loc, 1));
    nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, acc,
        [&](OpBuilder &b, Location loc, ValueRange iv, ValueRange carried) {
          return emitStep(b, loc, blockIvs, iv, carried, in, s, StepB{});
        });
    acc.assign(nest->results.begin(), nest->results.end());
  } else {
    int64_t index = 0;
    forEachStep([&](ArrayRef<int64_t> step) {
      SmallVector<Value> iv;
      for (int64_t v : step)
        iv.push_back(cIndex(b, loc, v));
      StepB bIn{{}, index >= s.hold};
      if (index < s.hold)
        bIn.held = ArrayRef<Value>(held).slice(index * tn, tn);
      acc = emitStep(b, loc, blockIvs, iv, acc, in, s, bIn);
      ++index;
    });
  }
  for (int64_t i = 0; i < tm; ++i)
    for (int64_t j = 0; j < tn; j += cPairs(tn, j)) {
      ValueRange tiles = ValueRange(acc).slice(i * tn + j, cPairs(tn, j));
      if (segments)
        storeSegments(b, loc, cR, cTile(b, loc, blk, i, j), tiles,
                      blk.rowBytes, segmentRows());
      else
        storeRegister(b, loc, cR, cTile(b, loc, blk, i, j), tiles.front(),
                      blk.rowBytes);
    }
  moveEdge(b, loc, blk, out, /*intoEdge=*/false);
  // Steps per iteration, the remainder in a loop of its own. After the
  // stores: the unroll moves the uses of the loop's results to that loop.
  int64_t unroll = stepUnroll(s);
  if (nest && unroll > 1 && failed(loopUnrollByFactor(nest->loops.back(), unroll)))
    emitWarning(loc) << "the reduction loop could not be unrolled by "
                     << unroll;
  if (nest && segments)
    unrollTapsOfA(loc, *nest, llvm::divideCeil(kSteps(), unroll));
}

std::pair<Value, SmallVector<Value>>
TileKernel::rowLoop(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                    Value rows) const {
  auto loop = scf::ForOp::create(b, loc, cIndex(b, loc, 0), rows,
                                 cIndex(b, loc, 1));
  b.setInsertionPointToStart(loop.getBody());
  Value r = loop.getInductionVar();
  SmallVector<Value> at(ivs);
  at[mLoop] = arith::AddIOp::create(b, loc, ivs[mLoop], r);
  return {r, at};
}

void TileKernel::copyEdge(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                          Value out, Value edge, Value rows, Value cols,
                          bool intoEdge) const {
  // Row by row with masked vector moves: no loop LLVM could turn into a
  // memcpy call, after which the tile configuration would be reloaded.
  auto edgeType = cast<MemRefType>(edge.getType());
  auto rowType = VectorType::get({edgeType.getDimSize(1)},
                                 edgeType.getElementType());
  Value mask = vector::CreateMaskOp::create(
      b, loc, VectorType::get(rowType.getShape(), b.getI1Type()),
      ValueRange{cols});
  Value zeros = arith::ConstantOp::create(b, loc, rowType,
                                          b.getZeroAttr(rowType));
  OpBuilder::InsertionGuard guard(b);
  auto [r, at] = rowLoop(b, loc, ivs, rows);
  SmallVector<Value> inC = applyMap(b, loc, c.operands[2].map, at);
  SmallVector<Value> inEdge = {r, cIndex(b, loc, 0)};
  Value from = intoEdge ? out : edge, to = intoEdge ? edge : out;
  ArrayRef<Value> fromAt = intoEdge ? inC : inEdge,
                  toAt = intoEdge ? inEdge : inC;
  Value row = vector::MaskedLoadOp::create(b, loc, rowType, from, fromAt,
                                           mask, zeros);
  vector::MaskedStoreOp::create(b, loc, to, toAt, mask, row);
}

void TileKernel::epilogueRows(OpBuilder &b, Location loc, ArrayRef<Value> ivs,
                              const Epilogue &epilogue, Value edge, Value rows,
                              Value cols) const {
  // A register's columns (nI) at a time: a row of the scratch is tn of
  // them, and a vector of 48 lanes made LLVM call fmaxf (after which the
  // tile configuration is loaded again).
  auto edgeType = cast<MemRefType>(edge.getType());
  auto chunkType = VectorType::get({nI}, edgeType.getElementType());
  int64_t chunks = edgeType.getDimSize(1) / nI;
  OpBuilder::InsertionGuard guard(b);
  auto [r, at] = rowLoop(b, loc, ivs, rows);
  for (int64_t j = 0; j < chunks; ++j) {
    SmallVector<Value> chunkAt(at);
    chunkAt[nLoop] =
        arith::AddIOp::create(b, loc, at[nLoop], cIndex(b, loc, j * nI));
    Value left = arith::SubIOp::create(b, loc, cols, cIndex(b, loc, j * nI));
    Value mask = vector::CreateMaskOp::create(
        b, loc, VectorType::get({nI}, b.getI1Type()), ValueRange{left});
    // Whole registers of the scratch: lanes past `cols` hold accumulators
    // of padding, which the mask keeps from the output.
    Value chunk = vector::LoadOp::create(
        b, loc, chunkType, edge, ValueRange{r, cIndex(b, loc, j * nI)});
    epilogue.apply(b, loc, chunk,
                   applyMap(b, loc, c.operands[2].map, chunkAt),
                   outputRowDim(), mask);
  }
}

LogicalResult TileKernel::canFuse(const Epilogue &epilogue,
                                  std::string &why) const {
  return epilogue.checkLanes(outputRowDim(), why);
}

} // namespace tisa
