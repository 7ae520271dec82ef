//===- DescriptionFuzzer.cpp - fuzz the description loader ----------------===//
//
// Any bytes as a description file: parsed, schema-checked and verified as
// `tisa isa verify` loads them (DescriptionSet::loadBuffer). Errors are the
// expected outcome; a crash, a sanitizer report or a hang is a bug. Built with
// libFuzzer by scripts/fuzz.sh (TISA_FUZZ=ON); the normal build links the
// replay driver (Replay.cpp), and ctest replays the seed corpus.
//
//===----------------------------------------------------------------------===//

#include "tisa/Semantics/DescriptionSet.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: nothing one input uniques leaks into the next.
  mlir::DialectRegistry registry;
  tisa::registerDescriptionDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  llvm::raw_string_ostream errs(diagnostics);
  tisa::DescriptionSet set(ctx, errs);
  (void)set.loadBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.mlir");
  return 0;
}
