//===- LLVMDisassembler.cpp - the MC-based decoder -----------------------===//
//
// The decoder that must work: LLVM 22's MCDisassembler decodes every tensor
// instruction tisa targets, which Debian's Capstone 4.0.2 does not.
//
//===----------------------------------------------------------------------===//

#include "DisassemblerImpl.h"

#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCSchedule.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>

using namespace llvm;

namespace tisa {
namespace detail {

static void initializeLLVMTargets() {
  // libLLVM.so carries every target; registering all of them costs little and
  // lets any triple with a disassembler through.
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllDisassemblers();
  });
}

Expected<std::unique_ptr<LLVMDisassembler>>
LLVMDisassembler::create(const Triple &triple, StringRef cpu,
                         StringRef features) {
  initializeLLVMTargets();
  std::string lookupError;
  const Target *target = TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return createStringError("no llvm target for triple '%s': %s",
                             triple.str().c_str(), lookupError.c_str());

  // The AArch64 decoder refuses instructions whose feature is off; with no
  // features given, decode everything, as llvm-objdump does.
  std::string featureString = features.str();
  if (featureString.empty() && triple.isAArch64())
    featureString = "+all";

  std::unique_ptr<LLVMDisassembler> d(new LLVMDisassembler());
  d->triple = triple;
  d->regInfo.reset(target->createMCRegInfo(triple));
  if (!d->regInfo)
    return createStringError("no register info for triple '%s'",
                             triple.str().c_str());
  MCTargetOptions options;
  d->asmInfo.reset(target->createMCAsmInfo(*d->regInfo, triple, options));
  if (!d->asmInfo)
    return createStringError("no asm info for triple '%s'",
                             triple.str().c_str());
  d->instrInfo.reset(target->createMCInstrInfo());
  d->subtargetInfo.reset(
      target->createMCSubtargetInfo(triple, cpu, featureString));
  if (!d->instrInfo || !d->subtargetInfo)
    return createStringError("no subtarget info for triple '%s' cpu '%s' "
                             "features '%s'",
                             triple.str().c_str(), cpu.str().c_str(),
                             featureString.c_str());
  d->context = std::make_unique<MCContext>(
      triple, d->asmInfo.get(), d->regInfo.get(), d->subtargetInfo.get());
  d->disasm.reset(target->createMCDisassembler(*d->subtargetInfo, *d->context));
  if (!d->disasm)
    return createStringError("llvm has no disassembler for triple '%s'",
                             triple.str().c_str());

  // Variant 0 is AT&T on x86 and the generic syntax on AArch64.
  d->textPrinter.reset(target->createMCInstPrinter(triple, 0, *d->asmInfo,
                                                   *d->instrInfo, *d->regInfo));
  if (!d->textPrinter)
    return createStringError("llvm has no instruction printer for '%s'",
                             triple.str().c_str());
  // Loops read better with branch targets as addresses.
  d->textPrinter->setPrintBranchImmAsAddress(true);
  d->relativeToNext = triple.isX86();
  if (triple.isX86()) {
    d->mnemonicPrinter.reset(target->createMCInstPrinter(
        triple, 1, *d->asmInfo, *d->instrInfo, *d->regInfo));
    if (!d->mnemonicPrinter)
      return createStringError("llvm has no intel printer for '%s'",
                               triple.str().c_str());
  }
  return d;
}

void LLVMDisassembler::readSchedModel(const MCInst &inst,
                                      DecodedInst &result) const {
  const MCSchedModel &model = subtargetInfo->getSchedModel();
  if (!model.hasInstrSchedModel())
    return;
  // Variant classes resolved here: LLVM 22's MCInst overload of
  // computeInstrLatency resolves from class 0 and reports latency 0 for them.
  unsigned cls = instrInfo->get(inst.getOpcode()).getSchedClass();
  const MCSchedClassDesc *desc = model.getSchedClassDesc(cls);
  for (unsigned depth = 0; desc && desc->isValid() && desc->isVariant() &&
                           depth < 8;
       ++depth) {
    cls = subtargetInfo->resolveVariantSchedClass(cls, &inst, instrInfo.get(),
                                                  model.getProcessorID());
    desc = model.getSchedClassDesc(cls);
  }
  if (!desc || !desc->isValid() || desc->isVariant())
    return;
  int latency = MCSchedModel::computeInstrLatency(*subtargetInfo, *desc);
  double throughput =
      MCSchedModel::getReciprocalThroughput(*subtargetInfo, *desc);
  result.modelLatency = std::max(latency, 0);
  result.modelReciprocalThroughput = throughput > 0 ? throughput : 0;
}

DecodedInst LLVMDisassembler::decodeOne(ArrayRef<uint8_t> bytes,
                                        uint64_t address) const {
  assert(!bytes.empty() && "nothing to decode");
  MCInst inst;
  uint64_t size = 0;
  MCDisassembler::DecodeStatus status =
      disasm->getInstruction(inst, size, bytes, address, nulls());
  // SoftFail is an encoding the CPU executes with unpredictable effect; it is
  // still the instruction it names, so keep it, as llvm-objdump does.
  if (status == MCDisassembler::Fail) {
    if (size == 0)
      size = disasm->suggestBytesToSkip(bytes, address);
    size = std::clamp<uint64_t>(size, 1, bytes.size());
    return makeInvalid(bytes.take_front(size), address);
  }

  DecodedInst result;
  result.address = address;
  result.size = static_cast<unsigned>(size);
  std::string text;
  raw_string_ostream textStream(text);
  uint64_t base = relativeToNext ? address + size : address;
  textPrinter->printInst(&inst, base, "", *subtargetInfo, textStream);
  result.text = normalizeAsmText(text);
  if (mnemonicPrinter) {
    std::string intel;
    raw_string_ostream intelStream(intel);
    mnemonicPrinter->printInst(&inst, base, "", *subtargetInfo, intelStream);
    result.mnemonic = mnemonicFromAsmText(intel);
  } else {
    result.mnemonic = mnemonicFromAsmText(result.text);
  }
  readSchedModel(inst, result);
  return result;
}

std::vector<DecodedInst> LLVMDisassembler::disassemble(ArrayRef<uint8_t> bytes,
                                                       uint64_t address) const {
  std::vector<DecodedInst> result;
  while (!bytes.empty()) {
    result.push_back(decodeOne(bytes, address));
    unsigned size = result.back().size;
    bytes = bytes.drop_front(size);
    address += size;
  }
  return result;
}

} // namespace detail
} // namespace tisa
