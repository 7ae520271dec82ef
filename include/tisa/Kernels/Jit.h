//===- Jit.h - compile kernels for the host at run time ---------*- C++ -*-===//
//
// The "virtual ISA": one call gives a callable kernel that uses the best
// tensorized instruction the host CPU executes (vpdpbusd on an AVX512-VNNI
// machine, ...), or plain vector code with a warning when it has none.
// Compiled objects are cached on disk, keyed by the kernel, the description
// set (file contents), the CPU and its features, and the tisa version, so a
// second process pays only for loading.
//
//   tisa::JitOptions options;
//   auto k = tisa::compileKernel(spec, options);
//   auto gemm = k->entry<void(const uint8_t *, int64_t, const int8_t *,
//                             int64_t, int32_t *, int64_t)>();
//   gemm(A, K, B, N, C, N);
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_JIT_H
#define TISA_KERNELS_JIT_H

#include "tisa/Kernels/Kernels.h"
#include "tisa/Targets/Codegen.h"

#include "llvm/Support/raw_ostream.h"

namespace tisa {

struct JitOptions {
  std::string isa = "auto";
  std::vector<std::string> isaDirs;
  /// Only targets this CPU can execute make sense in process; "host" is the
  /// default. A target with fewer features (e.g. "skylake-avx512") gives code
  /// for that subset.
  std::string target = "host";
  std::string targetDir;
  /// A feature list ("+avx2,+avxvnni") that replaces the target's features
  /// for the choice of instruction and for LLVM (restrictFeatures), as
  /// `--features` does; empty: the target's own.
  std::string features;
  /// Features of the target the code must not use (Target::disableFeatures):
  /// what this machine lacks and no emulator provides.
  std::vector<std::string> withoutFeatures;
  /// Empty: no cache. Default: $TISA_CACHE_DIR, else $XDG_CACHE_HOME/tisa,
  /// else ~/.cache/tisa.
  std::string cacheDir = defaultCacheDir();
  /// Warnings (no instruction for this CPU) go here; null: dropped.
  llvm::raw_ostream *warnings = &llvm::errs();
  /// A loop schedule (Schedule::text()); empty: the one `tisa tune` stored
  /// for this kernel in the cache directory, else the default.
  std::string schedule;
  /// Look up tuned schedules (disable to measure the default).
  bool useTuned = true;

  static std::string defaultCacheDir();
};

/// The target `options` name, restricted to its --features (restrictFeatures)
/// and without its withoutFeatures: what the JIT generates for.
llvm::Expected<Target> jitTarget(const JitOptions &options);

/// The identity of a kernel for caching: the spec, the isa choice, the
/// contents of every description file on the search path, the CPU and its
/// features, and the tisa version (hex digest). Tuned schedules are stored
/// under this key.
llvm::Expected<std::string> kernelKey(const KernelSpec &spec,
                                      const JitOptions &options);
/// The schedule `tisa tune` stored for `key` in `cacheDir`, or "".
/// The file lookupTunedSchedule reads.
std::string tunedSchedulePath(llvm::StringRef cacheDir, const KernelSpec &spec,
                              llvm::StringRef key);
std::string lookupTunedSchedule(llvm::StringRef cacheDir,
                                const KernelSpec &spec, llvm::StringRef key);
/// Stores `schedule` (with a comment line, e.g. the measured speed) as the
/// tuned schedule for `key`.
llvm::Error storeTunedSchedule(llvm::StringRef cacheDir,
                               const KernelSpec &spec, llvm::StringRef key,
                               llvm::StringRef schedule,
                               llvm::StringRef comment);

class CompiledKernel {
public:
  const KernelSpec &spec() const { return spec_; }
  const std::string &name() const { return name_; }
  /// The description used; empty for plain vector code.
  const std::string &instruction() const { return instruction_; }
  const std::string &mnemonic() const { return mnemonic_; }
  /// Whether it reads denormals of the input / the weights as zero
  /// (GeneratedKernel::denormalsAreZero).
  const std::array<bool, 2> &denormalsAreZero() const {
    return denormalsAreZero_;
  }
  const std::string &plan() const { return plan_; }
  /// GeneratedKernel::tapRows.
  bool tapRows() const { return tapRows_; }
  const std::string &header() const { return header_; }
  const std::string &packedOperand() const { return packedOperand_; }
  /// GeneratedKernel::packedBytes: 0 with n or k at run time.
  int64_t packedBytes() const { return packedBytes_; }
  /// The loop schedule compiled in ("" for plain vector code) and whether it
  /// came from `tisa tune`.
  const std::string &schedule() const { return schedule_; }
  bool tunedSchedule() const { return tuned_; }
  /// What a schedule may choose (ScheduleSpace::text(); "" without one).
  const std::string &scheduleSpace() const { return scheduleSpace_; }
  /// Tiles of the `_packed_range` entry (work units for threads).
  int64_t tiles() const { return tiles_; }
  const std::vector<std::string> &warnings() const { return warnings_; }
  bool fromCache() const { return fromCache_; }
  /// The object file (for disassembly).
  llvm::MemoryBufferRef object() const { return jit_->object(); }

  /// The entry `name() + suffix` ("", "_pack_b", "_packed") as a function
  /// pointer of type F.
  template <typename F> F *entry(llvm::StringRef suffix = "") const {
    return reinterpret_cast<F *>(address(suffix));
  }
  void *address(llvm::StringRef suffix) const;

private:
  friend llvm::Expected<std::unique_ptr<CompiledKernel>>
  compileKernel(const KernelSpec &, const JitOptions &);
  /// The object cached at `objectPath` with its metadata at `metaPath`,
  /// which the fields are read from; null when absent, of another key, or
  /// damaged (which `warnings` is told).
  std::unique_ptr<llvm::MemoryBuffer> readCache(llvm::StringRef objectPath,
                                                llvm::StringRef metaPath,
                                                llvm::StringRef key,
                                                llvm::raw_ostream *warnings);
  /// Reads the cache's metadata lines (key=value) into the fields; returns
  /// the stored key and object digest.
  std::pair<std::string, std::string> readMetadata(llvm::StringRef fields);
  /// Takes what generation produced, but the object.
  void adopt(GeneratedKernel &generated);
  /// Loads `object` and looks up every entry.
  llvm::Error load(std::unique_ptr<llvm::MemoryBuffer> object);
  KernelSpec spec_;
  std::string name_, instruction_, mnemonic_, plan_, header_, packedOperand_;
  int64_t packedBytes_ = 0, tiles_ = 1;
  std::array<bool, 2> denormalsAreZero_ = {false, false};
  std::string schedule_, scheduleSpace_;
  std::vector<std::string> warnings_;
  bool fromCache_ = false, tuned_ = false, tapRows_ = false;
  std::unique_ptr<JitObject> jit_;
  llvm::StringMap<void *> addresses_;
};

llvm::Expected<std::unique_ptr<CompiledKernel>>
compileKernel(const KernelSpec &spec, const JitOptions &options = {});

} // namespace tisa

#endif // TISA_KERNELS_JIT_H
