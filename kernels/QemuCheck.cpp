//===- QemuCheck.cpp - generated aarch64 kernels checked under qemu -------===//

#include "tisa/Kernels/QemuCheck.h"
#include "KernelEpilogue.h"

#include "tisa/Kernels/Reference.h"

#include "tisa/Targets/Codegen.h"
#include "tisa/Targets/Disassembler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace tisa {
namespace {

/// The adapter's entry, with the probe signature (see adapterSource).
constexpr const char *kAdapterEntry = "tisa_qemu_entry";

/// What a call of the adapter takes as data (int64_t each, in this order),
/// then the call's run-time extents (all of them, then the weights'), so
/// that one executable serves every data set, extent and count of a kernel,
/// and one adapter every kernel.
enum CallParam {
  kLda,
  kLdb,
  kLdc,
  kLdr,
  kZeroPoint,
  kGuard,
  kMarked,   ///< 1: the calls are counted parts
  kPlainToo, ///< 1: the plain entry is called after the pre-packed one
  kGemm,     ///< 1: the entries take leading dimensions
  kEpilogue, ///< 1: the entries take a tisa_epilogue
  kAll,      ///< how many run-time extents every entry takes first
  kWeights,  ///< how many of them the pack and NAME_packed_bytes take
  kFixedParams
};

/// The names the adapter calls a kernel's entries by; the link binds them
/// to the kernel's (aarch64::LinkedProgram::link).
constexpr const char *kPlain = "tisa_adapter_plain",
                     *kPacked = "tisa_adapter_packed",
                     *kPack = "tisa_adapter_pack",
                     *kPackedBytes = "tisa_adapter_packed_bytes";

/// C for the adapter's entry `void tisa_qemu_entry(params, in, weights,
/// outPacked, outPlain, bias, residual, scale)`, the same for every kernel
/// (so it is compiled once per machine): packs the weights into a poisoned
/// buffer followed by a guard, as packWeights does on the host (placed by
/// the harness as the call's buffers are: against a fence page), and calls
/// the pre-packed entry into outPacked, then the plain entry into outPlain,
/// each at the guard's offset into its buffer (with an epilogue, through a
/// tisa_epilogue of the last three and the zero point); the plain one only
/// when the call says so. Each entry's call is a part counted between calls
/// of aarch64::kCountMarkSymbol when the call is marked (an empty function
/// when no counting plugin runs). The entries take integers and pointers
/// only, each in an x register or an 8-byte stack slot, so they are called
/// through `long long` parameters.
std::string adapterSource() {
  return llvm::formatv(R"c(#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
{0}
typedef long long L;
typedef void (*F)(void);
void *{22}(size_t size, size_t *extra);
void {23}(void *p, size_t size, size_t extra);
void {1}(void);
void {2}(void);
void {3}(void);
void {4}(void);
__attribute__((noinline)) void {5}(void) {{ __asm__ volatile(""); }

static L callWith(F f, const L *a, int n) {{
  switch (n) {{
  case 0: return ((L (*)(void))f)();
  case 1: return ((L (*)(L))f)(a[0]);
  case 2: return ((L (*)(L, L))f)(a[0], a[1]);
  case 3: return ((L (*)(L, L, L))f)(a[0], a[1], a[2]);
  case 4: return ((L (*)(L, L, L, L))f)(a[0], a[1], a[2], a[3]);
  case 5: return ((L (*)(L, L, L, L, L))f)(a[0], a[1], a[2], a[3], a[4]);
  case 6:
    return ((L (*)(L, L, L, L, L, L))f)(a[0], a[1], a[2], a[3], a[4], a[5]);
  case 7:
    return ((L (*)(L, L, L, L, L, L, L))f)(a[0], a[1], a[2], a[3], a[4], a[5],
                                           a[6]);
  case 8:
    return ((L (*)(L, L, L, L, L, L, L, L))f)(a[0], a[1], a[2], a[3], a[4],
                                              a[5], a[6], a[7]);
  case 9:
    return ((L (*)(L, L, L, L, L, L, L, L, L))f)(a[0], a[1], a[2], a[3], a[4],
                                                 a[5], a[6], a[7], a[8]);
  case 10:
    return ((L (*)(L, L, L, L, L, L, L, L, L, L))f)(
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
  default:
    fprintf(stderr, "adapter: %d arguments\n", n);
    exit(6);
  }
}

void {6}(const L *p, void *in, void *w, void *outPacked, void *outPlain,
         void *bias, void *residual, void *scale) {{
  int gemm = (int)p[{7}], all = (int)p[{8}], weights = (int)p[{9}];
  const L *extents = p + {10}, *weightExtents = extents + all;
  tisa_epilogue epilogue = {{bias, residual, p[{11}], (const float *)scale,
                            (int32_t)p[{12}]};
  L a[12];
  int n;
  L bytes = callWith((F){4}, weightExtents, weights);
  size_t guard = {13};
  unsigned char *packed = {22}((size_t)bytes, &guard);
  if (!packed)
    abort();
  memset(packed, {14}, (size_t)bytes);
  memset(packed + bytes, {15}, guard);
  n = 0;
  for (int i = 0; i < weights; ++i)
    a[n++] = weightExtents[i];
  a[n++] = (L)w;
  if (gemm)
    a[n++] = p[{16}];
  a[n++] = (L)packed;
  callWith((F){3}, a, n);
  for (L i = bytes; i < bytes + (L)guard; ++i)
    if (packed[i] != {15}) {{
      fprintf(stderr, "the pack wrote past its %lld bytes "
                      "(NAME_packed_bytes): byte %lld\n", bytes, i);
      exit(5);
    }
  for (int plain = 0; plain <= (int)p[{24}]; ++plain) {{
    n = 0;
    for (int i = 0; i < all; ++i)
      a[n++] = extents[i];
    a[n++] = (L)in;
    if (gemm)
      a[n++] = p[{17}];
    if (plain) {{
      a[n++] = (L)w;
      if (gemm)
        a[n++] = p[{16}];
    } else {{
      a[n++] = (L)packed;
    }
    a[n++] = (L)((char *)(plain ? outPlain : outPacked) + p[{18}]);
    if (gemm)
      a[n++] = p[{19}];
    if (p[{20}])
      a[n++] = (L)&epilogue;
    if (p[{21}])
      {5}();
    callWith(plain ? (F){1} : (F){2}, a, n);
    if (p[{21}])
      {5}();
    if (!plain)
      {23}(packed, (size_t)bytes, guard);
  }
}
)c",
                       epilogueStructText(), kPlain, kPacked, kPack,
                       kPackedBytes, aarch64::kCountMarkSymbol, kAdapterEntry,
                       int(kGemm), int(kAll), int(kWeights),
                       int(kFixedParams), int(kLdr), int(kZeroPoint),
                       kPackGuardBytes, unsigned(kPackPoison),
                       unsigned(kOutputPoison), int(kLdb), int(kLda),
                       int(kGuard), int(kLdc), int(kEpilogue), int(kMarked),
                       aarch64::kHarnessAllocSymbol,
                       aarch64::kHarnessFreeSymbol, int(kPlainToo))
      .str();
}

/// The adapter's names bound to `k`'s entries.
std::vector<std::pair<std::string, std::string>>
adapterBindings(const GeneratedKernel &k, const KernelSpec &spec) {
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  return {{kPlain, k.name},
          {kPacked, k.name + "_packed"},
          {kPack, k.name + (gemm ? "_pack_b" : "_pack_filter")},
          {kPackedBytes, k.name + "_packed_bytes"}};
}

std::vector<uint8_t> bytesOf(const Bytes &b) {
  // A probe buffer is never empty: an unused epilogue operand gets a byte.
  if (b.empty())
    return {0};
  return {b.begin(), b.end()};
}

/// The call's parameters (CallParam, then the extents) as the adapter
/// reads them.
std::vector<uint8_t> callParams(const KernelSpec &spec, const KernelData &d,
                                bool marked, bool plain) {
  auto all = spec.runTimeExtents(KernelSpec::Extents::All);
  auto weights = spec.runTimeExtents(KernelSpec::Extents::Weights);
  std::vector<int64_t> values = {d.lda,
                                 d.ldb,
                                 d.ldc,
                                 d.ldr,
                                 d.zeroPoint,
                                 d.guard,
                                 marked,
                                 plain,
                                 spec.op == KernelSpec::Op::Gemm,
                                 spec.epilogue.any(),
                                 int64_t(all.size()),
                                 int64_t(weights.size())};
  for (const auto &e : all)
    values.push_back(e.second);
  for (const auto &e : weights)
    values.push_back(e.second);
  std::vector<uint8_t> bytes(values.size() * sizeof(int64_t));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// The adapter entry's buffers, in its order.
std::vector<std::vector<uint8_t>> probeBuffers(const KernelSpec &spec,
                                               const KernelData &data,
                                               bool marked, bool plain) {
  return {callParams(spec, data, marked, plain), bytesOf(data.input),
          bytesOf(data.weights),  bytesOf(data.output),
          bytesOf(data.output),   bytesOf(data.bias),
          bytesOf(data.residual), bytesOf(data.scale)};
}

} // namespace

aarch64::RunOptions qemuOptionsFor(const Target &target) {
  aarch64::RunOptions options;
  if (target.name == "neoverse-n1")
    options.cpu = "neoverse-n1";
  else if (target.features.contains("sve"))
    options.sveBits = target.vectorBits;
  options.timeoutSeconds = 600;
  return options;
}

llvm::Expected<QemuKernel> QemuKernel::link(const GeneratedKernel &k,
                                             const KernelSpec &spec) {
  if (!k.object)
    return llvm::createStringError("the kernel has no object code");
  llvm::ArrayRef<uint8_t> object(
      reinterpret_cast<const uint8_t *>(k.object->getBufferStart()),
      k.object->getBufferSize());
  static const std::string adapter = adapterSource();
  auto program = aarch64::LinkedProgram::link(object, kAdapterEntry, adapter,
                                              adapterBindings(k, spec));
  if (!program)
    return program.takeError();
  return QemuKernel(k, std::move(*program));
}

namespace {

/// The counts of a marked call (two parts: pre-packed, plain) of `k`.
QemuCounts countsOf(const GeneratedKernel &k, const KernelSpec &spec,
                    unsigned sveBits, const aarch64::ExecutedCounts &prePacked,
                    const aarch64::ExecutedCounts &plain) {
  QemuCounts counts;
  counts.total = prePacked.total;
  counts.executed = prePacked.executed;
  counts.plainTotal = plain.total;
  if (!k.mnemonic.empty()) {
    auto tensor = prePacked.executed.find(k.mnemonic);
    counts.tensor = tensor == prePacked.executed.end() ? 0 : tensor->second;
    // A scalable instruction does its segment's work once per 128 bits.
    int64_t segments = k.scalable && sveBits ? sveBits / 128 : 1;
    counts.minimum =
        double(spec.ops()) / 2 / double(k.macsPerInstruction * segments);
  }
  return counts;
}

/// "CPU at SVE N bits", as messages name a config.
std::string configName(const aarch64::RunOptions &config) {
  if (!config.sveBits)
    return config.cpu;
  return llvm::formatv("{0} at SVE {1} bits", config.cpu, config.sveBits);
}

} // namespace

llvm::Expected<QemuCounts>
QemuKernel::count(const KernelSpec &spec, const aarch64::RunOptions &options,
                  uint64_t seed) const {
  int runs = 0;
  std::vector<QemuCounts> counts;
  std::string error = run({}, spec, options, seed, QemuRuns{}, runs, &counts);
  if (!error.empty())
    return llvm::createStringError(error);
  return counts.front();
}

std::string QemuKernel::check(llvm::ArrayRef<KernelSpec> specs,
                              llvm::ArrayRef<aarch64::RunOptions> configs,
                              uint64_t seed, int &runs,
                              std::vector<QemuCounts> *counts,
                              const QemuRuns &which) const {
  return run(specs, specs.front(), configs, seed, which, runs, counts);
}

namespace {

/// One data set of a run: checked against its reference, or (count() alone)
/// only counted.
struct RunData {
  const KernelSpec *spec;
  const CheckInputs *in; ///< null when only counted
  KernelData data;
};

/// The harness's placement of the buffers as the host's fence says.
aarch64::BufferFence fenceOf(Fence f) {
  switch (f) {
  case Fence::None:
    return aarch64::BufferFence::None;
  case Fence::After:
    return aarch64::BufferFence::After;
  case Fence::Before:
    return aarch64::BufferFence::Before;
  }
  llvm_unreachable("a fence");
}

/// What a data set runs under one config: whether it runs, and whether
/// through the plain entry too (after the pre-packed one).
struct Entries {
  bool run, plain;
};

/// `in`'s entries under the config numbered `config`, of those `which`
/// names. A kernel of more than kQemuLargeMacs runs its random data through
/// the pre-packed entry under every config, and only under the first config
/// its extreme data (through the pre-packed entry) and its random data
/// through the plain entry, which packs the weights and calls the pre-packed
/// entry (the adapter's pack runs with every call).
Entries entriesOf(const RunData &in, size_t config, const QemuRuns &which) {
  if (!in.in)
    return {true, true}; // only counted: both entries
  bool random = in.in->fill != Fill::Extreme;
  if (!(random ? which.random : which.extreme))
    return {false, false};
  if (in.spec->ops() / 2 <= kQemuLargeMacs)
    return {true, which.plain};
  return {random || config == 0, which.plain && random && config == 0};
}

/// Each result of `in`'s call (pre-packed, then plain) compared with the
/// reference; empty if all agree, else which differed and how.
std::string compareCall(RunData &in, const aarch64::ProbeResult &out,
                        bool plain, const std::string &at,
                        const std::string &config, int &runs) {
  const char *names[] = {"pre-packed", "plain"};
  for (unsigned i = 0; i < 1u + plain; ++i) {
    llvm::copy(out.buffers[3 + i], in.data.output.begin());
    std::string diff = compareOutput(*in.spec, in.data);
    if (!diff.empty())
      return llvm::formatv("{0}{1} inputs, {2} entry under qemu -cpu {3}: {4}",
                           at, in.in->name, names[i], config, diff)
          .str();
    ++runs;
  }
  return "";
}

} // namespace

std::string QemuKernel::run(llvm::ArrayRef<KernelSpec> specs,
                            const KernelSpec &countedSpec,
                            llvm::ArrayRef<aarch64::RunOptions> configs,
                            uint64_t seed, const QemuRuns &which, int &runs,
                            std::vector<QemuCounts> *counts) const {
  runs = 0;
  // One data set and one reference per spec and kind of input, for every
  // config; the first is the counted one (random data, as count()'s).
  std::vector<RunData> inputs;
  for (const KernelSpec &spec : specs)
    for (const CheckInputs &in : checkInputs()) {
      RunData &c = inputs.emplace_back(
          RunData{&spec, &in,
                  makeData(spec, seed, in.fill, in.layout, in.fence)});
      c.data.denormalsAreZero = kernel.denormalsAreZero;
      computeReference(spec, c.data);
      poisonOutput(c.data);
    }
  if (inputs.empty())
    inputs.push_back({&countedSpec, nullptr,
                      makeData(countedSpec, seed, Fill::Random)});
  // Configs of one CPU model run in one process, each call at its config's
  // vector length.
  for (size_t first = 0; first < configs.size();) {
    size_t last = first + 1;
    while (last < configs.size() && configs[last].cpu == configs[first].cpu &&
           configs[last].environment == configs[first].environment)
      ++last;
    std::vector<aarch64::ProgramCall> calls;
    // Where each config's counted parts begin (a part per entry called),
    // whether the plain entry's is among them, and of which spec.
    struct Counted {
      size_t part;
      bool plain;
      const KernelSpec *spec;
    };
    std::vector<Counted> counted;
    size_t parts = 0;
    for (size_t c = first; c < last; ++c)
      for (const RunData &in : inputs) {
        Entries e = entriesOf(in, c, which);
        if (!e.run)
          continue;
        // The first data set that runs is counted.
        bool marked = counts && counted.size() == c - first;
        if (marked) {
          counted.push_back({parts, e.plain, in.spec});
          parts += 1 + e.plain;
        }
        calls.push_back({probeBuffers(*in.spec, in.data, marked, e.plain),
                         configs[c].sveBits, fenceOf(in.data.fence)});
      }
    aarch64::RunOptions options = configs[first];
    options.countParts = counts != nullptr;
    auto result = program.runCalls(std::move(calls), options);
    if (!result)
      return llvm::formatv("under qemu -cpu {0}: {1}", configName(options),
                           llvm::toString(result.takeError()))
          .str();
    if (counts && result->parts.size() != parts)
      return llvm::formatv("expected {0} counted calls, got {1} parts", parts,
                           result->parts.size())
          .str();
    for (size_t c = first, call = 0; c < last; ++c) {
      if (counts) {
        if (counted.size() <= c - first)
          return "no data set runs under " + configName(configs[c]);
        const Counted &k = counted[c - first];
        counts->push_back(countsOf(
            kernel, *k.spec, configs[c].sveBits, result->parts[k.part],
            k.plain ? result->parts[k.part + 1] : aarch64::ExecutedCounts()));
      }
      for (RunData &in : inputs) {
        Entries e = entriesOf(in, c, which);
        if (!e.run)
          continue;
        const aarch64::ProbeResult &out = result->calls[call++];
        if (!in.in)
          continue;
        // Which call, when there are several.
        std::string at =
            specs.size() > 1 ? "at " + in.spec->describe() + ": " : "";
        std::string diff =
            compareCall(in, out, e.plain, at, configName(configs[c]), runs);
        if (!diff.empty())
          return diff;
      }
    }
    first = last;
  }
  return "";
}

/// llvm-mca's cycles per iteration of the pre-packed entry's innermost loop
/// with the most tensor instructions, against its throughput bound: what the
/// hardware would do, where qemu only counts.
std::string hotLoopReport(const GeneratedKernel &k, const Target &target) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (k.mnemonic.empty() || !k.object)
    return "llvm-mca      not run: plain vector code";
  std::string entry = k.name + "_packed";
  // The entry and the functions it calls (its blocks, outlined).
  auto functions = disassembleWithCallees(k.object->getMemBufferRef(), entry,
                                          "", DisasmBackend::LLVM, target.cpu);
  if (!functions) {
    os << "llvm-mca      not run: " << llvm::toString(functions.takeError());
    return text;
  }
  llvm::ArrayRef<DecodedInst> loop;
  int64_t most = 0;
  for (const DecodedFunction &f : *functions)
    for (auto [first, last] : innermostLoops(f.insts)) {
      auto insts = llvm::ArrayRef(f.insts).slice(first, last - first + 1);
      int64_t n = llvm::count_if(insts, [&](const DecodedInst &in) {
        return in.mnemonic == k.mnemonic;
      });
      if (n > most) {
        most = n;
        loop = insts;
      }
    }
  if (!most) {
    os << "llvm-mca      not run: no innermost loop of " << entry << " holds "
       << k.mnemonic;
    return text;
  }
  auto mca =
      aarch64::analyzeLoop(loop, target.cpu, codegenTargetFor(target).features);
  if (!mca) {
    // Its first lines: llvm-mca repeats a complaint once per instruction.
    std::string why = llvm::toString(mca.takeError());
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(why).split(lines, '\n');
    os << "llvm-mca      not run: "
       << llvm::join(llvm::ArrayRef(lines).take_front(4), "\n");
    return text;
  }
  os << llvm::formatv("llvm-mca      hot loop of {0}: {1} instructions, {2} "
                      "{3}; {4:f2} cycles per iteration on {5} (throughput "
                      "bound {6:f2}): {7:f2} {3} per cycle",
                      entry, mca->instructions, most, k.mnemonic,
                      mca->cyclesPerIteration, target.cpu,
                      mca->throughputBound, most / mca->cyclesPerIteration);
  return text;
}

} // namespace tisa
