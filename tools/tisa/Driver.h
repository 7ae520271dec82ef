//===- Driver.h - what the tisa driver's commands share ---------*- C++ -*-===//
#ifndef TISA_TOOLS_TISA_DRIVER_H
#define TISA_TOOLS_TISA_DRIVER_H

#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Check.h"
#include "tisa/Targets/Target.h"
#include <optional>
#include "llvm/ADT/Twine.h"
#include <map>
#include <string>
#include <vector>

namespace tisa::driver {

struct Options {
  std::vector<std::string> isaDirs;
  std::vector<std::string> positional;
  uint64_t seed = tisa::VerifyOptions().seed;
  /// isa verify: the exit status when nothing failed but a check was
  /// skipped (0: the default, 3), or accept skipped checks.
  int skipExitCode = 0;
  bool allowSkipped = false;
  /// match: target name ("host" by default, "any" for no filter), feature
  /// list, every candidate and rejection, strict floating point, no fusion.
  std::string target = "host";
  std::string features;
  std::string targetDir;
  bool all = false;
  bool strictFp = false;
  bool allowReducedPrecision = false;
  bool noFuse = false;
  bool emitIr = false; ///< 'gen': also write NAME.mlir
  /// 'gen FILE.mlir': elementwise consumers run as loops of their own.
  bool noFuseEpilogue = false;
  /// gen/run: kernel options (--m 512, --types u8,s8,s32, -o DIR, ...) by
  /// name without dashes.
  std::map<std::string, std::string> values;
};

/// Reports a usage error on stderr; returns the exit code 2.
int usageError(const llvm::Twine &msg);
/// Loads every description on the search path; reports bad files and returns
/// false if any.
bool loadAll(tisa::DescriptionSet &set, const Options &o);

/// The target the options name (--target, --features, --target-dir); empty
/// for --target any. Errors are reported here.
mlir::FailureOr<std::optional<tisa::Target>> resolveTarget(const Options &o);
/// tisa match FILE...
int match(const Options &o);
/// tisa target list | show NAME
int targetList(const Options &o);
int targetShow(const Options &o);
/// tisa gen gemm|conv2d|FILE.mlir ... -o DIR
int gen(const Options &o);
/// tisa run gemm|conv2d ...
int run(const Options &o);
/// tisa tune gemm|conv2d ...
int tune(const Options &o);

} // namespace tisa::driver

#endif // TISA_TOOLS_TISA_DRIVER_H
