//===- Run.cpp - tisa run -------------------------------------------------===//
//
//   tisa run gemm|conv2d ... [--repeat R] [--seed S] [--threads N] [--at ...]
//
// JIT-compiles a kernel for this machine (or runs an Arm kernel under QEMU,
// an AMX one under the emulator), checks it against the reference at each
// call of --at and times it.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "GenCommon.h"
#include "tisa/Kernels/Jit.h"
#include "tisa/Kernels/QemuCheck.h"
#include "tisa/Kernels/Reference.h"
#include "tisa/Kernels/Tune.h"
#include "tisa/Semantics/Parse.h"
#ifdef TISA_HAVE_AMX_EMULATOR
#include "tisa/Targets/AMXEmulator.h"
#endif
#include "tisa/Targets/Codegen.h"
#include "tisa/Targets/WarpMma.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <array>
#include <chrono>

using namespace mlir;

namespace tisa::driver {

/// "56 tiles", or with run-time extents "19 tiles at 300" (the call's).
std::string tilesText(const CompiledKernel &k, const KernelSpec &call) {
  if (!call.runTimeShape())
    return std::to_string(k.tiles()) + " tiles";
  KernelData data; // the extents only
  data.rows = call.rows();
  data.callExtents = call.callExtents();
  std::string at;
  for (const auto &e : call.runTimeExtents(KernelSpec::Extents::Rows))
    at += (at.empty() ? " at " : ", ") + e.first + " = " +
          std::to_string(e.second);
  return std::to_string(rangeTiles(k, data)) + " tiles" + at;
}

/// The names of the extents `--at` triples give: m, n, k or n, h, w.
std::array<llvm::StringRef, 3> extentNames(const KernelSpec &spec) {
  if (spec.op == KernelSpec::Op::Gemm)
    return {"m", "n", "k"};
  return {"n", "h", "w"};
}

/// The default `--at` of a kernel of run-time n or k (conv2d h or w): three
/// shapes from a small one to a large one, each static extent as the kernel
/// has it.
std::string defaultAt(const KernelSpec &spec) {
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  int64_t shapes[3][3] = {{1, 1, 1}, {33, 100, 300}, {256, 256, 256}};
  if (!gemm) // the smallest image with an output, an odd one, ResNet's
    for (auto [i, shape] : llvm::enumerate(
             std::array<std::array<int64_t, 3>, 3>{
                 {{1, spec.r, spec.s + 1},
                  {2, 17, 2 * spec.s + 9},
                  {1, 56, 56}}}))
      std::copy(shape.begin(), shape.end(), shapes[i]);
  auto [second, third] = spec.callExtents();
  bool runTime[3] = {spec.runTimeRows, spec.runTimeN || spec.runTimeH,
                     spec.runTimeK || spec.runTimeW};
  int64_t fixed[3] = {spec.rows(), second, third};
  std::vector<std::string> items;
  for (int64_t *shape : shapes) {
    for (unsigned i = 0; i < 3; ++i)
      if (!runTime[i])
        shape[i] = fixed[i];
    items.push_back(llvm::formatv("{0}x{1}x{2}", shape[0], shape[1], shape[2]));
  }
  return llvm::join(items, ",");
}

/// `--at` (the calls a kernel of run-time extents runs at: M,M,... or
/// MxNxK,...), or a usage error.
std::optional<std::vector<KernelSpec>> callsToRun(const Options &o,
                                                  const KernelSpec &spec,
                                                  int &code) {
  auto at = o.values.find("at");
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  // Triples: GEMM m x n x k, conv2d n x h x w.
  bool nk = spec.runTimeN || spec.runTimeK || spec.runTimeH || spec.runTimeW;
  if (!spec.runTimeShape()) {
    if (at != o.values.end()) {
      code = usageError("--at gives the run-time extents of a kernel "
                        "generated with --m ?, --n ? or --k ? (conv2d: --n "
                        "?, --h ? or --w ?)");
      return std::nullopt;
    }
    return std::vector<KernelSpec>();
  }
  std::string text =
      at != o.values.end() ? at->second : !nk ? "1,33,256" : defaultAt(spec);
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(text).split(items, ',');
  std::vector<KernelSpec> calls;
  for (llvm::StringRef item : items) {
    llvm::SmallVector<llvm::StringRef> parts;
    item.trim().split(parts, 'x');
    int64_t v[3] = {0, 0, 0};
    bool ok = parts.size() == (nk ? 3u : 1u);
    for (auto [i, part] : llvm::enumerate(parts))
      ok = ok && !part.getAsInteger(10, v[i]) && v[i] >= 1 &&
           v[i] <= (int64_t(1) << 20);
    if (!ok) {
      code = usageError(
          "--at expects " +
          std::string(!nk    ? "positive integers"
                      : gemm ? "MxNxK triples of positive integers"
                             : "NxHxW triples of positive integers") +
          " separated by commas, got '" + item.str() + "'");
      return std::nullopt;
    }
    KernelSpec call = nk ? spec.withCall(v[0], v[1], v[2])
                         : spec.withRows(v[0]);
    auto [second, third] = call.callExtents();
    int64_t fixed[3] = {call.rows(), second, third};
    for (unsigned i = 0; nk && i < 3; ++i)
      if (fixed[i] != v[i]) {
        code = usageError(llvm::formatv(
            "--at {0}: the kernel's {1} is {2}, fixed when it was generated",
            item, extentNames(spec)[i], fixed[i]));
        return std::nullopt;
      }
    if (llvm::Error e = call.validate()) {
      code = usageError("--at " + item.str() + ": " +
                        llvm::toString(std::move(e)));
      return std::nullopt;
    }
    calls.push_back(call);
  }
  return calls;
}

/// Features the project's emulator provides on x86-64 Linux without them.
bool emulatedFeature(llvm::StringRef f) {
#ifdef TISA_HAVE_AMX_EMULATOR
  return f.starts_with("amx-");
#else
  (void)f;
  return false;
#endif
}

/// Bytes of memory this machine can give a process now (MemAvailable), or
/// 0 when unknown.
uint64_t availableMemory() {
  auto meminfo = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo");
  if (!meminfo)
    return 0;
  llvm::SmallVector<llvm::StringRef> lines;
  (*meminfo)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.consume_front("MemAvailable:"))
      continue;
    line = line.trim();
    uint64_t kib = 0;
    if (!line.consume_back("kB") || line.trim().getAsInteger(10, kib))
      return 0;
    return kib * 1024;
  }
  return 0;
}

