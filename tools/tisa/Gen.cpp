//===- Gen.cpp - tisa gen (and what tisa run shares with it) --------------===//
//
//   tisa gen gemm --m M --n N --k K --types u8,s8,s32 [--isa NAME|auto]
//            [--target T] -o DIR
//   tisa gen conv2d --n N --h H --w W --c C --k K --r R --s S [--stride U]
//            [--pad P] --types ... -o DIR
//   tisa gen FILE.mlir [--target T] -o DIR
//
// tisa run is in Run.cpp.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "GenCommon.h"
#include "tisa/Kernels/Jit.h"
#include "tisa/Kernels/Reference.h"
#include "tisa/Kernels/Tune.h"
#include "tisa/Semantics/Parse.h"
#include "tisa/Targets/Codegen.h"
#include "tisa/Targets/WarpMma.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <chrono>

using namespace mlir;

namespace tisa::driver {

int fail(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "tisa") << msg << "\n";
  return 1;
}

/// The kernel the options describe, or a usage error (exit code in `code`).
std::optional<KernelSpec> specFrom(const Options &o, llvm::StringRef op,
                                   int &code) {
  KernelSpec s;
  std::vector<std::string> allowed;
  if (op == "gemm") {
    s.op = KernelSpec::Op::Gemm;
    allowed = {"m", "n", "k"};
  } else if (op == "conv2d") {
    s.op = KernelSpec::Op::Conv2d;
    allowed = {"n", "h", "w", "c", "k", "r", "s", "stride", "pad"};
  } else {
    code = usageError("unknown kernel '" + op +
                      "': gemm, conv2d, or a .mlir file");
    return std::nullopt;
  }
  for (const auto &[key, value] : o.values) {
    if (llvm::is_contained(allowed, key) ||
        llvm::is_contained({"types", "isa", "o", "repeat", "name", "schedule",
                            "threads", "time-limit", "epilogue", "at",
                            "sve-bits"},
                           key))
      continue;
    code = usageError("option --" + key + " does not apply to " + op);
    return std::nullopt;
  }
  auto number = [&](llvm::StringRef key, int64_t &out, bool required) {
    auto it = o.values.find(key.str());
    if (it == o.values.end()) {
      if (required)
        code = usageError(op + " needs --" + key);
      return !required;
    }
    // GEMM's m, n and k and conv2d's batch, h and w may be left to run
    // time.
    bool gemm = s.op == KernelSpec::Op::Gemm;
    bool *runTime = key == s.rowsName() ? &s.runTimeRows
                    : !gemm             ? (key == "h"   ? &s.runTimeH
                                           : key == "w" ? &s.runTimeW
                                                        : nullptr)
                    : key == "n"        ? &s.runTimeN
                                        : &s.runTimeK;
    if (it->second == "?" && runTime) {
      *runTime = true;
      out = 0;
      return true;
    }
    if (it->second == "?") {
      code = usageError("--" + key +
                        " ?: only --n (the batch), --h and --w may be given "
                        "at run time (the packed filter depends on the "
                        "others)");
      return false;
    }
    if (llvm::StringRef(it->second).getAsInteger(10, out)) {
      code = usageError("--" + key + " expects an integer, got '" +
                        it->second + "'");
      return false;
    }
    return true;
  };
  bool ok = true;
  if (s.op == KernelSpec::Op::Gemm) {
    ok = number("m", s.m, true) && number("n", s.n, true) &&
         number("k", s.k, true);
  } else {
    ok = number("n", s.batch, false) && number("h", s.h, true) &&
         number("w", s.w, true) && number("c", s.c, true) &&
         number("k", s.filters, true) && number("r", s.r, true) &&
         number("s", s.s, true) && number("stride", s.stride, false) &&
         number("pad", s.pad, false);
  }
  if (!ok)
    return std::nullopt;
  auto types = o.values.find("types");
  if (types == o.values.end()) {
    code = usageError(op + " needs --types A,B,C (integers into an integer "
                           "at least as wide, or floats into f32 or f64: "
                           "e.g. u8,s8,s32, s16,s16,s64, bf16,bf16,f32, "
                           "f32,f32,f32; tf32,tf32,f32 for Tensor Cores)");
    return std::nullopt;
  }
  auto parsed = KernelTypes::parse(types->second);
  if (!parsed) {
    code = usageError(llvm::toString(parsed.takeError()));
    return std::nullopt;
  }
  s.types = *parsed;
  if (auto e = o.values.find("epilogue"); e != o.values.end()) {
    auto epilogue = EpilogueSpec::parse(e->second);
    if (!epilogue) {
      code = usageError(llvm::toString(epilogue.takeError()));
      return std::nullopt;
    }
    s.epilogue = *epilogue;
  }
  if (auto name = o.values.find("name"); name != o.values.end())
    s.name = name->second;
  if (auto e = s.validate()) {
    code = usageError(llvm::toString(std::move(e)));
    return std::nullopt;
  }
  return s;
}


std::string value(const Options &o, llvm::StringRef key,
                  llvm::StringRef otherwise) {
  auto it = o.values.find(key.str());
  return it == o.values.end() ? otherwise.str() : it->second;
}

