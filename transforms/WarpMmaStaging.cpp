//===- WarpMmaStaging.cpp - slices of the inputs into shared memory -------===//
//
// See WarpMmaStaging.h.
//
//===----------------------------------------------------------------------===//

#include "WarpMmaStaging.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tisa {

Value SliceStager::below(Value flat, unsigned role) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, flat,
                               index(g.extent[role]));
}

void SliceStager::split(unsigned role, Value flat,
                          SmallVector<Value> &point) {
  // Inner loops first: flat = ((i0 * e1) + i1) * e2 + i2.
  ArrayRef<unsigned> loops = g.loops[role];
  for (unsigned i = loops.size(); i-- > 0;) {
    int64_t e = c.loops[loops[i]].extent;
    point[loops[i]] =
        i == 0 ? flat : arith::RemUIOp::create(b, loc, flat, index(e));
    if (i)
      flat = arith::DivUIOp::create(b, loc, flat, index(e));
  }
}

SmallVector<Value> SliceStager::programIndices(unsigned operand,
                                                 ArrayRef<Value> point,
                                                 Value &insideBuffer) {
  AffineMap map = c.operands[operand].map;
  SmallVector<Value> dims;
  for (Value v : point)
    dims.push_back(v ? v : index(0)); // loops the operand does not read
  const PaddedOperand *pad = nullptr;
  for (const PaddedOperand &p : padded)
    if (p.operand == operand)
      pad = &p;
  SmallVector<Value> idx;
  insideBuffer = Value();
  for (unsigned r = 0; r < map.getNumResults(); ++r) {
    Value v = affine::expandAffineExpr(b, loc, map.getResult(r), dims, {});
    if (pad && (pad->low[r] || pad->shape[r] != c.operands[operand].shape[r])) {
      // One unsigned compare: below the low edge wraps around.
      v = arith::SubIOp::create(b, loc, v, index(pad->low[r]));
      Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                       index(pad->shape[r]));
      insideBuffer =
          insideBuffer ? arith::AndIOp::create(b, loc, insideBuffer, in) : in;
    }
    idx.push_back(v);
  }
  return idx;
}

Value SliceStager::readProgram(unsigned operand, ArrayRef<Value> point,
                                 Value guard, Type t) {
  Value insideBuffer;
  SmallVector<Value> idx = programIndices(operand, point, insideBuffer);
  if (insideBuffer)
    guard = arith::AndIOp::create(b, loc, guard, insideBuffer);
  auto ifOp = scf::IfOp::create(
      b, loc, guard,
      [&](OpBuilder &, Location) {
        Value buffer = args[operand];
        scf::YieldOp::create(
            b, loc, memref::LoadOp::create(b, loc, buffer, idx).getResult());
      },
      [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, zero(t)); });
  return ifOp.getResult(0);
}

Value SliceStager::slicePoint(unsigned rowRole, Value row, Value k,
                              SmallVector<Value> &point) {
  point.assign(c.loops.size(), Value());
  split(rowRole, row, point);
  split(2, k, point);
  return arith::AndIOp::create(b, loc, below(row, rowRole), below(k, 2));
}

void SliceStager::stageElements(Value shared, Value offset, unsigned input,
                                int64_t rows, unsigned rowRole, Value rowBase,
                                Value kBase) {
  Type t = cast<MemRefType>(shared.getType()).getElementType();
  scf::ForOp::create(
      b, loc, tid, index(rows * BK), index(threads), ValueRange{},
      [&](OpBuilder &, Location, Value e, ValueRange) {
        Value row = add(rowBase, arith::DivUIOp::create(b, loc, e, index(BK)));
        Value k = add(kBase, arith::RemUIOp::create(b, loc, e, index(BK)));
        SmallVector<Value> point;
        Value guard = slicePoint(rowRole, row, k, point);
        Value v = readProgram(input, point, guard, t);
        memref::StoreOp::create(b, loc, v, shared, ValueRange{add(offset, e)});
        scf::YieldOp::create(b, loc);
      });
}

