//===- PtxasChecker.cpp - check PTX text with NVIDIA ptxas ----------------===//

#include "tisa/Targets/PtxasChecker.h"

#include "tisa/Config.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace tisa {
namespace nvptx {

namespace {

/// A ptxas run on a small module takes well under a second; this only stops a
/// hung process from hanging the test suite.
constexpr unsigned kPtxasTimeoutSeconds = 120;

/// Resolves a bare program name through PATH; paths are taken as they are.
std::string resolve(StringRef path) {
  if (path.empty() || sys::path::has_parent_path(path))
    return path.str();
  if (ErrorOr<std::string> found = sys::findProgramByName(path))
    return *found;
  return path.str();
}

/// ptxas architectures look like sm_80, sm_90a, compute_90; refuse anything
/// that could be read as another option.
bool isPlausibleArch(StringRef arch) {
  if (!arch.starts_with("sm_") && !arch.starts_with("compute_"))
    return false;
  return llvm::all_of(arch, [](char ch) { return isAlnum(ch) || ch == '_'; });
}

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

} // namespace

std::string ptxasPath() {
  if (std::optional<std::string> env = sys::Process::GetEnv("TISA_PTXAS"))
    if (!env->empty())
      return resolve(*env);
  return resolve(TISA_PTXAS);
}

std::string ptxasUnavailableReason() {
  std::string path = ptxasPath();
  if (path.empty())
    return "ptxas not found";
  if (sys::fs::is_directory(path) || !sys::fs::can_execute(path))
    return "ptxas '" + path + "' is not an executable file";
  return "";
}

namespace {
/// ptxas on `ptx` for `arch` with `extra` options; its output in `log`,
/// the cubin in `cubin` when given.
Error runPtxasWith(StringRef ptx, StringRef arch, ArrayRef<StringRef> extra,
                   std::string &log, std::string *cubin = nullptr);
} // namespace

Expected<std::string> assembleCubin(StringRef ptx, StringRef arch,
                                    std::vector<KernelResources> *resources) {
  std::string log, cubin;
  SmallVector<StringRef, 1> verbose;
  if (resources)
    verbose.push_back("-v");
  if (Error e = runPtxasWith(ptx, arch, verbose, log, &cubin))
    return std::move(e);
  if (resources)
    *resources = parsePtxasVerbose(log);
  return cubin;
}

Error runPtxas(StringRef ptx, StringRef arch) {
  std::string log;
  return runPtxasWith(ptx, arch, {}, log);
}

Expected<std::vector<KernelResources>> ptxasResources(StringRef ptx,
                                                      StringRef arch) {
  std::string log;
  if (Error e = runPtxasWith(ptx, arch, {"-v"}, log))
    return std::move(e);
  return parsePtxasVerbose(log);
}

std::vector<KernelResources> parsePtxasVerbose(StringRef log) {
  std::vector<KernelResources> out;
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  auto numberBefore = [](StringRef line, StringRef what) -> int64_t {
    size_t at = line.find(what);
    if (at == StringRef::npos)
      return 0;
    StringRef head = line.take_front(at).rtrim();
    StringRef digits = head.substr(head.find_last_not_of("0123456789") + 1);
    int64_t v = 0;
    return digits.getAsInteger(10, v) ? 0 : v;
  };
  for (StringRef line : lines) {
    if (line.contains("Compiling entry function '")) {
      KernelResources r;
      r.name = line.split("function '").second.split('\'').first.str();
      out.push_back(r);
      continue;
    }
    if (out.empty())
      continue;
    KernelResources &r = out.back();
    if (line.contains("bytes stack frame")) {
      r.stackBytes = numberBefore(line, " bytes stack frame");
      r.spillStoreBytes = numberBefore(line, " bytes spill stores");
      r.spillLoadBytes = numberBefore(line, " bytes spill loads");
    } else if (line.contains("registers")) {
      r.registers = numberBefore(line, " registers");
      r.sharedBytes = numberBefore(line, " bytes smem");
    }
  }
  return out;
}

namespace {
Error runPtxasWith(StringRef ptx, StringRef arch, ArrayRef<StringRef> extra,
                   std::string &log, std::string *cubin) {
  std::string reason = ptxasUnavailableReason();
  if (!reason.empty())
    return makeError(reason);
  if (!isPlausibleArch(arch))
    return makeError("invalid ptxas architecture '" + arch +
                     "' (expected e.g. sm_80)");

  SmallString<128> ptxFile;
  int ptxFd;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("tisa-ptxas", "ptx", ptxFd, ptxFile))
    return makeError("cannot create a temporary .ptx file: " + ec.message());
  FileRemover removePtx(ptxFile);
  {
    raw_fd_ostream os(ptxFd, /*shouldClose=*/true);
    os << ptx;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      return makeError("cannot write '" + ptxFile + "': " + message);
    }
  }

  SmallString<128> cubinFile, logFile;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("tisa-ptxas", "cubin", cubinFile))
    return makeError("cannot create a temporary .cubin file: " + ec.message());
  FileRemover removeCubin(cubinFile);
  if (std::error_code ec =
          sys::fs::createTemporaryFile("tisa-ptxas", "log", logFile))
    return makeError("cannot create a temporary log file: " + ec.message());
  FileRemover removeLog(logFile);

  std::string program = ptxasPath();
  std::string archFlag = ("-arch=" + arch).str();
  SmallVector<StringRef, 8> args = {program, archFlag};
  args.append(extra.begin(), extra.end());
  args.append({"-o", cubinFile, ptxFile});
  // stdin from /dev/null; ptxas prints its diagnostics on stderr, stdout goes
  // to the same file in case a version prints there.
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(logFile),
                                          StringRef(logFile)};
  std::string execError;
  bool execFailed = false;
  int rc = sys::ExecuteAndWait(program, args, /*Env=*/std::nullopt, redirects,
                               kPtxasTimeoutSeconds, /*MemoryLimit=*/0,
                               &execError, &execFailed);
  if (execFailed)
    return makeError("cannot run '" + program + "': " + execError);

  if (ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
          MemoryBuffer::getFile(logFile))
    log = (*buffer)->getBuffer().rtrim().str();

  if (rc == 0) {
    if (cubin) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> out =
          MemoryBuffer::getFile(cubinFile, /*IsText=*/false,
                                /*RequiresNullTerminator=*/false);
      if (!out)
        return makeError("cannot read the cubin ptxas wrote: " +
                         out.getError().message());
      *cubin = (*out)->getBuffer().str();
      if (cubin->empty())
        return makeError("ptxas " + archFlag +
                         " exited 0 but wrote no cubin" +
                         (log.empty() ? "" : ":\n" + log));
    }
    return Error::success();
  }
  if (rc < 0)
    return makeError("ptxas " + archFlag + " did not finish: " + execError +
                     (log.empty() ? "" : "\n" + log));
  return makeError("ptxas " + archFlag + " rejected the PTX (exit code " +
                   Twine(rc) + "):\n" + log);
}
} // namespace

} // namespace nvptx
} // namespace tisa
