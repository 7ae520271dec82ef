//===- Counting.h - the counting plugin's arguments and output --*- C++ -*-===//
//
// Internal to targets/aarch64: tisa's TCG plugin (count-plugin/CountPlugin.c)
// as a qemu argument, and its output read back.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_AARCH64_COUNTING_H
#define TISA_TARGETS_AARCH64_COUNTING_H

#include "tisa/Targets/AArch64Runner.h"

namespace tisa {
namespace aarch64 {

/// The -plugin argument that counts everything the program `exe` executes
/// between calls of its kCountMarkSymbol into `countsPath`.
llvm::Expected<std::string> markCountingPlugin(llvm::StringRef exe,
                                               llvm::StringRef countsPath);

/// The parts counted by markCountingPlugin, each instruction word decoded to
/// its mnemonic. Fails when the marks were not hit in pairs.
llvm::Expected<std::vector<ExecutedCounts>>
readMarkedCounts(llvm::StringRef countsPath);

} // namespace aarch64
} // namespace tisa

#endif // TISA_TARGETS_AARCH64_COUNTING_H
