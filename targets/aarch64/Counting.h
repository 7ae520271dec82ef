//===- Counting.h - the counting plugin's arguments and output --*- C++ -*-===//
//
// Internal to targets/aarch64: the two modes of tisa's TCG plugin
// (count-plugin/CountPlugin.c) as qemu arguments, and its output read back.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_AARCH64_COUNTING_H
#define TISA_TARGETS_AARCH64_COUNTING_H

#include "tisa/Targets/AArch64Runner.h"

namespace tisa {
namespace aarch64 {

/// The -plugin argument that counts each instruction of `function` of the
/// program `exe` into `countsPath`; `insts` receives the function's
/// instructions.
llvm::Expected<std::string> functionCountingPlugin(
    llvm::StringRef exe, llvm::StringRef function, llvm::StringRef countsPath,
    std::vector<DecodedInst> &insts);

/// Adds the function counts in `countsPath` to `result` by the mnemonic of
/// the instruction at each address.
llvm::Error readFunctionCounts(llvm::StringRef countsPath,
                               llvm::ArrayRef<DecodedInst> insts,
                               ProbeResult &result);

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
