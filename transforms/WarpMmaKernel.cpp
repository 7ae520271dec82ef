//===- WarpMmaKernel.cpp - GEMM kernels on warp-fragment instructions -----===//
//
// See WarpMmaKernel.h. The kernel, for a block (bm, bn), warp (wm, wn) and
// lane:
//
//   acc[i][j] = 0
//   for k0 in 0..K step BK:
//     sA[BM][BK] = A slice, sB[BK][BN] = B slice  (all threads; 0 past edges)
//     barrier
//     for kk, i, j (unrolled): a = sA fragment, b = sB fragment,
//                              acc[i][j] = mma(a, b, acc[i][j])
//     barrier
//   C fragments += acc[i][j] (inside the edges only)
//
// Shared memory holds the slices in the instruction's orientation (rows m,
// columns k for A; rows k, columns n for B), whatever the program's operand
// layouts are: the staging copy reads the program operands through their
// indexing maps.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/WarpMmaKernel.h"
#include "WarpFragmentReads.h"
#include "WarpMmaStaging.h"
#include "tisa/Semantics/AffineEval.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Transforms/Epilogue.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa {

namespace {

/// The instruction loop of semantic dimension `dim` of operand `op`.
unsigned instrLoopOf(const Description &d, unsigned op, unsigned dim) {
  return d.body.getIndexingMapsArray()[op].getDimPosition(dim);
}

/// m: read by A only, n: by B only, k: the reduction.
FailureOr<Roles> rolesOf(const Description &d) {
  SmallVector<AffineMap> maps = d.body.getIndexingMapsArray();
  auto iters = d.body.getIteratorTypesArray();
  if (iters.size() != 3)
    return failure();
  Roles r;
  bool seen[3] = {false, false, false};
  for (unsigned l = 0; l < 3; ++l) {
    bool inA = maps[0].isFunctionOfDim(l), inB = maps[1].isFunctionOfDim(l);
    unsigned &slot = iters[l] == utils::IteratorType::reduction ? r.k
                     : inA && !inB                              ? r.m
                                                                : r.n;
    unsigned role = &slot == &r.m ? 0 : &slot == &r.n ? 1 : 2;
    if (seen[role])
      return failure();
    seen[role] = true;
    slot = l;
  }
  return r;
}

/// The role of program loop `p` (0: m, 1: n, 2: k), or why it has none.
FailureOr<unsigned> programRole(const Contraction &c, const TensorizePlan &plan,
                                unsigned p, std::string &why) {
  bool inA = c.operands[plan.programInputOf[0]].map.isFunctionOfDim(p);
  bool inB = c.operands[plan.programInputOf[1]].map.isFunctionOfDim(p);
  const ProgramLoop &loop = c.loops[p];
  if (loop.reduction && inA && inB)
    return 2u;
  if (!loop.reduction && inA != inB)
    return inA ? 0u : 1u;
  why = "loop " + loop.name +
        (loop.reduction ? " is a reduction both inputs do not read"
                        : inA ? " is a batch loop (both inputs read it)"
                              : " is read by neither input");
  return failure();
}

FailureOr<Geometry> geometryOf(const Contraction &c, const TensorizePlan &plan,
                               std::string &why) {
  const Description &d = *plan.desc;
  FailureOr<Roles> roles = rolesOf(d);
  if (failed(roles)) {
    why = "the instruction is not an m x n x k matrix multiply";
    return failure();
  }
  Geometry g;
  g.instr = *roles;
  SmallVector<int64_t> ranges = d.body.getStaticLoopRanges();
  g.im = ranges[g.instr.m];
  g.in = ranges[g.instr.n];
  g.ik = ranges[g.instr.k];
  for (unsigned p = 0; p < c.loops.size(); ++p) {
    FailureOr<unsigned> role = programRole(c, plan, p, why);
    if (failed(role))
      return failure();
    g.loops[*role].push_back(p);
    g.extent[*role] *= c.loops[p].extent;
  }
  return g;
}

/// For each lane and element of operand `op`'s fragment, its offsets along
/// the instruction loops `rowLoop` and `colLoop`, as row * rowStride + col:
/// the inverse of the description's layout map, by enumeration.
std::vector<int32_t> fragmentTable(const Description &d, unsigned op,
                                   unsigned rowLoop, unsigned colLoop,
                                   int64_t rowStride, int64_t colStride) {
  const OperandRegister &reg = d.registers[op];
  int64_t perLane = reg.type.getDimSize(1);
  ArrayRef<int64_t> shape = d.operandShape(op);
  std::vector<int32_t> table(32 * perLane, 0);
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j) {
      SmallVector<int64_t> at = valueAt(reg.layout, {i, j});
      int64_t idx[2] = {i, j};
      int64_t offset = 0;
      for (unsigned dim = 0; dim < 2; ++dim) {
        unsigned l = instrLoopOf(d, op, dim);
        offset += idx[dim] * (l == rowLoop   ? rowStride
                              : l == colLoop ? colStride
                                             : 0);
      }
      table[at[0] * perLane + at[1]] = int32_t(offset);
    }
  return table;
}

