//===- TargetFeatures.cpp - targets checked against LLVM's tables ---------===//
//
// A target's CPU and features, and a description's features, against the
// subtarget tables of LLVM's backend for the architecture; the features a
// listed one implies.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

using llvm::Expected;
using llvm::StringRef;

namespace tisa {

namespace {

llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// The entry of `table` named `name`, or null.
const llvm::SubtargetFeatureKV *
findFeature(llvm::ArrayRef<llvm::SubtargetFeatureKV> table, StringRef name) {
  const auto *kv = llvm::find_if(
      table, [&](const llvm::SubtargetFeatureKV &e) { return name == e.Key; });
  return kv == table.end() ? nullptr : kv;
}

/// LLVM's subtarget tables for `arch` (its generic CPU: a
/// wrong CPU name would print a warning; callers check it themselves).
Expected<std::unique_ptr<llvm::MCSubtargetInfo>>
subtargetTables(TargetArch arch, StringRef where) {
  static const bool initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple = tripleFor(arch);
  std::string lookupError;
  const llvm::Target *backend =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!backend)
    return makeError(where + ": LLVM has no " + triple.str() +
                     " backend: " + lookupError);
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      backend->createMCSubtargetInfo(triple, "", ""));
  if (!sti)
    return makeError(where + ": cannot create LLVM subtarget info for " +
                     triple.str());
  return std::move(sti);
}

/// Adds to `features` every feature a listed one implies in `table`,
/// transitively.
void addImplied(llvm::StringSet<> &features,
                llvm::ArrayRef<llvm::SubtargetFeatureKV> table) {
  for (bool added = true; added;) {
    added = false;
    for (const llvm::SubtargetFeatureKV &kv : table) {
      if (!features.contains(kv.Key))
        continue;
      llvm::FeatureBitset implied = kv.Implies.getAsBitset();
      for (const llvm::SubtargetFeatureKV &other : table)
        if (implied.test(other.Value))
          added |= features.insert(other.Key).second;
    }
  }
}

/// The CPU whose features every CPU of `arch` has.
StringRef baselineCpu(TargetArch arch) {
  return arch == TargetArch::X86_64 ? "x86-64" : "generic";
}

/// The vector and tile registers of `target` once its features are those of
/// `listed`: never more than the target had (an SVE target keeps its vector
/// length while the list keeps SVE), fewer when the list drops the features
/// that gave them (AVX-512's 32 x 512 bits become AVX2's 16 x 256).
void restrictRegisters(Target &target, const Target &listed) {
  bool keepsScalable = target.arch == TargetArch::AArch64 &&
                       listed.features.contains("sve");
  if (!keepsScalable && listed.vectorBits) {
    target.vectorBits = std::min(target.vectorBits, listed.vectorBits);
    target.vectorRegisters =
        std::min(target.vectorRegisters, listed.vectorRegisters);
  }
  target.tileRegisters = std::min(target.tileRegisters, listed.tileRegisters);
}

} // namespace

llvm::Expected<std::vector<std::string>>
unknownFeatures(TargetArch arch, llvm::ArrayRef<std::string> features) {
  auto sti = subtargetTables(arch, stringifyTargetArch(arch));
  if (!sti)
    return sti.takeError();
  llvm::ArrayRef<llvm::SubtargetFeatureKV> table =
      (*sti)->getAllProcessorFeatures();
  std::vector<std::string> unknown;
  for (const std::string &f : features)
    if (!findFeature(table, StringRef(f).ltrim("+-")))
      unknown.push_back(f);
  return unknown;
}

llvm::Error addImpliedFeatures(Target &target) {
  std::string where = target.source.empty() ? target.name : target.source;
  auto sti = subtargetTables(target.arch, where);
  if (!sti)
    return sti.takeError();
  llvm::ArrayRef<llvm::SubtargetFeatureKV> table =
      (*sti)->getAllProcessorFeatures();
  std::vector<std::string> unknown;
  for (const auto &feature : target.features)
    if (!findFeature(table, feature.getKey()))
      unknown.push_back("'" + feature.getKey().str() + "'");
  if (!unknown.empty()) {
    llvm::sort(unknown);
    return makeError(where + ": " + llvm::join(unknown, ", ") +
                     (unknown.size() == 1 ? " is not an LLVM "
                                          : " are not LLVM ") +
                     stringifyTargetArch(target.arch).str() + " feature" +
                     (unknown.size() == 1 ? "" : "s"));
  }
  addImplied(target.features, table);
  return llvm::Error::success();
}