JitOptions jitOptionsFrom(const Options &o) {
  JitOptions options;
  options.isa = value(o, "isa", "auto");
  options.isaDirs = o.isaDirs;
  options.target = o.target;
  options.targetDir = o.targetDir;
  options.features = o.features;
  options.schedule = value(o, "schedule", "");
  return options;
}


/// The concrete target gen and run compile for (not "any").
std::optional<Target> concreteTarget(const Options &o) {
  if (o.target == "any") {
    usageError("--target any is for 'match'; code needs a concrete target");
    return std::nullopt;
  }
  FailureOr<std::optional<Target>> target = resolveTarget(o);
  if (failed(target))
    return std::nullopt;
  return **target;
}


llvm::Error writeFile(llvm::StringRef path, llvm::StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + path + ": " +
                                   ec.message());
  os << data;
  return llvm::Error::success();
}


/// `spec` generated for `target` from `descriptions`, with the schedule
/// given or one `tisa tune` stored; warnings printed. `seconds`: how long
/// generation took.
llvm::Expected<GeneratedKernel>
generateWith(MLIRContext &ctx, ArrayRef<const Description *> descriptions,
             GenerateOptions &options, const Options &o,
             const KernelSpec &spec, const Target &target, bool &tuned,
             double &seconds) {
  tuned = false;
  if (options.schedule.empty()) {
    // A schedule `tisa tune` stored for this kernel and CPU.
    JitOptions jit = jitOptionsFrom(o);
    if (auto key = kernelKey(spec, jit)) {
      options.schedule = lookupTunedSchedule(jit.cacheDir, spec, *key);
      tuned = !options.schedule.empty();
      if (tuned)
        options.scheduleSource = tunedSchedulePath(jit.cacheDir, spec, *key);
    } else {
      llvm::consumeError(key.takeError());
    }
  }
  auto start = std::chrono::steady_clock::now();
  auto kernel = generateKernel(ctx, spec, descriptions, target, options);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count();
  if (kernel && tuned)
    tuned = kernel->schedule == options.schedule; // else ignored, warned
  if (kernel)
    for (const std::string &w : kernel->warnings)
      llvm::WithColor::warning(llvm::errs(), "tisa") << w << "\n";
  return kernel;
}

llvm::Expected<GeneratedKernel> generateFor(const Options &o,
                                            const KernelSpec &spec,
                                            const Target &target, bool &tuned,
                                            double &seconds) {
  return withDescriptions<GeneratedKernel>(
      o, [&](MLIRContext &ctx, ArrayRef<const Description *> descriptions,
             GenerateOptions &options) {
        return generateWith(ctx, descriptions, options, o, spec, target,
                            tuned, seconds);
      });
}

int gen(const Options &o) {
  if (o.positional.size() != 1)
    return usageError("'gen' needs one kernel: gemm, conv2d or FILE.mlir");
  std::string dir = value(o, "o", "");
  if (dir.empty())
    return usageError("'gen' needs -o DIR");
  if (auto ec = llvm::sys::fs::create_directories(dir))
    return fail("cannot create " + dir + ": " + ec.message());
  for (const char *runOnly : {"repeat", "threads", "time-limit"})
    if (o.values.count(runOnly))
      return usageError("--" + std::string(runOnly) +
                        " applies to 'run' and 'tune' only");
  if (o.values.count("sve-bits"))
    return usageError("--sve-bits applies to 'run' only (the library itself "
                      "runs at any vector length)");
  llvm::StringRef what = o.positional[0];
  if (what.ends_with(".mlir"))
    return genFromFile(o, what, dir);
  int code = 0;
  std::optional<KernelSpec> spec = specFrom(o, what, code);
  if (!spec)
    return code;
  std::optional<Target> target = concreteTarget(o);
  if (!target)
    return 1;
  if (target->arch == TargetArch::NVPTX)
    return genGpu(o, *spec, *target, dir);
  bool tuned = false;
  double seconds = 0;
  auto kernel = generateFor(o, *spec, *target, tuned, seconds);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  llvm::SmallString<256> so(dir), h(dir);
  llvm::sys::path::append(so, "lib" + kernel->name + ".so");
  llvm::sys::path::append(h, kernel->name + ".h");
  if (auto e = linkSharedLibrary(*kernel->object, so))
    return fail(llvm::toString(std::move(e)));
  if (auto e = writeFile(h, kernel->header))
    return fail(llvm::toString(std::move(e)));
  llvm::SmallString<256> ir(dir);
  llvm::sys::path::append(ir, kernel->name + ".mlir");
  if (o.emitIr)
    if (auto e = writeFile(ir, kernel->tensorizedIR))
      return fail(llvm::toString(std::move(e)));
  auto &os = llvm::outs();
  os << spec->describe() << " for " << target->name << " (" << target->cpu
     << "), generated in " << llvm::formatv("{0:f2}", seconds) << " s\n"
     << "  instruction: "
     << (kernel->instruction.empty() ? "none (plain vector code)"
                                     : kernel->instruction)
     << "\n  plan: " << kernel->plan << "\n";
  if (!kernel->schedule.empty())
    os << "  schedule: " << kernel->schedule << (tuned ? " (tuned)" : "")
       << "\n";
  os << "  " << so << "\n  " << h << "\n";
  if (o.emitIr)
    os << "  " << ir << "\n";
  for (const std::string &s : kernel->symbols)
    os << "  " << s << "\n";
  return 0;
}


} // namespace tisa::driver