/// What running and checking `spec` holds in memory at once, at least: the
/// inputs twice (dense and with padded rows), the packed operand, the
/// kernel's output and the reference's, each element at its width.
uint64_t memoryToCheck(const KernelSpec &spec) {
  const KernelTypes &t = spec.types;
  uint64_t in = uint64_t(spec.inputElements()) * t.a.bytes(),
           weights = uint64_t(spec.weightElements()) * t.b.bytes(),
           out = uint64_t(spec.outputElements()) * t.c.bytes();
  return 2 * in + 3 * weights + 2 * out;
}

/// `--sve-bits B,B,...` into `r.sveBits` (default: the target's vector
/// length when it has SVE), or false with `code` set.
bool sveBitsFrom(const Options &o, Runnable &r, int &code) {
  bool sve = r.underQemu && r.target.features.contains("sve");
  auto it = o.values.find("sve-bits");
  if (it == o.values.end()) {
    if (sve)
      r.sveBits = {unsigned(r.target.vectorBits)};
    return true;
  }
  if (!sve) {
    code = usageError("--sve-bits applies to an aarch64 target with SVE run "
                      "under qemu; " +
                      r.target.name + " is not one");
    return false;
  }
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(it->second).split(parts, ',');
  for (llvm::StringRef p : parts) {
    unsigned bits = 0;
    if (p.trim().getAsInteger(10, bits) || bits < aarch64::kSveGranuleBits ||
        bits > aarch64::kMaxSveVectorBits ||
        bits % aarch64::kSveGranuleBits) {
      code = usageError("--sve-bits expects vector lengths in bits, "
                        "multiples of 128 from 128 to 2048; got '" +
                        p.str() + "'");
      return false;
    }
    r.sveBits.push_back(bits);
  }
  return true;
}

