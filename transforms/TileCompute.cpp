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

/// A zero-filled copy of `src` of `shape`, `src` placed at `offsets`.
Value paddedCopy(OpBuilder &b, Location loc, Value src,
                 ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets) {
  auto srcType = cast<MemRefType>(src.getType());
  Type elt = srcType.getElementType();
  Value buffer = memref::AllocOp::create(b, loc, MemRefType::get(shape, elt),
                                         b.getI64IntegerAttr(64));
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getZeroAttr(elt));
  linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{buffer});
  SmallVector<OpFoldResult> at, sizes, ones;
  for (unsigned d = 0; d < shape.size(); ++d) {
    at.push_back(b.getIndexAttr(offsets.empty() ? 0 : offsets[d]));
    sizes.push_back(b.getIndexAttr(srcType.getDimSize(d)));
    ones.push_back(b.getIndexAttr(1));
  }
  Value interior =
      memref::SubViewOp::create(b, loc, buffer, at, sizes, ones);
  linalg::CopyOp::create(b, loc, src, interior);
  return buffer;
}

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

void TileKernel::emitCompute(OpBuilder &b, Location loc, Value input,
                             Value buffer, Value output, bool overwrite,
                             const Schedule &s, Value begin, Value end,
                             ArrayRef<int64_t> inputPadding) const {
  SmallVector<int64_t> padded = paddedExtents(s);
  SmallVector<int64_t> aShape = operandExtents(aInput, padded);
  SmallVector<int64_t> cShape = operandExtents(2, padded);
  Value a = input, edge;
  bool copyA = needsCopy(input, aShape, inputPadding);
  if (copyA)
    a = paddedCopy(b, loc, input, aShape, inputPadding);
  if (needsCopy(output, cShape, {})) {
    forbidLibraryCalls(b);
    auto [tm, tn] = registerTile(s);
    edge = memref::AllocaOp::create(
        b, loc,
        MemRefType::get({tm * mI, tn * nI},
                        cast<MemRefType>(output.getType()).getElementType()),
        b.getI64IntegerAttr(64));
  }
  emitTileLoop(b, loc, a, buffer, output, edge, overwrite, s, begin, end);
  if (copyA)
    memref::DeallocOp::create(b, loc, a);
}

