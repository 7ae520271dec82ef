//===- Rates.cpp - issue rates from LLVM's scheduling models --------------===//

#include "tisa/Targets/Rates.h"

#include "tisa/Targets/Disassembler.h"
#include "tisa/Targets/Probe.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <mutex>

using namespace mlir;

namespace tisa {
namespace {

/// The description as the probe sees it: its text (name, lowering,
/// registers), so an edited description is modelled again.
std::string descriptionKey(const Description &d) {
  std::string text;
  llvm::raw_string_ostream os(text);
  d.func->print(os);
  return llvm::utohexstr(llvm::xxh3_64bits(text));
}

llvm::Expected<ModelledRate> compileAndRead(const Description &d,
                                            const Target &target) {
  if (target.arch == TargetArch::NVPTX)
    return llvm::createStringError("LLVM has no timing model for GPUs");
  CodegenTarget cg = codegenTargetFor(d, target.cpu);
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(UnknownLoc::get(d.func.getContext()));
  if (failed(buildProbe(d, *module)))
    return llvm::createStringError("its probe cannot be built");
  llvm::LLVMContext llvmCtx;
  auto llvmModule = translateToLLVMIR(*module, llvmCtx);
  if (!llvmModule)
    return llvmModule.takeError();
  // Unoptimized: the instruction keeps its register form (no folded load).
  auto tm = createTargetMachine(cg, llvm::CodeGenOptLevel::None);
  if (!tm)
    return tm.takeError();
  auto object = emitMachineCode(**llvmModule, **tm, /*assembly=*/false);
  if (!object)
    return object.takeError();
  auto insts = disassembleFunction((*object)->getMemBufferRef(), probeSymbol(d),
                                   cg.features, DisasmBackend::LLVM, cg.cpu);
  if (!insts)
    return insts.takeError();
  for (const DecodedInst &inst : *insts) {
    if (inst.mnemonic != d.mnemonic)
      continue;
    if (inst.modelReciprocalThroughput <= 0 || inst.modelLatency <= 0)
      return llvm::createStringError(
          llvm::formatv("LLVM's '{0}' model gives no figures for '{1}' "
                        "(latency {2}, reciprocal throughput {3})",
                        target.cpu, inst.text, inst.modelLatency,
                        inst.modelReciprocalThroughput)
              .str());
    return ModelledRate{1 / inst.modelReciprocalThroughput, inst.modelLatency,
                        inst.text};
  }
  return llvm::createStringError("its probe holds no '" + d.mnemonic + "'");
}

/// Register class and width of the accumulator: what siblings share.
bool sameRegisters(const Description &a, const Description &b) {
  const OperandRegister &ra = a.registers[a.accumulatorOperand()];
  const OperandRegister &rb = b.registers[b.accumulatorOperand()];
  auto bits = [](const OperandRegister &r) {
    return r.type.getNumElements() * r.type.getElementTypeBitWidth();
  };
  return ra.cls == rb.cls && bits(ra) == bits(rb) &&
         ra.type.isScalable() == rb.type.isScalable();
}

/// A description the target file names, of the same register class and width
/// as `d` and preferably the same extension; null when there is none.
const Description *sibling(const Description &d, const Target &target,
                           llvm::ArrayRef<const Description *> all) {
  const Description *best = nullptr;
  for (const Description *s : all) {
    if (s == &d || s->target != d.target || !sameRegisters(*s, d) ||
        !target.issuePerCycle.contains(s->name))
      continue;
    bool sameExtension = s->extension == d.extension;
    if (!best || (sameExtension && best->extension != d.extension) ||
        (sameExtension == (best->extension == d.extension) &&
         s->name < best->name))
      best = s;
  }
  return best;
}

/// One description's rates from the model, scaled by a sibling's.
llvm::Expected<Target::DerivedRate>
derive(const Description &d, const Target &target,
       llvm::ArrayRef<const Description *> all) {
  llvm::Expected<ModelledRate> own = modelledRate(d, target);
  if (!own)
    return own.takeError();
  Target::DerivedRate r{own->issuePerCycle, own->latency,
                        llvm::formatv("LLVM {0} model of '{1}' ({2:f2} per "
                                      "cycle, latency {3})",
                                      target.cpu, own->instruction,
                                      own->issuePerCycle, own->latency)
                            .str()};
  const Description *s = sibling(d, target, all);
  if (!s)
    return r;
  llvm::Expected<ModelledRate> theirs = modelledRate(*s, target);
  if (!theirs) {
    llvm::consumeError(theirs.takeError());
    return r;
  }
  double issueScale = target.issueRate(*s) / theirs->issuePerCycle;
  double latencyScale = target.latency(*s) / theirs->latency;
  r.issuePerCycle *= issueScale;
  r.latency *= latencyScale;
  r.origin += llvm::formatv(", scaled x{0:f3} (issue) and x{1:f3} (latency) "
                            "as the target file's {2} to its model",
                            issueScale, latencyScale, s->name)
                  .str();
  return r;
}

} // namespace

llvm::Expected<ModelledRate> modelledRate(const Description &d,
                                          const Target &target) {
  static std::mutex mutex;
  static llvm::StringMap<ModelledRate> known;
  std::string key = target.cpu + "|" + d.featureString() + "|" + d.name +
                    "|" + descriptionKey(d);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end())
      return it->second;
  }
  llvm::Expected<ModelledRate> r = compileAndRead(d, target);
  if (!r)
    return r.takeError();
  std::lock_guard<std::mutex> lock(mutex);
  known[key] = *r;
  return r;
}

std::vector<std::string>
resolveRates(Target &target, llvm::ArrayRef<const Description *> descriptions,
             llvm::ArrayRef<const Description *> pool) {
  if (pool.empty())
    pool = descriptions;
  std::vector<std::string> warnings;
  for (const Description *d : descriptions) {
    if (!target.canExecute(*d) || target.namesRates(*d) ||
        target.derivedRates.contains(d->name))
      continue;
    llvm::Expected<Target::DerivedRate> r = derive(*d, target, pool);
    if (r) {
      target.derivedRates[d->name] = *r;
      continue;
    }
    std::string why = llvm::toString(r.takeError());
    target.derivedRates[d->name] = {1, 4, "default (" + why + ")"};
    warnings.push_back("no rates for '" + d->name + "' on " + target.name +
                       ": the target file does not name it and " + why +
                       "; assuming 1 per cycle, latency 4");
  }
  return warnings;
}

} // namespace tisa