Expected<llvm::StringSet<>> cpuFeatures(TargetArch arch, StringRef cpu) {
  auto sti = subtargetTables(arch, stringifyTargetArch(arch));
  if (!sti)
    return sti.takeError();
  llvm::ArrayRef<llvm::SubtargetSubTypeKV> cpus =
      (*sti)->getAllProcessorDescriptions();
  const auto *desc = llvm::find_if(
      cpus, [&](const llvm::SubtargetSubTypeKV &e) { return cpu == e.Key; });
  if (desc == cpus.end())
    return makeError("cpu '" + cpu + "' is not an LLVM " +
                     stringifyTargetArch(arch) + " CPU");
  llvm::ArrayRef<llvm::SubtargetFeatureKV> table =
      (*sti)->getAllProcessorFeatures();
  llvm::FeatureBitset bits = desc->Implies.getAsBitset();
  llvm::StringSet<> features;
  for (const llvm::SubtargetFeatureKV &kv : table)
    if (bits.test(kv.Value))
      features.insert(kv.Key);
  addImplied(features, table);
  return features;
}

// Beyond what Target.h says: the architecture's baseline joins the list (so
// a list without vector features leaves SSE2's registers, not the CPU's), an
// entry "-f" is refused, and on a GPU target the list's newest sm_XX becomes
// the CPU.
llvm::Error restrictFeatures(Target &target, StringRef list) {
  llvm::SmallVector<StringRef> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts)
    if (part.trim().starts_with("-"))
      return makeError("--features " + list + ": '" + part.trim() +
                       "' removes a feature; list the features the code "
                       "may use instead");
  Target listed = targetFromFeatures(target.arch, list);
  listed.source = "--features " + list.str();
  if (target.arch == TargetArch::NVPTX) {
    // The newest sm_XX of the list is the GPU the code is for.
    target.features = listed.features;
    if (!listed.cpu.empty())
      target.cpu = listed.cpu;
    return llvm::Error::success();
  }
  // Every CPU of the architecture has its baseline (x86-64's SSE2, NEON).
  Expected<llvm::StringSet<>> baseline =
      cpuFeatures(target.arch, baselineCpu(target.arch));
  if (!baseline)
    return baseline.takeError();
  if (llvm::Error e = addImpliedFeatures(listed))
    return e;
  for (const auto &f : *baseline)
    listed.features.insert(f.getKey());
  deriveRegistersFromFeatures(listed);
  target.features = listed.features;
  restrictRegisters(target, listed);
  // What the CPU adds to the architecture's baseline, and the list lacks.
  Expected<llvm::StringSet<>> own = cpuFeatures(target.arch, target.cpu);
  if (!own)
    return own.takeError();
  for (const auto &f : *own)
    if (!target.features.contains(f.getKey()) &&
        !baseline->contains(f.getKey()))
      target.disabledFeatures.insert(f.getKey());
  target.name += " (features " + list.str() + ")";
  return llvm::Error::success();
}

llvm::Error verifyAgainstLLVM(const Target &target) {
  std::string where = target.source.empty() ? target.name : target.source;
  auto tables = subtargetTables(target.arch, where);
  if (!tables)
    return tables.takeError();
  const std::unique_ptr<llvm::MCSubtargetInfo> &sti = *tables;

  std::vector<std::string> problems;
  if (!sti->isCPUStringValid(target.cpu))
    problems.push_back("cpu '" + target.cpu + "' is not an LLVM " +
                       stringifyTargetArch(target.arch).str() + " CPU");
  llvm::ArrayRef<llvm::SubtargetFeatureKV> table =
      sti->getAllProcessorFeatures();
  std::vector<std::string> names;
  for (const auto &feature : target.features)
    names.push_back(feature.getKey().str());
  llvm::sort(names);
  for (StringRef name : names) {
    const llvm::SubtargetFeatureKV *kv = findFeature(table, name);
    if (!kv) {
      problems.push_back("feature '" + name.str() + "' is not an LLVM " +
                         stringifyTargetArch(target.arch).str() + " feature");
      continue;
    }
    llvm::FeatureBitset implied = kv->Implies.getAsBitset();
    for (const llvm::SubtargetFeatureKV &other : table)
      if (implied.test(other.Value) && !target.features.contains(other.Key))
        problems.push_back("feature '" + name.str() + "' implies '" +
                           other.Key + "', which is not listed");
  }
  if (problems.empty())
    return llvm::Error::success();
  return makeError(where + ": " + llvm::join(problems, "\n" + where + ": "));
}

} // namespace tisa
