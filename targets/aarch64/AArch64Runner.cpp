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
#include "Tools.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Program.h"

#include <mutex>
#include <optional>

using namespace llvm;

namespace tisa {
namespace aarch64 {
namespace {

/// Target and features the harness is built for: enough for it to read the
/// vector length; the probe object carries its own features.
constexpr StringLiteral kTriple = "--target=aarch64-linux-gnu";
constexpr StringLiteral kHarnessMarch =
    "-march=armv8.6-a+sve+i8mm+bf16+dotprod";
/// Name the harness calls; --defsym binds it to the probe's symbol.
constexpr StringLiteral kEntryName = "tisa_probe_entry";
constexpr char kInMagic[8] = {'T', 'I', 'S', 'A', 'P', 'I', 'N', '1'};
constexpr char kOutMagic[8] = {'T', 'I', 'S', 'A', 'P', 'O', 'U', 'T'};

// Files: in = magic[8] u32 count u32 0 u64 size[count] bytes...
//        out = magic[8] u32 sveBits u32 count bytes...   (little-endian)
// Exit codes: 0 ok, 2 bad input/output, 3 buffer overrun, 4 probe crashed.
// Bytes after each buffer up to the next 64-byte boundary plus one more
// 64-byte block are a guard filled with 0xA5 and checked after the call.
constexpr StringLiteral kHarnessSource = R"c(
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
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

/* Report the faulting pc relative to the probe entry, then exit cleanly so
   qemu neither dumps core nor hides the message. */
static void onSignal(int sig, siginfo_t *info, void *context) {
  ucontext_t *uc = (ucontext_t *)context;
  uintptr_t pc = (uintptr_t)uc->uc_mcontext.pc;
  char msg[200];
  int n = snprintf(msg, sizeof msg,
                   "harness: probe crashed: signal %d (%s) at pc=entry%+ld, "
                   "fault address %p\n",
                   sig, strsignal(sig),
                   (long)(pc - (uintptr_t)&tisa_probe_entry), info->si_addr);
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

int main(int argc, char **argv) {
  if (argc != 3)
    fail(2, "usage: %s IN OUT", argv[0]);
  FILE *in = fopen(argv[1], "rb");
  if (!in)
    fail(2, "cannot open %s", argv[1]);
  char magic[8];
  uint32_t header[2];
  readExact(in, magic, 8, "magic");
  if (memcmp(magic, "TISAPIN1", 8) != 0)
    fail(2, "bad input magic");
  readExact(in, header, sizeof header, "header");
  uint32_t count = header[0];
  if (count < 1 || count > kMaxBuffers)
    fail(2, "buffer count %u out of range", count);
  uint64_t sizes[kMaxBuffers];
  readExact(in, sizes, count * sizeof(uint64_t), "sizes");
  P bufs[kMaxBuffers] = {0};
  size_t spans[kMaxBuffers];
  for (uint32_t i = 0; i < count; ++i) {
    spans[i] = (sizes[i] + kAlign - 1) / kAlign * kAlign + kGuard;
    bufs[i] = aligned_alloc(kAlign, spans[i]);
    if (!bufs[i])
      fail(2, "cannot allocate %llu bytes", (unsigned long long)sizes[i]);
    readExact(in, bufs[i], sizes[i], "buffer");
    memset((char *)bufs[i] + sizes[i], kGuardByte, spans[i] - sizes[i]);
  }
  fclose(in);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onSignal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, 0);
  sigaction(SIGBUS, &sa, 0);
  sigaction(SIGILL, &sa, 0);
  sigaction(SIGFPE, &sa, 0);
  sigaction(SIGTRAP, &sa, 0);

  /* Call through the probe's own arity: the probe sees exactly its arguments. */
  switch (count) {
  case 1: ((void (*)(P))tisa_probe_entry)(bufs[0]); break;
  case 2: ((void (*)(P, P))tisa_probe_entry)(bufs[0], bufs[1]); break;
  case 3: ((void (*)(P, P, P))tisa_probe_entry)(bufs[0], bufs[1], bufs[2]);
    break;
  case 4:
    ((void (*)(P, P, P, P))tisa_probe_entry)(bufs[0], bufs[1], bufs[2],
                                              bufs[3]);
    break;
  case 5:
    ((void (*)(P, P, P, P, P))tisa_probe_entry)(bufs[0], bufs[1], bufs[2],
                                                 bufs[3], bufs[4]);
    break;
  case 6:
    ((void (*)(P, P, P, P, P, P))tisa_probe_entry)(bufs[0], bufs[1], bufs[2],
                                                    bufs[3], bufs[4], bufs[5]);
    break;
  case 7:
    ((void (*)(P, P, P, P, P, P, P))tisa_probe_entry)(
        bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6]);
    break;
  default:
    ((void (*)(P, P, P, P, P, P, P, P))tisa_probe_entry)(
        bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6],
        bufs[7]);
    break;
  }

