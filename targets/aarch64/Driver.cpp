//===- Driver.cpp - what the aarch64 runner asks of the cross clang -------===//
//
// Compiling the harness and adapters, finding the static libc, linking a
// probe: each answer kept on disk (the system's temporary directory) so that
// a test process does not ask again what another one asked, and linking done
// by the linker command the driver gives rather than through the driver (by
// lld's library in this process where it was built in).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "InProcessLinker.h"
#include "Tools.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/xxhash.h"

#include <mutex>

using namespace llvm;

namespace tisa {
namespace aarch64 {
namespace {

/// make() once per process for `clang` (again for another one).
template <typename Make>
auto oncePerClang(StringRef clang, Make make) -> decltype(make()) {
  static std::mutex mutex;
  static std::string cachedClang;
  static std::optional<decltype(make())> cached;
  std::lock_guard<std::mutex> lock(mutex);
  if (!cached || cachedClang != clang) {
    cached = make();
    cachedClang = clang.str();
  }
  return *cached;
}

/// Where what `clang` makes of `key` is kept between processes (every test
/// process used to compile the harness and its adapter again, and to ask the
/// driver the same questions): the system's temporary directory, under a
/// name that hashes the compiler (path, size, time) and the key, so another
/// key or compiler is another file.
std::string clangCachePath(StringRef clang, StringRef key,
                           StringRef extension) {
  std::string full = clang.str();
  sys::fs::file_status status;
  if (!sys::fs::status(clang, status))
    full += " " + std::to_string(status.getSize()) + " " +
            std::to_string(
                status.getLastModificationTime().time_since_epoch().count());
  full += "\n" + key.str();
  SmallString<256> path;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, path);
  sys::path::append(path, "tisa-aarch64-" +
                              utohexstr(xxh3_64bits(StringRef(full))) +
                              extension);
  return std::string(path);
}

/// Where an object compiled by `clang` with `flags` from `source` is kept.
std::string objectCachePath(StringRef clang, ArrayRef<StringLiteral> flags,
                            StringRef source) {
  std::string key;
  for (StringRef flag : flags)
    key += " " + flag.str();
  return clangCachePath(clang, key + source.str(), ".o");
}

/// Puts `bytes` in the cache file `path`. Another process may write the same
/// file: each renames a whole copy of its own into place. A cache that
/// cannot be written costs only time.
void writeCacheFile(StringRef path, ArrayRef<uint8_t> bytes) {
  std::string partial =
      path.str() + "." + std::to_string(sys::Process::getProcessId());
  if (Error err = writeFile(partial, bytes))
    consumeError(std::move(err));
  else if (sys::fs::rename(partial, path))
    sys::fs::remove(partial);
}

/// What the clang driver prints (stdout and stderr) for `args`, from the
/// disk cache when a process asked already. Only an answer `usable` accepts
/// is kept: one that says a library is missing is asked again next time.
Expected<std::string> driverAnswer(StringRef clang, ArrayRef<StringRef> args,
                                   function_ref<bool(StringRef)> usable) {
  std::string cached = clangCachePath(clang, join(args, "\n"), ".txt");
  if (Expected<std::unique_ptr<MemoryBuffer>> text = readFile(cached)) {
    if (usable((*text)->getBuffer()))
      return (*text)->getBuffer().str();
  } else {
    consumeError(text.takeError());
  }
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-driver");
  if (!dir)
    return dir.takeError();
  std::string log = dir->file("driver.log");
  if (Error err = runTool("asking the aarch64 driver", clang, args, log,
                          kToolTimeoutSeconds))
    return std::move(err);
  Expected<std::unique_ptr<MemoryBuffer>> text = readFile(log);
  if (!text)
    return text.takeError();
  std::string answer = (*text)->getBuffer().str();
  if (usable(answer))
    writeCacheFile(cached, arrayRefFromStringRef(answer));
  return answer;
}

/// Reads an object, or the error.
Expected<std::vector<uint8_t>> readObject(StringRef path) {
  Expected<std::unique_ptr<MemoryBuffer>> bytes = readFile(path);
  if (!bytes)
    return bytes.takeError();
  StringRef contents = (*bytes)->getBuffer();
  return std::vector<uint8_t>(contents.bytes_begin(), contents.bytes_end());
}

} // namespace

/// `source` compiled by `clang` with `flags`, from the disk cache
/// (objectCachePath) when another process compiled it already. `what`
/// names it in an error.
Expected<std::vector<uint8_t>> compiledObject(StringRef clang,
                                              ArrayRef<StringLiteral> flags,
                                              StringRef source,
                                              const Twine &what) {
  std::string cached = objectCachePath(clang, flags, source);
  Expected<std::vector<uint8_t>> object = readObject(cached);
  if (object)
    return object;
  consumeError(object.takeError());
  Expected<TempDir> dir = TempDir::create("tisa-aarch64-compile");
  if (!dir)
    return dir.takeError();
  std::string sourcePath = dir->file("source.c");
  std::string compiled = dir->file("source.o");
  if (Error err = writeFile(sourcePath, arrayRefFromStringRef(source)))
    return std::move(err);
  SmallVector<StringRef, 12> args(flags.begin(), flags.end());
  args.append({sourcePath, "-o", compiled});
  if (Error err = runTool("compiling " + what, clang, args,
                          dir->file("compile.log"), kToolTimeoutSeconds))
    return std::move(err);
  object = readObject(compiled);
  if (!object)
    return object.takeError();
  writeCacheFile(cached, *object);
  return object;
}

namespace {

/// The path in the driver's answer to -print-file-name when it found the
/// file (it prints the bare name otherwise).
bool namesExistingFile(StringRef answer) {
  StringRef path = answer.trim();
  return sys::path::is_absolute(path) && sys::fs::exists(path);
}

/// Stand-ins the driver is asked to link (linkerCommand): fixed paths, so
/// that every process asks the same question.
struct LinkPlaceholders {
  std::string input, output;
};

LinkPlaceholders linkPlaceholders() {
  SmallString<256> dir;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, dir);
  LinkPlaceholders p;
  p.input = (dir + "/tisa-aarch64-link-input.o").str();
  p.output = (dir + "/tisa-aarch64-link-output").str();
  return p;
}

/// The linker's command in the driver's -### answer (its last line), or
/// empty when it is not one that names each placeholder once.
std::vector<std::string> parseLinkerCommand(StringRef answer,
                                            const LinkPlaceholders &p) {
  SmallVector<StringRef> lines;
  answer.trim().split(lines, '\n');
  if (lines.empty())
    return {};
  BumpPtrAllocator allocator;
  StringSaver saver(allocator);
  SmallVector<const char *> argv;
  cl::TokenizeGNUCommandLine(lines.back(), saver, argv);
  std::vector<std::string> command(argv.begin(), argv.end());
  if (command.empty() || !sys::path::filename(command[0]).contains("ld") ||
      llvm::count(command, p.input) != 1 || llvm::count(command, p.output) != 1)
    return {};
  return command;
}

/// The linker command the driver runs for a static aarch64 executable of the
/// placeholder input, asked once per machine (driverAnswer) and once per
/// process: running the linker directly saves starting the driver for every
/// probe. Empty when the driver's answer cannot be read.
std::vector<std::string> linkerCommand(StringRef clang,
                                       const LinkPlaceholders &p) {
  return oncePerClang(clang, [&] {
    // The driver wants its input to exist; an empty file will do for -###.
    if (!sys::fs::exists(p.input))
      if (Error err = writeFile(p.input, {}))
        consumeError(std::move(err));
    StringRef args[] = {kTriple, "-static", "-fuse-ld=lld", p.input,
                        "-o",    p.output,  "-###"};
    auto usable = [&](StringRef answer) {
      return !parseLinkerCommand(answer, p).empty();
    };
    Expected<std::string> answer = driverAnswer(clang, args, usable);
    if (!answer) {
      consumeError(answer.takeError());
      return std::vector<std::string>();
    }
    return parseLinkerCommand(*answer, p);
  });
}

} // namespace