/// How one input's fragment is read, and the name of its lane table (the
/// run starts, or the ldmatrix row each lane supplies).
struct FragmentReads {
  SliceLayout layout;
  FragmentReadPlan plan;
  std::string table;
  /// Entries of the table per lane.
  int64_t tableColumns() const {
    return plan.tiles ? 1 : plan.perLane / plan.run;
  }
};

/// Emits the kernel body; one method per part of the kernel.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, Location loc, const Contraction &c,
                const TensorizePlan &plan, const WarpMmaSchedule &s,
                const Geometry &g, FunctionType signature,
                ArrayRef<PaddedOperand> padded, linalg::GenericOp epilogue)
      : b(b), loc(loc), c(c), plan(plan), d(*plan.desc), s(s), g(g),
        signature(signature), padded(padded), epilogueOp(epilogue) {
    BM = s.warpsM * s.tileM * g.im;
    BN = s.warpsN * s.tileN * g.in;
    BK = s.kSteps * g.ik;
  }

  int64_t blockM() const { return BM; }
  int64_t blockN() const { return BN; }
  int64_t blocksM() const { return (g.M() + BM - 1) / BM; }
  int64_t blocksN() const { return (g.N() + BN - 1) / BN; }
  /// The grid's x runs over m's blocks unless n has more: x holds 2^31 - 1
  /// blocks, y 65535 (a convolution's pixels, m or n, can be millions).
  bool mOnX() const { return blocksM() >= blocksN(); }
  int64_t threads() const { return 32 * s.warpsM * s.warpsN; }
  /// Elements of one half of a shared buffer laid out as `l`.
  int64_t sliceElements(const SliceLayout &l) const {
    return query().sliceElements(l);
  }
  /// The alignment in bytes the kernel's reads of `l`'s program input
  /// need: cp.async's chunk, else one element.
  int64_t inputAlignment(const SliceLayout &l) const {
    int64_t bytes = c.operands[l.input].elementBytes();
    return std::max<int64_t>(bytes, query().asyncChunk(l) * bytes);
  }
  /// How instruction operand `op` is staged and read, its lane table named
  /// `table`: k in rows (transposed) where only that layout's lines are
  /// contiguous in memory and ldmatrix.trans reads its fragments.
  FragmentReads chooseReads(unsigned op, StringRef table) const;
  Type elementType(unsigned op) const {
    return d.registers[op].type.getElementType();
  }

  /// The body of `f`: arguments A, B, C (the program's operands), workgroup
  /// buffers sA, sB; the lane tables as memref.get_global symbols: the
  /// inputs' fragment reads, then C's row and column offsets.
  void emit(gpu::GPUFuncOp f, const FragmentReads &a, const FragmentReads &b,
            StringRef cRows, StringRef cCols);

