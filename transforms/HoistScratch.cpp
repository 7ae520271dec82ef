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

/// A heap buffer freed in the block that allocates it is dead at the end of
/// each iteration: one buffer for the whole call serves them all. In a
/// function's body it is allocated first and freed last: a kernel with
/// run-time extents runs its static blocks under `scf.if`s, and buffers
/// allocated before each would put a call between two blocks' tile
/// instructions (after which LLVM reloads the AMX tile configuration).
void hoistAlloc(memref::AllocOp alloc) {
  if (!alloc.getType().hasStaticShape() || !alloc.getSymbolOperands().empty())
    return;
  Operation *outermost = outermostSequential(alloc);
  if (!outermost)
    return;
  SmallVector<memref::DeallocOp> deallocs;
  for (Operation *user : alloc->getUsers())
    if (auto d = dyn_cast<memref::DeallocOp>(user))
      deallocs.push_back(d);
  if (deallocs.size() != 1 || deallocs[0]->getBlock() != alloc->getBlock())
    return;
  if (Block *body = functionBody(outermost)) {
    alloc->moveBefore(body, body->begin());
    deallocs[0]->moveBefore(body->getTerminator());
    return;
  }
  alloc->moveBefore(outermost);
  deallocs[0]->moveAfter(outermost);
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
    for (memref::AllocOp a : allocs)
      hoistAlloc(a);
    for (memref::AllocaOp a : allocas)
      hoistAlloca(a);
  }
};

} // namespace
} // namespace tisa
