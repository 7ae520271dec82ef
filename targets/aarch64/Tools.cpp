//===- Tools.cpp - the host tools behind the aarch64 runner ---------------===//

#include "Tools.h"

#include "tisa/Config.h"

#include "llvm/Support/Program.h"

using namespace llvm;

namespace tisa {
namespace aarch64 {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// $envName when set and non-empty, else the configured path; resolved to an
/// executable, or std::nullopt.
std::optional<std::string> findTool(StringRef envName, StringRef configured) {
  std::string name = configured.str();
  if (std::optional<std::string> fromEnv = sys::Process::GetEnv(envName))
    if (!fromEnv->empty())
      name = *fromEnv;
  if (name.empty())
    return std::nullopt;
  if (StringRef(name).contains('/'))
    return sys::fs::can_execute(name) ? std::optional<std::string>(name)
                                      : std::nullopt;
  ErrorOr<std::string> found = sys::findProgramByName(name);
  if (!found)
    return std::nullopt;
  return *found;
}

std::optional<std::string> findClang() {
  return findTool("TISA_CROSS_CLANG", TISA_CROSS_CLANG);
}
std::optional<std::string> findQemu() {
  return findTool("TISA_QEMU_AARCH64", TISA_QEMU_AARCH64);
}

Error writeFile(StringRef path, ArrayRef<uint8_t> bytes) {
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError("cannot create '" + path + "': " + ec.message());
  os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  os.close();
  if (os.has_error())
    return makeError("cannot write '" + path + "': " + os.error().message());
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  return std::move(*buffer);
}

/// Runs `program args...` with stdout and stderr captured together in
/// `logPath`; the error names `what` and carries the tool's output.
Error runTool(const Twine &what, StringRef program, ArrayRef<StringRef> args,
              StringRef logPath, unsigned timeoutSeconds) {
  SmallVector<StringRef, 16> argv;
  argv.push_back(program);
  argv.append(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {StringRef(""), logPath, logPath};
  std::string errMsg;
  bool executionFailed = false;
  int rc = sys::ExecuteAndWait(program, argv, /*Env=*/std::nullopt, redirects,
                               timeoutSeconds, /*MemoryLimit=*/0, &errMsg,
                               &executionFailed);
  if (rc == 0 && !executionFailed)
    return Error::success();
  std::string output;
  if (Expected<std::unique_ptr<MemoryBuffer>> log = readFile(logPath))
    output = (*log)->getBuffer().rtrim().str();
  else
    consumeError(log.takeError());
  std::string status;
  if (executionFailed)
    status = "could not be started: " + errMsg;
  else if (StringRef(errMsg).contains("timed out"))
    status = "timed out after " + std::to_string(timeoutSeconds) + " s";
  else if (rc < 0)
    status =
        "died: " + (errMsg.empty() ? std::string("abnormal exit") : errMsg);
  else
    status = "exited with code " + std::to_string(rc);
  return makeError(what + " failed: " + sys::path::filename(program) + " " +
                   status + (output.empty() ? "" : ":\n" + output));
}

} // namespace aarch64
} // namespace tisa