private:
  /// A stager for questions about layouts (no code).
  SliceStager query() const {
    return SliceStager(b, loc, c, g, padded, {}, Value(), threads(), BK);
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t v) {
    return arith::MulIOp::create(b, loc, x, index(v));
  }
  Value zero(Type t) {
    return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
  }
  /// One lane's entries of a fragment table, as indices.
  SmallVector<Value> laneOffsets(StringRef table, int64_t perLane);
  /// `count` fragments of `op` read from `shared` at `base` plus multiples
  /// of `stride` as `reads` says, `offsets` the lane's entries of its table.
  SmallVector<Value> fragments(unsigned op, Value shared, Value base,
                               int64_t count, int64_t stride,
                               const FragmentReadPlan &reads,
                               ArrayRef<Value> offsets);
  /// One fragment by vector loads.
  Value loadFragment(unsigned op, Value shared, Value base,
                     const FragmentReadPlan &reads, ArrayRef<Value> offsets);
  /// The concatenation of equal vectors.
  Value concat(SmallVector<Value> parts);
  /// C += the accumulators, or the epilogue of each stored (inside the
  /// edges only).
  void storeAccumulators(Value cArg, Value rowBase, Value colBase,
                         ValueRange acc);
  /// Stores accumulator `v` at C's indices `idx`: added to C, or through
  /// the epilogue.
  void storeOne(Value cArg, ArrayRef<Value> idx, Value v);
  /// Stages reduction slice `k0` of both inputs into buffer half `which`;
  /// the cp.async group of its copies, or null when it has none.
  Value stageSlice(Value k0, Value which);
  /// The offset of instruction k step `kk` in a slice laid out as `l`.
  int64_t kOffset(const SliceLayout &l, int64_t kk) const {
    return l.transposed ? kk * g.ik * l.rows : kk * g.ik;
  }
  /// The offset between consecutive fragments along the row role.
  int64_t fragmentStride(const SliceLayout &l) const {
    int64_t instr = l.rowRole ? g.in : g.im;
    return l.transposed ? instr : instr * BK;
  }
  /// The offset of a warp's first row `warpRow` in a slice laid out as `l`.
  Value rowOffset(const SliceLayout &l, Value warpRow) {
    return l.transposed ? warpRow : mul(warpRow, BK);
  }
  /// One staged slice's instruction steps on the accumulators.
  SmallVector<Value> multiply(Value sA, Value sB, Value aBase, Value bBase,
                              SmallVector<Value> acc);

  OpBuilder &b;
  Location loc;
  const Contraction &c;
  const TensorizePlan &plan;
  const Description &d;
  const WarpMmaSchedule &s;
  const Geometry &g;
  FunctionType signature;
  ArrayRef<PaddedOperand> padded;
  linalg::GenericOp epilogueOp;
  /// The epilogue on the kernel's arguments, and its captured values.
  std::optional<Epilogue> epilogue;
  IRMapping captured;
  int64_t BM = 0, BN = 0, BK = 0;
  Value tid, lane;
  SmallVector<Value> offA, offB, offCm, offCn;
  FragmentReads readsA, readsB;
  std::optional<SliceStager> staging;
  Value sA, sB, bm0, bn0;
  int64_t halfA = 0, halfB = 0; ///< elements of one buffer half
};

SmallVector<Value> KernelEmitter::laneOffsets(StringRef table,
                                              int64_t perLane) {
  auto type = MemRefType::get({32, perLane}, b.getI32Type());
  Value t = memref::GetGlobalOp::create(b, loc, type, table);
  SmallVector<Value> out;
  for (int64_t e = 0; e < perLane; ++e) {
    Value v = memref::LoadOp::create(b, loc, t, ValueRange{lane, index(e)});
    out.push_back(arith::IndexCastOp::create(b, loc, b.getIndexType(), v));
  }
  return out;
}

Value KernelEmitter::concat(SmallVector<Value> parts) {
  while (parts.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      int64_t n = cast<VectorType>(parts[i].getType()).getNumElements();
      SmallVector<int64_t> mask;
      for (int64_t e = 0; e < 2 * n; ++e)
        mask.push_back(e);
      next.push_back(
          vector::ShuffleOp::create(b, loc, parts[i], parts[i + 1], mask));
    }
    parts = std::move(next);
  }
  return parts.front();
}

