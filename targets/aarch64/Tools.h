//===- Tools.h - the host tools behind the aarch64 runner -------*- C++ -*-===//
//
// Internal to targets/aarch64: finding the cross clang, qemu-aarch64 and
// LLVM's tools, temporary directories, files, and running a tool with its
// output captured for the error message.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_AARCH64_TOOLS_H
#define TISA_TARGETS_AARCH64_TOOLS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tisa {
namespace aarch64 {

/// Compiling or linking a probe; running one is bounded by RunOptions.
constexpr unsigned kToolTimeoutSeconds = 120;

llvm::Error makeError(const llvm::Twine &message);

/// $envName when set and non-empty, else the configured path; resolved to an
/// executable, or std::nullopt.
std::optional<std::string> findTool(llvm::StringRef envName,
                                    llvm::StringRef configured);
std::optional<std::string> findClang();
std::optional<std::string> findQemu();

/// A temporary directory removed with everything in it on scope exit.
class TempDir {
public:
  static llvm::Expected<TempDir> create(llvm::StringRef prefix) {
    TempDir dir;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, dir.path))
      return makeError("cannot create a temporary directory: " + ec.message());
    return std::move(dir);
  }
  TempDir(TempDir &&other) : path(std::move(other.path)) { other.path.clear(); }
  TempDir &operator=(TempDir &&) = delete;
  /// TISA_KEEP_AARCH64_DIRS=1 keeps the directories (the executable, its
  /// input and output) for debugging a crash; stderr says where.
  ~TempDir() {
    if (path.empty())
      return;
    if (llvm::sys::Process::GetEnv("TISA_KEEP_AARCH64_DIRS").value_or("") == "1")
      llvm::errs() << "tisa: kept " << path << "\n";
    else
      llvm::sys::fs::remove_directories(path);
  }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<256> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }

private:
  TempDir() = default;
  llvm::SmallString<256> path;
};

llvm::Error writeFile(llvm::StringRef path, llvm::ArrayRef<uint8_t> bytes);
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(llvm::StringRef path);

/// Runs `program args...` with stdout and stderr captured together in
/// `logPath`; the error names `what` and carries the tool's output.
llvm::Error runTool(const llvm::Twine &what, llvm::StringRef program,
                    llvm::ArrayRef<llvm::StringRef> args,
                    llvm::StringRef logPath, unsigned timeoutSeconds);

} // namespace aarch64
} // namespace tisa

#endif // TISA_TARGETS_AARCH64_TOOLS_H
