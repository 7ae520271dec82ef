//===- Replay.cpp - run a fuzz target over files, without libFuzzer -------===//
//
// `NAME-replay FILE|DIR...` feeds every file (directories recursively) to
// LLVMFuzzerTestOneInput once: the seed corpus and saved crashes become
// regression tests in ctest. It prints how many inputs ran; a crash ends it.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!llvm::sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(argv[i], ec), end;
         it != end && !ec; it.increment(ec))
      if (!llvm::sys::fs::is_directory(it->path()))
        files.push_back(it->path());
  }
  if (files.empty()) {
    llvm::errs() << "usage: " << argv[0] << " FILE|DIR...  (no input found)\n";
    return 2;
  }
  for (const std::string &f : files) {
    auto buffer = llvm::MemoryBuffer::getFile(f);
    if (!buffer) {
      llvm::errs() << f << ": " << buffer.getError().message() << "\n";
      return 2;
    }
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
        (*buffer)->getBufferSize());
  }
  llvm::outs() << files.size() << " inputs ran\n";
  return 0;
}
