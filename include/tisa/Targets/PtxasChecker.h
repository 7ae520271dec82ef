//===- PtxasChecker.h - check PTX text with NVIDIA ptxas --------*- C++ -*-===//
//
// Assembles PTX with the CUDA toolkit's `ptxas` so that PTX the project emits
// (or hand-writes in instruction descriptions) is checked by NVIDIA's own
// assembler, without a GPU. Only acceptance is checked; nothing runs.
//
// The ptxas used is $TISA_PTXAS when set and non-empty, else TISA_PTXAS from
// <tisa/Config.h> (found at configure time).
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_PTXASCHECKER_H
#define TISA_TARGETS_PTXASCHECKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tisa {
namespace nvptx {

/// The ptxas path that would be used (possibly empty); not checked.
std::string ptxasPath();

/// Empty when ptxas is usable; else the reason ("ptxas not found", or
/// "ptxas '<path>' is not an executable file").
std::string ptxasUnavailableReason();

/// Runs `ptxas -arch=<arch> -o <tmp>.cubin <tmp>.ptx` on the PTX text.
/// `arch` is a ptxas architecture such as "sm_80" or "sm_90a". Success when
/// ptxas exits with 0; otherwise the Error holds ptxas's stderr (or why ptxas
/// could not be run). Temporary files are removed either way.
llvm::Error runPtxas(llvm::StringRef ptx, llvm::StringRef arch);

/// What `ptxas -v` reports for one entry function.
struct KernelResources {
  std::string name;
  int64_t registers = 0;   ///< per thread
  int64_t sharedBytes = 0; ///< static shared memory per block
  int64_t stackBytes = 0, spillStoreBytes = 0, spillLoadBytes = 0;
};

/// Assembles `ptx` for `arch` with `ptxas -v` and reads the figures of every
/// entry function.
llvm::Expected<std::vector<KernelResources>>
ptxasResources(llvm::StringRef ptx, llvm::StringRef arch);

/// The cubin ptxas makes of `ptx` for `arch`, and (when `resources` is
/// given) the figures `ptxas -v` gives of its entry functions, in one run.
llvm::Expected<std::string>
assembleCubin(llvm::StringRef ptx, llvm::StringRef arch,
              std::vector<KernelResources> *resources = nullptr);

/// The entry functions of a `ptxas -v` log.
std::vector<KernelResources> parsePtxasVerbose(llvm::StringRef log);

} // namespace nvptx
} // namespace tisa

#endif // TISA_TARGETS_PTXASCHECKER_H
