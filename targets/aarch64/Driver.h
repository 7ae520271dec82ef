//===- Driver.h - what the runner asks of the cross clang -------*- C++ -*-===//
//
// Internal to targets/aarch64: objects compiled, the static libc found and
// probes linked by the cross clang, each answer kept between processes.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_TARGETS_AARCH64_DRIVER_H
#define TISA_TARGETS_AARCH64_DRIVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tisa {
namespace aarch64 {

/// The cross driver's target option.
constexpr llvm::StringLiteral kTriple = "--target=aarch64-linux-gnu";

/// `source` compiled by `clang` with `flags`, from the disk cache when
/// another process compiled it already. `what` names it in an error.
llvm::Expected<std::vector<uint8_t>>
compiledObject(llvm::StringRef clang, llvm::ArrayRef<llvm::StringLiteral> flags,
               llvm::StringRef source, const llvm::Twine &what);

/// Whether `clang` finds a static aarch64 libc.
bool hasStaticLibc(llvm::StringRef clang);

/// Links `objects` into `exe` with the linker command the driver would run,
/// `linkerFlags` added (in this process where lld's library is built in:
/// linkInProcess); false when there is no such command or the link
/// fails (the caller then links through the driver, which says why).
bool linkDirectly(llvm::StringRef clang, llvm::ArrayRef<std::string> objects,
                  llvm::StringRef exe, llvm::ArrayRef<std::string> linkerFlags,
                  llvm::StringRef logPath);

} // namespace aarch64
} // namespace tisa

#endif // TISA_TARGETS_AARCH64_DRIVER_H