std::optional<Runnable> runnable(const Options &o, llvm::StringRef verb,
                                 int &code) {
  code = 1;
  if (o.positional.size() != 1) {
    code = usageError("'" + verb + "' needs one kernel: gemm or conv2d");
    return std::nullopt;
  }
  Runnable r;
  std::optional<KernelSpec> spec = specFrom(o, o.positional[0], code);
  if (!spec)
    return std::nullopt;
  r.spec = *spec;
  std::optional<std::vector<KernelSpec>> calls = callsToRun(o, r.spec, code);
  if (!calls)
    return std::nullopt;
  r.calls = std::move(*calls);
  if (o.values.count("o")) {
    code = usageError("'" + verb + "' writes no files; use 'gen -o DIR'");
    return std::nullopt;
  }
  if (llvm::StringRef(value(o, "threads", "1")).getAsInteger(10, r.threads) ||
      r.threads < 1 || r.threads > 1024) {
    code = usageError("--threads expects an integer in [1, 1024]");
    return std::nullopt;
  }
  r.options = jitOptionsFrom(o);
  std::optional<Target> target = concreteTarget(o);
  if (!target)
    return std::nullopt;
  r.target = *target;
  auto host = loadTarget("host", o.targetDir);
  // Arm code runs under qemu-aarch64 (QemuKernel::link says when it cannot).
  r.underQemu = target->arch == TargetArch::AArch64 &&
                (!host || host->arch != TargetArch::AArch64);
  r.gpuOnHost = target->arch == TargetArch::NVPTX;
  if (r.spec.runTimeRows && r.gpuOnHost) {
    code = fail("'" + verb + "' of a kernel with run-time rows (--m ?) for " +
                target->name + " is not supported yet (CPU targets only)");
    return std::nullopt;
  }
  if ((r.spec.runTimeN || r.spec.runTimeK || r.spec.runTimeH ||
       r.spec.runTimeW) &&
      r.gpuOnHost) {
    code = fail("'" + verb + "' of a kernel with n, k, h or w at run time " +
                "for " + target->name +
                " is not supported yet (CPU targets only)");
    return std::nullopt;
  }
  if (!sveBitsFrom(o, r, code))
    return std::nullopt;
  if (host && (o.target != "host" || !o.features.empty()) && !r.underQemu &&
      !r.gpuOnHost) {
    std::vector<std::string> missing = featuresLacking(*target, *host);
    // AMX is emulated: the code is the target's without what else this
    // machine lacks.
    if (llvm::any_of(missing, emulatedFeature)) {
      r.emulateAMX = true;
      llvm::erase_if(missing, emulatedFeature);
      r.options.withoutFeatures = missing;
      missing.clear();
    }
    if (!missing.empty()) {
      code = fail("this machine cannot run code for " + target->name +
                  ": it lacks " + llvm::join(missing, ", "));
      return std::nullopt;
    }
  }
  uint64_t needed = 0, available = availableMemory();
  for (const KernelSpec &call : r.checked())
    needed = std::max(needed, memoryToCheck(call));
  if (available && needed > available) {
    code = fail(llvm::formatv("{0} {1} needs at least {2:f1} GiB of memory "
                              "(inputs, packed operand, output and the "
                              "reference's); this machine has {3:f1} GiB "
                              "available",
                              verb, r.spec.describe(), needed / double(1 << 30),
                              available / double(1 << 30))
                    .str());
    return std::nullopt;
  }
  code = 0;
  return r;
}

/// Installs the AMX emulator and says so; false (after an error) if it
/// cannot be installed.
bool installAMXEmulator(llvm::raw_ostream &os) {
#ifdef TISA_HAVE_AMX_EMULATOR
  std::string why;
  if (!tisa::amx::installEmulator(&why)) {
    fail("cannot install the AMX emulator: " + why);
    return false;
  }
  os << "amx          this CPU has no AMX: tisa's trap-and-emulate "
        "library executes each AMX instruction\n";
  return true;
#else
  (void)os;
  fail("this build has no AMX emulator (x86-64 Linux only)");
  return false;
#endif
}

