//===- TargetFuzzer.cpp - fuzz the target-data loader ---------------------===//
//
// Any bytes as a target file (targets/data/*.json): parsed and schema-checked
// as `tisa ... --target FILE.json` reads it (parseTarget), then checked
// against LLVM's CPU and feature tables and turned into the text of a cache
// key, as the driver does with a file that loads. Errors are the expected
// outcome; a crash, a sanitizer report or a hang is a bug.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Target.h"

#include "llvm/Support/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef json(reinterpret_cast<const char *>(data), size);
  llvm::Expected<tisa::Target> target = tisa::parseTarget(json, "fuzz.json");
  if (!target) {
    llvm::consumeError(target.takeError());
    return 0;
  }
  llvm::consumeError(tisa::verifyAgainstLLVM(*target));
  (void)target->modelKey();
  return 0;
}
