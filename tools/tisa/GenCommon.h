//===- GenCommon.h - what tisa's gen and run commands share ----*- C++ -*-===//

#ifndef TISA_TOOLS_GENCOMMON_H
#define TISA_TOOLS_GENCOMMON_H

#include "Driver.h"
#include "tisa/Kernels/Jit.h"
#include "tisa/Kernels/Kernels.h"

#include "llvm/Support/FormatVariadic.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace tisa::driver {

/// Reports an error on stderr; returns the exit code 1.
int fail(const llvm::Twine &msg);
/// The value of option `key`, or `otherwise`.
std::string value(const Options &o, llvm::StringRef key,
                  llvm::StringRef otherwise);
llvm::Error writeFile(llvm::StringRef path, llvm::StringRef data);
/// The concrete target gen and run compile for (not "any"), or a usage
/// error already reported.
std::optional<Target> concreteTarget(const Options &o);
/// The kernel the options describe (`op`: gemm or conv2d), or a usage error
/// (exit code in `code`).
std::optional<KernelSpec> specFrom(const Options &o, llvm::StringRef op,
                                   int &code);
/// The JIT's options from gen's and run's (isa, schedule, descriptions).
JitOptions jitOptionsFrom(const Options &o);
/// `spec` generated for `target` (the schedule given, or one `tisa tune`
/// stored: `tuned`), warnings printed; `seconds`: how long it took.
llvm::Expected<GeneratedKernel> generateFor(const Options &o,
                                            const KernelSpec &spec,
                                            const Target &target, bool &tuned,
                                            double &seconds);
/// `tisa gen FILE.mlir` (GenFile.cpp): tensorize, register tile and lower
/// every function, a shared library with MLIR's C interface and a header.
int genFromFile(const Options &o, llvm::StringRef file, llvm::StringRef dir);

/// `generate(ctx, descriptions, options)` with the descriptions loaded in a
/// fresh context and the generation options of `o`.
template <typename T>
llvm::Expected<T> withDescriptions(
    const Options &o,
    llvm::function_ref<llvm::Expected<T>(
        mlir::MLIRContext &, llvm::ArrayRef<const Description *>, GenerateOptions &)>
        generate) {
  mlir::DialectRegistry registry;
  registerDescriptionDialects(registry);
  mlir::MLIRContext ctx(registry);
  DescriptionSet set(ctx, llvm::errs());
  if (!loadAll(set, o))
    return llvm::createStringError("the descriptions do not load (errors "
                                   "above)");
  std::vector<const Description *> descriptions;
  for (const auto &d : set.descriptions())
    descriptions.push_back(d.get());
  GenerateOptions options;
  options.isa = value(o, "isa", "auto");
  options.schedule = value(o, "schedule", "");
  return generate(ctx, descriptions, options);
}

/// `tisa gen gemm --target sm_XX` and `tisa run gemm --target sm_XX`
/// (GenGpu.cpp).
int genGpu(const Options &o, const KernelSpec &spec, const Target &target,
           llvm::StringRef dir);
int runGpuOnHost(const Options &o, const KernelSpec &spec,
                 const Target &target, int64_t threads);

/// What 'run' and 'tune' share: a kernel for a target this machine executes.
struct Runnable {
  KernelSpec spec;
  JitOptions options;
  Target target;
  int64_t threads = 1;
  /// AMX runs under tisa's emulator (this machine has none); the other
  /// target features this machine lacks are disabled (options).
  bool emulateAMX = false;
  /// An aarch64 target on another machine: generated, then run and checked
  /// under qemu-aarch64.
  bool underQemu = false;
  /// Under qemu, the SVE vector lengths (bits) it runs at (`--sve-bits`;
  /// default the target's; empty for a target without SVE).
  std::vector<unsigned> sveBits;
  /// A GPU target: its kernel runs through its host lowering (blocks and
  /// threads as loops, mma.sync on the warp-level reference).
  bool gpuOnHost = false;
  /// Run-time extents (KernelSpec::runTimeShape): the calls it is checked
  /// at (`--at`; the spec with each call's extents), timed at the last.
  std::vector<KernelSpec> calls;
  /// The spec of a call: `spec`, or the last of `calls`.
  KernelSpec call() const { return calls.empty() ? spec : calls.back(); }
  /// The specs the kernel is checked at: `spec`, or `calls`.
  std::vector<KernelSpec> checked() const {
    return calls.empty() ? std::vector<KernelSpec>{spec} : calls;
  }
  /// "", "; m = 1, 33, 256" or "; m x n x k = 1x1x1, 256x256x256": where a
  /// kernel of run-time extents was checked.
  std::string checkedText() const {
    if (calls.empty())
      return "";
    bool rowsOnly = !spec.runTimeN && !spec.runTimeK && !spec.runTimeH &&
                    !spec.runTimeW;
    bool gemm = spec.op == KernelSpec::Op::Gemm;
    std::string text = "; " +
                       (rowsOnly ? spec.rowsName().str()
                        : gemm   ? "m x n x k"
                                 : "n x h x w") +
                       " =";
    for (const KernelSpec &c : calls) {
      auto [second, third] = c.callExtents();
      text += (text.back() == '=' ? " " : ", ") +
              (rowsOnly ? std::to_string(c.rows())
                        : llvm::formatv("{0}x{1}x{2}", c.rows(), second, third)
                              .str());
    }
    return text;
  }
};

/// The kernel, target and run options of 'run' or 'tune' (`verb`), or
/// failure with the exit code in `code` (errors reported).
std::optional<Runnable> runnable(const Options &o, llvm::StringRef verb,
                                 int &code);

} // namespace tisa::driver

#endif // TISA_TOOLS_GENCOMMON_H