/// What the emulator executed in one call of the pre-packed entry: tile
/// loads per tdp* and tile configurations. False when the kernel's
/// instruction is not an AMX one (nothing was emulated).
bool printAMXCounts(llvm::raw_ostream &os, const CompiledKernel &k,
                    const std::function<void()> &call) {
#ifdef TISA_HAVE_AMX_EMULATOR
  namespace amx = tisa::amx;
  amx::resetCounts();
  call();
  uint64_t dots = amx::emulatedCount(k.mnemonic().c_str());
  uint64_t loads = amx::emulatedCount("tileloadd") +
                   amx::emulatedCount("tileloaddt1");
  if (!dots) {
    if (k.mnemonic().empty())
      os << "amx          plain vector code, no AMX instruction: nothing "
            "was emulated\n";
    else
      os << "amx          " << k.instruction()
         << " is not an AMX instruction: nothing was emulated\n";
    return false;
  }
  os << llvm::formatv("amx counts   one pre-packed call: {0} {5}, {1} tile "
                      "loads ({2:f2} per {5}), {3} tile stores, {4} tile "
                      "configurations\n",
                      dots, loads, dots ? double(loads) / dots : 0.0,
                      amx::emulatedCount("tilestored"),
                      amx::emulatedCount("ldtilecfg"), k.mnemonic());
  return true;
#else
  (void)os, (void)k, (void)call;
  return false;
#endif
}

/// The mnemonics one call executed most, with their shares of `total`:
/// where a kernel's instructions besides its tensor instruction go.
std::string mixText(const std::map<std::string, uint64_t> &executed,
                    uint64_t total) {
  std::vector<std::pair<uint64_t, std::string>> ranked;
  for (const auto &[mnemonic, count] : executed)
    ranked.push_back({count, mnemonic});
  llvm::sort(ranked, [](const auto &a, const auto &b) { return a > b; });
  constexpr size_t kShown = 8;
  std::string text;
  uint64_t shown = 0;
  for (size_t i = 0; i < std::min(kShown, ranked.size()); ++i) {
    text += llvm::formatv("{0}{1} {2:f1}%", i ? ", " : "", ranked[i].second,
                          100.0 * ranked[i].first / std::max<uint64_t>(1, total));
    shown += ranked[i].first;
  }
  if (ranked.size() > kShown)
    text += llvm::formatv(", {0} others {1:f1}%", ranked.size() - kShown,
                          100.0 * (total - shown) / std::max<uint64_t>(1, total));
  return text;
}

/// The check and the counts of `kernel` under qemu with `qemu`'s CPU and
/// vector length, printed; false (after printing why) when a check fails.
bool checkAndCountUnderQemu(const Options &o, const Runnable &r,
                            const GeneratedKernel &kernel,
                            const aarch64::RunOptions &qemu, int &code) {
  auto &os = llvm::outs();
  std::string where = qemu.sveBits ? " at SVE " + std::to_string(qemu.sveBits) +
                                         " bits"
                                   : std::string();
  // One executable for every check and the count.
  auto linked = QemuKernel::link(kernel, r.call());
  if (!linked) {
    code = fail("linking for qemu: " + llvm::toString(linked.takeError()));
    return false;
  }
  int checks = 0;
  for (const KernelSpec &at : r.checked()) {
    int runs = 0;
    std::string diff = linked->check(at, qemu, o.seed, runs);
    if (!diff.empty()) {
      code = fail(at.describe() + where + ": " + diff);
      return false;
    }
    checks += runs;
  }
  os << "check        " << checks << " runs under qemu-aarch64 -cpu "
     << qemu.cpu << where
     << " (random inputs in padded rows and extreme inputs, output between "
        "guard bytes; plain and pre-packed entries"
     << r.checkedText() << "): all agree with the reference\n";
  auto counts = linked->count(r.call(), qemu, o.seed);
  if (!counts) {
    code = fail("counting under qemu" + where + ": " +
                llvm::toString(counts.takeError()));
    return false;
  }
  double macs = r.call().ops() / 2;
  os << llvm::formatv("counts       one pre-packed call{0} executed {1} "
                      "instructions ({2:f3} per multiply-accumulate)",
                      where, counts->total, counts->total / macs);
  if (!kernel.mnemonic.empty())
    os << llvm::formatv(", {0} {1} ({2:f1}% of them; the work needs at least "
                        "{3:f0}: {4:f2}x that)",
                        counts->tensor, kernel.mnemonic,
                        100.0 * counts->tensor /
                            std::max<uint64_t>(1, counts->total),
                        counts->minimum,
                        counts->tensor / std::max(1.0, counts->minimum));
  os << "\nmix          " << mixText(counts->executed, counts->total);
  os << llvm::formatv("\n             one plain call (packing the weights "
                      "itself) executed {0} ({1:f3} per multiply-accumulate)\n",
                      counts->plainTotal, counts->plainTotal / macs);
  return true;
}

