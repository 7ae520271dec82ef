//===- GpuToHost.cpp - GPU kernels run on the host, phase by phase --------===//
//
// -tisa-gpu-to-host (Passes.td says what it does). The kernel body is a list
// of ops; `BlockEmulator::emitList` walks it, emitting ops that do not depend
// on the thread once (block level), collecting the others into the current
// phase, and cutting the phase at each synchronization point:
//
//   gpu.barrier          the phase ends: every thread has run it
//   tisa.apply (warp)    the phase ends; the mma runs once per warp on the
//                        lanes' fragments (tisa_emulate_mma)
//   nvgpu.ldmatrix       the phase ends; each lane gathers its registers
//                        from the rows its warp's lanes supply
//
// cp.async (nvgpu.device_async_copy) runs as a plain copy where it stands.
//   scf.for with either  the phase ends; the loop runs at block level and its
//                        body is emitted the same way
//
// A phase becomes `scf.for %thread = 0 to T { ... }`. Values that cross a
// cut live in per-thread buffers (memref<T x type>): stored where they are
// made, loaded where they are used.
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Targets/WarpMma.h"
#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tisa {
#define GEN_PASS_DEF_TISAGPUTOHOSTPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

constexpr StringLiteral kEmulateMma = "tisa_emulate_mma";

bool isWarpApply(Operation *op) {
  return isa<ApplyOp>(op) && op->hasAttr(kPtxAttr);
}

/// Ops every lane of a warp takes part in.
bool isWarpCollective(Operation *op) {
  return isWarpApply(op) || isa<nvgpu::LdMatrixOp>(op);
}

/// Whether `op` (or anything nested in it) synchronizes threads.
bool synchronizes(Operation *op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (isa<gpu::BarrierOp>(inner) || isWarpCollective(inner))
      found = true;
  });
  return found;
}

/// Emulates one thread block of a kernel inside a host function.
class BlockEmulator {
public:
  BlockEmulator(OpBuilder &b, Location loc, int64_t threads, Block *entry)
      : b(b), loc(loc), threads(threads), entry(entry) {}

  /// Block-level values: arguments, block ids, workgroup buffers.
  IRMapping uniform;

  LogicalResult emitList(Block &body);
  /// Releases the per-thread buffers (before the function returns).
  void releaseBuffers();

private:
  bool isUniformOp(Operation *op) const;
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// The per-thread buffer of `v` (made at function entry on first use).
  Value bufferOf(Value v);
  /// `v` for the thread `thread`, inside a phase.
  Value valueFor(Value v, Value thread, IRMapping &phase);
  /// Emits the collected ops as one phase.
  void flush();
  /// The per-thread buffer holding `v` (a uniform value copied in).
  Value perThread(Value v);
  LogicalResult emitWarpApply(ApplyOp op);
  /// nvgpu.ldmatrix: each lane's registers gathered from the rows its
  /// warp's lanes supply.
  LogicalResult emitLdMatrix(nvgpu::LdMatrixOp op);
  LogicalResult emitCutLoop(scf::ForOp loop);
  /// Values of the current phase that later phases use.
  bool usedOutsidePhase(Value v) const;

  OpBuilder &b;
  Location loc;
  int64_t threads;
  Block *entry;
  SmallVector<Operation *> phase;
  llvm::SmallPtrSet<Operation *, 32> inPhase;
  /// Per-thread values: their buffers.
  DenseMap<Value, Value> buffers;
  SmallVector<Value> allocated;
};

/// The gpu ops the host lowering models: x thread ids of one-dimensional
/// blocks, x/y block ids, barriers and the return.
LogicalResult checkSupported(Operation &op) {
  if (isa<nvgpu::LdMatrixOp>(op))
    return success();
  if (isa<nvgpu::NVGPUDialect>(op.getDialect()))
    return op.emitError() << "the host lowering of GPU kernels does not "
                             "model '"
                          << op.getName() << "' (ldmatrix only)";
  if (!isa<gpu::GPUDialect>(op.getDialect()))
    return success();
  if (auto id = dyn_cast<gpu::ThreadIdOp>(op);
      id && id.getDimension() == gpu::Dimension::x)
    return success();
  if (auto id = dyn_cast<gpu::BlockIdOp>(op);
      id && id.getDimension() != gpu::Dimension::z)
    return success();
  if (isa<gpu::BarrierOp, gpu::ReturnOp>(op))
    return success();
  return op.emitError() << "the host lowering of GPU kernels does not model '"
                        << op.getName() << "' here (x thread ids, x/y block "
                        << "ids, barriers)";
}

