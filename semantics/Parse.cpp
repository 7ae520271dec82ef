//===- Parse.cpp - parsing user files without crashing --------------------===//

#include "tisa/Semantics/Parse.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CrashRecoveryContext.h"

#include <atomic>
#include <mutex>

using namespace mlir;

namespace tisa {

bool runRecoveringCrashes(llvm::function_ref<void()> fn) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  llvm::CrashRecoveryContext::Enable();
  bool ok;
  {
    llvm::CrashRecoveryContext crc;
    ok = crc.RunSafely(fn);
  }
  llvm::CrashRecoveryContext::Disable();
  return ok;
}

/// Set by a crash of MLIR's parser: its state may be inconsistent, so no
/// more parsing (until a caller that dropped that state says otherwise).
static std::atomic<bool> crashed = false;

bool parserCrashed() { return crashed; }

void forgetParserCrash() { crashed = false; }

OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sm,
                                  const ParserConfig &config) {
  StringRef name = sm.getNumBuffers()
                       ? sm.getMemoryBuffer(sm.getMainFileID())
                             ->getBufferIdentifier()
                       : StringRef("<input>");
  if (crashed) {
    emitError(FileLineColLoc::get(config.getContext(), name, 0, 0))
        << "not parsed: MLIR's parser crashed on an earlier file of this run";
    return nullptr;
  }
  // The crash recovery context covers the calling thread only: the
  // verifier, which may run on the context's threads, runs after it. (tisa's
  // callers register no resource parsers on `config`.)
  ParserConfig unverified(config.getContext(), /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module;
  bool ok = runRecoveringCrashes(
      [&] { module = parseSourceFile<ModuleOp>(sm, unverified); });
  if (ok) {
    if (module && config.shouldVerifyAfterParse() && failed(verify(*module)))
      return nullptr;
    return module;
  }
  crashed = true;
  // `module` was never assigned: the crash left parseSourceFile midway.
  emitError(FileLineColLoc::get(config.getContext(), name, 0, 0))
      << "MLIR's parser crashed on this file (a bug in MLIR "
      << LLVM_VERSION_MAJOR << ", not a verdict on the input): it segfaults, for example, on a "
         "named linalg op whose properties are not a dictionary "
         "(`linalg.matmul <1> ins(...)`); check the file's syntax";
  return nullptr;
}

} // namespace tisa
