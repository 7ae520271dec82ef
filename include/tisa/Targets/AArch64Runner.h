//===- AArch64Runner.h - run aarch64 probes under qemu-user -----*- C++ -*-===//
//
// Runs one small compiled aarch64 function ("probe") under qemu-aarch64 user
// mode so that descriptions of Arm NEON/SVE instructions can be checked
// bit-exactly against an evaluator, at several SVE vector lengths.
//
// A probe is an ELF aarch64 relocatable object defining
//   void symbol(void *b0, ..., void *bN-1);   // 1 <= N <= 8
// It is linked with a small C harness into a static executable (cross clang +
// lld) and run once under `qemu-aarch64 -cpu max[,sve-default-vector-length=
// BYTES]`. Buffers travel through binary files, never the command line.
//
// Tools: the cross clang is $TISA_CROSS_CLANG, else TISA_CROSS_CLANG from
// <tisa/Config.h>; qemu is $TISA_QEMU_AARCH64, else TISA_QEMU_AARCH64.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_AARCH64RUNNER_H
#define TISA_TARGETS_AARCH64RUNNER_H

#include "tisa/Targets/Disassembler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tisa {
namespace aarch64 {

/// Most buffers a probe takes (x0-x7: all passed in registers).
constexpr unsigned kMaxProbeBuffers = 8;
/// Buffers handed to a probe start on this boundary.
constexpr unsigned kProbeBufferAlignment = 64;
/// SVE vector lengths qemu's `-cpu max` accepts: a multiple of 128 bits, at
/// most 2048 bits.
constexpr unsigned kSveGranuleBits = 128;
constexpr unsigned kMaxSveVectorBits = 2048;

/// Empty when probes can run here; otherwise why not (e.g. "qemu-aarch64 not
/// found", "no aarch64 static libc (install libc6-dev-arm64-cross)").
std::string unavailableReason();

/// How many probes this process has linked through lld's library (not by
/// starting ld.lld); nothing when tisa was built without liblld-22-dev.
std::optional<unsigned> linkedInProcess();

/// What one counted part of a program executed, per mnemonic and in total
/// (counted by tisa's TCG plugin: exact, the same run to run).
struct ExecutedCounts {
  std::map<std::string, uint64_t> executed;
  uint64_t total = 0;
};

/// A program counted by parts calls a function of this name, defined by
/// itself as `void tisa_count_mark(void)` and never inlined, before and
/// after each part: everything it executes in between is counted, wherever
/// the code lies (libraries, JIT-generated code).
constexpr llvm::StringLiteral kCountMarkSymbol = "tisa_count_mark";

struct ProbeResult {
  /// The buffers' contents after the call, same sizes as passed in.
  std::vector<std::vector<uint8_t>> buffers;
  /// SVE vector length in bits measured inside the process with RDVL; 0 when
  /// the process has no SVE.
  unsigned sveVectorBits = 0;
  /// With RunOptions::countParts: each part the program marked.
  std::vector<ExecutedCounts> parts;
};

/// Links `object` (an ELF aarch64 relocatable defining
/// `void symbol(void *b0, ..., void *bN-1)`, N = buffers.size() in 1..8) with
/// the harness into a static executable, runs it once under qemu-aarch64 with
/// each buffer copied to 64-byte aligned memory, and returns the buffers after
/// the call.
///
/// `sveBits` == 0 runs with qemu's default vector length; otherwise it must
/// be a multiple of 128 no larger than 2048 and the process runs at exactly
/// that length (a different measured length is an error).
///
/// Fails, carrying the failing tool's stderr, when the link fails (e.g. the
/// symbol is missing), the probe crashes or times out, or the probe writes
/// past the end of a buffer.
llvm::Expected<ProbeResult> runProbe(llvm::ArrayRef<uint8_t> object,
                                     llvm::StringRef symbol,
                                     std::vector<std::vector<uint8_t>> buffers,
                                     unsigned sveBits);

/// How runProgram builds and runs.
struct RunOptions {
  /// qemu's CPU model: "max" (SVE2, i8mm, bf16), "neoverse-n1" (dotprod; no
  /// i8mm or SVE: their instructions raise SIGILL), ...
  std::string cpu = "max";
  /// As runProbe's; only with a CPU that has SVE.
  unsigned sveBits = 0;
  /// C source compiled (cross clang, -O1) and linked beside the object, for
  /// example an adapter that gives a generated kernel's entry the probe
  /// signature `void symbol(void *b0, ...)`; empty: none.
  std::string adapterSource;
  /// Count the parts the program marks with kCountMarkSymbol
  /// (ProbeResult::parts); the adapter then defines that function.
  bool countParts = false;
  /// Environment variables for the program, "NAME=value" (qemu -E).
  std::vector<std::string> environment;
  /// Generous for a probe (a handful of instructions: only a hang gets
  /// near it); a kernel on a large shape runs for seconds under qemu.
  unsigned timeoutSeconds = 60;
};

/// runProbe with a CPU model of choice and an adapter: `symbol` may be
/// defined by `object` or by the adapter.
llvm::Expected<ProbeResult> runProgram(llvm::ArrayRef<uint8_t> object,
                                       llvm::StringRef symbol,
                                       std::vector<std::vector<uint8_t>> buffers,
                                       const RunOptions &options);

/// Where a call's buffers sit in the program's memory.
enum class BufferFence : uint32_t {
  /// 64-byte aligned, followed by guard bytes checked after the call.
  None,
  /// Each ends at a PROT_NONE page: a read or write past it faults.
  After,
  /// Each starts right after a PROT_NONE page (guard bytes after it).
  Before,
};

/// The harness's allocator for a program's own buffers (an adapter's packed
/// copy), placed as the current call's buffers are:
/// `void *tisa_harness_alloc(size_t size, size_t *extra)` (`*extra` bytes
/// after the `size`; it sets *extra to 0 with BufferFence::After) and
/// `void tisa_harness_free(void *p, size_t size, size_t extra)`.
constexpr llvm::StringLiteral kHarnessAllocSymbol = "tisa_harness_alloc",
                              kHarnessFreeSymbol = "tisa_harness_free";

/// One call of a linked program: its buffers (every call of one run takes
/// as many), the SVE vector length to set before it (0: keep the one it
/// runs at), and where its buffers sit.
struct ProgramCall {
  std::vector<std::vector<uint8_t>> buffers;
  unsigned sveBits = 0;
  BufferFence fence = BufferFence::None;
};

/// Several calls in one process: each call's result, and the parts the
/// program marked over all of them (RunOptions::countParts).
struct ProgramRun {
  std::vector<ProbeResult> calls;
  std::vector<ExecutedCounts> parts;
};

/// A probe linked once with the harness (and an adapter) into a static
/// executable, kept on disk while this object lives, and run under qemu as
/// often as needed: several data sets, CPU models, vector lengths, counted
/// or not, for one compile and one link.
class LinkedProgram {
public:
  /// Links `object` (defining `symbol`, or the adapter defines it) as
  /// runProgram does, with each of `bindings` (name, symbol) defined as
  /// that symbol (an adapter written once calls a kernel's entries by fixed
  /// names); fails with the compiler's or linker's output. The adapter is
  /// compiled once per machine (kept in the temporary directory under a
  /// hash of compiler, flags and source), as the harness is.
  static llvm::Expected<LinkedProgram>
  link(llvm::ArrayRef<uint8_t> object, llvm::StringRef symbol,
       llvm::StringRef adapterSource,
       llvm::ArrayRef<std::pair<std::string, std::string>> bindings);
  /// One run: `buffers` in, the buffers after the call out, as runProgram.
  /// `options.adapterSource` is ignored (the adapter is linked in).
  llvm::Expected<ProbeResult> run(std::vector<std::vector<uint8_t>> buffers,
                                  const RunOptions &options) const;
  /// `calls` one after another in one qemu process (one start, and code
  /// translated once per vector length): each with fresh buffers between
  /// guard bytes, at its vector length (with a CPU that has SVE).
  llvm::Expected<ProgramRun> runCalls(std::vector<ProgramCall> calls,
                                      const RunOptions &options) const;