  for (uint32_t i = 0; i < count; ++i)
    for (size_t j = sizes[i]; j < spans[i]; ++j)
      if (((unsigned char *)bufs[i])[j] != kGuardByte)
        fail(3, "probe wrote past the end of buffer %u (%llu bytes): byte %zu",
             i, (unsigned long long)sizes[i], j);

  FILE *out = fopen(argv[2], "wb");
  if (!out)
    fail(2, "cannot create %s", argv[2]);
  uint32_t outHeader[2] = {sveVectorBits(), count};
  int ok = fwrite("TISAPOUT", 1, 8, out) == 8 &&
           fwrite(outHeader, sizeof outHeader, 1, out) == 1;
  for (uint32_t i = 0; ok && i < count; ++i)
    ok = !sizes[i] || fwrite(bufs[i], 1, sizes[i], out) == sizes[i];
  if (fclose(out) != 0 || !ok)
    fail(2, "cannot write %s", argv[2]);
  return 0;
}
)c";

/// The harness object, compiled by `clang`. Compiled once per process (per
/// clang path); a failure is retried on the next call.
Expected<std::vector<uint8_t>> getHarnessObject(StringRef clang) {
  static std::mutex mutex;
  static std::string cachedClang;
  static std::vector<uint8_t> cachedObject;
  std::lock_guard<std::mutex> lock(mutex);
  if (!cachedObject.empty() && cachedClang == clang)
    return cachedObject;

  Expected<TempDir> dir = TempDir::create("tisa-aarch64-harness");
  if (!dir)
    return dir.takeError();
  std::string source = dir->file("harness.c");
  std::string object = dir->file("harness.o");
  if (Error err = writeFile(source, arrayRefFromStringRef(kHarnessSource)))
    return std::move(err);
  // No auto-vectorization: the harness must not itself execute SVE code
  // except to read the vector length after checking HWCAP_SVE.
  StringRef args[] = {kTriple, kHarnessMarch,    "-std=c11",
                      "-O1",   "-fno-vectorize", "-fno-slp-vectorize",
                      "-c",    source,           "-o",
                      object};
  if (Error err = runTool("compiling the aarch64 probe harness", clang, args,
                          dir->file("harness.log"), kToolTimeoutSeconds))
    return std::move(err);
  Expected<std::unique_ptr<MemoryBuffer>> bytes = readFile(object);
  if (!bytes)
    return bytes.takeError();
  StringRef contents = (*bytes)->getBuffer();
  cachedObject.assign(contents.bytes_begin(), contents.bytes_end());
  cachedClang = clang.str();
  return cachedObject;
}

/// Whether `clang` finds a static aarch64 libc; cached per clang path.
bool hasStaticLibc(StringRef clang) {
  static std::mutex mutex;
  static std::string cachedClang;
  static bool cachedResult = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (!cachedClang.empty() && cachedClang == clang)
    return cachedResult;
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-libc");
  if (!dir) {
    consumeError(dir.takeError());
    return false;
  }
  // The driver prints the full path when it finds the file and the bare name
  // otherwise.
  std::string out = dir->file("libc.txt");
  StringRef args[] = {kTriple, "-print-file-name=libc.a"};
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(out),
                                          StringRef("")};
  SmallVector<StringRef, 4> argv = {clang};
  argv.append(std::begin(args), std::end(args));
  bool found = false;
  if (sys::ExecuteAndWait(clang, argv, std::nullopt, redirects,
                          kToolTimeoutSeconds) == 0) {
    if (Expected<std::unique_ptr<MemoryBuffer>> text = readFile(out)) {
      StringRef path = (*text)->getBuffer().trim();
      found = sys::path::is_absolute(path) && sys::fs::exists(path);
    } else {
      consumeError(text.takeError());
    }
  }
  cachedClang = clang.str();
  cachedResult = found;
  return found;
}

