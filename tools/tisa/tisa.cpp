//===- tisa.cpp - the tisa driver -----------------------------------------===//
//
//   tisa isa list              one line per description: name, features, how
//                              it runs here
//   tisa isa show NAME         everything a description says
//   tisa isa verify [FILE...]  schema, evaluator and differential checks
//   tisa match FILE...         which instructions implement each contraction
//   tisa target list|show      the machines tisa knows (targets/data)
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "tisa/Config.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Check.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using llvm::StringRef;

namespace tisa::driver {

/// Reports a usage error on stderr; returns the exit code 2.
int usageError(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "tisa") << msg << "\n";
  llvm::errs() << "run 'tisa --help' for usage\n";
  return 2;
}

bool loadAll(tisa::DescriptionSet &set, const Options &o) {
  bool ok = true;
  for (const std::string &dir : tisa::isaSearchPath(o.isaDirs))
    ok &= succeeded(set.loadDirectory(dir));
  if (ok && set.descriptions().empty()) {
    llvm::WithColor::error(llvm::errs(), "tisa")
        << tisa::noDescriptionsFound(o.isaDirs) << "\n";
    return false;
  }
  return ok;
}

} // namespace tisa::driver

using namespace tisa::driver;

namespace {

constexpr const char *kUsage = R"(usage: tisa <command> [options]

commands:
  isa list                 list the instruction descriptions: name, LLVM features, and how this
                           machine executes them (native, qemu, emulated, compile-only)
  isa show NAME            print everything a description says
  isa verify [FILE...]     check descriptions: schema, evaluator, the lowering compiled with the
                           instruction present, and a differential run against the evaluator
                           (all loaded descriptions when no FILE is given); exit 0 only if all pass
  match FILE.mlir...       for every linalg contraction in the files: the best tensorization plan
                           for the target (loop mapping, packing, repairs, relaxations, tiles,
                           cost); exit 0 whenever the input is valid, even when nothing applies
  target list              the known targets (targets/data/*.json and 'host')
  target show NAME         everything tisa knows about a target
  gen gemm --m M --n N --k K --types T [--isa NAME|auto] [--target T] -o DIR
  gen conv2d [--n N] --h H --w W --c C --k K --r R --s S [--stride U] [--pad P] --types T -o DIR
                           write lib<name>.so and <name>.h (the C ABI is documented in the header)
                           for a tensorized kernel; T is A,B,C: integers (u8 s8 u16 s16
                           u32 s32 u64 s64) into an integer at least as wide, or floats (f16
                           bf16 f32 f64) into f32 or f64, e.g. u8,s8,s32, s16,s16,s64,
                           bf16,bf16,f32 (plain vector code, with a warning, where no loaded
                           description implements them: f16 runs on tdpfp16ps with --target
                           graniterapids);
                           conv2d is NHWC input, HWCF filter (k filters of r x s x c);
                           --target sm_80|sm_86|sm_90: NAME.ptx, NAME.cubin (with ptxas)
                           and NAME.h launching it through the CUDA driver API, on mma.sync;
                           there T may also be tf32,tf32,f32 (f32 arrays whose top 19 bits
                           the mma reads)
                           --m ? (conv2d: --n ?): one kernel for any m (batch), which
                           every entry but the pack takes as its first argument; a GEMM's
                           --n ? and --k ?, a conv2d's --h ? and --w ? likewise (the
                           entries take the run-time extents in the order m, n, k or
                           n, h, w; the GEMM's pack takes n and k)
                           --epilogue LIST: elementwise steps on the result before its
                           one store, in this order: bias (per column or filter), residual
                           (an output-shaped array), relu, and requant=u8|s8 (s32: f32 scale
                           per column or filter, round to nearest even, + zero point,
                           saturate) or bf16 (f32 results), each once and listed in
                           that order; the entries then take a tisa_epilogue with
                           those operands (see the header)
  gen FILE.mlir [--schedule S] -o DIR
                           tensorize every linalg contraction on memrefs in FILE (with schedule S,
                           or its tisa.schedule attribute, or the default) and write a shared
                           library with MLIR's C interface (_mlir_ciface_NAME) and a header
  run gemm|conv2d ...      generate for this machine (JIT, cached on disk), run on random and
                           extreme data, check against a reference (bit-exact for integers) and
                           print the speed; options as for gen, plus --repeat R, --seed N and
                           --threads N (time the pre-packed kernel on N threads, default 1);
                           with --m ?: --at M,M,... the extents to check at (default
                           1,33,256), timed (and, for 'tune', tuned) at the last; with
                           a GEMM's --n ? or --k ?: --at MxNxK,...; with a conv2d's
                           --h ? or --w ?: --at NxHxW,... (whole shapes);
                           --target neoverse-n1|neoverse-v1|neoverse-v2 runs the Arm code under
                           qemu-aarch64 and counts what it executed (no time); --sve-bits B,B,...
                           runs an SVE target's one binary at each vector length (default the
                           target's: 256 for neoverse-v1, 128 for neoverse-v2);
                           --target sapphirerapids on a CPU without AMX runs the AMX code under
                           tisa's emulator and counts what it executed (times are the emulator's);
                           --target sm_80|sm_86|sm_90 runs the Tensor Core kernel through its host
                           lowering (each mma.sync on the warp-level reference), untimed
  tune gemm|conv2d ...     search loop schedules (register tile, cache blocks, loop order) around
                           the default by measuring each (checked against the reference), and
                           store the fastest in the cache directory, where 'gen' and 'run' find
                           it; options as for run, plus --time-limit S (default 60)

options:
  --isa-dir DIR            also load descriptions from DIR (repeatable); TISA_ISA_PATH adds more
                           (':'-separated); the installed set is always searched last
  --seed N                 seed of the random differential inputs (default 0x7153a)
  --skip-exit-code N       'isa verify': exit N when nothing failed but a check was skipped
                           (default 3: a skipped check is not a pass; for test drivers
                           such as ctest's SKIP_RETURN_CODE)
  --allow-skipped          'isa verify': exit 0 when nothing failed, even if a check was
                           skipped (the verdict still lists them)
  --target NAME            'match', 'gen', 'run': the machine to plan and compile for (default:
                           host; 'match' also takes 'any', which keeps every description)
  --features LIST          'match', 'gen', 'run|tune gemm|conv2d': the target's features replaced by
                           LIST and what it implies, e.g. +avx2,+avxvnni, for the choice of
                           instruction and for LLVM (the architecture, CPU and costs stay the
                           target's; 'run' on this machine needs every feature of LIST)
  --target-dir DIR         read target files from DIR instead of the shipped ones
  --time-limit S           'tune': stop searching after S seconds
  --schedule TEXT          'gen', 'run': the loop schedule (as 'tisa tune' prints it, e.g.
                           unroll=6x4x1,block=0,order=lanes-inner,panel=64; fields unroll, block,
                           order, panel, fuse, edge, kunroll, hold, even: docs/codegen.md) instead
                           of the tuned or default one; an AMX kernel takes unroll and hold
  --all                    'match': also list every candidate plan and why each other
                           description was rejected
  --strict-fp              'match': reject floating-point instructions whose accumulation
                           order, rounding or denormal handling differ from the program's
  --allow-reduced-precision
                           'match': let an instruction read f32 inputs in a narrower format
                           (tf32 on Tensor Cores), listed in the plan as a relaxation
  --no-fuse                'match': never fuse adjacent program loops (no im2col-style plans)
  --emit-ir                'gen': also write NAME.mlir, the kernel after tensorization and
                           register tiling (before lowering to LLVM; for sm_XX, the
                           gpu.module before lowering to NVVM)
  --no-fuse-epilogue       'gen FILE.mlir': run elementwise consumers of a contraction (bias,
                           activation, requantization) as loops of their own instead of on
                           its accumulators in registers (to compare the two)
  -h, --help               this text
  --version                print the version
)";

int isaList(const Options &o) {
  MLIRContext ctx;
  tisa::DescriptionSet set(ctx, llvm::errs());
  bool ok = loadAll(set, o);
  if (set.descriptions().empty())
    return 1;
  size_t nameWidth = 4, featWidth = 8;
  for (const auto &d : set.descriptions()) {
    nameWidth = std::max(nameWidth, d->name.size());
    featWidth = std::max(featWidth, d->featureString().size());
  }
  llvm::outs() << llvm::formatv(
      "{0} {1} {2}\n", llvm::left_justify("NAME", nameWidth),
      llvm::left_justify("FEATURES", featWidth), "EXECUTION");
  for (const auto &d : set.descriptions()) {
    std::string why;
    tisa::ExecutionMode mode = tisa::executionMode(*d, &why);
    llvm::outs() << llvm::formatv(
        "{0} {1} {2}{3}\n", llvm::left_justify(d->name, nameWidth),
        llvm::left_justify(d->featureString(), featWidth),
        tisa::stringifyExecutionMode(mode),
        why.empty() ? "" : " (" + why + ")");
  }
  return ok ? 0 : 1;
}

std::string describeFloat(const tisa::FloatBehaviour &fp) {
  static const char *acc[] = {
      "sequential (ascending)", "reverse (descending)",
      "pairwise, then accumulated", "unordered (vendor-unspecified)",
      "even and odd partial sums by fused multiply-add, then accumulated"};
  return llvm::formatv("accumulation {0}; rounding {1}; denormal inputs {2}; "
                       "denormal results {3}; "
                       "NaN {4}",
                       acc[static_cast<int>(fp.accumulation)],
                       fp.rounding == tisa::Rounding::Odd ? "to odd"
                                                          : "to nearest even",
                       fp.anyDenormalsAreZero()
                           ? "read as zero in " + tisa::denormalsAreZeroText(fp)
                           : std::string("kept"),
                       fp.flushOutputDenormals ? "flushed" : "kept",
                       fp.defaultNaN ? "default NaN" : "propagated")
      .str();
}

int isaShow(const Options &o) {
  if (o.positional.size() != 1)
    return usageError("'isa show' takes one description name");
  MLIRContext ctx;
  tisa::DescriptionSet set(ctx, llvm::errs());
  // Errors (a duplicate name) are printed; the description is still shown,
  // and the exit status says they happened.
  bool loaded = loadAll(set, o);
  const tisa::Description *d = set.lookup(o.positional[0]);
  if (!d) {
    std::vector<std::string> names;
    for (const auto &x : set.descriptions())
      names.push_back(x->name);
    llvm::WithColor::error(llvm::errs(), "tisa")
        << "no description named '" << o.positional[0]
        << "' (known: " << llvm::join(names, ", ") << ")\n";
    return 1;
  }
  auto &os = llvm::outs();
  std::string why;
  tisa::ExecutionMode mode = tisa::executionMode(*d, &why);
  os << "name:        " << d->name << "\n";
  os << "file:        " << d->path << "\n";
  os << "extension:   " << d->extension << "\n";
  os << "target:      " << tisa::stringifyTargetArch(d->target) << "\n";
  os << "features:    " << d->featureString() << "\n";
  os << "execution:   " << tisa::stringifyExecutionMode(mode)
     << (why.empty() ? "" : " (" + why + ")") << "\n";
  os << "mnemonic:    " << d->mnemonic << "\n";
  os << "reference:   " << d->reference << "\n";
  os << "semantics:   ";
  const tisa::MulAcc &m = d->mulAcc;
  auto ext = [](tisa::MulAcc::Ext e) {
    switch (e) {
    case tisa::MulAcc::Ext::Sign:
      return "sext";
    case tisa::MulAcc::Ext::Zero:
      return "zext";
    case tisa::MulAcc::Ext::Float:
      return "extf";
    case tisa::MulAcc::Ext::None:
      return "";
    }
    return "";
  };
  // A factor read narrower first: extf(truncf toward_zero(in0: f32) to tf32).
  auto factor = [&](tisa::MulAcc::Ext e, unsigned input, Type type,
                    const std::optional<tisa::MulAcc::Narrowing> &narrow) {
    std::string in = "in" + std::to_string(input) + ": ";
    llvm::raw_string_ostream(in) << type;
    if (narrow) {
      bool toZero = narrow->rounding == llvm::RoundingMode::TowardZero;
      std::string t;
      llvm::raw_string_ostream(t) << narrow->type;
      in = std::string("truncf ") + (toZero ? "toward_zero" : "to_nearest_even") +
           "(" + in + ") to " + t;
    }
    os << ext(e) << "(" << in << ")";
  };
  os << "acc(" << m.accType << ") += ";
  factor(m.lhsExt, m.lhsInput, m.lhsType, m.lhsNarrowing);
  os << " * ";
  factor(m.rhsExt, m.rhsInput, m.rhsType, m.rhsNarrowing);
  os << ", multiplied in " << m.mulType << "\n";
  os << "loops:       ";
  SmallVector<int64_t> ranges = d->body.getStaticLoopRanges();
  auto iters = d->body.getIteratorTypesArray();
  for (auto [i, r] : llvm::enumerate(ranges))
    os << (i ? " x " : "") << "d" << i << "=" << r
       << (iters[i] == utils::IteratorType::reduction ? " (reduction)" : "");
  os << (d->isScalable() ? " per 128-bit segment (scalable)" : "") << "\n";
  for (auto [i, reg] : llvm::enumerate(d->registers)) {
    auto maps = d->body.getIndexingMapsArray();
    os << "operand " << i << ":   " << d->func.getArgumentTypes()[i]
       << " indexed " << AffineMapAttr::get(maps[i])
       << (i == d->accumulatorOperand() ? " (accumulator)" : "")
       << "\n             held in " << tisa::stringifyRegisterClass(reg.cls)
       << " " << reg.type << " at " << AffineMapAttr::get(reg.layout) << "\n";
  }
  if (m.isFloat)
    os << "fp:          " << describeFloat(*d->fp) << "\n";
  else
    os << "saturation:  "
       << (d->saturation == tisa::Saturation::None     ? "none (wraps)"
           : d->saturation == tisa::Saturation::Signed ? "signed"
                                                       : "unsigned")
       << "\n";
  if (d->bounds)
    os << "bounds:      " << d->bounds->rows << " rows x "
       << d->bounds->bytesPerRow << " bytes per row\n";
  if (!d->config.empty())
    os << "config:      " << d->config << "\n";
  os << "lowering:    " << d->lowering.intrinsic << "(";
  for (auto [i, a] : llvm::enumerate(d->lowering.args)) {
    os << (i ? ", " : "");
    switch (a.kind) {
    case tisa::LoweringArg::Operand:
      os << "operand " << a.operand;
      break;
    case tisa::LoweringArg::Rows:
      os << "rows(" << a.operand << ")";
      break;
    case tisa::LoweringArg::ColsBytes:
      os << "colsb(" << a.operand << ")";
      break;
    }
  }
  os << ") -> operand " << d->accumulatorOperand() << "\n";
  return loaded ? 0 : 1;
}

int isaVerify(const Options &o) {
  MLIRContext ctx;
  tisa::DescriptionSet set(ctx, llvm::errs());
  struct Entry {
    std::string file;
    const tisa::Description *d; // null when the file did not load
  };
  std::vector<Entry> entries;
  if (o.positional.empty()) {
    // Everything on the search path; files that fail to load are reported by
    // the loader.
    size_t before = 0;
    for (const std::string &dir : tisa::isaSearchPath(o.isaDirs)) {
      if (failed(set.loadDirectory(dir)))
        entries.push_back({dir, nullptr});
      for (size_t i = before; i < set.descriptions().size(); ++i)
        entries.push_back(
            {set.descriptions()[i]->path, set.descriptions()[i].get()});
      before = set.descriptions().size();
    }
    if (entries.empty()) {
      llvm::WithColor::error(llvm::errs(), "tisa")
          << tisa::noDescriptionsFound(o.isaDirs) << "\n";
      return 1;
    }
  } else {
    for (const std::string &file : o.positional) {
      size_t before = set.descriptions().size();
      bool ok = succeeded(set.loadFile(file));
      entries.push_back({file, ok && set.descriptions().size() > before
                                   ? set.descriptions().back().get()
                                   : nullptr});
    }
  }
  tisa::VerifyOptions options;
  options.seed = o.seed;
  unsigned passed = 0, failedCount = 0;
  std::vector<std::string> skipped; // "description: check (reason)"
  auto &os = llvm::outs();
  for (const Entry &e : entries) {
    if (!e.d) {
      os << "FAIL " << e.file
         << (llvm::sys::fs::is_directory(e.file)
                 ? ": a description in it does not load (errors above)\n"
                 : ": the file does not load (errors above)\n");
      ++failedCount;
      continue;
    }
    os << e.d->name << "  (" << e.file << ")\n";
    os << "  schema        pass\n";
    tisa::VerifyReport report = tisa::verifyDescription(*e.d, options);
    for (const tisa::CheckResult &c : report.checks)
      os << llvm::formatv("  {0,-13} {1,-7} {2}\n", c.name,
                          tisa::stringifyCheckStatus(c.status), c.detail);
    std::vector<std::string> mine;
    for (const tisa::CheckResult &c : report.checks)
      if (c.status == tisa::CheckStatus::Skipped) {
        mine.push_back(c.name);
        skipped.push_back(e.d->name + ": " + c.name + " (" + c.detail + ")");
      }
    os << (report.passed() ? "PASS " : "FAIL ") << e.d->name;
    if (!mine.empty())
      os << " (not checked: " << llvm::join(mine, ", ") << ")";
    os << "\n\n";
    (report.passed() ? passed : failedCount)++;
    os.flush();
  }
  os << passed << " passed, " << failedCount << " failed";
  if (!skipped.empty())
    os << ", " << skipped.size() << " checks skipped:";
  os << "\n";
  for (const std::string &s : skipped)
    os << "  skipped " << s << "\n";
  if (failedCount)
    return 1;
  // A skipped check is not a pass.
  if (skipped.empty() || o.allowSkipped)
    return 0;
  return o.skipExitCode ? o.skipExitCode : 3;
}

/// Refuses flags and options that `command` does not take (they used to be
/// accepted and ignored: `gen FILE.mlir --epilogue relu` wrote a library
/// without the ReLU).
int checkApplies(const Options &o, StringRef command, bool fromFile) {
  bool gen = command == "gen", match = command == "match";
  const std::tuple<bool, const char *, bool, const char *> flags[] = {
      {o.all, "--all", match, "'match'"},
      {o.strictFp, "--strict-fp", match, "'match'"},
      {o.allowReducedPrecision, "--allow-reduced-precision", match,
       "'match'"},
      {o.noFuse, "--no-fuse", match, "'match'"},
      {o.noFuseEpilogue, "--no-fuse-epilogue", gen && fromFile,
       "'gen FILE.mlir'"},
      {o.emitIr, "--emit-ir", gen, "'gen'"},
      {o.allowSkipped, "--allow-skipped", false, "'isa verify'"}};
  for (auto [set, name, applies, where] : flags)
    if (set && !applies)
      return usageError(Twine(name) + " applies to " + where + " only");
  for (const auto &[key, value] : o.values) {
    if (match)
      return usageError("--" + key + " applies to 'gen', 'run' and 'tune'");
    if (gen && fromFile && key != "o" && key != "isa" && key != "schedule")
      return usageError("--" + key +
                        " applies to 'gen|run|tune gemm|conv2d': a file "
                        "states its own shapes, types and elementwise "
                        "consumers");
    if (gen && key == "at")
      return usageError("--at applies to 'run' and 'tune' only");
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  Options o;
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) {
    StringRef a = argv[i];
    if (a == "-h" || a == "--help") {
      llvm::outs() << kUsage;
      return 0;
    }
    if (a == "--version") {
      llvm::outs() << "tisa " << TISA_VERSION << " (LLVM/MLIR "
                   << LLVM_VERSION_STRING << ")\n";
      return 0;
    }
    if (a == "--all" || a == "--strict-fp" || a == "--no-fuse" ||
        a == "--emit-ir" || a == "--allow-skipped" ||
        a == "--allow-reduced-precision" || a == "--no-fuse-epilogue") {
      (a == "--all"                         ? o.all
       : a == "--strict-fp"                 ? o.strictFp
       : a == "--allow-reduced-precision"   ? o.allowReducedPrecision
       : a == "--no-fuse"       ? o.noFuse
       : a == "--no-fuse-epilogue" ? o.noFuseEpilogue
       : a == "--allow-skipped" ? o.allowSkipped
                                : o.emitIr) = true;
      continue;
    }
    // --opt=value is the same as --opt value.
    std::string inlineValue;
    bool hasInline = false;
    if (a.starts_with("--") && a.contains('=')) {
      inlineValue = a.split('=').second.str();
      a = a.split('=').first;
      hasInline = true;
    }
    if (a == "--isa-dir" || a == "--seed" || a == "--skip-exit-code" ||
        a == "--target" || a == "--features" || a == "--target-dir") {
      if (!hasInline && i + 1 >= argc)
        return usageError("option '" + a + "' needs a value");
      StringRef v = hasInline ? StringRef(inlineValue) : StringRef(argv[++i]);
      if (a == "--isa-dir") {
        o.isaDirs.push_back(v.str());
      } else if (a == "--target") {
        o.target = v.str();
      } else if (a == "--features") {
        o.features = v.str();
      } else if (a == "--target-dir") {
        if (!llvm::sys::fs::is_directory(v))
          return usageError("--target-dir '" + v +
                            "' is not a directory of target files");
        o.targetDir = v.str();
      } else if (a == "--skip-exit-code") {
        if (v.getAsInteger(0, o.skipExitCode) || o.skipExitCode <= 0 ||
            o.skipExitCode > 255)
          return usageError(
              "--skip-exit-code expects an integer in 1..255, got '" + v + "'");
      } else if (v.getAsInteger(0, o.seed)) {
        return usageError("--seed expects an integer, got '" + v + "'");
      }
      continue;
    }
    static const char *kernelOptions[] = {
        "m", "n", "k", "h", "w", "c", "r", "s", "stride", "pad", "types",
        "isa", "repeat", "name", "schedule", "threads", "time-limit",
        "epilogue", "at", "sve-bits"};
    bool kernelOption =
        a == "-o" || (a.starts_with("--") &&
                      llvm::is_contained(kernelOptions, a.drop_front(2)));
    if (kernelOption) {
      if (!hasInline && i + 1 >= argc)
        return usageError("option '" + a + "' needs a value");
      o.values[a.ltrim('-').str()] =
          hasInline ? inlineValue : std::string(argv[++i]);
      continue;
    }
    if (hasInline)
      return usageError("option '" + a + "' takes no value");
    if (a.starts_with("-") && a.size() > 1)
      return usageError("unknown option '" + a + "'");
    words.push_back(a.str());
  }
  if (words.empty()) {
    llvm::errs() << kUsage;
    return 2;
  }
  bool fromFile = words.size() > 1 && StringRef(words[1]).ends_with(".mlir");
  if (words[0] == "match" || words[0] == "gen" || words[0] == "run" ||
      words[0] == "tune")
    if (int code = checkApplies(o, words[0], fromFile))
      return code;
  if (words[0] == "match") {
    o.positional.assign(words.begin() + 1, words.end());
    return tisa::driver::match(o);
  }
  if (words[0] == "gen" || words[0] == "run" || words[0] == "tune") {
    o.positional.assign(words.begin() + 1, words.end());
    return words[0] == "gen"   ? tisa::driver::gen(o)
           : words[0] == "run" ? tisa::driver::run(o)
                               : tisa::driver::tune(o);
  }
  if (words[0] == "target") {
    if (words.size() < 2)
      return usageError("'target' needs a subcommand: list or show");
    o.positional.assign(words.begin() + 2, words.end());
    if (words[1] == "list")
      return targetList(o);
    if (words[1] == "show")
      return targetShow(o);
    return usageError("unknown subcommand 'target " + words[1] + "'");
  }
  if (words[0] != "isa")
    return usageError("unknown command '" + words[0] + "'");
  if (words.size() < 2)
    return usageError("'isa' needs a subcommand: list, show or verify");
  o.positional.assign(words.begin() + 2, words.end());
  if (words[1] == "list") {
    if (!o.positional.empty())
      return usageError("'isa list' takes no arguments");
    return isaList(o);
  }
  if (words[1] == "show")
    return isaShow(o);
  if (words[1] == "verify")
    return isaVerify(o);
  return usageError("unknown subcommand 'isa " + words[1] + "'");
}