SmallVector<Value> KernelEmitter::fragments(unsigned op, Value shared,
                                            Value base, int64_t count,
                                            int64_t stride,
                                            const FragmentReadPlan &reads,
                                            ArrayRef<Value> offsets) {
  SmallVector<Value> out;
  if (!reads.tiles) {
    for (int64_t f = 0; f < count; ++f)
      out.push_back(loadFragment(op, shared, add(base, index(f * stride)),
                                 reads, offsets));
    return out;
  }
  // One ldmatrix per group of fragments: matrix i is register i % tiles of
  // fragment i / tiles.
  Type t = elementType(op);
  int64_t per = reads.perLane / reads.tiles;
  int64_t matrices = reads.tiles * reads.group;
  for (int64_t f = 0; f < count; f += reads.group) {
    Value at = add(add(base, index(f * stride)), offsets.front());
    Value m = nvgpu::LdMatrixOp::create(
        b, loc, VectorType::get({matrices, per}, t), shared, ValueRange{at},
        reads.transposed, uint32_t(matrices));
    for (int64_t g = 0; g < reads.group; ++g) {
      SmallVector<Value> registers;
      for (int64_t r = 0; r < reads.tiles; ++r)
        registers.push_back(
            vector::ExtractOp::create(b, loc, m, g * reads.tiles + r));
      out.push_back(concat(std::move(registers)));
    }
  }
  return out;
}

Value KernelEmitter::loadFragment(unsigned op, Value shared, Value base,
                                  const FragmentReadPlan &reads,
                                  ArrayRef<Value> offsets) {
  Type t = elementType(op);
  int64_t run = reads.run;
  if (run == 1) {
    SmallVector<Value> elements;
    for (Value o : offsets)
      elements.push_back(
          memref::LoadOp::create(b, loc, shared, ValueRange{add(base, o)}));
    auto type = VectorType::get({int64_t(offsets.size())}, t);
    return vector::FromElementsOp::create(b, loc, type, elements);
  }
  auto runType = VectorType::get({run}, t);
  llvm::MaybeAlign align(run * t.getIntOrFloatBitWidth() / 8);
  SmallVector<Value> parts;
  for (Value o : offsets)
    parts.push_back(vector::LoadOp::create(b, loc, runType, shared,
                                           ValueRange{add(base, o)},
                                           /*nontemporal=*/false, align));
  return concat(std::move(parts));
}

void KernelEmitter::storeAccumulators(Value cArg, Value rowBase, Value colBase,
                                      ValueRange acc) {
  for (int64_t i = 0; i < s.tileM; ++i)
    for (int64_t j = 0; j < s.tileN; ++j)
      for (auto [e, om, on] : llvm::enumerate(offCm, offCn)) {
        SmallVector<Value> point;
        Value exists =
            staging->pointOf(0, add(add(rowBase, index(i * g.im)), om), 1,
                             add(add(colBase, index(j * g.in)), on), point);
        Value unused;
        SmallVector<Value> idx = staging->programIndices(2, point, unused);
        Value v = vector::ExtractOp::create(b, loc, acc[i * s.tileN + j],
                                            ArrayRef<int64_t>{int64_t(e)});
        scf::IfOp::create(b, loc, exists, [&](OpBuilder &, Location) {
          storeOne(cArg, idx, v);
          scf::YieldOp::create(b, loc);
        });
      }
}

void KernelEmitter::storeOne(Value cArg, ArrayRef<Value> idx, Value v) {
  if (epilogue) {
    epilogue->applyScalar(b, loc, v, idx, captured);
    return;
  }
  Value old = memref::LoadOp::create(b, loc, cArg, idx);
  Value sum = isa<FloatType>(v.getType())
                  ? Value(arith::AddFOp::create(b, loc, old, v))
                  : Value(arith::AddIOp::create(b, loc, old, v));
  memref::StoreOp::create(b, loc, sum, cArg, idx);
}