void TileKernel::emitTileLoop(OpBuilder &b, Location loc, Value a,
                              Value buffer, Value cBuf, Value edge,
                              bool overwrite,
                              const Schedule &s, Value begin,
                              Value end) const {
  auto [tm, tn] = registerTile(s);
  int64_t mBlocks = paddedExtents(s)[mLoop] / (mI * tm);
  Value lo = begin ? begin : cIndex(b, loc, 0);
  Value hi = end ? end : cIndex(b, loc, partitionTiles(s));
  auto tiles = scf::ForOp::create(b, loc, lo, hi, cIndex(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tiles.getBody());
  // t = ((outer parallel...) * m blocks + m block)
  Value rest = tiles.getInductionVar();
  SmallVector<Value> ivs(extent.size(), cIndex(b, loc, 0));
  auto digit = [&](int64_t radix) {
    Value r = cIndex(b, loc, radix);
    Value v = arith::RemUIOp::create(b, loc, rest, r);
    rest = arith::DivUIOp::create(b, loc, rest, r);
    return v;
  };
  Value mBlock = digit(mBlocks);
  for (unsigned l : llvm::reverse(outerParallel))
    ivs[l] = digit(extent[l]);
  ivs[mLoop] = arith::MulIOp::create(b, loc, mBlock, cIndex(b, loc, mI * tm));
  auto blocks = scf::ForOp::create(b, loc, cIndex(b, loc, 0),
                                   cIndex(b, loc, panels(s) / tn),
                                   cIndex(b, loc, 1));
  b.setInsertionPointToStart(blocks.getBody());
  ivs[nLoop] = blocks.getInductionVar(); // in blocks of tn panels
  emitBlock(b, loc, ivs, a, buffer, cBuf, edge, overwrite, s);
}

void TileKernel::emitBlock(OpBuilder &b, Location loc, ArrayRef<Value> blockIvs,
                           Value a, Value buffer, Value cBuf, Value edge,
                           bool overwrite, const Schedule &s) const {
  int64_t tm = registerTile(s).first, tn = registerTile(s).second;
  unsigned loops = extent.size();
  const OperandRegister &aR = d->registers[aReg], &bR = d->registers[bReg],
                        &cR = d->registers[cReg];
  Addressing aAt(b, loc, a), cAt(b, loc, cBuf), bAt(b, loc, buffer);
  AffineMap aMap = c.operands[aInput].map, cMap = c.operands[2].map;
  Value aRow = aAt.rowBytes(b, loc, aMap, mLoop, loops);
  Value cRow = cAt.rowBytes(b, loc, cMap, mLoop, loops);
  Value nBlock = blockIvs[nLoop];
  SmallVector<Value> at0(blockIvs);
  at0[nLoop] =
      arith::MulIOp::create(b, loc, nBlock, cIndex(b, loc, tn * nI));
  // A block that leaves C goes through `edge`: its valid rows and columns.
  Value full, rows, cols;
  if (edge) {
    auto valid = [&](unsigned l, int64_t size) {
      Value left = arith::SubIOp::create(b, loc, cIndex(b, loc, extent[l]),
                                         at0[l]);
      return arith::MinSIOp::create(b, loc, left, cIndex(b, loc, size));
    };
    rows = valid(mLoop, tm * mI);
    cols = valid(nLoop, tn * nI);
    full = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rows,
                              cIndex(b, loc, tm * mI)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cols,
                              cIndex(b, loc, tn * nI)));
    cRow = arith::SelectOp::create(
        b, loc, full, cRow,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(
                                              tn * nI * cAt.eltBytes)));
  }
  auto ifEdge = [&](bool intoEdge) {
    if (!edge)
      return;
    Value notFull = arith::XOrIOp::create(
        b, loc, full, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    auto branch = scf::IfOp::create(b, loc, notFull);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    copyEdge(b, loc, at0, cBuf, edge, rows, cols, intoEdge);
  };
  Addressing edgeAt = edge ? Addressing(b, loc, edge) : cAt;
  // C tile (i, j)'s address at the block's loop values.
  auto cTile = [&](int64_t i, int64_t j) {
    SmallVector<Value> at(at0);
    at[mLoop] = arith::AddIOp::create(b, loc, at0[mLoop],
                                      cIndex(b, loc, i * mI));
    at[nLoop] = arith::AddIOp::create(b, loc, at0[nLoop],
                                      cIndex(b, loc, j * nI));
    Value inC = cAt.pointer(b, loc, applyMap(b, loc, cMap, at));
    if (!edge)
      return inC;
    Value inEdge = edgeAt.pointer(
        b, loc, {cIndex(b, loc, i * mI), cIndex(b, loc, j * nI)});
    return arith::SelectOp::create(b, loc, full, inC, inEdge).getResult();
  };
  if (!overwrite)
    ifEdge(true);
  SmallVector<Value> acc;
  for (int64_t i = 0; i < tm; ++i)
    for (int64_t j = 0; j < tn; ++j)
      acc.push_back(overwrite ? zeroRegister(b, loc, cR)
                              : loadRegister(b, loc, cR, cTile(i, j), cRow));
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned l : outerReduction) {
    lbs.push_back(cIndex(b, loc, 0));
    ubs.push_back(cIndex(b, loc, extent[l]));
    steps.push_back(cIndex(b, loc, 1));
  }
  lbs.push_back(cIndex(b, loc, 0));
  ubs.push_back(cIndex(b, loc, kSteps()));
  steps.push_back(cIndex(b, loc, 1));
  int64_t nPanels = panels(s), nSteps = kSteps();
  auto body = [&](OpBuilder &b, Location loc, ValueRange iv,
                  ValueRange carried) -> scf::ValueVector {
    SmallVector<Value> at(blockIvs);
    for (auto [l, v] : llvm::zip(outerReduction, iv))
      at[l] = v;
    Value step = iv.back();
    at[kLoop] = arith::MulIOp::create(b, loc, step, cIndex(b, loc, kI));
    SmallVector<Value> aTiles, bTiles;
    Value m0 = at[mLoop];
    for (int64_t i = 0; i < tm; ++i) {
      at[mLoop] = arith::AddIOp::create(b, loc, m0, cIndex(b, loc, i * mI));
      aTiles.push_back(loadRegister(
          b, loc, aR, aAt.pointer(b, loc, applyMap(b, loc, aMap, at)), aRow));
    }
    // B's tile: ((B's other loops) * panels + panel) * steps + step.
    Value outer = cIndex(b, loc, 0);
    for (unsigned l : bOuter)
      outer = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, outer, cIndex(b, loc, extent[l])),
          at[l]);
    for (int64_t j = 0; j < tn; ++j) {
      Value panel = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, nBlock, cIndex(b, loc, tn)),
          cIndex(b, loc, j));
      Value tile = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc,
              arith::AddIOp::create(
                  b, loc,
                  arith::MulIOp::create(b, loc, outer,
                                        cIndex(b, loc, nPanels)),
                  panel),
              cIndex(b, loc, nSteps)),
          step);
      Value byte =
          arith::MulIOp::create(b, loc, tile, cIndex(b, loc, tileBytes(bReg)));
      bTiles.push_back(loadRegister(b, loc, bR, bAt.pointer(b, loc, {byte})));
    }
    scf::ValueVector next;
    for (int64_t i = 0; i < tm; ++i)
      for (int64_t j = 0; j < tn; ++j) {
        SmallVector<Value> regs(3);
        regs[aReg] = aTiles[i];
        regs[bReg] = bTiles[j];
        regs[cReg] = carried[i * tn + j];
        next.push_back(buildApply(b, loc, *d, signature, regs).getResult());
      }
    return next;
  };
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, ubs, steps, acc, body);
  for (int64_t i = 0; i < tm; ++i)
    for (int64_t j = 0; j < tn; ++j)
      storeRegister(b, loc, cR, cTile(i, j), nest.results[i * tn + j], cRow);
  ifEdge(false);
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
  auto rowLoop = scf::ForOp::create(b, loc, cIndex(b, loc, 0), rows,
                                    cIndex(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rowLoop.getBody());
  Value r = rowLoop.getInductionVar();
  SmallVector<Value> at(ivs);
  at[mLoop] = arith::AddIOp::create(b, loc, ivs[mLoop], r);
  SmallVector<Value> inC = applyMap(b, loc, c.operands[2].map, at);
  SmallVector<Value> inEdge = {r, cIndex(b, loc, 0)};
  Value from = intoEdge ? out : edge, to = intoEdge ? edge : out;
  ArrayRef<Value> fromAt = intoEdge ? inC : inEdge,
                  toAt = intoEdge ? inEdge : inC;
  Value row = vector::MaskedLoadOp::create(b, loc, rowType, from, fromAt,
                                           mask, zeros);
  vector::MaskedStoreOp::create(b, loc, to, toAt, mask, row);
}

} // namespace tisa
