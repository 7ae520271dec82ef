//===- GenCommon.h - what tisa's gen and run commands share ----*- C++ -*-===//

#ifndef TISA_TOOLS_GENCOMMON_H
#define TISA_TOOLS_GENCOMMON_H

#include "Driver.h"
#include "tisa/Kernels/Jit.h"
#include "tisa/Kernels/Kernels.h"

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
  /// A GPU target: its kernel runs through its host lowering (blocks and
  /// threads as loops, mma.sync on the warp-level reference).
  bool gpuOnHost = false;
  /// Run-time rows (KernelSpec::runTimeRows): the extents it is checked
  /// at (`--at`), timed at the last.
  std::vector<int64_t> rows;
  /// The spec of a call: `spec`, or at the last of `rows`.
  KernelSpec call() const {
    return spec.runTimeRows ? spec.withRows(rows.back()) : spec;
  }
  /// The specs the kernel is checked at: `spec`, or one per run-time extent.
  std::vector<KernelSpec> checked() const {
    if (!spec.runTimeRows)
      return {spec};
    std::vector<KernelSpec> out;
    for (int64_t r : rows)
      out.push_back(spec.withRows(r));
    return out;
  }
  /// "" or "; m = 1, 33, 256": where a kernel of run-time rows was checked.
  std::string checkedText() const {
    if (!spec.runTimeRows)
      return "";
    std::string text = "; " + spec.rowsName().str() + " =";
    for (int64_t r : rows)
      text += (text.back() == '=' ? " " : ", ") + std::to_string(r);
    return text;
  }
};

/// The kernel, target and run options of 'run' or 'tune' (`verb`), or
/// failure with the exit code in `code` (errors reported).
std::optional<Runnable> runnable(const Options &o, llvm::StringRef verb,
                                 int &code);

} // namespace tisa::driver

#endif // TISA_TOOLS_GENCOMMON_H