SmallVector<Value> KernelEmitter::multiply(Value sA, Value sB, Value aBase,
                                           Value bBase,
                                           SmallVector<Value> acc) {
  for (int64_t kk = 0; kk < s.kSteps; ++kk) {
    SmallVector<Value> as = fragments(
        0, sA, add(aBase, index(kOffset(readsA.layout, kk))), s.tileM,
        fragmentStride(readsA.layout), readsA.plan, offA);
    SmallVector<Value> bs = fragments(
        1, sB, add(bBase, index(kOffset(readsB.layout, kk))), s.tileN,
        fragmentStride(readsB.layout), readsB.plan, offB);
    for (int64_t i = 0; i < s.tileM; ++i)
      for (int64_t j = 0; j < s.tileN; ++j) {
        Value &a = acc[i * s.tileN + j];
        ApplyOp mma = buildApply(b, loc, d, signature, {as[i], bs[j], a});
        // The PTX form, for the host lowering's warp-level reference.
        mma->setAttr(kPtxAttr, b.getStringAttr(d.mnemonic));
        a = mma.getResult();
      }
  }
  return acc;
}

FragmentReads KernelEmitter::chooseReads(unsigned op, StringRef table) const {
  unsigned rowLoop = op ? g.instr.n : g.instr.m;
  int64_t count = op ? s.tileN : s.tileM, instr = op ? g.in : g.im;
  int64_t perLane = d.registers[op].type.getDimSize(1);
  int64_t bytes = elementType(op).getIntOrFloatBitWidth() / 8;
  FragmentReads f;
  f.table = table.str();
  f.layout = {plan.programInputOf[op], op, op ? BN : BM, false};
  f.plan = planFragmentReads(fragmentTable(d, op, rowLoop, g.instr.k, BK, 1),
                             perLane, bytes, g.ik, count, instr * BK,
                             s.ldmatrix);
  SliceLayout t = f.layout;
  t.transposed = true;
  if (!s.ldmatrix || query().asyncChunk(f.layout) || !query().asyncChunk(t))
    return f;
  FragmentReadPlan p = planFragmentReads(
      fragmentTable(d, op, rowLoop, g.instr.k, 1, t.rows), perLane, bytes,
      instr, count, instr, /*ldmatrix=*/true, /*transposed=*/true);
  if (p.tiles) {
    f.layout = t;
    f.plan = std::move(p);
  }
  return f;
}

