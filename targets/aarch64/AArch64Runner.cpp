//===- AArch64Runner.cpp - run aarch64 probes under qemu-user -------------===//
//
// Each probe is linked with a C harness (compiled once per process) into a
// static executable and run under qemu-aarch64. The harness reads the buffers
// from a binary file, calls the probe once through a symbol bound at link time
// with --defsym, and writes the buffers plus the measured SVE vector length
// to another binary file.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/AArch64Runner.h"

#include "Counting.h"
#include "Driver.h"
#include "Tools.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace llvm;

namespace tisa {
namespace aarch64 {
namespace {

/// Target and features the harness is built for: enough for it to read the
/// vector length; the probe object carries its own features.
constexpr StringLiteral kHarnessMarch =
    "-march=armv8.6-a+sve+i8mm+bf16+dotprod";
/// Name the harness calls; --defsym binds it to the probe's symbol.
constexpr StringLiteral kEntryName = "tisa_probe_entry";
constexpr char kInMagic[8] = {'T', 'I', 'S', 'A', 'P', 'I', 'N', '2'};
constexpr char kOutMagic[8] = {'T', 'I', 'S', 'A', 'P', 'O', 'U', '2'};

// Files (little-endian): in  = magic[8] u32 count u32 runs, then per run:
//                              u32 sveBits u32 fence u64 size[count] bytes...
//                        out = magic[8] u32 count u32 runs, then per run:
//                              u32 sveBits u32 0 bytes...
// A run with sveBits != 0 first sets the vector length (prctl); its sveBits
// out is the length measured with RDVL (0 without SVE).
// Exit codes: 0 ok, 2 bad input/output, 3 buffer overrun, 4 probe crashed.
// Bytes after each buffer up to the next 64-byte boundary plus one more
// 64-byte block are a guard filled with 0xA5 and checked after the call.
// A run's fence (BufferFence) places each buffer instead so that it ends at
// a PROT_NONE page (1: no guard bytes) or starts right after one (2); the
// program may allocate the same way with tisa_harness_alloc.
constexpr StringLiteral kHarnessSource = R"c(
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef PR_SVE_SET_VL
#define PR_SVE_SET_VL 50
#endif

enum { kMaxBuffers = 8, kAlign = 64, kGuard = 64 };
static const unsigned char kGuardByte = 0xA5;

void tisa_probe_entry(void);

typedef void *P;

static void fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("harness: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(code);
}

static unsigned currentRun, currentFence;
/* The current run's buffers, for the fault report. */
static P runBufs[kMaxBuffers];
static size_t runSizes[kMaxBuffers];
static uint32_t runCount;

/* The mapping of a fenced buffer of `size` bytes: its pages and the fence. */
static size_t fencedSpan(size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (size + page - 1) / page * page + page;
}

/* `size` bytes ending at a PROT_NONE page (fence 1) or starting after one
   (fence 2); with fence 0, 64-byte aligned with room for `extra` bytes. */
static void *allocate(size_t size, size_t extra, unsigned fence) {
  if (fence == 0)
    return aligned_alloc(kAlign, size + extra);
  size_t page = (size_t)sysconf(_SC_PAGESIZE), span = fencedSpan(size + extra);
  char *base = mmap(0, span, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return 0;
  char *fencePage = fence == 1 ? base + span - page : base;
  if (mprotect(fencePage, page, PROT_NONE) != 0)
    return 0;
  return fence == 1 ? fencePage - size - extra : base + page;
}

static void release(void *p, size_t size, size_t extra, unsigned fence) {
  if (fence == 0)
    return free(p);
  size_t page = (size_t)sysconf(_SC_PAGESIZE), span = fencedSpan(size + extra);
  char *data = (char *)p;
  munmap(fence == 1 ? data + size + extra + page - span : data - page, span);
}

/* For a program's own buffers (a packed copy): placed as the current run's
   buffers are, with *extra bytes after (set to 0 when the fence is after
   the buffer: the fence page takes their place). */
void *tisa_harness_alloc(size_t size, size_t *extra) {
  if (currentFence == 1)
    *extra = 0;
  return allocate(size, *extra, currentFence);
}

void tisa_harness_free(void *p, size_t size, size_t extra) {
  release(p, size, extra, currentFence);
}

/* Report the faulting pc relative to the probe entry, then exit cleanly so
   qemu neither dumps core nor hides the message. */
static void onSignal(int sig, siginfo_t *info, void *context) {
  ucontext_t *uc = (ucontext_t *)context;
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.pc;
  /* The buffer the fault address is nearest outside of (a fence page lies
     between two mappings: the nearer buffer is the one it fences). */
  uintptr_t at = (uintptr_t)info->si_addr, nearest = 1 << 16;
  char where[100] = "";
  for (uint32_t i = 0; i < runCount; ++i) {
    uintptr_t b = (uintptr_t)runBufs[i], e = b + runSizes[i];
    if (at >= e && at - e < nearest) {
      nearest = at - e;
      snprintf(where, sizeof where, ": %lu bytes past the end of buffer %u",
               (unsigned long)(at - e), i);
    } else if (at < b && b - at < nearest) {
      nearest = b - at;
      snprintf(where, sizeof where, ": %lu bytes before buffer %u",
               (unsigned long)(b - at), i);
    }
  }
  char msg[320];
  int n = snprintf(msg, sizeof msg,
                   "harness: probe crashed: signal %d (%s) at pc=entry%+ld, "
                   "fault address %p%s (call %u)\n",
                   sig, strsignal(sig),
                   (long)(pc - (uintptr_t)&tisa_probe_entry), info->si_addr,
                   where, currentRun);
  if (n > 0)
    (void)write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
  _exit(4);
}

static unsigned sveVectorBits(void) {
  if (!(getauxval(AT_HWCAP) & HWCAP_SVE))
    return 0;
  /* Not svcntb(): the compiler hoists that above the HWCAP test, and RDVL
     faults on a CPU without SVE (qemu -cpu neoverse-n1). */
  uint64_t bytes;
  __asm__ volatile("rdvl %0, #1" : "=r"(bytes));
  return (unsigned)bytes * 8u;
}

static void readExact(FILE *f, void *dst, size_t n, const char *what) {
  if (n && fread(dst, 1, n, f) != n)
    fail(2, "short read of %s", what);
}

static void writeExact(FILE *f, const void *src, size_t n, const char *path) {
  if (n && fwrite(src, 1, n, f) != n)
    fail(2, "cannot write %s", path);
}

/* Call through the probe's own arity: the probe sees exactly its arguments. */
static void call(uint32_t count, P *b) {
  switch (count) {
  case 1: ((void (*)(P))tisa_probe_entry)(b[0]); break;
  case 2: ((void (*)(P, P))tisa_probe_entry)(b[0], b[1]); break;
  case 3: ((void (*)(P, P, P))tisa_probe_entry)(b[0], b[1], b[2]); break;
  case 4: ((void (*)(P, P, P, P))tisa_probe_entry)(b[0], b[1], b[2], b[3]);
    break;
  case 5:
    ((void (*)(P, P, P, P, P))tisa_probe_entry)(b[0], b[1], b[2], b[3], b[4]);
    break;
  case 6:
    ((void (*)(P, P, P, P, P, P))tisa_probe_entry)(b[0], b[1], b[2], b[3],
                                                    b[4], b[5]);
    break;
  case 7:
    ((void (*)(P, P, P, P, P, P, P))tisa_probe_entry)(b[0], b[1], b[2], b[3],
                                                       b[4], b[5], b[6]);
    break;
  default:
    ((void (*)(P, P, P, P, P, P, P, P))tisa_probe_entry)(
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
    break;
  }
}

int main(int argc, char **argv) {
  if (argc != 3)
    fail(2, "usage: %s IN OUT", argv[0]);
  FILE *in = fopen(argv[1], "rb");
  if (!in)
    fail(2, "cannot open %s", argv[1]);
  FILE *out = fopen(argv[2], "wb");
  if (!out)
    fail(2, "cannot create %s", argv[2]);
  char magic[8];
  uint32_t header[2];
  readExact(in, magic, 8, "magic");
  if (memcmp(magic, "TISAPIN2", 8) != 0)
    fail(2, "bad input magic");
  readExact(in, header, sizeof header, "header");
  uint32_t count = header[0], runs = header[1];
  if (count < 1 || count > kMaxBuffers)
    fail(2, "buffer count %u out of range", count);
  writeExact(out, "TISAPOU2", 8, argv[2]);
  writeExact(out, header, sizeof header, argv[2]);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onSignal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, 0);
  sigaction(SIGBUS, &sa, 0);
  sigaction(SIGILL, &sa, 0);
  sigaction(SIGFPE, &sa, 0);
  sigaction(SIGTRAP, &sa, 0);

  for (currentRun = 0; currentRun < runs; ++currentRun) {
    uint32_t runHeader[2];
    uint64_t sizes[kMaxBuffers];
    readExact(in, runHeader, sizeof runHeader, "run header");
    readExact(in, sizes, count * sizeof(uint64_t), "sizes");
    P *bufs = runBufs;
    size_t spans[kMaxBuffers];
    runCount = 0;
    currentFence = runHeader[1];
    if (currentFence > 2)
      fail(2, "fence %u out of range", currentFence);
    for (uint32_t i = 0; i < count; ++i) {
      spans[i] = currentFence == 1
                     ? sizes[i]
                     : (sizes[i] + kAlign - 1) / kAlign * kAlign + kGuard;
      bufs[i] = allocate(sizes[i], spans[i] - sizes[i], currentFence);
      if (!bufs[i])
        fail(2, "cannot allocate %llu bytes", (unsigned long long)sizes[i]);
      readExact(in, bufs[i], sizes[i], "buffer");
      runSizes[i] = sizes[i];
      runCount = i + 1;
      memset((char *)bufs[i] + sizes[i], kGuardByte, spans[i] - sizes[i]);
    }
    if (runHeader[0] &&
        prctl(PR_SVE_SET_VL, runHeader[0] / 8, 0, 0, 0) < 0)
      fail(2, "cannot set the SVE vector length to %u bits", runHeader[0]);

    call(count, bufs);

    for (uint32_t i = 0; i < count; ++i)
      for (size_t j = sizes[i]; j < spans[i]; ++j)
        if (((unsigned char *)bufs[i])[j] != kGuardByte)
          fail(3,
               "probe wrote past the end of buffer %u (%llu bytes) in run "
               "%u: byte %zu",
               i, (unsigned long long)sizes[i], currentRun, j);
    uint32_t outHeader[2] = {sveVectorBits(), 0};
    writeExact(out, outHeader, sizeof outHeader, argv[2]);
    for (uint32_t i = 0; i < count; ++i) {
      writeExact(out, bufs[i], sizes[i], argv[2]);
      release(bufs[i], sizes[i], spans[i] - sizes[i], currentFence);
    }
  }
  fclose(in);
  if (fclose(out) != 0)
    fail(2, "cannot write %s", argv[2]);
  return 0;
}
)c";

/// The harness's compile flags (before the source and output).
/// No auto-vectorization: the harness must not itself execute SVE code
/// except to read the vector length after checking HWCAP_SVE.
constexpr StringLiteral kHarnessFlags[] = {
    kTriple, kHarnessMarch, "-std=c11", "-O1", "-fno-vectorize",
    "-fno-slp-vectorize", "-c"};
/// An adapter's: plain aarch64 (it runs on every CPU model).
constexpr StringLiteral kAdapterFlags[] = {kTriple, "-std=c11", "-O1", "-c"};

/// The harness object, compiled by `clang` once per machine (compiledObject).
Expected<std::vector<uint8_t>> getHarnessObject(StringRef clang) {
  return compiledObject(clang, kHarnessFlags, kHarnessSource,
                        "the aarch64 probe harness");
}

/// Symbols go to lld's --defsym as an expression: keep them plain.
bool isPlainSymbol(StringRef symbol) {
  return !symbol.empty() && !isDigit(symbol.front()) &&
         all_of(symbol, [](char c) {
           return isAlnum(c) || c == '_' || c == '.' || c == '$';
         });
}

/// The harness's input for `calls`, all of the same buffer count.
std::vector<uint8_t> encodeInput(ArrayRef<ProgramCall> calls) {
  std::vector<uint8_t> bytes(std::begin(kInMagic), std::end(kInMagic));
  auto put32 = [&](uint32_t v) {
    uint8_t le[4];
    support::endian::write32le(le, v);
    bytes.insert(bytes.end(), le, le + 4);
  };
  auto put64 = [&](uint64_t v) {
    uint8_t le[8];
    support::endian::write64le(le, v);
    bytes.insert(bytes.end(), le, le + 8);
  };
  put32(calls.front().buffers.size());
  put32(calls.size());
  for (const ProgramCall &call : calls) {
    put32(call.sveBits);
    put32(uint32_t(call.fence));
    for (const std::vector<uint8_t> &buffer : call.buffers)
      put64(buffer.size());
    for (const std::vector<uint8_t> &buffer : call.buffers)
      bytes.insert(bytes.end(), buffer.begin(), buffer.end());
  }
  return bytes;
}

/// Each call's buffers after it and the vector length it ran at, from the
/// harness's output.
Expected<std::vector<ProbeResult>> decodeOutput(StringRef bytes,
                                                ArrayRef<ProgramCall> calls) {
  size_t expected = sizeof(kOutMagic) + 8;
  for (const ProgramCall &call : calls) {
    expected += 8;
    for (const std::vector<uint8_t> &buffer : call.buffers)
      expected += buffer.size();
  }
  if (bytes.size() != expected ||
      !bytes.starts_with(StringRef(kOutMagic, sizeof(kOutMagic))))
    return makeError("probe output is malformed: " + Twine(bytes.size()) +
                     " bytes, expected " + Twine(expected));
  const uint8_t *p = bytes.bytes_begin() + sizeof(kOutMagic) + 8;
  std::vector<ProbeResult> results;
  for (const ProgramCall &call : calls) {
    ProbeResult &result = results.emplace_back();
    result.sveVectorBits = support::endian::read32le(p);
    p += 8;
    for (const std::vector<uint8_t> &buffer : call.buffers) {
      result.buffers.emplace_back(p, p + buffer.size());
      p += buffer.size();
    }
  }
  return std::move(results);
}

/// qemu's arguments for `options`: the CPU model (with the vector length)
/// first, then the program's environment.
std::vector<std::string> qemuArguments(const RunOptions &options) {
  std::string cpu = options.cpu;
  if (options.sveBits != 0)
    cpu += ",sve-default-vector-length=" + std::to_string(options.sveBits / 8);
  std::vector<std::string> args = {"-cpu", cpu};
  for (const std::string &variable : options.environment)
    args.insert(args.end(), {"-E", variable});
  return args;
}

/// Runs `exe args...` under qemu-aarch64 as `options` say (CPU, vector
/// length, environment, timeout), its output in dir's "tool.log"; with
/// `counted`, under the counting plugin writing dir's "counts.txt". `what`
/// names the run in an error.
Error runUnderQemu(const Twine &what, StringRef exe, ArrayRef<std::string> args,
                   const RunOptions &options, const TempDir &dir,
                   bool counted) {
  std::optional<std::string> qemu = findQemu();
  if (!qemu)
    return makeError("qemu-aarch64 not found (set TISA_QEMU_AARCH64 or "
                     "install qemu-user)");
  std::vector<std::string> qemuArgs = qemuArguments(options);
  if (counted) {
    Expected<std::string> plugin =
        markCountingPlugin(exe, dir.file("counts.txt"));
    if (!plugin)
      return plugin.takeError();
    qemuArgs.insert(qemuArgs.end(), {"-plugin", *plugin});
  }
  qemuArgs.push_back(exe.str());
  qemuArgs.insert(qemuArgs.end(), args.begin(), args.end());
  SmallVector<StringRef, 16> runArgs(qemuArgs.begin(), qemuArgs.end());
  return runTool(what + " (-cpu " + qemuArgs[1] + ")", *qemu, runArgs,
                 dir.file("tool.log"), options.timeoutSeconds);
}

/// A run's buffer count and vector length, checked before anything runs.
Error checkRunArguments(size_t buffers, unsigned sveBits) {
  if (buffers == 0 || buffers > kMaxProbeBuffers)
    return makeError("a probe takes 1 to " + Twine(kMaxProbeBuffers) +
                     " buffers, got " + Twine(buffers));
  if (sveBits % kSveGranuleBits != 0 || sveBits > kMaxSveVectorBits)
    return makeError("SVE vector length " + Twine(sveBits) +
                     " bits is not a multiple of " + Twine(kSveGranuleBits) +
                     " in [" + Twine(kSveGranuleBits) + ", " +
                     Twine(kMaxSveVectorBits) + "]");
  return Error::success();
}

} // namespace

std::string unavailableReason() {
  std::optional<std::string> clang = findClang();
  if (!clang)
    return "clang for aarch64 not found (set TISA_CROSS_CLANG or install "
           "clang-22)";
  if (!findQemu())
    return "qemu-aarch64 not found (set TISA_QEMU_AARCH64 or install "
           "qemu-user)";
  if (!hasStaticLibc(*clang))
    return "no aarch64 static libc (install libc6-dev-arm64-cross)";
  return "";
}

Expected<ProbeResult> runProbe(ArrayRef<uint8_t> object, StringRef symbol,
                               std::vector<std::vector<uint8_t>> buffers,
                               unsigned sveBits) {
  RunOptions options;
  options.sveBits = sveBits;
  return runProgram(object, symbol, std::move(buffers), options);
}

/// The executable and its directory; runs write their files beside it.
struct LinkedProgram::Files {
  TempDir dir;
  std::string symbol, exe;
};

LinkedProgram::LinkedProgram(std::unique_ptr<Files> files)
    : files(std::move(files)) {}
LinkedProgram::LinkedProgram(LinkedProgram &&) = default;
LinkedProgram &LinkedProgram::operator=(LinkedProgram &&) = default;
LinkedProgram::~LinkedProgram() = default;

Expected<LinkedProgram>
LinkedProgram::link(ArrayRef<uint8_t> object, StringRef symbol,
                    StringRef adapterSource,
                    ArrayRef<std::pair<std::string, std::string>> bindings) {
  if (!isPlainSymbol(symbol))
    return makeError("probe symbol '" + symbol + "' is not a plain identifier");
  for (const auto &[name, target] : bindings)
    if (!isPlainSymbol(name) || !isPlainSymbol(target))
      return makeError("symbol binding '" + name + "=" + target +
                       "' is not of plain identifiers");
  std::string reason = unavailableReason();
  if (!reason.empty())
    return makeError("cannot run aarch64 probes: " + reason);
  std::string clang = *findClang();
  Expected<std::vector<uint8_t>> harness = getHarnessObject(clang);
  if (!harness)
    return harness.takeError();
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-probe");
  if (!dir)
    return dir.takeError();
  std::string harnessPath = dir->file("harness.o");
  std::string objectPath = dir->file("probe.o");
  std::string exePath = dir->file("probe");
  std::string logPath = dir->file("tool.log");
  if (Error err = writeFile(harnessPath, *harness))
    return std::move(err);
  if (Error err = writeFile(objectPath, object))
    return std::move(err);

  // --defsym binds the harness's and the adapter's names to the probe's.
  std::vector<std::string> defsyms = {
      ("--defsym=" + kEntryName + "=" + symbol).str()};
  for (const auto &[name, target] : bindings)
    defsyms.push_back("--defsym=" + name + "=" + target);
  std::vector<std::string> objects = {harnessPath, objectPath};
  // The adapter is compiled once per machine (compiledObject).
  if (!adapterSource.empty()) {
    std::string adapterPath = dir->file("adapter.o");
    Expected<std::vector<uint8_t>> adapter = compiledObject(
        clang, kAdapterFlags, adapterSource, "the adapter of '" + symbol + "'");
    if (!adapter)
      return adapter.takeError();
    if (Error err = writeFile(adapterPath, *adapter))
      return std::move(err);
    objects.push_back(adapterPath);
  }
  if (!linkDirectly(clang, objects, exePath, defsyms, logPath)) {
    SmallVector<StringRef, 16> linkArgs = {kTriple, "-static", "-fuse-ld=lld"};
    linkArgs.append(objects.begin(), objects.end());
    linkArgs.append({"-o", exePath});
    std::vector<std::string> driverFlags;
    for (const std::string &defsym : defsyms)
      driverFlags.push_back("-Wl," + defsym);
    linkArgs.append(driverFlags.begin(), driverFlags.end());
    if (Error err = runTool("linking probe '" + symbol + "'", clang, linkArgs,
                            logPath, kToolTimeoutSeconds))
      return std::move(err);
  }
  auto files = std::make_unique<Files>(Files{std::move(*dir), symbol.str(),
                                             exePath});
  return LinkedProgram(std::move(files));
}

Expected<ProgramRun> LinkedProgram::runCalls(std::vector<ProgramCall> calls,
                                             const RunOptions &options) const {
  StringRef symbol = files->symbol;
  if (calls.empty())
    return makeError("no call of probe '" + symbol + "' to run");
  for (const ProgramCall &call : calls) {
    if (Error err = checkRunArguments(call.buffers.size(), call.sveBits))
      return std::move(err);
    if (call.buffers.size() != calls.front().buffers.size())
      return makeError("the calls of probe '" + symbol +
                       "' take different numbers of buffers");
  }
  if (Error err = checkRunArguments(1, options.sveBits))
    return std::move(err);
  // Each run its own files: runs of one program may overlap (threads).
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-run");
  if (!dir)
    return dir.takeError();
  std::string inPath = dir->file("in.bin");
  std::string outPath = dir->file("out.bin");
  if (Error err = writeFile(inPath, encodeInput(calls)))
    return std::move(err);
  if (Error err = runUnderQemu("running probe '" + symbol + "'", files->exe,
                               {inPath, outPath}, options, *dir,
                               options.countParts))
    return std::move(err);

  Expected<std::unique_ptr<MemoryBuffer>> output = readFile(outPath);
  if (!output)
    return output.takeError();
  Expected<std::vector<ProbeResult>> results =
      decodeOutput((*output)->getBuffer(), calls);
  if (!results)
    return results.takeError();
  ProgramRun run;
  run.calls = std::move(*results);
  if (options.countParts) {
    Expected<std::vector<ExecutedCounts>> parts =
        readMarkedCounts(dir->file("counts.txt"));
    if (!parts)
      return parts.takeError();
    run.parts = std::move(*parts);
  }
  for (auto [call, result] : llvm::zip(calls, run.calls))
    if (call.sveBits != 0 && result.sveVectorBits != call.sveBits)
      return makeError("probe '" + symbol + "' ran with SVE vector length " +
                       Twine(result.sveVectorBits) + " bits but " +
                       Twine(call.sveBits) + " were requested");
  return std::move(run);
}

Expected<ProbeResult>
LinkedProgram::run(std::vector<std::vector<uint8_t>> buffers,
                   const RunOptions &options) const {
  std::vector<ProgramCall> calls = {{std::move(buffers), options.sveBits}};
  Expected<ProgramRun> run = runCalls(std::move(calls), options);
  if (!run)
    return run.takeError();
  ProbeResult result = std::move(run->calls.front());
  result.parts = std::move(run->parts);
  return std::move(result);
}

Expected<ProbeResult> runProgram(ArrayRef<uint8_t> object, StringRef symbol,
                                 std::vector<std::vector<uint8_t>> buffers,
                                 const RunOptions &options) {
  // The arguments' own errors before anything is compiled.
  if (Error err = checkRunArguments(buffers.size(), options.sveBits))
    return std::move(err);
  Expected<LinkedProgram> program =
      LinkedProgram::link(object, symbol, options.adapterSource, {});
  if (!program)
    return program.takeError();
  return program->run(std::move(buffers), options);
}

Expected<CountedRun> runCounted(StringRef exe, ArrayRef<std::string> args,
                                const RunOptions &options) {
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-counted");
  if (!dir)
    return dir.takeError();
  if (Error err = runUnderQemu("running '" + sys::path::filename(exe) + "'",
                               exe, args, options, *dir, /*counted=*/true))
    return std::move(err);
  CountedRun run;
  Expected<std::unique_ptr<MemoryBuffer>> log = readFile(dir->file("tool.log"));
  if (!log)
    return log.takeError();
  run.output = (*log)->getBuffer().str();
  Expected<std::vector<ExecutedCounts>> parts =
      readMarkedCounts(dir->file("counts.txt"));
  if (!parts)
    return parts.takeError();
  if (parts->empty())
    return makeError("'" + exe + "' marked no part to count:\n" + run.output);
  run.parts = std::move(*parts);
  return std::move(run);
}

} // namespace aarch64
} // namespace tisa
