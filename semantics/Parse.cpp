//===- Parse.cpp - parsing user files without crashing --------------------===//

#include "tisa/Semantics/Parse.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CrashRecoveryContext.h"

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

OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sm,
                                  const ParserConfig &config) {
  OwningOpRef<ModuleOp> module;
  bool ok = runRecoveringCrashes(
      [&] { module = parseSourceFile<ModuleOp>(sm, config); });
  if (ok)
    return module;
  // `module` was never assigned: the crash left parseSourceFile midway.
  StringRef name = sm.getNumBuffers()
                       ? sm.getMemoryBuffer(sm.getMainFileID())
                             ->getBufferIdentifier()
                       : StringRef("<input>");
  emitError(FileLineColLoc::get(config.getContext(), name, 0, 0))
      << "MLIR's parser crashed on this file (a bug in MLIR "
      << LLVM_VERSION_MAJOR << ", not a verdict on the input): it segfaults, for example, on a "
         "named linalg op whose properties are not a dictionary "
         "(`linalg.matmul <1> ins(...)`); check the file's syntax";
  return nullptr;
}

} // namespace tisa