/// Symbols go to lld's --defsym as an expression: keep them plain.
bool isPlainSymbol(StringRef symbol) {
  return !symbol.empty() && !isDigit(symbol.front()) &&
         all_of(symbol, [](char c) {
           return isAlnum(c) || c == '_' || c == '.' || c == '$';
         });
}

std::vector<uint8_t>
encodeInput(const std::vector<std::vector<uint8_t>> &buffers) {
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
  put32(buffers.size());
  put32(0);
  for (const std::vector<uint8_t> &buffer : buffers)
    put64(buffer.size());
  for (const std::vector<uint8_t> &buffer : buffers)
    bytes.insert(bytes.end(), buffer.begin(), buffer.end());
  return bytes;
}

Error decodeOutput(StringRef bytes, ProbeResult &result) {
  constexpr size_t headerSize = sizeof(kOutMagic) + 8;
  if (bytes.size() < headerSize ||
      !bytes.starts_with(StringRef(kOutMagic, sizeof(kOutMagic))))
    return makeError("probe output is malformed (" + Twine(bytes.size()) +
                     " bytes, bad header)");
  const uint8_t *p = bytes.bytes_begin() + sizeof(kOutMagic);
  result.sveVectorBits = support::endian::read32le(p);
  uint32_t count = support::endian::read32le(p + 4);
  size_t expected = headerSize;
  for (const std::vector<uint8_t> &buffer : result.buffers)
    expected += buffer.size();
  if (count != result.buffers.size() || bytes.size() != expected)
    return makeError("probe output is malformed: " + Twine(count) +
                     " buffers in " + Twine(bytes.size()) +
                     " bytes, expected " + Twine(result.buffers.size()) +
                     " in " + Twine(expected));
  p = bytes.bytes_begin() + headerSize;
  for (std::vector<uint8_t> &buffer : result.buffers) {
    std::copy(p, p + buffer.size(), buffer.begin());
    p += buffer.size();
  }
  return Error::success();
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

Expected<ProbeResult> runProgram(ArrayRef<uint8_t> object, StringRef symbol,
                                 std::vector<std::vector<uint8_t>> buffers,
                                 const RunOptions &options) {
  unsigned sveBits = options.sveBits;
  if (buffers.empty() || buffers.size() > kMaxProbeBuffers)
    return makeError("a probe takes 1 to " + Twine(kMaxProbeBuffers) +
                     " buffers, got " + Twine(buffers.size()));
  if (sveBits % kSveGranuleBits != 0 || sveBits > kMaxSveVectorBits)
    return makeError("SVE vector length " + Twine(sveBits) +
                     " bits is not a multiple of " + Twine(kSveGranuleBits) +
                     " in [" + Twine(kSveGranuleBits) + ", " +
                     Twine(kMaxSveVectorBits) + "]");
  if (!isPlainSymbol(symbol))
    return makeError("probe symbol '" + symbol + "' is not a plain identifier");
  std::string reason = unavailableReason();
  if (!reason.empty())
    return makeError("cannot run aarch64 probes: " + reason);
  std::string clang = *findClang();
  std::string qemu = *findQemu();

  Expected<std::vector<uint8_t>> harness = getHarnessObject(clang);
  if (!harness)
    return harness.takeError();
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-probe");
  if (!dir)
    return dir.takeError();
  std::string harnessPath = dir->file("harness.o");
  std::string objectPath = dir->file("probe.o");
  std::string exePath = dir->file("probe");
  std::string inPath = dir->file("in.bin");
  std::string outPath = dir->file("out.bin");
  std::string logPath = dir->file("tool.log");
  if (Error err = writeFile(harnessPath, *harness))
    return std::move(err);
  if (Error err = writeFile(objectPath, object))
    return std::move(err);
  if (Error err = writeFile(inPath, encodeInput(buffers)))
    return std::move(err);

  std::string defsym = ("-Wl,--defsym=" + kEntryName + "=" + symbol).str();
  SmallVector<StringRef, 10> linkArgs = {kTriple,    "-static", "-fuse-ld=lld",
                                         harnessPath, objectPath, defsym,
                                         "-o",        exePath};
  std::string adapterPath = dir->file("adapter.o");
  if (!options.adapterSource.empty()) {
    std::string source = dir->file("adapter.c");
    if (Error err = writeFile(source, arrayRefFromStringRef(
                                          StringRef(options.adapterSource))))
      return std::move(err);
    StringRef args[] = {kTriple, "-std=c11", "-O1", "-c",
                        source,  "-o",       adapterPath};
    if (Error err = runTool("compiling the adapter of '" + symbol + "'", clang,
                            args, logPath, kToolTimeoutSeconds))
      return std::move(err);
    linkArgs.push_back(adapterPath);
  }
  if (Error err = runTool("linking probe '" + symbol + "'", clang, linkArgs,
                          logPath, kToolTimeoutSeconds))
    return std::move(err);

  std::vector<std::string> qemuArgs = qemuArguments(options);
  std::string countsPath = dir->file("counts.txt");
  if (options.countParts) {
    Expected<std::string> plugin = markCountingPlugin(exePath, countsPath);
    if (!plugin)
      return plugin.takeError();
    qemuArgs.insert(qemuArgs.end(), {"-plugin", *plugin});
  }
  qemuArgs.insert(qemuArgs.end(), {exePath, inPath, outPath});
  SmallVector<StringRef, 16> runArgs(qemuArgs.begin(), qemuArgs.end());
  if (Error err = runTool("running probe '" + symbol + "' (-cpu " +
                              qemuArgs[1] + ")",
                          qemu, runArgs, logPath, options.timeoutSeconds))
    return std::move(err);

  Expected<std::unique_ptr<MemoryBuffer>> output = readFile(outPath);
  if (!output)
    return output.takeError();
  ProbeResult result;
  result.buffers = std::move(buffers);
  if (Error err = decodeOutput((*output)->getBuffer(), result))
    return std::move(err);
  if (options.countParts) {
    Expected<std::vector<ExecutedCounts>> parts = readMarkedCounts(countsPath);
    if (!parts)
      return parts.takeError();
    result.parts = std::move(*parts);
  }
  if (sveBits != 0 && result.sveVectorBits != sveBits)
    return makeError("probe '" + symbol + "' ran with SVE vector length " +
                     Twine(result.sveVectorBits) + " bits but " +
                     Twine(sveBits) + " were requested");
  return std::move(result);
}

Expected<CountedRun> runCounted(StringRef exe, ArrayRef<std::string> args,
                                const RunOptions &options) {
  std::optional<std::string> qemu = findQemu();
  if (!qemu)
    return makeError("qemu-aarch64 not found (set TISA_QEMU_AARCH64 or "
                     "install qemu-user)");
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-counted");
  if (!dir)
    return dir.takeError();
  std::string countsPath = dir->file("counts.txt"), logPath = dir->file("log");
  Expected<std::string> plugin = markCountingPlugin(exe, countsPath);
  if (!plugin)
    return plugin.takeError();
  std::vector<std::string> qemuArgs = qemuArguments(options);
  qemuArgs.insert(qemuArgs.end(), {"-plugin", *plugin, exe.str()});
  qemuArgs.insert(qemuArgs.end(), args.begin(), args.end());
  SmallVector<StringRef, 16> runArgs(qemuArgs.begin(), qemuArgs.end());
  if (Error err = runTool("running '" + sys::path::filename(exe) + "' (-cpu " +
                              qemuArgs[1] + ")",
                          *qemu, runArgs, logPath, options.timeoutSeconds))
    return std::move(err);
  CountedRun run;
  Expected<std::unique_ptr<MemoryBuffer>> log = readFile(logPath);
  if (!log)
    return log.takeError();
  run.output = (*log)->getBuffer().str();
  Expected<std::vector<ExecutedCounts>> parts = readMarkedCounts(countsPath);
  if (!parts)
    return parts.takeError();
  if (parts->empty())
    return makeError("'" + exe + "' marked no part to count:\n" + run.output);
  run.parts = std::move(*parts);
  return std::move(run);
}

} // namespace aarch64
} // namespace tisa
