//===- Match.cpp - tisa match, tisa target --------------------------------===//
//
//   tisa match FILE.mlir [--target T] [--features F] [--all] [--strict-fp]
//               [--allow-reduced-precision]
//
// Per linalg contraction of the files: the best plan for the target, in full;
// with --all every candidate (one line each, best first) and the reason each
// other description does not apply. Exit 0 whenever the input is valid, even
// when no instruction applies; 1 for unreadable or invalid input, bad
// descriptions or an unknown target.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "tisa/Matcher/Matcher.h"
#include "tisa/Semantics/Parse.h"
#include "tisa/Targets/Rates.h"
#include "tisa/Targets/Target.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include <set>

using namespace mlir;

namespace tisa::driver {

namespace {

std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", file.getFilename().getValue(),
                         file.getLine(), file.getColumn());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (isa<FileLineColLoc>(inner))
        return locationText(inner);
  if (auto name = dyn_cast<NameLoc>(loc))
    return locationText(name.getChildLoc());
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// Issue rate, latency and their source for each description of `plans`.
void printRates(const Target &t, llvm::ArrayRef<TensorizePlan> plans,
                llvm::raw_ostream &os) {
  os << "  rates on " << t.name << " (issue per cycle, latency, source):\n";
  std::set<std::string> seen;
  for (const TensorizePlan &p : plans)
    if (seen.insert(p.desc->name).second)
      os << llvm::formatv("    {0}: {1:f3}, {2:f1}, {3}\n", p.desc->name,
                          t.issueRate(*p.desc), t.latency(*p.desc),
                          t.rateOrigin(*p.desc));
}

} // namespace

/// The target the options name, or an error already reported.
FailureOr<std::optional<Target>> resolveTarget(const Options &o) {
  std::optional<Target> target;
  if (o.target != "any") {
    llvm::Expected<Target> t = loadTarget(o.target, o.targetDir);
    if (!t) {
      llvm::WithColor::error(llvm::errs(), "tisa")
          << llvm::toString(t.takeError()) << "\n";
      return failure();
    }
    target = std::move(*t);
  }
  if (!o.features.empty()) {
    auto restrict = [&]() -> llvm::Error {
      if (target)
        return restrictFeatures(*target, o.features);
      target = targetFromFeatures(TargetArch::X86_64, o.features);
      llvm::Error e = addImpliedFeatures(*target);
      deriveRegistersFromFeatures(*target);
      return e;
    };
    if (llvm::Error e = restrict()) {
      llvm::WithColor::error(llvm::errs(), "tisa")
          << llvm::toString(std::move(e)) << "\n";
      return failure();
    }
  }
  return target;
}

