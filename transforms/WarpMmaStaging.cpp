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

Value SliceStager::pointOf(unsigned role0, Value flat0, unsigned role1,
                           Value flat1, SmallVector<Value> &point) {
  point.assign(c.loops.size(), Value());
  split(role0, flat0, point);
  split(role1, flat1, point);
  return arith::AndIOp::create(b, loc, below(flat0, role0),
                               below(flat1, role1));
}

/// The slice element `e` of `l` (its position in shared memory): its row
/// (of the row role) and k offsets within the slice.
std::pair<Value, Value> SliceStager::slicePosition(const SliceLayout &l,
                                                   Value e, int64_t along) {
  Value line = arith::DivUIOp::create(b, loc, e, index(along));
  Value pos = arith::RemUIOp::create(b, loc, e, index(along));
  return l.transposed ? std::make_pair(pos, line) : std::make_pair(line, pos);
}

void SliceStager::stageElements(Value shared, Value offset,
                                const SliceLayout &l, Value rowBase,
                                Value kBase) {
  Type t = cast<MemRefType>(shared.getType()).getElementType();
  scf::ForOp::create(
      b, loc, tid, index(l.rows * BK), index(threads), ValueRange{},
      [&](OpBuilder &, Location, Value e, ValueRange) {
        auto [r, kk] = slicePosition(l, e, l.transposed ? l.rows : BK);
        SmallVector<Value> point;
        Value guard =
            pointOf(l.rowRole, add(rowBase, r), 2, add(kBase, kk), point);
        Value v = readProgram(l.input, point, guard, t);
        memref::StoreOp::create(b, loc, v, shared, ValueRange{add(offset, e)});
        scf::YieldOp::create(b, loc);
      });
}

int64_t SliceStager::asyncChunk(const SliceLayout &l) const {
  const ProgramOperand &o = c.operands[l.input];
  auto last = dyn_cast<AffineDimExpr>(o.map.getResults().back());
  unsigned innermost = g.loops[l.transposed ? l.rowRole : 2].back();
  if (!last || last.getPosition() != innermost || o.shape.empty())
    return 0;
  // The innermost dimension must be read whole (not padded), so every
  // chunk lies in one row of it and rows start at multiples of the chunk.
  for (const PaddedOperand &p : padded)
    if (p.operand == l.input &&
        (p.low.back() || p.shape.back() != o.shape.back()))
      return 0;
  unsigned bytes = o.elementBytes();
  int64_t inner = c.loops[innermost].extent;
  int64_t along = l.transposed ? l.rows : BK;
  for (int64_t chunkBytes : {16, 8, 4}) {
    int64_t chunk = chunkBytes / bytes;
    if (chunk && inner % chunk == 0 && along % chunk == 0 &&
        o.shape.back() % chunk == 0)
      return chunk;
  }
  return 0;
}

int64_t SliceStager::sliceElements(const SliceLayout &l) const {
  int64_t chunk = asyncChunk(l);
  if (!chunk)
    return l.rows * BK;
  int64_t chunks = l.rows * BK / chunk;
  return (chunks + threads - 1) / threads * threads * chunk;
}

void SliceStager::stageAsync(Value shared, Value offset, const SliceLayout &l,
                             Value rowBase, Value kBase,
                             SmallVectorImpl<Value> &tokens) {
  int64_t chunk = asyncChunk(l);
  int64_t perLine = (l.transposed ? l.rows : BK) / chunk;
  int64_t copies = sliceElements(l) / chunk / threads;
  // Straight-line copies, the same number in every thread: chunks past the
  // slice land in its padding, zero-filled.
  for (int64_t i = 0; i < copies; ++i) {
    Value e = add(tid, index(i * threads));
    auto [r, kk] = slicePosition(l, arith::MulIOp::create(b, loc, e,
                                                          index(chunk)),
                                 perLine * chunk);
    SmallVector<Value> point;
    Value inside =
        pointOf(l.rowRole, add(rowBase, r), 2, add(kBase, kk), point);
    Value insideBuffer;
    SmallVector<Value> idx = programIndices(l.input, point, insideBuffer);
    if (insideBuffer)
      inside = arith::AndIOp::create(b, loc, inside, insideBuffer);
    // Outside: no byte is read (source size 0), the address kept valid.
    for (Value &v : idx)
      v = arith::SelectOp::create(b, loc, inside, v, index(0));
    Value size = arith::SelectOp::create(b, loc, inside, index(chunk), index(0));
    Value at = add(offset, arith::MulIOp::create(b, loc, e, index(chunk)));
    bool whole16 = chunk * c.operands[l.input].elementBytes() == 16;
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), shared,
        ValueRange{at}, args[l.input], idx, b.getIndexAttr(chunk), size,
        /*bypassL1=*/whole16 ? b.getUnitAttr() : UnitAttr()));
  }
}

void SliceStager::stage(Value shared, Value offset, const SliceLayout &l,
                        Value rowBase, Value kBase,
                        SmallVectorImpl<Value> &tokens) {
  if (asyncChunk(l))
    stageAsync(shared, offset, l, rowBase, kBase, tokens);
  else
    stageElements(shared, offset, l, rowBase, kBase);
}

} // namespace tisa