bool BlockEmulator::isUniformOp(Operation *op) const {
  if (op->getNumRegions() || isa<gpu::ThreadIdOp>(op) || isWarpCollective(op) ||
      !isMemoryEffectFree(op))
    return false;
  return llvm::all_of(op->getOperands(),
                      [&](Value v) { return uniform.contains(v); });
}

Value BlockEmulator::bufferOf(Value v) {
  auto it = buffers.find(v);
  if (it != buffers.end())
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get({threads}, v.getType()));
  allocated.push_back(buffer);
  buffers[v] = buffer;
  return buffer;
}

Value BlockEmulator::valueFor(Value v, Value thread, IRMapping &phase) {
  if (Value mapped = phase.lookupOrNull(v))
    return mapped;
  if (v.getDefiningOp<gpu::ThreadIdOp>()) {
    phase.map(v, thread); // every phase's own loop counter
    return thread;
  }
  if (Value u = uniform.lookupOrNull(v))
    return u;
  auto it = buffers.find(v);
  assert(it != buffers.end() && "a per-thread value without its buffer");
  Value loaded = memref::LoadOp::create(b, loc, it->second, ValueRange{thread});
  phase.map(v, loaded);
  return loaded;
}

bool BlockEmulator::usedOutsidePhase(Value v) const {
  for (Operation *user : v.getUsers()) {
    Operation *top = user;
    while (top && !inPhase.contains(top))
      top = top->getParentOp();
    if (!top)
      return true;
  }
  return false;
}

void BlockEmulator::flush() {
  if (phase.empty())
    return;
  // Values the phase reads from earlier phases, and values it leaves for
  // later ones.
  SetVector<Value> incoming;
  for (Operation *op : phase)
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if ((buffers.count(v) && !uniform.contains(v)) ||
            (v.getDefiningOp<gpu::ThreadIdOp>() &&
             !inPhase.contains(v.getDefiningOp())))
          incoming.insert(v);
    });
  SmallVector<Value> outgoing;
  for (Operation *op : phase)
    for (Value r : op->getResults())
      if (!isa<gpu::ThreadIdOp>(op) && usedOutsidePhase(r)) {
        bufferOf(r);
        outgoing.push_back(r);
      }
  scf::ForOp::create(
      b, loc, index(0), index(threads), index(1), ValueRange{},
      [&](OpBuilder &, Location, Value thread, ValueRange) {
        IRMapping mapping;
        for (auto [from, to] : uniform.getValueMap())
          mapping.map(from, to);
        for (Value v : incoming)
          valueFor(v, thread, mapping);
        for (Operation *op : phase) {
          if (auto tid = dyn_cast<gpu::ThreadIdOp>(op)) {
            mapping.map(tid.getResult(), thread);
            continue;
          }
          b.clone(*op, mapping);
        }
        for (Value v : outgoing)
          memref::StoreOp::create(b, loc, mapping.lookup(v), buffers[v],
                                  ValueRange{thread});
        scf::YieldOp::create(b, loc);
      });
  phase.clear();
  inPhase.clear();
}

/// The op's registers in the order the instruction takes them (A, B, C):
/// the lowering's `order` (one entry per intrinsic parameter, so a fragment
/// of several 32-bit parameters repeats its register), as the emitted
/// mma.sync passes them.
FailureOr<SmallVector<Value>> mmaOperands(ApplyOp op) {
  SmallVector<int64_t> registers;
  for (int64_t r : op.getOrder())
    if (registers.empty() || registers.back() != r)
      registers.push_back(r);
  auto distinct = llvm::to_vector(registers);
  llvm::sort(distinct);
  if (op.getRegisters().size() != 3 || registers.size() != 3 ||
      distinct != SmallVector<int64_t>{0, 1, 2})
    return op.emitError() << "a warp-level mma takes three registers (A, B, "
                             "C) each once, in the order of its parameters";
  SmallVector<Value> out;
  for (int64_t r : registers)
    out.push_back(op.getRegisters()[r]);
  return out;
}

