//===- Intrinsic.cpp - check a lowering intrinsic against the registers --===//

#include "tisa/Semantics/Intrinsic.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Type.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tisa {

llvm::Type *toLLVMElementType(Type t, llvm::LLVMContext &ctx) {
  if (t.isBF16())
    return llvm::Type::getBFloatTy(ctx);
  if (t.isF16())
    return llvm::Type::getHalfTy(ctx);
  if (t.isF32())
    return llvm::Type::getFloatTy(ctx);
  if (t.isF64())
    return llvm::Type::getDoubleTy(ctx);
  if (auto i = dyn_cast<IntegerType>(t))
    return llvm::Type::getIntNTy(ctx, i.getWidth());
  return nullptr;
}

namespace {

std::string print(llvm::Type *t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return s;
}

/// The type a whole-register operand has at the intrinsic boundary.
llvm::Type *registerLLVMType(const OperandRegister &reg,
                             llvm::LLVMContext &ctx) {
  if (reg.cls == RegisterClass::AMXTile)
    return llvm::Type::getX86_AMXTy(ctx);
  llvm::Type *elem = toLLVMElementType(reg.type.getElementType(), ctx);
  if (reg.cls == RegisterClass::WarpFragment)
    return llvm::FixedVectorType::get(
        elem, reg.type.getDimSize(1)); // one lane's elements
  if (reg.type.isScalable())
    return llvm::ScalableVectorType::get(elem, reg.type.getDimSize(0));
  return llvm::FixedVectorType::get(elem, reg.type.getDimSize(0));
}

llvm::TypeSize sizeOf(llvm::Type *t) { return t->getPrimitiveSizeInBits(); }

} // namespace

FailureOr<ResolvedIntrinsic>
resolveLoweringIntrinsic(const Description &d, llvm::LLVMContext &ctx,
                         llvm::function_ref<InFlightDiagnostic()> emitError) {
  ResolvedIntrinsic r;
  const std::string &name = d.lowering.intrinsic;
  r.id = llvm::Intrinsic::lookupIntrinsicID(name);
  if (r.id == llvm::Intrinsic::not_intrinsic)
    return emitError() << "'" << name << "' is not an LLVM 22 intrinsic";
  const OperandRegister &accReg = d.registers[d.accumulatorOperand()];

  auto argType = [&](const LoweringArg &a) -> llvm::Type * {
    if (a.kind != LoweringArg::Operand)
      return llvm::Type::getInt16Ty(ctx);
    return registerLLVMType(d.registers[a.operand], ctx);
  };

  if (llvm::Intrinsic::isOverloaded(r.id)) {
    // An overloaded intrinsic's name encodes its types: the registers must be
    // exactly those types.
    SmallVector<llvm::Type *> params;
    for (const LoweringArg &a : d.lowering.args) {
      if (d.registers[a.operand].cls == RegisterClass::WarpFragment &&
          a.kind == LoweringArg::Operand)
        return emitError()
               << "'" << name
               << "' is overloaded; warp fragments need an intrinsic "
               << "with a fixed signature";
      params.push_back(argType(a));
      r.params.push_back({params.size() - 1, params.size()});
    }
    llvm::FunctionType *fty =
        llvm::FunctionType::get(registerLLVMType(accReg, ctx), params, false);
    SmallVector<llvm::Type *> overloads;
    if (!llvm::Intrinsic::getIntrinsicSignature(r.id, fty, overloads))
      return emitError() << "intrinsic '" << name
                         << "' does not accept the registers' types "
                         << print(fty);
    std::string mangled =
        llvm::Intrinsic::getNameNoUnnamedTypes(r.id, overloads);
    if (mangled != name)
      return emitError() << "intrinsic '" << name
                         << "' does not fit the registers: their types "
                         << print(fty) << " select '" << mangled << "'";
    r.type = fty;
    return r;
  }

  llvm::FunctionType *fty = llvm::Intrinsic::getType(ctx, r.id);
  unsigned next = 0;
  for (auto [k, a] : llvm::enumerate(d.lowering.args)) {
    unsigned first = next;
    auto missing = [&]() {
      return emitError() << "intrinsic '" << name << "' takes "
                         << fty->getNumParams() << " parameters " << print(fty)
                         << ", fewer than the lowering passes";
    };
    if (a.kind != LoweringArg::Operand) {
      if (next >= fty->getNumParams())
        return missing();
      if (!fty->getParamType(next)->isIntegerTy())
        return emitError() << "intrinsic '" << name << "' parameter " << next
                           << " is " << print(fty->getParamType(next))
                           << ", not an integer shape immediate";
      r.params.push_back({first, ++next});
      continue;
    }
    const OperandRegister &reg = d.registers[a.operand];
    llvm::Type *want = registerLLVMType(reg, ctx);
    if (reg.cls != RegisterClass::WarpFragment) {
      if (next >= fty->getNumParams())
        return missing();
      llvm::Type *have = fty->getParamType(next);
      if (sizeOf(have) != sizeOf(want) ||
          have->isX86_AMXTy() != want->isX86_AMXTy())
        return emitError() << "intrinsic '" << name << "' parameter " << next
                           << " is " << print(have) << " but operand "
                           << a.operand << " is held in " << print(want);
      r.params.push_back({first, ++next});
      continue;
    }
    // A warp fragment fills consecutive parameters until one lane's elements
    // are used up.
    uint64_t need = sizeOf(want).getFixedValue(), got = 0;
    while (got < need) {
      if (next >= fty->getNumParams())
        return missing();
      got += sizeOf(fty->getParamType(next)).getFixedValue();
      ++next;
    }
    if (got != need)
      return emitError() << "intrinsic '" << name << "' parameters " << first
                         << ".." << next - 1 << " hold " << got
                         << " bits per lane but operand " << a.operand
                         << "'s fragment holds " << need;
    r.params.push_back({first, next});
  }
  if (next != fty->getNumParams())
    return emitError() << "intrinsic '" << name << "' takes "
                       << fty->getNumParams() << " parameters " << print(fty)
                       << " but the lowering passes " << next;

  llvm::Type *ret = fty->getReturnType();
  llvm::Type *wantRet = registerLLVMType(accReg, ctx);
  uint64_t retBits = 0;
  if (auto *st = dyn_cast<llvm::StructType>(ret)) {
    for (llvm::Type *e : st->elements())
      retBits += sizeOf(e).getFixedValue();
  }
  bool fits =
      accReg.cls == RegisterClass::WarpFragment && isa<llvm::StructType>(ret)
          ? retBits == sizeOf(wantRet).getFixedValue()
          : (sizeOf(ret) == sizeOf(wantRet) &&
             ret->isX86_AMXTy() == wantRet->isX86_AMXTy());
  if (!fits)
    return emitError() << "intrinsic '" << name << "' returns " << print(ret)
                       << " but the accumulator is held in " << print(wantRet);
  r.type = fty;
  return r;
}

} // namespace tisa
