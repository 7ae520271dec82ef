//===- CApi.cpp - the JIT as a C API (include/tisa/tisa.h) ----------------===//

#include "tisa/tisa.h"
#include "tisa/Kernels/Jit.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <cstring>

struct tisa_kernel {
  std::unique_ptr<tisa::CompiledKernel> kernel;
};

namespace {

char *copyMessage(const std::string &text) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  if (out)
    std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

/// The fields of `c` its op reads, by their C names, each positive (or 0 for
/// pad) or TISA_RUN_TIME where run time may give it; the first that is not,
/// as an error (tisa's own checks speak of command-line options).
llvm::Error checkFields(const tisa_kernel_spec &c) {
  struct Field {
    const char *name;
    int64_t value;
    bool runTime; ///< may be TISA_RUN_TIME
    int64_t least = 1;
  };
  std::vector<Field> fields;
  if (c.op == TISA_GEMM)
    fields = {{"m", c.m, true}, {"n", c.n, true}, {"k", c.k, true}};
  else
    fields = {{"batch", c.batch, true}, {"h", c.h, true},
              {"w", c.w, true},         {"c", c.c, false},
              {"filters", c.filters, false}, {"r", c.r, false},
              {"s", c.s, false},        {"stride", c.stride, false},
              {"pad", c.pad, false, 0}};
  for (const Field &f : fields) {
    if (f.value >= f.least || (f.runTime && f.value == TISA_RUN_TIME))
      continue;
    std::string allowed =
        f.least ? "a positive integer" : "a non-negative integer";
    return llvm::createStringError(
        llvm::formatv("tisa_compile: spec.{0} is {1}; it must be {2}{3}",
                      f.name, f.value, allowed,
                      f.runTime ? " or TISA_RUN_TIME"
                                : " (it cannot be given at run time)")
            .str());
  }
  if (!c.types)
    return llvm::createStringError(
        "tisa_compile: spec.types is NULL; give \"A,B,C\", e.g. \"u8,s8,s32\"");
  return llvm::Error::success();
}

/// The C spec as tisa's, or an error naming what is wrong.
llvm::Expected<tisa::KernelSpec> specFrom(const tisa_kernel_spec &c) {
  if (c.op != TISA_GEMM && c.op != TISA_CONV2D)
    return llvm::createStringError("tisa_compile: op " +
                                   std::to_string(int(c.op)) +
                                   " is neither TISA_GEMM nor TISA_CONV2D");
  if (auto e = checkFields(c))
    return std::move(e);
  tisa::KernelSpec s;
  if (c.op == TISA_GEMM) {
    s = tisa::KernelSpec::makeGemm(c.m, c.n, c.k);
  } else {
    s = tisa::KernelSpec::makeConv2d(c.batch, c.h, c.w, c.c, c.filters, c.r,
                                     c.stride, c.pad);
    s.s = c.s;
  }
  if (s.rows() == TISA_RUN_TIME) {
    s.runTimeRows = true;
    s = s.withRows(0);
  }
  if (c.op == TISA_GEMM) {
    s.runTimeN = c.n == TISA_RUN_TIME;
    s.runTimeK = c.k == TISA_RUN_TIME;
  } else {
    s.runTimeH = c.h == TISA_RUN_TIME;
    s.runTimeW = c.w == TISA_RUN_TIME;
  }
  s = s.withCall(s.rows(), 0, 0);
  auto types = tisa::KernelTypes::parse(c.types);
  if (!types) {
    std::string text = llvm::toString(types.takeError());
    llvm::StringRef why(text);
    why.consume_front("--types ");
    return llvm::createStringError("tisa_compile: spec.types " + why.str());
  }
  s.types = *types;
  if (auto e = s.validate(tisa::KernelSpec::Names::CFields))
    return llvm::createStringError("tisa_compile: " +
                                   llvm::toString(std::move(e)));
  return s;
}

/// Why this machine cannot run code for `name` in process, or success: the
/// entries tisa_compile hands out are called right here (another
/// architecture's code crashed the caller, AMX code raised SIGILL).
llvm::Error runsHere(const std::string &name) {
  auto target = tisa::loadTarget(name);
  if (!target)
    return target.takeError();
  auto host = tisa::loadTarget("host");
  if (!host)
    return host.takeError();
  std::string why;
  if (target->arch != host->arch)
    why = "it is an " + tisa::stringifyTargetArch(target->arch).str() +
          " target and this machine is " +
          tisa::stringifyTargetArch(host->arch).str();
  else if (auto lacking = tisa::featuresLacking(*target, *host);
           !lacking.empty())
    why = "this machine lacks " + llvm::join(lacking, ", ");
  if (why.empty())
    return llvm::Error::success();
  return llvm::createStringError(
      "tisa_compile: cannot run code for " + target->name + " here: " + why +
      " (`tisa gen --target " + target->name + "` writes a library for it)");
}

} // namespace

extern "C" {

tisa_kernel *tisa_compile(const tisa_kernel_spec *spec, const char *target,
                          char **error) {
  auto fail = [&](llvm::Error e) -> tisa_kernel * {
    std::string text = llvm::toString(std::move(e));
    // Every message says whose it is, the library's own checks' and the
    // compiler's alike.
    if (!llvm::StringRef(text).starts_with("tisa_compile: "))
      text = "tisa_compile: " + text;
    if (error)
      *error = copyMessage(text);
    return nullptr;
  };
  if (!spec)
    return fail(llvm::createStringError("tisa_compile: spec is NULL"));
  auto s = specFrom(*spec);
  if (!s)
    return fail(s.takeError());
  tisa::JitOptions options;
  if (target)
    options.target = target;
  if (auto e = runsHere(options.target))
    return fail(std::move(e));
  auto compiled = tisa::compileKernel(*s, options);
  if (!compiled)
    return fail(compiled.takeError());
  return new tisa_kernel{std::move(*compiled)};
}

void *tisa_kernel_entry(const tisa_kernel *kernel, const char *suffix) {
  if (!kernel || !suffix)
    return nullptr;
  return kernel->kernel->address(suffix);
}

const char *tisa_kernel_name(const tisa_kernel *kernel) {
  return kernel ? kernel->kernel->name().c_str() : "";
}

const char *tisa_kernel_instruction(const tisa_kernel *kernel) {
  return kernel ? kernel->kernel->instruction().c_str() : "";
}

const char *tisa_kernel_header(const tisa_kernel *kernel) {
  return kernel ? kernel->kernel->header().c_str() : "";
}

int64_t tisa_kernel_packed_bytes(const tisa_kernel *kernel) {
  return kernel ? kernel->kernel->packedBytes() : 0;
}

int64_t tisa_kernel_tiles(const tisa_kernel *kernel) {
  return kernel ? kernel->kernel->tiles() : 0;
}

void tisa_kernel_free(tisa_kernel *kernel) { delete kernel; }

void tisa_free(char *message) { std::free(message); }

char *tisa_isa_search_path(void) {
  return copyMessage(llvm::join(tisa::isaSearchPath({}), ":"));
}

char *tisa_target_dir(void) { return copyMessage(tisa::defaultTargetDir()); }

} // extern "C"