/// The registers of `op` must be the lanes' fragments of `form` (A, B, C:
/// vectors of the form's elements per lane at the register width it reads),
/// since tisa_emulate_mma reads and writes exactly those.
LogicalResult checkFragments(ApplyOp op, ArrayRef<Value> operands,
                             const nvptx::MmaForm &form) {
  nvptx::FragmentSizes sizes = nvptx::fragmentSizes(form);
  unsigned perLane[3] = {sizes.a, sizes.b, sizes.c};
  nvptx::PtxType types[3] = {form.a, form.b, form.c};
  for (auto [i, v] : llvm::enumerate(operands)) {
    auto t = dyn_cast<VectorType>(v.getType());
    unsigned bits = nvptx::registerBits(types[i]);
    if (!t || t.getRank() != 1 || t.getNumElements() != perLane[i] ||
        t.getElementTypeBitWidth() != bits || bits % 8)
      return op.emitError()
             << "mma operand " << "ABC"[i] << " (" << v.getType()
             << ") is not one "
             << "lane's fragment of '" << form.mnemonic() << "': "
             << perLane[i] << " elements of " << bits << " bits";
  }
  return success();
}

Value BlockEmulator::perThread(Value v) {
  // A uniform value (or the thread id itself, which phases never buffer) is
  // copied in at every warp op that reads it (the first one may sit in a
  // loop that runs no iteration).
  bool threadId = bool(v.getDefiningOp<gpu::ThreadIdOp>());
  if (uniform.contains(v) || threadId) {
    Value buffer = bufferOf(v);
    scf::ForOp::create(b, loc, index(0), index(threads), index(1),
                       ValueRange{},
                       [&](OpBuilder &, Location, Value t, ValueRange) {
                         memref::StoreOp::create(
                             b, loc, threadId ? t : uniform.lookup(v), buffer,
                             ValueRange{t});
                         scf::YieldOp::create(b, loc);
                       });
  }
  auto it = buffers.find(v);
  assert(it != buffers.end() && "a per-thread value without its buffer");
  return it->second;
}

LogicalResult BlockEmulator::emitLdMatrix(nvgpu::LdMatrixOp op) {
  if (threads % 32)
    return op.emitError() << "a block of " << threads
                          << " threads is not a whole number of warps";
  Value source = op.getSrcMemref();
  if (!uniform.contains(source) || op.getIndices().size() != 1)
    return op.emitError() << "the host lowering models ldmatrix from one "
                             "block-wide one-dimensional buffer";
  Value rows = perThread(op.getIndices().front());

  Value out = bufferOf(op.getResult());
  VectorType type = op.getRes().getType();
  int64_t tiles = type.getDimSize(0), per = type.getDimSize(1);
  bool trans = op.getTranspose();
  if (trans && per != 2)
    return op.emitError() << "ldmatrix.trans reads 16-bit elements";
  // Lane l receives from matrix i the `per` elements at 4 * (l % 4) bytes
  // into the row that lane 8 * i + l / 4 of its warp supplies; with .trans,
  // element j at column l / 4 of the row of lane 8 * i + 2 * (l % 4) + j.
  scf::ForOp::create(
      b, loc, index(0), index(threads), index(1), ValueRange{},
      [&](OpBuilder &, Location, Value t, ValueRange) {
        Value lane = arith::RemUIOp::create(b, loc, t, index(32));
        Value warpBase = arith::SubIOp::create(b, loc, t, lane);
        Value quad = arith::DivUIOp::create(b, loc, lane, index(4));
        Value laneInQuad = arith::RemUIOp::create(b, loc, lane, index(4));
        SmallVector<Value> elements;
        // .trans: the first of the lane's two rows; else its column.
        Value pair = arith::MulIOp::create(b, loc, laneInQuad, index(2));
        Value column = arith::MulIOp::create(b, loc, laneInQuad, index(per));
        for (int64_t i = 0; i < tiles; ++i)
          for (int64_t j = 0; j < per; ++j) {
            Value inWarp =
                trans ? arith::AddIOp::create(b, loc, pair, index(8 * i + j))
                      : arith::AddIOp::create(b, loc, quad, index(8 * i));
            Value supplier = arith::AddIOp::create(b, loc, warpBase, inWarp);
            Value row =
                memref::LoadOp::create(b, loc, rows, ValueRange{supplier});
            Value at = trans ? arith::AddIOp::create(b, loc, row, quad)
                             : arith::AddIOp::create(
                                   b, loc, arith::AddIOp::create(b, loc, row,
                                                                 column),
                                   index(j));
            elements.push_back(memref::LoadOp::create(
                b, loc, uniform.lookup(source), ValueRange{at}));
          }
        Value v = vector::FromElementsOp::create(b, loc, type, elements);
        memref::StoreOp::create(b, loc, v, out, ValueRange{t});
        scf::YieldOp::create(b, loc);
      });
  return success();
}