/// `tisa run` for an aarch64 target: generated, then checked under qemu
/// (at each --sve-bits vector length: one binary serves them all); no time
/// (qemu's says nothing about the hardware).
int runUnderQemu(const Options &o, const Runnable &r) {
  if (o.values.count("repeat") || r.threads != 1)
    return usageError("--repeat and --threads time the kernel on this "
                      "machine; " +
                      r.target.name + " code runs under qemu-aarch64, whose "
                      "times say nothing about the hardware");
  bool tuned = false;
  double seconds = 0;
  auto kernel = generateFor(o, r.spec, r.target, tuned, seconds);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  auto &os = llvm::outs();
  os << "kernel       " << kernel->name << " (" << r.spec.describe() << ")\n"
     << "target       " << r.target.name << " (" << r.target.cpu << ")\n"
     << "instruction  "
     << (kernel->instruction.empty()
             ? std::string("none: plain vector code")
             : kernel->instruction + " (" + kernel->mnemonic + ")")
     << "\nplan         " << kernel->plan << "\n"
     << "schedule     "
     << (kernel->schedule.empty() ? std::string("none")
                                  : kernel->schedule +
                                        (tuned ? " (tuned)" : ""))
     << "\n"
     << llvm::formatv("compile      {0:f3} s (cross-compiled for aarch64)\n",
                      seconds);
  aarch64::RunOptions qemu = qemuOptionsFor(r.target);
  std::vector<unsigned> lengths = r.sveBits;
  if (lengths.empty())
    lengths.push_back(qemu.sveBits);
  for (unsigned bits : lengths) {
    qemu.sveBits = bits;
    int code = 0;
    if (!checkAndCountUnderQemu(o, r, *kernel, qemu, code))
      return code;
  }
  os << "time         none: code under qemu runs at qemu's speed, not the "
        "hardware's\n";
  os << hotLoopReport(*kernel, r.target) << "\n";
  return 0;
}