/// Whether `clang` finds a static aarch64 libc; asked once per process (and
/// once per machine: driverAnswer).
bool hasStaticLibc(StringRef clang) {
  return oncePerClang(clang, [&] {
    StringRef args[] = {kTriple, "-print-file-name=libc.a"};
    Expected<std::string> answer = driverAnswer(clang, args, namesExistingFile);
    if (!answer) {
      consumeError(answer.takeError());
      return false;
    }
    return namesExistingFile(*answer);
  });
}

/// Links `objects` into `exe` with the linker command the driver would run
/// (linkerCommand), `linkerFlags` added; false when there is no such
/// command or the link fails (the caller then links through the driver,
/// which says why).
bool linkDirectly(StringRef clang, ArrayRef<std::string> objects, StringRef exe,
                  ArrayRef<std::string> linkerFlags, StringRef logPath) {
  LinkPlaceholders p = linkPlaceholders();
  std::vector<std::string> command = linkerCommand(clang, p);
  if (command.empty())
    return false;
  SmallVector<StringRef, 64> args;
  for (const std::string &arg : ArrayRef(command).drop_front()) {
    if (arg == p.input)
      args.append(objects.begin(), objects.end());
    else
      args.push_back(arg == p.output ? exe : StringRef(arg));
  }
  args.append(linkerFlags.begin(), linkerFlags.end());
  if (std::optional<bool> linked = linkInProcess(args, logPath))
    return *linked;
  Error err =
      runTool("linking", command[0], args, logPath, kToolTimeoutSeconds);
  bool linked = !err;
  consumeError(std::move(err));
  return linked;
}

} // namespace aarch64
} // namespace tisa