int64_t SliceStager::asyncChunk(unsigned input) const {
  const ProgramOperand &o = c.operands[input];
  AffineMap map = o.map;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last || last.getPosition() != g.loops[2].back() || o.shape.empty())
    return 0;
  // The innermost dimension must be read whole (not padded), so every
  // chunk lies in one row of it and rows start at multiples of the chunk.
  for (const PaddedOperand &p : padded)
    if (p.operand == input &&
        (p.low.back() || p.shape.back() != o.shape.back()))
      return 0;
  unsigned bytes = o.elementBytes();
  int64_t inner = c.loops[last.getPosition()].extent;
  for (int64_t chunkBytes : {16, 8, 4}) {
    int64_t chunk = chunkBytes / bytes;
    if (chunk && inner % chunk == 0 && BK % chunk == 0 &&
        o.shape.back() % chunk == 0)
      return chunk;
  }
  return 0;
}

int64_t SliceStager::sliceElements(unsigned input, int64_t rows) const {
  int64_t chunk = asyncChunk(input);
  if (!chunk)
    return rows * BK;
  int64_t chunks = rows * BK / chunk;
  return (chunks + threads - 1) / threads * threads * chunk;
}

void SliceStager::stageAsync(Value shared, Value offset, unsigned input,
                             int64_t rows, unsigned rowRole, Value rowBase,
                             Value kBase, SmallVectorImpl<Value> &tokens) {
  int64_t chunk = asyncChunk(input), perRow = BK / chunk;
  int64_t copies = sliceElements(input, rows) / chunk / threads;
  // Straight-line copies, the same number in every thread: chunks past the
  // slice land in its padding, zero-filled.
  for (int64_t i = 0; i < copies; ++i) {
    Value e = add(tid, index(i * threads));
    Value row = add(rowBase, arith::DivUIOp::create(b, loc, e, index(perRow)));
    Value k = add(kBase, arith::MulIOp::create(
                             b, loc,
                             arith::RemUIOp::create(b, loc, e, index(perRow)),
                             index(chunk)));
    SmallVector<Value> point;
    Value inside = slicePoint(rowRole, row, k, point);
    Value insideBuffer;
    SmallVector<Value> idx = programIndices(input, point, insideBuffer);
    if (insideBuffer)
      inside = arith::AndIOp::create(b, loc, inside, insideBuffer);
    // Outside: no byte is read (source size 0), the address kept valid.
    for (Value &v : idx)
      v = arith::SelectOp::create(b, loc, inside, v, index(0));
    Value size = arith::SelectOp::create(b, loc, inside, index(chunk), index(0));
    Value at = add(offset, arith::MulIOp::create(b, loc, e, index(chunk)));
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), shared,
        ValueRange{at}, args[input], idx, b.getIndexAttr(chunk), size,
        /*bypassL1=*/chunk * int64_t(c.operands[input].elementBytes()) == 16 ? b.getUnitAttr() : UnitAttr()));
  }
}

void SliceStager::stage(Value shared, Value offset, unsigned input,
                        int64_t rows, unsigned rowRole, Value rowBase,
                        Value kBase, SmallVectorImpl<Value> &tokens) {
  if (asyncChunk(input))
    stageAsync(shared, offset, input, rows, rowRole, rowBase, kBase, tokens);
  else
    stageElements(shared, offset, input, rows, rowRole, rowBase, kBase);
}

Value SliceStager::outputPoint(Value rowFlat, Value colFlat,
                                 SmallVector<Value> &point) {
  point.assign(c.loops.size(), Value());
  split(0, rowFlat, point);
  split(1, colFlat, point);
  return arith::AndIOp::create(b, loc, below(rowFlat, 0), below(colFlat, 1));
}

} // namespace tisa