  LinkedProgram(LinkedProgram &&);
  LinkedProgram &operator=(LinkedProgram &&);
  ~LinkedProgram();

private:
  struct Files;
  explicit LinkedProgram(std::unique_ptr<Files> files);
  std::unique_ptr<Files> files;
};

/// A program's counted run: its parts and what it printed.
struct CountedRun {
  std::vector<ExecutedCounts> parts;
  /// stdout and stderr together.
  std::string output;
};

/// Runs the aarch64 executable `exe` (static, or dynamic against aarch64
/// libraries the host has through multiarch) with `args` under qemu-aarch64
/// as `options` say (CPU, SVE length, environment, timeout), counting the
/// parts it marks (see kCountMarkSymbol). Fails with its output when it
/// exits non-zero or marks no part.
llvm::Expected<CountedRun> runCounted(llvm::StringRef exe,
                                      llvm::ArrayRef<std::string> args,
                                      const RunOptions &options);

/// LLVM's machine-code analyzer (llvm-mca) on one loop of decoded aarch64
/// code for a CPU model: the loop body (its closing branch back to its top)
/// run for many iterations.
struct LoopAnalysis {
  unsigned instructions = 0;
  /// Cycles per iteration in llvm-mca's simulation, and its bound from the
  /// instructions' throughput on the CPU's resources ("Block RThroughput").
  double cyclesPerIteration = 0, throughputBound = 0;
};
/// `loop`: the instructions of one loop, the last its backward branch, on
/// `cpu` with LLVM's `features` ("+sve,+f32mm"; "" for the CPU's own).
/// Fails when llvm-mca is missing (set TISA_LLVM_MCA or install llvm-22) or
/// cannot read the code, with its message.
llvm::Expected<LoopAnalysis> analyzeLoop(llvm::ArrayRef<DecodedInst> loop,
                                         llvm::StringRef cpu,
                                         llvm::StringRef features = "");

} // namespace aarch64
} // namespace tisa

#endif // TISA_TARGETS_AARCH64RUNNER_H
