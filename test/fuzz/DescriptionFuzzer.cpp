//===- DescriptionFuzzer.cpp - fuzz the description loader and verifier --===//
//
// Any bytes as a description file: parsed, schema-checked and verified as
// `tisa isa verify` loads them (DescriptionSet::loadBuffer); then, for a
// description that loads, the verifier's steps that run in process: its test
// cases (random and the type-derived edge values) evaluated by the
// semantics, and its probe built and translated to LLVM IR (compiling and
// running it is left out: tens of milliseconds per input). Errors are the
// expected outcome; a crash, a sanitizer report or a hang is a bug. Built
// with libFuzzer by scripts/fuzz.sh (TISA_FUZZ=ON); the normal build links
// the replay driver (Replay.cpp), and ctest replays the seed corpus.
//
//===----------------------------------------------------------------------===//

#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Semantics/Evaluator.h"
#include "tisa/Semantics/Parse.h"
#include "tisa/Targets/Check.h"
#include "tisa/Targets/Probe.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace {

/// The in-process steps of `tisa isa verify` on a loaded description.
void verifyInProcess(const tisa::Description &d) {
  unsigned segments = d.isScalable() ? 2 : 1;
  std::vector<tisa::TestCase> cases = tisa::makeTestCases(d, segments, 1);
  // The first random case and the last edge case: the rest repeat them.
  for (size_t i : {size_t(0), cases.size() - 1})
    if (i < cases.size())
      (void)tisa::evaluate(d, cases[i].operands);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(d.func.getContext()));
  if (mlir::failed(tisa::buildProbe(d, *module)))
    return;
  llvm::LLVMContext llvmCtx;
  llvm::consumeError(tisa::translateToLLVMIR(*module, llvmCtx).takeError());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: nothing one input uniques leaks into the next.
  mlir::DialectRegistry registry;
  tisa::registerDescriptionDialects(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  std::string diagnostics;
  llvm::raw_string_ostream errs(diagnostics);
  auto set = std::make_unique<tisa::DescriptionSet>(*ctx, errs);
  if (mlir::succeeded(set->loadBuffer(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir")))
    for (const auto &d : set->descriptions())
      verifyInProcess(*d);
  // MLIR's parser crashed on the input (its bug, reported as an error): the
  // context may be inconsistent, so it is leaked, never touched again, and
  // the next input parses in a new one. Otherwise every later input would
  // be refused and the run would cover nothing more.
  if (tisa::parserCrashed()) {
    (void)set.release();
    (void)ctx.release();
    tisa::forgetParserCrash();
  }
  return 0;
}