LogicalResult BlockEmulator::emitWarpApply(ApplyOp op) {
  auto form = nvptx::parseMma(op->getAttrOfType<StringAttr>(kPtxAttr));
  if (!form)
    return op.emitError() << llvm::toString(form.takeError());
  if (threads % 32)
    return op.emitError() << "a block of " << threads
                          << " threads is not a whole number of warps";
  auto operands = mmaOperands(op);
  if (failed(operands) || failed(checkFragments(op, *operands, *form)))
    return failure();
  // Every lane's fragments in per-thread buffers.
  SmallVector<Value> fragments;
  for (Value v : *operands)
    fragments.push_back(perThread(v));
  fragments.push_back(bufferOf(op.getResult()));
  auto i64 = b.getI64Type();
  SmallVector<Value> base;
  for (Value buffer : fragments)
    base.push_back(arith::IndexCastOp::create(
        b, loc, i64,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer)));
  Value code = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(nvptx::encodeMma(*form)));
  scf::ForOp::create(
      b, loc, index(0), index(threads / 32), index(1), ValueRange{},
      [&](OpBuilder &, Location, Value warp, ValueRange) {
        SmallVector<Value> args = {code};
        Value w = arith::IndexCastOp::create(b, loc, i64, warp);
        for (auto [buffer, ptr] : llvm::zip(fragments, base)) {
          auto vt = cast<VectorType>(
              cast<MemRefType>(buffer.getType()).getElementType());
          int64_t laneBytes =
              vt.getNumElements() * vt.getElementTypeBitWidth() / 8;
          Value offset = arith::MulIOp::create(
              b, loc, w,
              arith::ConstantOp::create(
                  b, loc, b.getI64IntegerAttr(32 * laneBytes)));
          args.push_back(arith::AddIOp::create(b, loc, ptr, offset));
        }
        func::CallOp::create(b, loc, kEmulateMma, TypeRange{}, args);
        scf::YieldOp::create(b, loc);
      });
  return success();
}

LogicalResult BlockEmulator::emitCutLoop(scf::ForOp loop) {
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound(),
                      loop.getStep()})
    if (!uniform.contains(bound))
      return loop.emitError()
             << "a loop that synchronizes threads must have the same bounds "
                "in every thread";
  // Loop-carried values live in per-thread buffers: the initial values are
  // copied in, each iteration's yield copies the next ones in.
  auto copyIn = [&](ValueRange from, ArrayRef<Value> to) {
    scf::ForOp::create(
        b, loc, index(0), index(threads), index(1), ValueRange{},
        [&](OpBuilder &, Location, Value t, ValueRange) {
          IRMapping mapping;
          SmallVector<Value> values;
          for (Value v : from)
            values.push_back(valueFor(v, t, mapping));
          for (auto [v, buffer] : llvm::zip(values, to))
            memref::StoreOp::create(b, loc, v, buffer, ValueRange{t});
          scf::YieldOp::create(b, loc);
        });
  };
  SmallVector<Value> carried;
  for (auto [arg, result] :
       llvm::zip(loop.getRegionIterArgs(), loop.getResults())) {
    Value buffer = bufferOf(arg);
    buffers[result] = buffer;
    carried.push_back(buffer);
  }
  copyIn(loop.getInitArgs(), carried);
  auto outer = scf::ForOp::create(b, loc, uniform.lookup(loop.getLowerBound()),
                                  uniform.lookup(loop.getUpperBound()),
                                  uniform.lookup(loop.getStep()));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(outer.getBody());
  uniform.map(loop.getInductionVar(), outer.getInductionVar());
  if (failed(emitList(*loop.getBody())))
    return failure();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  copyIn(yield.getOperands(), carried);
  return success();
}