int match(const Options &o) {
  if (o.positional.empty())
    return usageError("'match' needs at least one .mlir file");
  FailureOr<std::optional<Target>> target = resolveTarget(o);
  if (failed(target))
    return 1;

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  DescriptionSet set(ctx, llvm::errs());
  if (!loadAll(set, o))
    return 1;
  std::vector<const Description *> descs;
  for (const auto &d : set.descriptions())
    descs.push_back(d.get());

  if (*target)
    for (const std::string &w : resolveRates(**target, descs))
      llvm::WithColor::warning(llvm::errs(), "tisa") << w << "\n";
  MatchOptions options;
  options.target = *target ? &**target : nullptr;
  options.strictFloat = o.strictFp;
  options.allowReducedPrecision = o.allowReducedPrecision;
  options.fuseLoops = !o.noFuse;

  auto &os = llvm::outs();
  if (options.target)
    os << "target: " << options.target->name << " ("
       << stringifyTargetArch(options.target->arch) << ", "
       << options.target->source << ")\n";
  else
    os << "target: any (every description; neutral costs)\n";
  os << descs.size() << " descriptions loaded\n";

  int status = 0;
  for (const std::string &file : o.positional) {
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, llvm::errs());
    std::string error;
    auto buffer = openInputFile(file, &error);
    if (!buffer) {
      llvm::WithColor::error(llvm::errs(), "tisa")
          << "cannot read '" << file << "': " << error << "\n";
      status = 1;
      continue;
    }
    sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());
    OwningOpRef<ModuleOp> module = parseModule(sourceMgr, ParserConfig(&ctx));
    if (!module) {
      llvm::errs() << file << ": invalid input (errors above)\n";
      status = 1;
      continue;
    }
    unsigned contractions = 0, others = 0;
    module->walk([&](linalg::LinalgOp op) {
      std::string why;
      FailureOr<Contraction> c = readContraction(op, why);
      os << "\n" << locationText(op->getLoc()) << ": ";
      if (failed(c)) {
        ++others;
        os << "skipped: " << why << "\n";
        return;
      }
      ++contractions;
      printContraction(*c, os);
      os << "\n";
      MatchResult r = match(*c, descs, options);
      // The code generators' count ranks what they generate, as tisa gen
      // does.
      if (options.target)
        rankPlans(r, *options.target);
      if (r.plans.empty()) {
        os << "  no instruction applies" << (options.target ? " on " : "")
           << (options.target ? options.target->name : "") << "\n";
      } else {
        os << "  plan:\n";
        printPlan(*c, r.plans.front(), os, 4);
        std::set<const Description *> applicable;
        for (const TensorizePlan &p : r.plans)
          applicable.insert(p.desc);
        if (!o.all)
          os << llvm::formatv("  {0} candidate plans from {1} descriptions; "
                              "{2} descriptions rejected (--all lists them)\n",
                              r.plans.size(), applicable.size(),
                              r.rejected.size());
      }
      if (o.all && !r.plans.empty()) {
        os << "  candidates (best first):\n";
        for (auto [i, p] : llvm::enumerate(r.plans)) {
          os << llvm::formatv("    {0,3}. ", i + 1);
          printPlanSummary(*c, p, os);
          os << "\n";
        }
        if (options.target)
          printRates(*options.target, r.plans, os);
      }
      if (o.all || r.plans.empty()) {
        os << "  rejected:\n";
        for (const Rejection &x : r.rejected)
          os << "    " << x.desc->name << ": " << x.reason << "\n";
      }
    });
    if (contractions == 0)
      os << "\n" << file << ": no contraction found"
         << (others ? " (the linalg operations above were skipped, each with its reason)"
                    : " (no linalg operation)")
         << "\n";
  }
  return status;
}

int targetList(const Options &o) {
  if (!o.positional.empty())
    return usageError("'target list' takes no arguments");
  int status = 0;
  for (const std::string &name : listTargets(o.targetDir)) {
    llvm::Expected<Target> t = loadTarget(name, o.targetDir);
    if (!t) {
      llvm::WithColor::error(llvm::errs(), "tisa")
          << llvm::toString(t.takeError()) << "\n";
      status = 1;
      continue;
    }
    llvm::outs() << llvm::formatv("{0,-16} {1,-8} {2}\n", t->name,
                                  stringifyTargetArch(t->arch), t->description);
  }
  return status;
}

/// The rates of every loaded description `t` executes, and their source.
static bool printExecutedRates(Target &t, const Options &o) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  DescriptionSet set(ctx, llvm::errs());
  if (!loadAll(set, o))
    return false;
  std::vector<const Description *> descs;
  for (const auto &d : set.descriptions())
    descs.push_back(d.get());
  for (const std::string &w : resolveRates(t, descs))
    llvm::WithColor::warning(llvm::errs(), "tisa") << w << "\n";
  auto &os = llvm::outs();
  os << "rates:             issue per cycle, latency in cycles, source; for "
        "each description the target executes\n";
  llvm::sort(descs, [](const Description *a, const Description *b) {
    return a->name < b->name;
  });
  size_t width = 18;
  for (const Description *d : descs)
    width = std::max(width, d->name.size());
  for (const Description *d : descs)
    if (t.canExecute(*d))
      os << "  " << llvm::left_justify(d->name, width)
         << llvm::formatv(" {0,6:f3} {1,6:f1}  {2}\n", t.issueRate(*d),
                          t.latency(*d), t.rateOrigin(*d));
  return true;
}

