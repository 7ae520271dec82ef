//===- Target.cpp - machines as data --------------------------------------===//
//
// Reads the JSON target files (every key checked, unknown keys are errors),
// detects the host with LLVM, and answers which descriptions a target runs.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Target.h"
#include "tisa/Config.h"
#include "tisa/Semantics/DescriptionSet.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "llvm/Support/Regex.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include <algorithm>
#include <cmath>
#include <limits>

using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace tisa {

namespace {

/// Every key a target file may hold, sorted (the order of the error message).
constexpr StringRef kAllowedKeys[] = {"arch",
                                      "cores",
                                      "cost_model",
                                      "cpu",
                                      "description",
                                      "features",
                                      "grid_blocks_x",
                                      "grid_blocks_y",
                                      "issue_per_cycle",
                                      "l1d_bytes",
                                      "l2_bytes",
                                      "l3_bytes",
                                      "latency_cycles",
                                      "name",
                                      "notes",
                                      "registers_per_thread",
                                      "shared_memory_bytes",
                                      "sm_blocks",
                                      "sm_registers",
                                      "sm_shared_memory_bytes",
                                      "sm_threads",
                                      "tile_registers",
                                      "vector_bits",
                                      "vector_registers",
                                      "warp_size"};
constexpr StringRef kRequiredKeys[] = {"name", "description", "arch", "cpu",
                                       "features"};

/// A key of a target file's "cost_model" object and the field it sets.
struct CostKey {
  StringRef key;
  double CostModel::*real = nullptr;
  int64_t CostModel::*count = nullptr;
  uint64_t CostModel::*bytes = nullptr;
};

/// Every "cost_model" key, sorted (the order of the error message).
const CostKey kCostKeys[] = {
    {"accumulator_chains", &CostModel::accumulatorChains},
    {"accumulator_cycles", &CostModel::accumulatorCycles},
    {"edge_element_cycles", &CostModel::edgeElementCycles},
    {"assumed_l1d_bytes", nullptr, nullptr, &CostModel::assumedL1dBytes},
    {"assumed_l2_bytes", nullptr, nullptr, &CostModel::assumedL2Bytes},
    {"assumed_tile_registers", nullptr, &CostModel::assumedTileRegisters},
    {"assumed_vector_registers", nullptr, &CostModel::assumedVectorRegisters},
    {"edge_first_fraction", &CostModel::edgeFirstFraction},
    {"l1_overflow_factor", &CostModel::l1OverflowFactor},
    {"l2_block_fraction", &CostModel::l2BlockFraction},
    {"l2_bytes_per_cycle", &CostModel::l2BytesPerCycle},
    {"l3_bytes_per_cycle", &CostModel::l3BytesPerCycle},
    {"loop_overhead_cycles", &CostModel::loopOverheadCycles},
    {"overhead_bytes_per_cycle", &CostModel::overheadBytesPerCycle},
    {"max_tile_registers", nullptr, &CostModel::maxTileRegisters},
    {"max_tile_rows", nullptr, &CostModel::maxTileRows},
    {"min_filter_block", nullptr, &CostModel::minFilterBlock},
    {"reduction_unroll", nullptr, &CostModel::reductionUnroll},
    {"segment_reduction_unroll", nullptr, &CostModel::segmentReductionUnroll},
    {"segment_long_reduction_unroll", nullptr,
     &CostModel::segmentLongReductionUnroll},
    {"spare_registers_with_broadcasts", nullptr,
     &CostModel::spareRegistersWithBroadcasts},
    {"spare_registers_with_packed", nullptr,
     &CostModel::spareRegistersWithPacked},
    {"tie_window", &CostModel::tieWindow},
};

llvm::Error makeError(const Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Collects the problems of one file, each prefixed with `path:line:col` of the
/// key it is about. llvm::json keeps no source locations, so a key is found
/// again in the text: the first `"key":` after the position of its parent.
class Diagnostics {
public:
  Diagnostics(StringRef text, StringRef path) : text(text), path(path) {}

  void error(llvm::ArrayRef<StringRef> keyPath, const Twine &msg) {
    messages.push_back(location(keyPath) + ": " + msg.str());
  }
  bool empty() const { return messages.empty(); }
  llvm::Error take() { return makeError(llvm::join(messages, "\n")); }

  /// A top-level key given twice (llvm::json keeps the last one, and the
  /// messages would point at the first): an error at the second.
  void duplicate(StringRef key) {
    std::optional<size_t> first = findKey(key, 0);
    if (!first)
      return;
    std::optional<size_t> second = findKey(key, *first + 1);
    if (!second)
      return;
    messages.push_back(at(*second) + ": key '" + key.str() +
                       "' is given twice (first at " + at(*first) +
                       "); give it once");
  }

private:
  std::string at(size_t pos) const {
    StringRef before = text.take_front(pos);
    size_t line = before.count('\n') + 1;
    size_t lineStart = before.rfind('\n');
    size_t column = lineStart == StringRef::npos ? pos + 1 : pos - lineStart;
    return (path + ":" + Twine(line) + ":" + Twine(column)).str();
  }

  std::string location(llvm::ArrayRef<StringRef> keyPath) const {
    size_t pos = 0;
    bool found = !keyPath.empty();
    for (StringRef key : keyPath) {
      std::optional<size_t> at = findKey(key, pos);
      if (!at) {
        found = false;
        break;
      }
      pos = *at;
    }
    if (!found)
      return path.str();
    return at(pos);
  }

  std::optional<size_t> findKey(StringRef key, size_t from) const {
    std::string quoted = ("\"" + key + "\"").str();
    for (size_t at = text.find(quoted, from); at != StringRef::npos;
         at = text.find(quoted, at + 1)) {
      StringRef rest = text.drop_front(at + quoted.size()).ltrim();
      if (rest.starts_with(":"))
        return at;
    }
    return std::nullopt;
  }

  StringRef text, path;
  std::vector<std::string> messages;
};

/// Reads a "cost_model" object into `cost`: known keys only, positive
/// numbers, whole ones for counts and bytes.
void parseCostModel(const llvm::json::Value &v, Diagnostics &diag,
                    CostModel &cost) {
  const llvm::json::Object *obj = v.getAsObject();
  if (!obj) {
    diag.error({"cost_model"}, "key 'cost_model' must be an object of "
                               "cost-model constants");
    return;
  }
  std::vector<std::string> keys;
  for (const auto &entry : *obj)
    keys.push_back(entry.first.str());
  llvm::sort(keys);
  for (StringRef key : keys) {
    const CostKey *field = llvm::find_if(
        kCostKeys, [&](const CostKey &k) { return k.key == key; });
    if (field == std::end(kCostKeys)) {
      std::vector<StringRef> names;
      for (const CostKey &k : kCostKeys)
        names.push_back(k.key);
      diag.error({"cost_model", key}, "cost_model: unknown key '" + key +
                                          "' (allowed: " +
                                          llvm::join(names, ", ") + ")");
      continue;
    }
    std::optional<double> x = obj->get(key)->getAsNumber();
    bool whole = !field->real;
    if (!x || !std::isfinite(*x) || *x <= 0 ||
        (whole && (*x != std::floor(*x) || *x > 1e15))) {
      diag.error({"cost_model", key},
                 "cost_model: '" + key + "' must be a positive " +
                     (whole ? "integer" : "number"));
      continue;
    }
    if (field->real)
      cost.*field->real = *x;
    else if (field->count)
      cost.*field->count = int64_t(*x);
    else
      cost.*field->bytes = uint64_t(*x);
  }
}

/// llvm::json::ParseError prints "[line:col, byte=N]: message"; turn it into
/// "path:line:col: message".
llvm::Error syntaxError(llvm::Error err, StringRef path) {
  std::string msg = llvm::toString(std::move(err));
  llvm::SmallVector<StringRef> groups;
  llvm::Regex located("^\\[([0-9]+):([0-9]+), byte=[0-9]+\\]: (.*)$");
  if (located.match(msg, &groups))
    return makeError(path + ":" + groups[1] + ":" + groups[2] +
                     ": invalid JSON: " + groups[3]);
  return makeError(path + ": invalid JSON: " + msg);
}

bool isNameChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
}


Expected<Target> loadTargetFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError(path + ": cannot read: " + buffer.getError().message());
  Expected<Target> t = parseTarget((*buffer)->getBuffer(), path);
  if (!t)
    return t.takeError();
  t->source = path.str();
  // A CPU or feature LLVM does not know would only make LLVM print
  // warnings and the code lose them; implied features are added.
  if (llvm::Error e = addImpliedFeatures(*t))
    return std::move(e);
  if (llvm::Error e = verifyAgainstLLVM(*t))
    return std::move(e);
  return t;
}

Expected<Target> detectHost(StringRef dir) {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  Target t;
  switch (triple.getArch()) {
  case llvm::Triple::x86_64:
    t.arch = TargetArch::X86_64;
    break;
  case llvm::Triple::aarch64:
    t.arch = TargetArch::AArch64;
    break;
  default:
    return makeError("host: architecture '" + triple.getArchName() +
                     "' is not one tisa targets (x86_64, aarch64)");
  }
  t.name = "host";
  t.cpu = llvm::sys::getHostCPUName().str();
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    if (feature.second)
      t.features.insert(feature.first());

  std::string source = "LLVM host detection (cpu '" + t.cpu + "')";
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, t.cpu + ".json");
  if (llvm::sys::fs::exists(path)) {
    Expected<Target> data = loadTargetFile(path);
    if (!data)
      return data.takeError();
    if (data->arch != t.arch)
      return makeError(
          path + ": describes an " + stringifyTargetArch(data->arch) +
          " machine but the host is " + stringifyTargetArch(t.arch));
    // Everything but the features: those come from detection, since a VM or
    // a BIOS setting may hide some of what the CPU model has.
    t.description = "this machine: " + data->description;
    t.vectorBits = data->vectorBits;
    t.vectorRegisters = data->vectorRegisters;
    t.tileRegisters = data->tileRegisters;
    t.l1dBytes = data->l1dBytes;
    t.l2Bytes = data->l2Bytes;
    t.l3Bytes = data->l3Bytes;
    t.issuePerCycle = data->issuePerCycle;
    t.latencyCycles = data->latencyCycles;
    t.cost = data->cost;
    t.notes = data->notes;
    source += " with registers, caches and rates from " + path.str().str();
    // On x86 the register file follows from the detected features exactly;
    // prefer that over the file when they disagree (AVX-512 disabled).
    if (t.arch == TargetArch::X86_64) {
      Target derived = t;
      deriveRegistersFromFeatures(derived);
      if (derived.vectorBits != t.vectorBits ||
          derived.vectorRegisters != t.vectorRegisters ||
          derived.tileRegisters != t.tileRegisters) {
        t.vectorBits = derived.vectorBits;
        t.vectorRegisters = derived.vectorRegisters;
        t.tileRegisters = derived.tileRegisters;
        source += "; vector and tile registers from the detected features, "
                  "which differ from the file";
      }
    }
  } else {
    t.description = "this machine (" + t.cpu + ", no data file)";
    deriveRegistersFromFeatures(t);
    source += "; no " + t.cpu + ".json in " + dir.str() +
              ": vector registers derived from the features (" +
              std::to_string(t.vectorRegisters) + " x " +
              std::to_string(t.vectorBits) +
              "-bit), caches and issue rates unknown";
  }
  int cores = llvm::get_physical_cores();
  t.cores = cores > 0 ? cores : 1;
  t.source = std::move(source);
  return t;
}

} // namespace