LogicalResult BlockEmulator::emitList(Block &body) {
  for (Operation &op : body) {
    // Block ids are the emulated block's arguments already.
    if (isa<gpu::ReturnOp, scf::YieldOp, gpu::BlockIdOp>(op))
      continue;
    if (failed(checkSupported(op)))
      return failure();
    if (isUniformOp(&op)) {
      Operation *copy = b.clone(op, uniform);
      for (auto [from, to] : llvm::zip(op.getResults(), copy->getResults()))
        uniform.map(from, to);
      continue;
    }
    if (isa<gpu::BarrierOp>(op)) {
      flush();
      continue;
    }
    if (auto apply = dyn_cast<ApplyOp>(op); apply && isWarpApply(apply)) {
      flush();
      if (failed(emitWarpApply(apply)))
        return failure();
      continue;
    }
    if (auto load = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      flush();
      if (failed(emitLdMatrix(load)))
        return failure();
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op); loop && synchronizes(loop)) {
      flush();
      if (failed(emitCutLoop(loop)))
        return failure();
      continue;
    }
    if (synchronizes(&op))
      return op.emitError() << "threads synchronize inside this op; the host "
                               "lowering cuts phases only at the top level "
                               "of a kernel or of a loop";
    if (op.walk([](Operation *inner) {
            return failed(checkSupported(*inner)) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
          }).wasInterrupted())
      return failure();
    phase.push_back(&op);
    inPhase.insert(&op);
  }
  flush();
  return success();
}

void BlockEmulator::releaseBuffers() {
  for (Value buffer : allocated)
    memref::DeallocOp::create(b, loc, buffer);
}

/// cp.async becomes a plain copy (zero-filled past its source size) where it
/// stands; its groups and waits go: a thread's copies are complete when its
/// phase ends, and the kernel's barriers order them for the other threads.
void lowerAsyncCopies(gpu::GPUFuncOp kernel) {
  SmallVector<Operation *> waits, groups;
  SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
  kernel.walk([&](Operation *op) {
    if (isa<nvgpu::DeviceAsyncWaitOp>(op))
      waits.push_back(op);
    else if (isa<nvgpu::DeviceAsyncCreateGroupOp>(op))
      groups.push_back(op);
    else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      copies.push_back(copy);
  });
  for (Operation *op : llvm::concat<Operation *>(waits, groups))
    op->erase();
  for (nvgpu::DeviceAsyncCopyOp copy : copies) {
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    Type t = cast<MemRefType>(copy.getDst().getType()).getElementType();
    auto shifted = [&](ValueRange indices, Value by) {
      SmallVector<Value> out(indices);
      out.back() = arith::AddIOp::create(b, loc, out.back(), by);
      return out;
    };
    for (int64_t e = 0; e < copy.getDstElements().getSExtValue(); ++e) {
      Value at = arith::ConstantIndexOp::create(b, loc, e);
      Value inside = arith::ConstantIntOp::create(b, loc, 1, 1);
      if (Value size = copy.getSrcElements())
        inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, at,
                                       size);
      auto read = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &, Location) {
            scf::YieldOp::create(
                b, loc,
                memref::LoadOp::create(b, loc, copy.getSrc(),
                                       shifted(copy.getSrcIndices(), at))
                    .getResult());
          },
          [&](OpBuilder &, Location) {
            scf::YieldOp::create(
                b, loc,
                arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t))
                    .getResult());
          });
      memref::StoreOp::create(b, loc, read.getResult(0), copy.getDst(),
                              shifted(copy.getDstIndices(), at));
    }
    copy.erase();
  }
}

