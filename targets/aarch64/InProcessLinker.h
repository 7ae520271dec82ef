//===- InProcessLinker.h - lld's ELF linker in this process -----*- C++ -*-===//
//
// Internal to targets/aarch64: a probe's link run by lld's library
// (liblld-22-dev) instead of a new ld.lld process, which spends about 55 ms
// binding libLLVM.so before it links anything.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_TARGETS_AARCH64_INPROCESSLINKER_H
#define TISA_TARGETS_AARCH64_INPROCESSLINKER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tisa {
namespace aarch64 {

/// Runs ld.lld with `args` (not its name) in this process, its messages
/// written to `logPath`: whether the link succeeded, or nothing when lld's
/// library was not built in (or cannot run again after a crash), for the
/// caller to start ld.lld instead.
std::optional<bool> linkInProcess(llvm::ArrayRef<llvm::StringRef> args,
                                  llvm::StringRef logPath);

} // namespace aarch64
} // namespace tisa

#endif // TISA_TARGETS_AARCH64_INPROCESSLINKER_H