void deriveRegistersFromFeatures(Target &t) {
  switch (t.arch) {
  case TargetArch::X86_64:
    if (t.features.contains("avx512f")) {
      t.vectorBits = 512;
      t.vectorRegisters = 32;
    } else if (t.features.contains("avx")) {
      t.vectorBits = 256;
      t.vectorRegisters = 16;
    } else if (t.features.contains("sse2")) {
      t.vectorBits = 128;
      t.vectorRegisters = 16;
    }
    t.tileRegisters = t.features.contains("amx-tile") ? 8 : 0;
    break;
  case TargetArch::AArch64:
    // SVE's vector length is not a feature: 128 bits is the architectural
    // minimum and the NEON width.
    if (t.features.contains("neon") || t.features.contains("sve")) {
      t.vectorBits = 128;
      t.vectorRegisters = 32;
    }
    break;
  case TargetArch::NVPTX:
    t.warpSize = 32;
    t.registersPerThread = 255;
    t.gridBlocksX = (uint64_t(1) << 31) - 1;
    t.gridBlocksY = 65535;
    break;
  }
}

llvm::Triple tripleFor(TargetArch arch) {
  switch (arch) {
  case TargetArch::X86_64:
    return llvm::Triple("x86_64-unknown-linux-gnu");
  case TargetArch::AArch64:
    return llvm::Triple("aarch64-unknown-linux-gnu");
  case TargetArch::NVPTX:
    return llvm::Triple("nvptx64-nvidia-cuda");
  }
  llvm_unreachable("unknown TargetArch");
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

std::string Target::modelKey() const {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << "bits=" << vectorBits << ",vregs=" << vectorRegisters
     << ",tiles=" << tileRegisters << ",threadregs=" << registersPerThread
     << ",l1=" << l1dBytes << ",l2=" << l2Bytes << ",l3=" << l3Bytes;
  for (const auto *rates : {&issuePerCycle, &latencyCycles}) {
    std::vector<std::string> entries;
    for (const auto &r : *rates)
      entries.push_back(
          (r.getKey() + "=" + llvm::formatv("{0:e16}", r.getValue()).str())
              .str());
    llvm::sort(entries);
    os << "|" << llvm::join(entries, ",");
  }
  for (const CostKey &k : kCostKeys) {
    os << "|" << k.key << "=";
    if (k.real)
      os << llvm::formatv("{0:e16}", cost.*k.real);
    else if (k.count)
      os << cost.*k.count;
    else
      os << cost.*k.bytes;
  }
  return key;
}

std::vector<std::string> Target::missingFeatures(const Description &d) const {
  std::vector<std::string> missing;
  if (d.target != arch)
    return missing;
  for (StringRef feature : d.features) {
    feature.consume_front("+");
    // A '-' feature switches something off; it never makes a machine unfit.
    if (feature.empty() || feature.starts_with("-"))
      continue;
    if (!features.contains(feature))
      missing.push_back(feature.str());
  }
  return missing;
}

/// Features that only make intrinsics or system instructions available:
/// LLVM never emits their instructions for ordinary code, and hypervisors
/// often hide them (a cloud VM of a Zen 4 host lacks invpcid, rdpid, rdseed,
/// shstk and xsaves), so code generated for a target that lists them runs
/// on a host without them. x87 and nopl (multi-byte NOPs) are in every
/// x86-64 CPU but not in LLVM's host list.
static bool neverEmittedOnItsOwn(StringRef feature) {
  return llvm::is_contained(
      {"x87",    "nopl",   "pku",      "mwaitx",     "rdpru",    "wbnoinvd", "invpcid",
       "rdpid",  "rdseed",   "rdrnd",      "shstk",    "xsave",    "xsavec",
       "xsaveopt", "xsaves", "fsgsbase",   "pconfig",  "sgx",      "ptwrite",
       "uintr",  "waitpkg",  "enqcmd",     "movdir64b", "movdiri", "cldemote",
       "serialize", "tsxldtrk", "clflushopt", "clwb",  "clzero",   "hreset"},
      feature);
}

std::vector<std::string> featuresLacking(const Target &target,
                                         const Target &host) {
  std::vector<std::string> missing;
  for (const auto &f : target.features)
    if (!host.features.contains(f.getKey()) && !neverEmittedOnItsOwn(f.getKey()))
      missing.push_back(f.getKey().str());
  llvm::sort(missing);
  return missing;
}

void Target::disableFeatures(llvm::ArrayRef<std::string> names) {
  for (const std::string &f : names) {
    features.erase(f);
    disabledFeatures.insert(f);
  }
}

bool Target::canExecute(const Description &d) const {
  return d.target == arch && missingFeatures(d).empty();
}

double Target::issueRate(const Description &d) const {
  if (auto it = issuePerCycle.find(d.name); it != issuePerCycle.end())
    return it->second;
  if (auto it = derivedRates.find(d.name); it != derivedRates.end())
    return it->second.issuePerCycle;
  return 1.0;
}

std::string Target::rateOrigin(const Description &d) const {
  if (namesRates(d))
    return "target file";
  auto it = derivedRates.find(d.name);
  return it == derivedRates.end() ? "default" : it->second.origin;
}

double Target::latency(const Description &d) const {
  if (auto it = latencyCycles.find(d.name); it != latencyCycles.end())
    return it->second;
  if (auto it = derivedRates.find(d.name); it != derivedRates.end())
    return it->second.latency;
  return 4.0;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

std::optional<TargetArch> parseTargetArch(StringRef name) {
  for (TargetArch arch :
       {TargetArch::X86_64, TargetArch::AArch64, TargetArch::NVPTX})
    if (name == stringifyTargetArch(arch))
      return arch;
  return std::nullopt;
}

Expected<Target> parseTarget(StringRef json, StringRef path) {
  Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return syntaxError(value.takeError(), path);
  const llvm::json::Object *root = value->getAsObject();
  if (!root)
    return makeError(path + ": the top level must be an object");

  Diagnostics diag(json, path);
  std::string allowed = llvm::join(llvm::ArrayRef(kAllowedKeys), ", ");
  std::vector<std::string> keys;
  for (const auto &entry : *root)
    keys.push_back(entry.first.str());
  llvm::sort(keys);
  for (StringRef key : keys) {
    if (!llvm::is_contained(kAllowedKeys, key))
      diag.error({key}, "unknown key '" + key + "' (allowed: " + allowed + ")");
    diag.duplicate(key);
  }
  for (StringRef key : kRequiredKeys)
    if (!root->get(key))
      diag.error({}, "missing required key '" + key + "'");

  Target t;
  auto getString = [&](StringRef key, std::string &out) {
    const llvm::json::Value *v = root->get(key);
    if (!v)
      return false;
    std::optional<StringRef> s = v->getAsString();
    if (!s || s->empty()) {
      diag.error({key}, "key '" + key + "' must be a non-empty string");
      return false;
    }
    out = s->str();
    return true;
  };
  auto getCount = [&](StringRef key, auto &out) {
    using T = std::remove_reference_t<decltype(out)>;
    const llvm::json::Value *v = root->get(key);
    if (!v)
      return;
    std::optional<uint64_t> n = v->getAsUINT64();
    if (!n) {
      diag.error({key}, "key '" + key + "' must be a non-negative integer");
      return;
    }
    if (*n > std::numeric_limits<T>::max()) {
      diag.error({key}, "key '" + key + "' is too large (" + Twine(*n) + ")");
      return;
    }
    out = static_cast<T>(*n);
  };
  auto getRates = [&](StringRef key, llvm::StringMap<double> &out) {
    const llvm::json::Value *v = root->get(key);
    if (!v)
      return;
    const llvm::json::Object *rates = v->getAsObject();
    if (!rates) {
      diag.error({key}, "key '" + key +
                            "' must be an object from description names to "
                            "numbers");
      return;
    }
    std::vector<std::string> names;
    for (const auto &entry : *rates)
      names.push_back(entry.first.str());
    llvm::sort(names);
    for (StringRef name : names) {
      std::optional<double> x = rates->get(name)->getAsNumber();
      if (name.empty())
        diag.error({key}, key + ": description names must not be empty");
      else if (!x || !std::isfinite(*x) || *x <= 0)
        diag.error({key, name},
                   key + ": '" + name + "' must be a positive number");
      else
        out[name] = *x;
    }
  };

  if (getString("name", t.name)) {
    if (!llvm::all_of(t.name, isNameChar))
      diag.error({"name"}, "key 'name' is '" + t.name +
                               "': use letters, digits, '_', '-' and '.'");
    else if (t.name == "host")
      diag.error({"name"},
                 "key 'name': 'host' is reserved for the detected machine");
  }
  getString("description", t.description);
  std::string archName;
  if (getString("arch", archName)) {
    if (std::optional<TargetArch> arch = parseTargetArch(archName))
      t.arch = *arch;
    else
      diag.error({"arch"}, "key 'arch' is '" + archName +
                               "' (allowed: x86_64, aarch64, nvptx64)");
  }
  getString("cpu", t.cpu);
  if (const llvm::json::Value *v = root->get("features")) {
    const llvm::json::Array *list = v->getAsArray();
    if (!list) {
      diag.error({"features"}, "key 'features' must be an array of strings");
    } else {
      for (auto [i, item] : llvm::enumerate(*list)) {
        std::optional<StringRef> s = item.getAsString();
        std::string where = "features[" + std::to_string(i) + "]";
        if (!s) {
          diag.error({"features"}, where + " must be a string");
          continue;
        }
        StringRef feature = *s;
        feature.consume_front("+");
        if (feature.empty() || feature.starts_with("-") ||
            !llvm::all_of(feature, isNameChar))
          diag.error({"features"},
                     where + " is '" + *s +
                         "': list the LLVM features the machine has, e.g. "
                         "\"avx512vnni\"");
        else if (!t.features.insert(feature).second)
          diag.error({"features"}, "feature '" + feature + "' is listed twice");
      }
    }
  }
  getCount("vector_bits", t.vectorBits);
  if (t.vectorBits % 128 != 0)
    diag.error({"vector_bits"}, "key 'vector_bits' is " + Twine(t.vectorBits) +
                                    ": must be 0 or a multiple of 128");
  else if (t.arch == TargetArch::AArch64 && t.vectorBits > 2048)
    diag.error({"vector_bits"}, "key 'vector_bits' is " + Twine(t.vectorBits) +
                                    ": SVE vectors have at most 2048 bits");
  getCount("vector_registers", t.vectorRegisters);
  getCount("tile_registers", t.tileRegisters);
  getCount("registers_per_thread", t.registersPerThread);
  getCount("warp_size", t.warpSize);
  if (t.arch == TargetArch::NVPTX && t.warpSize && t.warpSize != 32)
    diag.error({"warp_size"}, "key 'warp_size' is " + Twine(t.warpSize) +
                                  ": mma.sync is warp-wide over 32 threads");
  getCount("l1d_bytes", t.l1dBytes);
  getCount("l2_bytes", t.l2Bytes);
  getCount("l3_bytes", t.l3Bytes);
  getCount("shared_memory_bytes", t.sharedMemoryBytes);
  getCount("grid_blocks_x", t.gridBlocksX);
  getCount("grid_blocks_y", t.gridBlocksY);
  getCount("sm_threads", t.smThreads);
  getCount("sm_registers", t.smRegisters);
  getCount("sm_blocks", t.smBlocks);
  getCount("sm_shared_memory_bytes", t.smSharedMemoryBytes);
  getCount("cores", t.cores);
  getRates("issue_per_cycle", t.issuePerCycle);
  getRates("latency_cycles", t.latencyCycles);
  // Every target states the constants its schedules are chosen with; a key
  // it leaves out takes the default docs/targets.md gives.
  if (const llvm::json::Value *v = root->get("cost_model"))
    parseCostModel(*v, diag, t.cost);
  else
    diag.error({}, "missing required key 'cost_model': state the cost-model "
                   "constants this target's schedules use (docs/targets.md; "
                   "znver4.json's are measured on Zen 4)");
  if (root->get("notes"))
    getString("notes", t.notes);

  if (!diag.empty())
    return diag.take();
  t.source = path.str();
  return t;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

std::string defaultTargetDir() {
  std::string dir = shippedDataDir("targets", TISA_INSTALLED_TARGET_DIR,
                                   TISA_SOURCE_TARGET_DIR);
  return dir.empty() ? TISA_SOURCE_TARGET_DIR : dir;
}

std::vector<std::string> listTargets(StringRef dir) {
  std::string root = dir.empty() ? defaultTargetDir() : dir.str();
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(root, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".json")
      names.push_back(llvm::sys::path::stem(it->path()).str());
  llvm::sort(names);
  names.insert(names.begin(), "host");
  return names;
}

Expected<Target> loadTarget(StringRef name, StringRef dir) {
  if (!dir.empty() && !llvm::sys::fs::is_directory(dir))
    return makeError("the target directory '" + dir + "' is not a directory");
  std::string root = dir.empty() ? defaultTargetDir() : dir.str();
  if (name == "host")
    return detectHost(root);
  if (name.ends_with(".json") || name.contains('/'))
    return loadTargetFile(name);

  llvm::SmallString<256> path(root);
  llvm::sys::path::append(path, name + ".json");
  if (!llvm::sys::fs::exists(path))
    return makeError("unknown target '" + name +
                     "' (known: " + llvm::join(listTargets(root), ", ") +
                     "; target files are read from " + root + ")");
  Expected<Target> t = loadTargetFile(path);
  if (!t)
    return t.takeError();
  if (t->name != name)
    return makeError(path + ": key 'name' is '" + t->name +
                     "' but the file is named '" + name + ".json'");
  return t;
}

Target targetFromFeatures(TargetArch arch, StringRef features) {
  Target t;
  t.name = "features";
  t.description = "a feature list";
  t.arch = arch;
  t.source = "--features " + features.str();
  llvm::SmallVector<StringRef> parts;
  features.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    StringRef feature = part.trim();
    feature.consume_front("+");
    if (!feature.empty() && !feature.starts_with("-"))
      t.features.insert(feature);
  }
  if (arch == TargetArch::NVPTX) {
    // The newest sm_XX level named is the GPU the list stands for.
    unsigned best = 0;
    for (const auto &feature : t.features) {
      unsigned sm = 0;
      StringRef key = feature.getKey();
      if (key.consume_front("sm_") && !key.getAsInteger(10, sm) && sm > best) {
        best = sm;
        t.cpu = feature.getKey().str();
      }
    }
  } else {
    t.cpu = "generic";
  }
  deriveRegistersFromFeatures(t);
  return t;
}

} // namespace tisa