/// func.func @NAME_block(args..., %bx, %by): one block of `kernel`.
FailureOr<func::FuncOp> emulateBlock(gpu::GPUFuncOp kernel, ModuleOp host) {
  DenseI32ArrayAttr size = kernel.getKnownBlockSizeAttr();
  if (!size || size.size() != 3 || size[1] != 1 || size[2] != 1)
    return kernel.emitError()
           << "the host lowering needs a one-dimensional known_block_size";
  int64_t threads = size[0];
  if (kernel.getNumPrivateAttributions() || !kernel.getBody().hasOneBlock())
    return kernel.emitError() << "the host lowering needs a kernel of one "
                                 "block without private attributions";
  lowerAsyncCopies(kernel);
  Location loc = kernel.getLoc();
  OpBuilder b(host.getContext());
  b.setInsertionPointToEnd(host.getBody());
  unsigned numArgs = kernel.getFunctionType().getNumInputs();
  SmallVector<Type> args(kernel.getFunctionType().getInputs());
  args.append({b.getIndexType(), b.getIndexType()});
  auto fn = func::FuncOp::create(b, loc, (kernel.getName() + "_block").str(),
                                 b.getFunctionType(args, {}));
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  BlockEmulator emulator(b, loc, threads, entry);
  for (unsigned i = 0; i < numArgs; ++i)
    emulator.uniform.map(kernel.getBody().getArgument(i), fn.getArgument(i));
  Value bx = fn.getArgument(args.size() - 2), by = fn.getArgument(args.size() - 1);
  kernel.walk([&](gpu::BlockIdOp op) {
    emulator.uniform.map(op.getResult(),
                         op.getDimension() == gpu::Dimension::x ? bx : by);
  });
  SmallVector<Value> shared;
  for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(buffer.getType());
    Value alloc = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()));
    emulator.uniform.map(buffer, alloc);
    shared.push_back(alloc);
  }
  if (failed(emulator.emitList(kernel.getBody().front())))
    return failure();
  emulator.releaseBuffers();
  for (Value buffer : shared)
    memref::DeallocOp::create(b, loc, buffer);
  func::ReturnOp::create(b, loc);
  return fn;
}

/// func.func @NAME_host(args..., %grid_x, %grid_y): every block in turn.
void emulateGrid(gpu::GPUFuncOp kernel, func::FuncOp block, ModuleOp host) {
  Location loc = kernel.getLoc();
  OpBuilder b(host.getContext());
  b.setInsertionPointToEnd(host.getBody());
  auto fn = func::FuncOp::create(b, loc, (kernel.getName() + "_host").str(),
                                 block.getFunctionType());
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  unsigned n = fn.getNumArguments();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(
      b, loc, zero, fn.getArgument(n - 1), one, ValueRange{},
      [&](OpBuilder &, Location, Value by, ValueRange) {
        scf::ForOp::create(
            b, loc, zero, fn.getArgument(n - 2), one, ValueRange{},
            [&](OpBuilder &, Location, Value bx, ValueRange) {
              SmallVector<Value> args(fn.getArguments().drop_back(2));
              args.append({bx, by});
              func::CallOp::create(b, loc, block, args);
              scf::YieldOp::create(b, loc);
            });
        scf::YieldOp::create(b, loc);
      });
  func::ReturnOp::create(b, loc);
}

struct GpuToHostPass : impl::TisaGpuToHostPassBase<GpuToHostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(&getContext());
    SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
    if (kernels.empty())
      return;
    b.setInsertionPointToEnd(module.getBody());
    auto i64 = b.getI64Type();
    auto decl = func::FuncOp::create(
        b, module.getLoc(), kEmulateMma,
        b.getFunctionType({i64, i64, i64, i64, i64}, {}));
    decl.setPrivate();
    for (gpu::GPUModuleOp gm : kernels) {
      // Globals (lane tables) move to the host module; kernels become
      // functions.
      for (Operation &op : gm.getBody()->without_terminator())
        if (!isa<gpu::GPUFuncOp>(op))
          b.clone(op);
      for (auto kernel : gm.getOps<gpu::GPUFuncOp>()) {
        FailureOr<func::FuncOp> block = emulateBlock(kernel, module);
        if (failed(block))
          return signalPassFailure();
        emulateGrid(kernel, *block, module);
      }
      gm.erase();
    }
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
} // namespace tisa
