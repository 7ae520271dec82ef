//===- HoistScratch.cpp - -tisa-hoist-scratch -------------------------------===//
//
// The generators allocate a scratch buffer of static size where they use it:
// a zero-padded copy of an input, a register tile's block of C that leaves C.
// Inside the loops of a kernel with run-time extents (-tisa-split-dynamic) or
// a range entry, that is an allocation per iteration: a `memref.alloc` is a
// call to malloc and free per iteration (after each of which LLVM reloads an
// AMX tile configuration), and a `memref.alloca` outside the entry block is a
// dynamic stack allocation that grows the stack each iteration until the
// function returns. This pass moves them out of the loops.
//
//===----------------------------------------------------------------------===//

#include "tisa/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace tisa {
#define GEN_PASS_DEF_TISAHOISTSCRATCHPASS
#include "tisa/Transforms/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace tisa {
namespace {

/// Ops whose regions run their iterations one after another in the thread
/// that reached them (scf.forall, scf.parallel and alloca scopes are not).
bool sequential(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp>(op);
}

/// The outermost ancestor of `op` that `op` reaches through sequential ops
/// alone (null if its parent is not one).
Operation *outermostSequential(Operation *op) {
  Operation *outermost = nullptr;
  for (Operation *p = op->getParentOp(); p && sequential(p);
       p = p->getParentOp())
    outermost = p;
  return outermost;
}

/// Whether an address derived from `v` (views, casts, the pointer as an
/// integer) can outlive the iteration that made it: passed to a terminator
/// (yielded to the next iteration or out of the loop), to a call or an op
/// nobody registered, or stored.
bool addressEscapes(Value v) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (!user->isRegistered() || user->hasTrait<OpTrait::IsTerminator>() ||
        isa<CallOpInterface>(user))
      return true;
    if (isa<memref::StoreOp, LLVM::StoreOp>(user) && use.getOperandNumber() == 0)
      return true;
    bool derives =
        isa<ViewLikeOpInterface, memref::CastOp, memref::ReinterpretCastOp,
            memref::ExtractAlignedPointerAsIndexOp,
            memref::ExtractStridedMetadataOp, LLVM::IntToPtrOp,
            LLVM::PtrToIntOp, LLVM::GEPOp>(user) ||
        user->getName().getDialectNamespace() == "arith";
    if (!derives)
      continue;
    for (Value r : user->getResults())
      if (addressEscapes(r))
        return true;
  }
  return false;
}

/// The function body that `outermost` (an op's outermost sequential
/// ancestor) is in, if it is a function's single block.
Block *functionBody(Operation *outermost) {
  Operation *parent = outermost->getParentOp();
  if (!isa<FunctionOpInterface>(parent) ||
      !outermost->getParentRegion()->hasOneBlock())
    return nullptr;
  return &outermost->getParentRegion()->front();
}

/// The one dealloc of a heap buffer of static shape in the block that
/// allocates it (so it is dead at the end of that block), if so.
memref::DeallocOp scratchDealloc(memref::AllocOp alloc) {
  if (!alloc.getType().hasStaticShape() || !alloc.getSymbolOperands().empty())
    return nullptr;
  SmallVector<memref::DeallocOp> deallocs;
  for (Operation *user : alloc->getUsers())
    if (auto d = dyn_cast<memref::DeallocOp>(user))
      deallocs.push_back(d);
  if (deallocs.size() != 1 || deallocs[0]->getBlock() != alloc->getBlock())
    return nullptr;
  return deallocs[0];
}

/// Whether a heap buffer can be a view of bytes: identity layout, default
/// memory space, whole bytes per element.
bool viewable(MemRefType type) {
  return type.getLayout().isIdentity() && !type.getMemorySpace() &&
         type.getElementType().isIntOrFloat() &&
         type.getElementTypeBitWidth() % 8 == 0;
}

