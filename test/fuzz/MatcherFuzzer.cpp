//===- MatcherFuzzer.cpp - fuzz the matcher over contraction programs -----===//
//
// Any bytes as a program: parsed as MLIR (`tisa match FILE.mlir`), each linalg
// operation read as a contraction, and each contraction matched against every
// shipped description, for no target and for one target of each architecture,
// with the plans printed. Rejections and parse errors are the expected
// outcome; a crash, a sanitizer report or a hang is a bug.
//
// The descriptions are loaded once, into the context the programs are parsed
// in (the matcher compares their types by identity).
//
//===----------------------------------------------------------------------===//

#include "tisa/Matcher/Matcher.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Semantics/Parse.h"
#include "tisa/Targets/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>

using namespace mlir;

namespace {

/// What every input is matched with: the shipped descriptions and targets.
struct Fixture {
  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  std::unique_ptr<tisa::DescriptionSet> set;
  std::vector<const tisa::Description *> descriptions;
  std::vector<tisa::Target> targets;

  Fixture() {
    DialectRegistry registry;
    registerAllDialects(registry);
    tisa::registerDescriptionDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    set = std::make_unique<tisa::DescriptionSet>(ctx, llvm::errs());
    for (const std::string &dir : tisa::isaSearchPath({}))
      if (failed(set->loadDirectory(dir)))
        fail("the shipped descriptions do not load");
    set->releaseDiagnostics();
    for (const auto &d : set->descriptions())
      descriptions.push_back(d.get());
    if (descriptions.empty())
      fail("no descriptions found on the search path");
    for (const char *name : {"znver4", "sapphirerapids", "neoverse-v2", "sm_80"}) {
      llvm::Expected<tisa::Target> t = tisa::loadTarget(name);
      if (!t)
        fail(llvm::toString(t.takeError()));
      targets.push_back(std::move(*t));
    }
  }

  [[noreturn]] static void fail(const std::string &why) {
    llvm::errs() << "tisa-fuzz-matcher: " << why << "\n";
    std::abort();
  }
};

void matchOne(const tisa::Contraction &c, const Fixture &f,
              const tisa::Target *target) {
  tisa::MatchOptions options;
  options.target = target;
  tisa::MatchResult r = tisa::match(c, f.descriptions, options);
  llvm::raw_null_ostream os;
  for (const tisa::TensorizePlan &p : r.plans) {
    tisa::printPlan(c, p, os);
    os << tisa::planKey(c, p);
  }
}

/// Parses `text` and matches each of its contractions.
void matchProgram(llvm::StringRef text, Fixture &fixture) {
  MLIRContext &ctx = fixture.ctx;
  // Parse errors are expected; they go nowhere.
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // MLIR's lexer reads up to a NUL after the text, as files and the
  // driver's buffers have: a copy supplies it.
  // tisa's own parse: a crash of MLIR's parser is an error there (parseModule
  // recovers from it), not a crash of the tools.
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"),
                        llvm::SMLoc());
  OwningOpRef<ModuleOp> module = tisa::parseModule(sm, ParserConfig(&ctx));
  if (!module)
    return;
  module->walk([&](linalg::LinalgOp op) {
    std::string why;
    FailureOr<tisa::Contraction> c = tisa::readContraction(op, why);
    if (failed(c))
      return;
    llvm::raw_null_ostream os;
    tisa::printContraction(*c, os);
    matchOne(*c, fixture, nullptr);
    for (const tisa::Target &t : fixture.targets)
      matchOne(*c, fixture, &t);
  });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<Fixture> fixture;
  if (!fixture)
    fixture = std::make_unique<Fixture>();
  matchProgram(llvm::StringRef(reinterpret_cast<const char *>(data), size),
               *fixture);
  // MLIR's parser crashed on the input (its bug, reported as an error): the
  // context may be inconsistent, so the fixture is leaked, never touched
  // again, and the next input gets a new one. Otherwise every later input
  // would be refused and the run would cover nothing more.
  if (tisa::parserCrashed()) {
    (void)fixture.release();
    tisa::forgetParserCrash();
  }
  return 0;
}