int targetShow(const Options &o) {
  if (o.positional.size() != 1)
    return usageError("'target show' takes one target name");
  llvm::Expected<Target> t = loadTarget(o.positional[0], o.targetDir);
  if (!t) {
    llvm::WithColor::error(llvm::errs(), "tisa")
        << llvm::toString(t.takeError()) << "\n";
    return 1;
  }
  auto &os = llvm::outs();
  std::vector<std::string> features;
  for (const auto &f : t->features)
    features.push_back(f.getKey().str());
  llvm::sort(features);
  os << "name:              " << t->name << "\n"
     << "description:       " << t->description << "\n"
     << "architecture:      " << stringifyTargetArch(t->arch) << "\n"
     << "cpu:               " << t->cpu << "\n"
     << "features:          " << llvm::join(features, " ") << "\n"
     << "vector bits:       " << t->vectorBits << "\n"
     << "vector registers:  " << t->vectorRegisters << "\n"
     << "tile registers:    " << t->tileRegisters << "\n"
     << "regs per thread:   " << t->registersPerThread << "\n";
  if (t->smThreads)
    os << "per SM:            " << t->smThreads << " threads, "
       << t->smRegisters << " registers, " << t->smBlocks << " blocks, "
       << t->smSharedMemoryBytes << " bytes of shared memory\n";
  os
     << "L1d/L2/L3 bytes:   " << t->l1dBytes << " / " << t->l2Bytes << " / "
     << t->l3Bytes << "\n"
     << "source:            " << t->source << "\n";
  if (!printExecutedRates(*t, o))
    return 1;
  const CostModel &c = t->cost;
  os << llvm::formatv("cost model:        {0} x latency x issue accumulators, "
                      "tiles up to {1}x{2}, {3}/{4} spare registers, "
                      "{5:f2} cycles loop overhead, x{6:f2} per step beyond L1, "
                      "{7:f0}% tie window, {8:f0}% border columns for edge "
                      "tiles first, {9:f0}% of L2 per lane block (and per "
                      "block of a dynamic image's filters, at least {11}){10}"
                      "{12}\n",
                      c.accumulatorChains, c.maxTileRows, c.maxTileRegisters,
                      c.spareRegistersWithPacked,
                      c.spareRegistersWithBroadcasts, c.loopOverheadCycles,
                      c.l1OverflowFactor, c.tieWindow * 100,
                      c.edgeFirstFraction * 100, c.l2BlockFraction * 100,
                      c.l2BytesPerCycle > 0
                          ? llvm::formatv(", panels beyond L1 streamed from "
                                          "L2 at {0:f0} bytes per cycle",
                                          c.l2BytesPerCycle)
                                .str()
                          : std::string(),
                      c.minFilterBlock,
                      c.l3BytesPerCycle > 0
                          ? llvm::formatv("; lane blocks only where a tile "
                                          "outruns L3's {0:f0} bytes per "
                                          "cycle",
                                          c.l3BytesPerCycle)
                                .str()
                          : std::string());
  if (c.reductionUnroll > 1 || c.segmentReductionUnroll ||
      c.segmentLongReductionUnroll)
    os << llvm::formatv(
        "k steps per loop:  {0} (matrix-segment tiles: {1}{2})\n",
        c.reductionUnroll,
        c.segmentReductionUnroll ? c.segmentReductionUnroll
                                 : c.reductionUnroll,
        c.segmentLongReductionUnroll
            ? llvm::formatv(", {0} on long loops of roomy tiles",
                            c.segmentLongReductionUnroll)
                  .str()
            : std::string());
  return 0;
}

} // namespace tisa::driver
