//===- Counting.cpp - the counting plugin's arguments and output ----------===//

#include "Counting.h"

#include "Tools.h"

#include "tisa/Config.h"
#include "tisa/Semantics/DescriptionSet.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <map>

using namespace llvm;

namespace tisa {
namespace aarch64 {
namespace {

/// The plugin: $TISA_QEMU_COUNT_PLUGIN, else the one installed beside tisa
/// (PREFIX/lib/tisa), else the one built with it.
Expected<std::string> pluginPath() {
  std::string plugin = installedPath("lib/tisa/libtisa-qemu-count.so");
  if (!sys::fs::exists(plugin))
    plugin = TISA_QEMU_COUNT_PLUGIN;
  if (std::optional<std::string> env =
          sys::Process::GetEnv("TISA_QEMU_COUNT_PLUGIN"))
    plugin = *env;
  if (!sys::fs::exists(plugin))
    return makeError("the counting plugin '" + plugin + "' is missing");
  return plugin;
}

/// Mnemonics of aarch64 instruction words, decoded once each.
class OpcodeNames {
public:
  static Expected<OpcodeNames> create() {
    Expected<std::unique_ptr<Disassembler>> d = Disassembler::create(
        "aarch64-linux-gnu", "", "", DisasmBackend::LLVM);
    if (!d)
      return d.takeError();
    OpcodeNames names;
    names.disassembler = std::move(*d);
    return std::move(names);
  }
  const std::string &operator()(uint32_t word) {
    auto [it, inserted] = names.try_emplace(word);
    if (inserted) {
      uint8_t bytes[4];
      support::endian::write32le(bytes, word);
      std::vector<DecodedInst> insts = disassembler->disassemble(bytes);
      it->second = insts.size() == 1 ? insts.front().mnemonic
                                     : std::string(kInvalidMnemonic);
    }
    return it->second;
  }

private:
  std::unique_ptr<Disassembler> disassembler;
  std::map<uint32_t, std::string> names;
};

/// The instructions of `function` in the executable `exe`, at their
/// addresses; an error when it is missing or empty.
Expected<std::vector<DecodedInst>> functionOf(StringRef exe,
                                              StringRef function) {
  Expected<std::unique_ptr<MemoryBuffer>> bytes = readFile(exe);
  if (!bytes)
    return bytes.takeError();
  Expected<std::vector<DecodedInst>> decoded = disassembleFunction(
      (*bytes)->getMemBufferRef(), function, "", DisasmBackend::LLVM);
  if (decoded && decoded->empty())
    return makeError("function '" + function + "' in '" + exe + "' is empty");
  return decoded;
}

} // namespace

Expected<std::string> markCountingPlugin(StringRef exe, StringRef countsPath) {
  Expected<std::string> plugin = pluginPath();
  if (!plugin)
    return plugin.takeError();
  Expected<std::vector<DecodedInst>> mark = functionOf(exe, kCountMarkSymbol);
  if (!mark)
    return mark.takeError();
  return (*plugin + ",mark=0x" + utohexstr(mark->front().address) +
          ",out=" + countsPath)
      .str();
}

Expected<std::vector<ExecutedCounts>> readMarkedCounts(StringRef countsPath) {
  Expected<std::unique_ptr<MemoryBuffer>> text = readFile(countsPath);
  if (!text)
    return text.takeError();
  Expected<OpcodeNames> names = OpcodeNames::create();
  if (!names)
    return names.takeError();
  std::vector<ExecutedCounts> parts;
  uint64_t marks = 0;
  SmallVector<StringRef> lines;
  (*text)->getBuffer().split(lines, '\n', -1, false);
  for (StringRef line : lines) {
    if (line == "part") {
      parts.emplace_back();
      continue;
    }
    if (line == "overflow")
      return makeError("the counting plugin ran out of slots or opcodes");
    auto [left, right] = line.split(' ');
    uint64_t word = 0, count = 0;
    if (left == "marks" && !right.getAsInteger(10, marks))
      continue;
    if (parts.empty() || left.getAsInteger(16, word) || word > UINT32_MAX ||
        right.getAsInteger(10, count))
      return makeError("bad line in the instruction counts: '" + line + "'");
    parts.back().executed[(*names)(uint32_t(word))] += count;
    parts.back().total += count;
  }
  if (marks % 2 || marks != 2 * parts.size())
    return makeError("'" + kCountMarkSymbol + "' ran " + Twine(marks) +
                     " times: it must open and close each counted part");
  return std::move(parts);
}

} // namespace aarch64
} // namespace tisa