Value KernelEmitter::stageSlice(Value k0, Value which) {
  SmallVector<Value> tokens;
  staging->stage(sA, mul(which, halfA), readsA.layout, bm0, k0, tokens);
  staging->stage(sB, mul(which, halfB), readsB.layout, bn0, k0, tokens);
  if (tokens.empty())
    return Value();
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void KernelEmitter::emit(gpu::GPUFuncOp f, const FragmentReads &readA,
                         const FragmentReads &readB, StringRef cRows,
                         StringRef cCols) {
  Block &entry = f.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value argC = entry.getArgument(2);
  if (epilogueOp) {
    // Arguments after C: the epilogue's inputs but the accumulators, then
    // its captured values; the output is C's argument.
    unsigned inputs = epilogueOp.getNumDpsInputs() - 1;
    SmallVector<Value> values(entry.getArguments().slice(3, inputs));
    values.push_back(argC);
    epilogue.emplace(epilogueOp, values);
    for (auto [i, v] : llvm::enumerate(epilogue->capturedValues()))
      captured.map(v, entry.getArgument(3 + inputs + i));
  }
  sA = f.getWorkgroupAttributions()[0];
  sB = f.getWorkgroupAttributions()[1];

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, loc, tid, index(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, index(32));
  Value wm = arith::DivUIOp::create(b, loc, warp, index(s.warpsN));
  Value wn = arith::RemUIOp::create(b, loc, warp, index(s.warpsN));
  gpu::Dimension mDim = mOnX() ? gpu::Dimension::x : gpu::Dimension::y;
  gpu::Dimension nDim = mOnX() ? gpu::Dimension::y : gpu::Dimension::x;
  bm0 = mul(gpu::BlockIdOp::create(b, loc, mDim), BM);
  bn0 = mul(gpu::BlockIdOp::create(b, loc, nDim), BN);
  staging.emplace(b, loc, c, g, padded, entry.getArguments(), tid, threads(),
                  BK);
  readsA = readA;
  readsB = readB;
  halfA = sliceElements(readA.layout);
  halfB = sliceElements(readB.layout);
  offA = laneOffsets(readA.table, readA.tableColumns());
  offB = laneOffsets(readB.table, readB.tableColumns());
  offCm = laneOffsets(cRows, d.registers[2].type.getDimSize(1));
  offCn = laneOffsets(cCols, d.registers[2].type.getDimSize(1));

  Value warpRow = mul(wm, s.tileM * g.im), warpCol = mul(wn, s.tileN * g.in);
  Value rowBase = add(bm0, warpRow), colBase = add(bn0, warpCol);
  // The accumulators start at zero and C is added at the end: nothing of
  // C's addressing stays live across the reduction.
  auto accType = VectorType::get({int64_t(offCm.size())}, elementType(2));
  SmallVector<Value> acc(s.tileM * s.tileN,
                         arith::ConstantOp::create(b, loc, accType,
                                                   b.getZeroAttr(accType)));
  Value aBase = rowOffset(readA.layout, warpRow);
  Value bBase = rowOffset(readB.layout, warpCol);

  // Two buffers: slice s is read from half s % 2 while slice s + 1 is
  // copied into the other (the last step copies zeros past K).
  stageSlice(index(0), index(0));
  int64_t steps = (g.K() + BK - 1) / BK;
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(steps), index(1), acc,
      [&](OpBuilder &, Location, Value step, ValueRange iter) {
        Value which = arith::RemUIOp::create(b, loc, step, index(2));
        Value next = arith::SubIOp::create(b, loc, index(1), which);
        Value group = stageSlice(mul(add(step, index(1)), BK), next);
        // Every copy but the newest group's: slice s is in place.
        if (group)
          nvgpu::DeviceAsyncWaitOp::create(b, loc, group,
                                           b.getI32IntegerAttr(1));
        gpu::BarrierOp::create(b, loc);
        SmallVector<Value> out =
            multiply(sA, sB, add(aBase, mul(which, halfA)),
                     add(bBase, mul(which, halfB)), SmallVector<Value>(iter));
        gpu::BarrierOp::create(b, loc);
        scf::YieldOp::create(b, loc, out);
      });
  storeAccumulators(argC, rowBase, colBase, loop.getResults());
  gpu::ReturnOp::create(b, loc);
}

/// A private constant table of lane offsets in `gm`.
void addTable(OpBuilder &b, Location loc, StringRef name,
              const std::vector<int32_t> &values, int64_t perLane) {
  auto type = MemRefType::get({32, perLane}, b.getI32Type());
  auto tensorType = RankedTensorType::get({32, perLane}, b.getI32Type());
  memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"), type,
                           DenseElementsAttr::get(tensorType,
                                                  ArrayRef<int32_t>(values)),
                           /*constant=*/true, /*alignment=*/nullptr);
}

} // namespace

WarpMmaSchedule defaultWarpMmaSchedule(const Contraction &c,
                                       const TensorizePlan &plan) {
  WarpMmaSchedule s;
  std::string why;
  FailureOr<Geometry> g = geometryOf(c, plan, why);
  if (failed(g))
    return s;
  auto fit = [](int64_t &count, int64_t need) {
    count = std::max<int64_t>(1, std::min(count, need));
  };
  auto tiles = [](int64_t extent, int64_t step) {
    return (extent + step - 1) / step;
  };
  fit(s.tileM, tiles(g->M(), g->im));
  fit(s.warpsM, tiles(g->M(), g->im * s.tileM));
  fit(s.tileN, tiles(g->N(), g->in));
  fit(s.warpsN, tiles(g->N(), g->in * s.tileN));
  fit(s.kSteps, tiles(g->K(), g->ik));
  return s;
}

