//===- GenCommon.h - what tisa's gen and run commands share ----*- C++ -*-===//

#ifndef TISA_TOOLS_GENCOMMON_H
#define TISA_TOOLS_GENCOMMON_H

#include "Driver.h"
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

} // namespace tisa::driver

#endif // TISA_TOOLS_GENCOMMON_H
