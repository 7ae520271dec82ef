//===- InProcessLinker.cpp - lld's ELF linker in this process -------------===//

#include "InProcessLinker.h"
#include "Tools.h"

#include "tisa/Targets/AArch64Runner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

#if TISA_HAVE_LLD
#include "lld/Common/Driver.h"
LLD_HAS_DRIVER(elf)
#endif

using namespace llvm;

namespace tisa {
namespace aarch64 {
namespace {
#if TISA_HAVE_LLD
/// lld keeps its state in globals for the length of a link: one at a time.
std::mutex mutex;
bool canRunAgain = true;
unsigned linked = 0;
#endif
} // namespace

std::optional<unsigned> linkedInProcess() {
#if TISA_HAVE_LLD
  std::lock_guard<std::mutex> lock(mutex);
  return linked;
#else
  return std::nullopt;
#endif
}

std::optional<bool> linkInProcess(ArrayRef<StringRef> args, StringRef logPath) {
#if TISA_HAVE_LLD
  std::lock_guard<std::mutex> lock(mutex);
  if (!canRunAgain)
    return std::nullopt;
  BumpPtrAllocator allocator;
  StringSaver saver(allocator);
  SmallVector<const char *, 64> argv = {"ld.lld"};
  for (StringRef arg : args)
    argv.push_back(saver.save(arg).data());
  std::string messages;
  raw_string_ostream os(messages);
  lld::Result result =
      lld::lldMain(argv, os, os, {{lld::Gnu, &lld::elf::link}});
  canRunAgain = result.canRunAgain;
  if (Error err = writeFile(logPath, arrayRefFromStringRef(messages)))
    consumeError(std::move(err));
  linked += result.retCode == 0;
  return result.retCode == 0;
#else
  (void)args;
  (void)logPath;
  return std::nullopt;
#endif
}

} // namespace aarch64
} // namespace tisa
