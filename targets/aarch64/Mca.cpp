//===- Mca.cpp - llvm-mca on a loop of decoded aarch64 code ---------------===//

#include "tisa/Targets/AArch64Runner.h"

#include "Tools.h"

#include "tisa/Config.h"

using namespace llvm;

namespace tisa {
namespace aarch64 {

/// The loop as an assembly file llvm-mca reads: a label at its top and its
/// closing branch aimed at it (the decoder prints an address).
static std::string loopAssembly(ArrayRef<DecodedInst> loop) {
  std::string text = "tisa_loop:\n";
  for (size_t i = 0; i < loop.size(); ++i) {
    StringRef line = loop[i].text;
    if (i + 1 == loop.size())
      text += (line.rsplit(' ').first + " tisa_loop").str();
    else
      text += line.str();
    text += "\n";
  }
  return text;
}

/// The number after `key` in llvm-mca's summary, or -1.
static double summaryValue(StringRef report, StringRef key) {
  size_t at = report.find(key);
  if (at == StringRef::npos)
    return -1;
  StringRef rest = report.drop_front(at + key.size()).ltrim();
  double v;
  if (rest.take_until([](char c) { return c == '\n' || c == ' '; })
          .getAsDouble(v))
    return -1;
  return v;
}

Expected<LoopAnalysis> analyzeLoop(ArrayRef<DecodedInst> loop, StringRef cpu,
                                   StringRef features) {
  if (loop.empty() || !branchTarget(loop.back()))
    return makeError("analyzeLoop: the loop must end with its backward branch");
  std::optional<std::string> mca = findTool("TISA_LLVM_MCA", TISA_LLVM_MCA);
  if (!mca)
    return makeError("llvm-mca not found (set TISA_LLVM_MCA or install "
                     "llvm-22)");
  Expected<TempDir> dir = TempDir::create("tisa-mca");
  if (!dir)
    return dir.takeError();
  std::string source = dir->file("loop.s"), log = dir->file("mca.txt");
  std::string text = loopAssembly(loop);
  if (Error e = writeFile(source, ArrayRef<uint8_t>(
                                      reinterpret_cast<const uint8_t *>(
                                          text.data()),
                                      text.size())))
    return std::move(e);
  std::string mcpu = ("-mcpu=" + cpu).str(), mattr = ("-mattr=" + features).str();
  SmallVector<StringRef> args = {"-mtriple=aarch64-linux-gnu", mcpu,
                                 "-iterations=1000"};
  if (!features.empty())
    args.push_back(mattr);
  args.push_back(source);
  if (Error e = runTool("llvm-mca", *mca, args, log, 60))
    return std::move(e);
  Expected<std::unique_ptr<MemoryBuffer>> report = readFile(log);
  if (!report)
    return report.takeError();
  StringRef r = (*report)->getBuffer();
  double iterations = summaryValue(r, "Iterations:"),
         cycles = summaryValue(r, "Total Cycles:"),
         bound = summaryValue(r, "Block RThroughput:");
  if (iterations <= 0 || cycles <= 0 || bound < 0)
    return makeError("cannot read llvm-mca's summary:\n" + r.str());
  LoopAnalysis out;
  out.instructions = loop.size();
  out.cyclesPerIteration = cycles / iterations;
  out.throughputBound = bound;
  return out;
}

} // namespace aarch64
} // namespace tisa