std::string whyNotWarpMmaGemm(const Contraction &c, const TensorizePlan &plan) {
  const Description &d = *plan.desc;
  if (!llvm::all_of(d.registers, [](const OperandRegister &r) {
        return r.cls == RegisterClass::WarpFragment;
      }))
    return "the instruction's registers are not warp fragments";
  if (plan.repair)
    return "repairs of signedness on warp fragments are not generated yet";
  if (!c.operands[2].map.isProjectedPermutation())
    return "the output is not indexed by the loops themselves";
  for (const ProgramOperand &o : c.operands)
    if (llvm::is_contained(o.shape, ShapedType::kDynamic))
      return "dynamic extents are not generated for warp fragments yet";
  std::string why;
  if (failed(geometryOf(c, plan, why)))
    return why;
  return "";
}

/// The kernel arguments after C that `epilogue` needs: its inputs but the
/// accumulators, then the values its body captures; or why it cannot run
/// on the accumulators of `c`.
static FailureOr<SmallVector<Type>>
epilogueArguments(linalg::GenericOp epilogue, const Contraction &c,
                  std::string &why) {
  if (failed(Epilogue::check(epilogue, why))) {
    why = "the epilogue cannot be fused: " + why;
    return failure();
  }
  auto acc = cast<MemRefType>(epilogue.getDpsInputs()[0].getType());
  auto out = cast<MemRefType>(epilogue.getDpsInits()[0].getType());
  if (acc.getShape() != ArrayRef<int64_t>(c.operands[2].shape) ||
      out.getShape() != acc.getShape() ||
      !epilogue.getIndexingMapsArray()[0].isIdentity()) {
    why = "the epilogue does not read the accumulators in the output's shape "
          "and order";
    return failure();
  }
  // The ranges held in locals: a range-for over drop_begin of a temporary
  // read it after its end (AddressSanitizer: stack-use-after-scope).
  SmallVector<Type> types;
  SmallVector<Value> inputs(epilogue.getDpsInputs());
  for (Value v : llvm::drop_begin(inputs))
    types.push_back(v.getType());
  SmallVector<Value> captured = Epilogue(epilogue, {}).capturedValues();
  for (Value v : captured)
    types.push_back(v.getType());
  for (Type t : types) {
    auto m = dyn_cast<MemRefType>(t);
    if (m ? !m.hasStaticShape() || !m.getLayout().isIdentity()
          : !t.isIntOrFloat()) {
      why = "an operand of the epilogue is neither a scalar nor a dense "
            "memref of static shape";
      return failure();
    }
  }
  return types;
}