/// The heap buffers that leave the loops and branches of one function's
/// body: one allocation of bytes at its start (freed before it returns),
/// each buffer a view of its part. A kernel with run-time extents runs its
/// static blocks under `scf.if`s and loops; a buffer each would be a malloc
/// per block (after which LLVM reloads the AMX tile configuration), and
/// buffers allocated first one by one would be a malloc per branch, taken or
/// not.
/// Each buffer comes with its one dealloc (scratchDealloc).
using Scratch = std::pair<memref::AllocOp, memref::DeallocOp>;

void poolInBody(Block &body, ArrayRef<Scratch> allocs) {
  if (allocs.empty())
    return;
  int64_t total = 0, align = 64;
  SmallVector<int64_t> offsets;
  for (auto [a, dealloc] : allocs) {
    int64_t al = std::max<int64_t>(64, a.getAlignment().value_or(1));
    align = std::max(align, al);
    total = llvm::alignTo(total, al);
    offsets.push_back(total);
    MemRefType t = a.getType();
    total += t.getNumElements() * t.getElementTypeBitWidth() / 8;
  }
  Location loc = allocs.front().first->getLoc();
  OpBuilder b(&body, body.begin());
  auto bytes = MemRefType::get({std::max<int64_t>(total, 1)}, b.getI8Type());
  Value pool = memref::AllocOp::create(b, loc, bytes, b.getI64IntegerAttr(align));
  for (auto [scratch, offset] : llvm::zip(allocs, offsets)) {
    auto [a, dealloc] = scratch;
    Value at = arith::ConstantIndexOp::create(b, a.getLoc(), offset);
    Value view = memref::ViewOp::create(b, a.getLoc(), a.getType(), pool, at,
                                        ValueRange{});
    dealloc.erase();
    a.replaceAllUsesWith(view);
    a.erase();
  }
  b.setInsertionPoint(body.getTerminator());
  memref::DeallocOp::create(b, loc, pool);
}

/// A heap buffer freed in the block that allocates it is dead at the end of
/// each iteration: one buffer for the whole call serves them all. Below an
/// op that is not sequential, it moves around the outermost loop or branch
/// under that op.
void hoistAround(memref::AllocOp alloc, memref::DeallocOp dealloc,
                 Operation *outermost) {
  alloc->moveBefore(outermost);
  dealloc->moveAfter(outermost);
}

/// A stack buffer of static size under loops or branches whose address stays
/// within its iteration goes to the function's entry block, where LLVM gives it a fixed place in
/// the frame.
void hoistAlloca(memref::AllocaOp alloca) {
  if (!alloca.getType().hasStaticShape() ||
      !alloca.getSymbolOperands().empty())
    return;
  Operation *outermost = outermostSequential(alloca);
  Block *body = outermost ? functionBody(outermost) : nullptr;
  if (!body || addressEscapes(alloca.getResult()))
    return;
  alloca->moveBefore(body, body->begin());
}

struct HoistScratchPass
    : public impl::TisaHoistScratchPassBase<HoistScratchPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::AllocaOp> allocas;
    getOperation()->walk([&](Operation *op) {
      if (auto a = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(a);
      else if (auto a = dyn_cast<memref::AllocaOp>(op))
        allocas.push_back(a);
    });
    // The function's body, if a buffer reaches it through sequential ops.
    Block *body = nullptr;
    SmallVector<Scratch> pooled;
    for (memref::AllocOp a : allocs) {
      Operation *outermost = outermostSequential(a);
      memref::DeallocOp dealloc = outermost ? scratchDealloc(a) : nullptr;
      if (!dealloc)
        continue;
      Block *inBody = functionBody(outermost);
      if (inBody && viewable(a.getType())) {
        body = inBody;
        pooled.push_back({a, dealloc});
      } else {
        hoistAround(a, dealloc, outermost);
      }
    }
    if (body)
      poolInBody(*body, pooled);
    for (memref::AllocaOp a : allocas)
      hoistAlloca(a);
  }
};

} // namespace
} // namespace tisa