int run(const Options &o) {
  int code = 0;
  std::optional<Runnable> r = runnable(o, "run", code);
  if (!r)
    return code;
  if (r->underQemu)
    return runUnderQemu(o, *r);
  if (r->gpuOnHost)
    return runGpuOnHost(o, r->spec, r->target, r->threads);
  for (const char *tuneOnly : {"time-limit"})
    if (o.values.count(tuneOnly))
      return usageError("--" + std::string(tuneOnly) +
                        " applies to 'tune' only");
  int64_t repeat = 0;
  if (llvm::StringRef(value(o, "repeat", "0")).getAsInteger(10, repeat) ||
      repeat < 0 || (o.values.count("repeat") && repeat == 0))
    return usageError("--repeat expects a positive integer");
  KernelSpec callSpec = r->call();
  const KernelSpec *spec = &callSpec;
  const JitOptions &options = r->options;
  int64_t threads = r->threads;
  const Target *target = &r->target;

  auto &os = llvm::outs();
  using clock = std::chrono::steady_clock;
  auto start = clock::now();
  auto kernel = compileKernel(r->spec, options);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  double compileSeconds =
      std::chrono::duration<double>(clock::now() - start).count();
  const CompiledKernel &k = **kernel;
  os << "kernel       " << k.name() << " (" << r->spec.describe() << ")\n"
     << "target       " << target->name << " (" << target->cpu << ")\n"
     << "instruction  "
     << (k.instruction().empty() ? "none: plain vector code"
                                 : k.instruction() + " (" + k.mnemonic() + ")")
     << "\nplan         " << k.plan() << "\n"
     << "schedule     "
     << (k.schedule().empty() ? std::string("none")
                              : k.schedule() +
                                    (k.tunedSchedule() ? " (tuned)" : ""))
     << ", "
     << tilesText(k, *spec)
     << "\n"
     << llvm::formatv("compile      {0:f3} s ({1})\n", compileSeconds,
                      k.fromCache() ? "from the disk cache" : "generated");

  if (r->emulateAMX && !r->options.withoutFeatures.empty())
    os << "features     built without " +
              llvm::join(r->options.withoutFeatures, ", ") +
              " (this CPU lacks them; `tisa gen --target " + o.target +
              "` keeps them, so its plain code may differ from what runs "
              "here)\n";
  if (r->emulateAMX && !installAMXEmulator(os))
    return 1;
  // Check: random and extreme inputs, through both entries.
  int checks = 0;
  int64_t outputs = 0;
  for (const KernelSpec &at : r->checked()) {
    int runs = 0;
    std::string diff = checkKernel(k, o.seed, runs, at);
    if (!diff.empty())
      return fail(at.describe() + ": " + diff);
    checks += runs;
    outputs += at.outputElements();
  }
  os << "check        " << checks
     << " runs (random inputs in padded rows and extreme inputs, output "
     << "between guard bytes; plain, pre-packed and range entries"
     << r->checkedText() << "): "
     << (spec->types.isFloat() ? "within the K-derived bound"
                               : "bit-exact")
     << " on " << outputs << " outputs\n";

  // Time: medians of repeated calls, pre-packed and plain.
  KernelData data = makeData(*spec, o.seed, Fill::Random);
  Bytes packed;
  if (std::string stray = packWeights(k, data, packed); !stray.empty())
    return fail(stray);
  ThreadPool pool{int(threads)};
  RunMode packedMode{true};
  if (threads > 1) {
    packedMode.ranges = threads;
    packedMode.pool = &pool;
  }
  std::function<void()> calls[] = {bindKernel(k, data, RunMode{}, packed),
                                    bindKernel(k, data, packedMode, packed)};
  bool emulated = r->emulateAMX && printAMXCounts(os, k, calls[1]);
  auto timeOnce = [&](bool prepacked) {
    auto t0 = clock::now();
    calls[prepacked]();
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  double once = timeOnce(true);
  int64_t n = repeat ? repeat
                     : std::clamp<int64_t>(int64_t(0.25 / std::max(once, 1e-7)),
                                           5, 2000);
  auto median = [&](bool prepacked) {
    std::vector<double> t;
    for (int64_t i = 0; i < n; ++i)
      t.push_back(timeOnce(prepacked));
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    return t[t.size() / 2];
  };
  double pre = median(true), plain = median(false);
  double giga = spec->ops() / 1e9;
  int64_t used = threads > 1 ? usefulParts(k, data, threads) : 1;
  std::string threadText = std::to_string(used) +
                           (used == 1 ? " thread" : " threads");
  if (used < threads)
    threadText += ": too little work for " + std::to_string(threads);
  const char *unit = spec->types.isFloat() ? "GFLOPS" : "GOPS";
  if (emulated)
    os << "time         of this machine running AMX under the emulator "
          "(each AMX instruction a trap), not of "
       << target->name << ":\n";
  else if (r->emulateAMX)
    os << "time         of this machine (nothing emulated), not of "
       << target->name << ":\n";
  os << llvm::formatv("time         median of {0}: {1:f3} ms pre-packed, "
                      "{2:f3} ms plain (packing included)\n",
                      n, pre * 1e3, plain * 1e3)
     << llvm::formatv("speed        {0:f1} {2} pre-packed ({3}), "
                      "{1:f1} {2} plain (one thread)\n",
                      giga / pre, giga / plain, unit, threadText);
  return 0;
}

} // namespace tisa::driver