FailureOr<WarpMmaLaunch>
buildWarpMmaKernel(ModuleOp module, StringRef name, const Contraction &c,
                   const TensorizePlan &plan, const WarpMmaSchedule &schedule,
                   std::string &why, ArrayRef<PaddedOperand> padded,
                   linalg::GenericOp epilogue) {
  why = whyNotWarpMmaGemm(c, plan);
  if (!why.empty())
    return failure();
  SmallVector<Type> epilogueArgs;
  if (epilogue) {
    FailureOr<SmallVector<Type>> extra = epilogueArguments(epilogue, c, why);
    if (failed(extra))
      return failure();
    epilogueArgs = *extra;
  }
  SmallVector<int64_t> argShapes[3];
  for (unsigned i = 0; i < 3; ++i)
    argShapes[i] = c.operands[i].shape;
  for (const PaddedOperand &p : padded) {
    ArrayRef<int64_t> view = c.operands[p.operand].shape;
    bool fits = p.operand < 2 && p.low.size() == view.size() &&
                p.shape.size() == view.size();
    for (unsigned r = 0; fits && r < view.size(); ++r)
      fits = p.low[r] >= 0 && p.shape[r] >= 0 && p.low[r] + p.shape[r] <= view[r];
    if (!fits) {
      why = "a padded operand's buffer must be an input and lie inside the "
            "contraction's view of it";
      return failure();
    }
    argShapes[p.operand] = p.shape;
  }
  FailureOr<Geometry> g = geometryOf(c, plan, why);
  const Description &d = *plan.desc;
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<arith::ArithDialect, gpu::GPUDialect, memref::MemRefDialect,
                   nvgpu::NVGPUDialect, scf::SCFDialect, vector::VectorDialect,
                   TisaDialect>();
  Location loc = c.op ? c.op->getLoc() : UnknownLoc::get(ctx);
  FailureOr<FunctionType> signature =
      loweringSignature(d, ctx, [&]() { return emitError(loc); });
  if (failed(signature)) {
    why = "the instruction's intrinsic does not fit its registers";
    return failure();
  }

  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  WarpMmaLaunch launch;
  launch.kernel = name.str();
  launch.module = (name + "_kernels").str();
  auto gm = gpu::GPUModuleOp::create(b, loc, launch.module);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  b.setInsertionPointToStart(gm.getBody());

  KernelEmitter emitter(b, loc, c, plan, schedule, *g, *signature, padded,
                        epilogue);
  int64_t BM = emitter.blockM(), BN = emitter.blockN();
  // Shared memory holds each input with k innermost (A [BM][BK], B
  // [BN][BK]), or transposed where only that copies as whole lines
  // (chooseReads); the lane tables say where each lane's elements are.
  Roles r = g->instr;
  FragmentReads reads[2];
  for (unsigned op = 0; op < 2; ++op) {
    reads[op] = emitter.chooseReads(
        op, (name + (op ? "_lanes_b" : "_lanes_a")).str());
    const FragmentReadPlan &p = reads[op].plan;
    addTable(b, loc, reads[op].table, p.tiles ? p.rows : p.starts,
             reads[op].tableColumns());
  }
  std::string cRows = name.str() + "_lanes_cm", cCols = name.str() + "_lanes_cn";
  int64_t perLaneC = d.registers[2].type.getDimSize(1);
  addTable(b, loc, cRows, fragmentTable(d, 2, r.m, r.n, 1, 0), perLaneC);
  addTable(b, loc, cCols, fragmentTable(d, 2, r.m, r.n, 0, 1), perLaneC);

  SmallVector<Type> args;
  for (unsigned i = 0; i < 3; ++i)
    args.push_back(MemRefType::get(argShapes[i], c.operands[i].elementType));
  if (epilogue) {
    args[2] = MemRefType::get(
        argShapes[2], getElementTypeOrSelf(epilogue.getDpsInits()[0]));
    llvm::append_range(args, epilogueArgs);
  }
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  // Two halves per input (double buffering).
  int64_t sharedElements[2] = {2 * emitter.sliceElements(reads[0].layout),
                               2 * emitter.sliceElements(reads[1].layout)};
  Type shared[2] = {MemRefType::get({sharedElements[0]}, emitter.elementType(0),
                                    AffineMap(), workgroup),
                    MemRefType::get({sharedElements[1]}, emitter.elementType(1),
                                    AffineMap(), workgroup)};
  auto f = gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(args, {}),
                                  TypeRange(shared));
  f->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  f.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(emitter.threads()), 1, 1}));
  // 16-byte alignment for the vector reads.
  for (unsigned i = 0; i < 2; ++i)
    f.setWorkgroupAttributionAttr(i, b.getStringAttr("llvm.align"),
                                  b.getI64IntegerAttr(16));
  emitter.emit(f, reads[0], reads[1], cRows, cCols);

  const char *roleNames[3] = {"m", "n", "k"};
  for (unsigned role = 0; role < 3; ++role) {
    SmallVector<std::string> names;
    for (unsigned p : g->loops[role])
      names.push_back(c.loops[p].name);
    launch.loops += llvm::formatv("{0}{1} <- {2}({3})", role ? ", " : "",
                                  roleNames[role], llvm::join(names, "."),
                                  g->extent[role]);
  }
  launch.blockThreads = emitter.threads();
  launch.blockM = BM;
  launch.blockN = BN;
  for (const FragmentReads &read : reads)
    launch.inputAlignment[read.layout.input] =
        emitter.inputAlignment(read.layout);
  launch.gridX = emitter.mOnX() ? emitter.blocksM() : emitter.blocksN();
  launch.gridY = emitter.mOnX() ? emitter.blocksN() : emitter.blocksM();
  launch.sharedBytes =
      (sharedElements[0] * emitter.elementType(0).getIntOrFloatBitWidth() +
       sharedElements[1] * emitter.elementType(1).getIntOrFloatBitWidth()) /
      8;
  return launch;
}

} // namespace tisa
