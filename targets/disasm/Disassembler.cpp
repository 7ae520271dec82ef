//===- Disassembler.cpp - backend choice, ELF lookup, mnemonic checks ----===//

#include "DisassemblerImpl.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace tisa {

Disassembler::~Disassembler() = default;

namespace detail {

std::string normalizeAsmText(StringRef text) {
  SmallVector<StringRef, 8> tokens;
  SplitString(text, tokens, " \t\n\r");
  return join(tokens, " ");
}

std::string mnemonicFromAsmText(StringRef text) {
  // Prefixes the x86 printers emit before the mnemonic proper.
  static const StringSet<> prefixes = {
      "lock",     "rep",      "repe", "repz",   "repne",  "repnz",  "notrack",
      "xacquire", "xrelease", "bnd",  "data16", "data32", "addr32", "rex64"};
  SmallVector<StringRef, 8> tokens;
  SplitString(text, tokens, " \t\n\r");
  size_t i = 0;
  // A prefix alone (a stray prefix byte) is its own mnemonic.
  while (i + 1 < tokens.size() &&
         (tokens[i].starts_with("{") || prefixes.contains(tokens[i].lower())))
    ++i;
  return i < tokens.size() ? tokens[i].lower() : std::string();
}

DecodedInst makeInvalid(ArrayRef<uint8_t> bytes, uint64_t address) {
  DecodedInst d;
  d.address = address;
  d.size = static_cast<unsigned>(bytes.size());
  d.mnemonic = kInvalidMnemonic.str();
  raw_string_ostream os(d.text);
  os << kInvalidMnemonic;
  for (uint8_t byte : bytes)
    os << ' ' << format_hex_no_prefix(byte, 2);
  return d;
}

} // namespace detail

Expected<std::unique_ptr<Disassembler>>
Disassembler::create(StringRef tripleName, StringRef cpu, StringRef features,
                     DisasmBackend backend) {
  Triple triple(Triple::normalize(tripleName));
  switch (backend) {
  case DisasmBackend::LLVM:
    break;
  case DisasmBackend::Capstone:
    return detail::createCapstoneDisassembler(triple, cpu, features,
                                              /*llvmFallback=*/false);
  case DisasmBackend::Auto:
#ifdef TISA_CAPSTONE_PREFERRED
    // Capstone where it decodes, LLVM for the rest: a newer Capstone may still
    // lag LLVM on recent extensions such as AMX.
    if (triple.getArch() == Triple::x86_64 ||
        triple.getArch() == Triple::aarch64)
      return detail::createCapstoneDisassembler(triple, cpu, features,
                                                /*llvmFallback=*/true);
#endif
    break;
  }
  Expected<std::unique_ptr<detail::LLVMDisassembler>> d =
      detail::LLVMDisassembler::create(triple, cpu, features);
  if (!d)
    return d.takeError();
  return std::unique_ptr<Disassembler>(std::move(*d));
}

namespace {

struct FunctionRange {
  std::vector<uint8_t> bytes;
  uint64_t address = 0;
  Triple triple;
  /// The section that holds it (its index in the object).
  uint64_t section = 0;
};

} // namespace

static Expected<FunctionRange> findFunction(MemoryBufferRef object,
                                            StringRef symbol) {
  Expected<std::unique_ptr<object::ObjectFile>> file =
      object::ObjectFile::createObjectFile(object);
  if (!file)
    return createStringError("cannot read object '%s': %s",
                             object.getBufferIdentifier().str().c_str(),
                             toString(file.takeError()).c_str());
  // Symbol sizes are recorded by ELF only.
  auto *elf = dyn_cast<object::ELFObjectFileBase>(file->get());
  if (!elf)
    return createStringError("object '%s' is not ELF",
                             object.getBufferIdentifier().str().c_str());

  // A stripped shared object keeps only its dynamic symbols.
  SmallVector<object::ELFSymbolRef, 64> symbols;
  for (object::ELFSymbolRef sym : elf->symbols())
    symbols.push_back(sym);
  for (object::ELFSymbolRef sym : elf->getDynamicSymbolIterators())
    symbols.push_back(sym);

  bool foundNonFunction = false;
  SmallVector<std::string, 8> functionNames;
  for (object::ELFSymbolRef sym : symbols) {
    Expected<StringRef> name = sym.getName();
    Expected<uint32_t> flags = sym.getFlags();
    Expected<object::SymbolRef::Type> type = sym.getType();
    Expected<object::section_iterator> section = sym.getSection();
    Expected<uint64_t> address = sym.getAddress();
    if (!name || !flags || !type || !section || !address) {
      // A malformed entry is not the one we look for; keep searching.
      consumeError(name.takeError());
      consumeError(flags.takeError());
      consumeError(type.takeError());
      consumeError(section.takeError());
      consumeError(address.takeError());
      continue;
    }
    if ((*flags & object::SymbolRef::SF_Undefined) ||
        *section == elf->section_end())
      continue;
    if (*type != object::SymbolRef::ST_Function) {
      foundNonFunction |= *name == symbol;
      continue;
    }
    if (*name != symbol) {
      if (!is_contained(functionNames, *name))
        functionNames.push_back(name->str());
      continue;
    }

    object::SectionRef sec = **section;
    Expected<StringRef> contents = sec.getContents();
    if (!contents)
      return createStringError("cannot read the section of '%s': %s",
                               symbol.str().c_str(),
                               toString(contents.takeError()).c_str());
    uint64_t secStart = sec.getAddress();
    uint64_t secEnd = secStart + contents->size();
    if (*address < secStart || *address > secEnd)
      return createStringError("symbol '%s' at 0x%llx lies outside its section",
                               symbol.str().c_str(),
                               (unsigned long long)*address);
    uint64_t end = *address + sym.getSize();
    if (sym.getSize() == 0) {
      // Hand-written assembly often lacks `.size`: the function then runs to
      // the next symbol in its section.
      end = secEnd;
      for (object::SymbolRef other : symbols) {
        Expected<object::section_iterator> otherSec = other.getSection();
        Expected<uint64_t> otherAddr = other.getAddress();
        if (!otherSec || !otherAddr) {
          consumeError(otherSec.takeError());
          consumeError(otherAddr.takeError());
          continue;
        }
        if (*otherSec == *section && *otherAddr > *address)
          end = std::min(end, *otherAddr);
      }
    }
    if (end > secEnd)
      return createStringError("symbol '%s' extends past the end of its "
                               "section",
                               symbol.str().c_str());
    FunctionRange range;
    StringRef text = contents->substr(*address - secStart, end - *address);
    range.bytes.assign(text.bytes_begin(), text.bytes_end());
    range.address = *address;
    range.triple = elf->makeTriple();
    range.section = sec.getIndex();
    return range;
  }

  std::string message;
  raw_string_ostream os(message);
  if (foundNonFunction)
    os << "symbol '" << symbol << "' in '" << object.getBufferIdentifier()
       << "' is not a function";
  else
    os << "no defined function symbol '" << symbol << "' in '"
       << object.getBufferIdentifier() << "'";
  // Enough names to spot a typo or a mangled name without flooding the log.
  constexpr size_t maxNames = 20;
  os << "; functions: ";
  if (functionNames.empty())
    os << "none";
  else
    os << join(ArrayRef(functionNames).take_front(maxNames), ", ");
  if (functionNames.size() > maxNames)
    os << ", ... (" << functionNames.size() - maxNames << " more)";
  return createStringError(message);
}

Expected<std::vector<uint8_t>> functionBytes(MemoryBufferRef object,
                                             StringRef symbol) {
  Expected<FunctionRange> range = findFunction(object, symbol);
  if (!range)
    return range.takeError();
  return std::move(range->bytes);
}

/// `symbol`'s range in `object` and a disassembler for the object's triple.
static Expected<std::pair<FunctionRange, std::unique_ptr<Disassembler>>>
openFunction(MemoryBufferRef object, StringRef symbol, StringRef features,
             DisasmBackend backend, StringRef cpu) {
  Expected<FunctionRange> range = findFunction(object, symbol);
  if (!range)
    return range.takeError();
  Expected<std::unique_ptr<Disassembler>> disasm =
      Disassembler::create(range->triple.str(), cpu, features, backend);
  if (!disasm)
    return disasm.takeError();
  return std::make_pair(std::move(*range), std::move(*disasm));
}

Expected<std::vector<DecodedInst>> disassembleFunction(MemoryBufferRef object,
                                                       StringRef symbol,
                                                       StringRef features,
                                                       DisasmBackend backend,
                                                       StringRef cpu) {
  auto opened = openFunction(object, symbol, features, backend, cpu);
  if (!opened)
    return opened.takeError();
  auto &[range, disasm] = *opened;
  return disasm->disassemble(range.bytes, range.address);
}

namespace {

/// The name of the function symbol at `address` in section `section` of
/// `object`, if one starts there.
std::optional<std::string> functionAt(MemoryBufferRef object, uint64_t section,
                                      uint64_t address) {
  Expected<std::unique_ptr<object::ObjectFile>> file =
      object::ObjectFile::createObjectFile(object);
  if (!file) {
    consumeError(file.takeError());
    return std::nullopt;
  }
  for (object::SymbolRef sym : (*file)->symbols()) {
    Expected<object::SymbolRef::Type> type = sym.getType();
    Expected<object::section_iterator> sec = sym.getSection();
    Expected<uint64_t> at = sym.getAddress();
    Expected<StringRef> name = sym.getName();
    bool match = type && sec && at && name &&
                 *type == object::SymbolRef::ST_Function &&
                 *sec != (*file)->section_end() &&
                 (*sec)->getIndex() == section && *at == address;
    std::optional<std::string> found;
    if (match)
      found = name->str();
    consumeError(type.takeError());
    consumeError(sec.takeError());
    consumeError(at.takeError());
    consumeError(name.takeError());
    if (found)
      return found;
  }
  return std::nullopt;
}

} // namespace

namespace {
/// The address a direct jump or call's last operand names, as LLVM prints
/// it: an address, or a signed displacement from the next instruction.
std::optional<uint64_t> operandAddress(const DecodedInst &in) {
  StringRef operand = StringRef(in.text).rsplit(' ').second;
  bool negative = operand.consume_front("-");
  uint64_t v;
  if (operand.getAsInteger(0, v))
    return std::nullopt;
  return negative ? in.address + in.size - v : v;
}
} // namespace

std::optional<uint64_t> callTarget(const DecodedInst &in) {
  if (in.mnemonic != "call" && in.mnemonic != "bl")
    return std::nullopt;
  return operandAddress(in);
}

Expected<std::vector<DecodedFunction>>
disassembleWithCallees(MemoryBufferRef object, StringRef symbol,
                       StringRef features, DisasmBackend backend,
                       StringRef cpu) {
  auto opened = openFunction(object, symbol, features, backend, cpu);
  if (!opened)
    return opened.takeError();
  auto &[first, disasm] = *opened;
  // Each function once, in the order first reached.
  std::vector<DecodedFunction> functions;
  std::set<uint64_t> seen = {first.address};
  SmallVector<std::pair<std::string, FunctionRange>> work;
  work.push_back({symbol.str(), std::move(first)});
  for (size_t next = 0; next < work.size(); ++next) {
    auto &[name, f] = work[next];
    DecodedFunction decoded{name, f.address,
                            disasm->disassemble(f.bytes, f.address)};
    for (const DecodedInst &in : decoded.insts) {
      std::optional<uint64_t> target = callTarget(in);
      if (!target || !seen.insert(*target).second)
        continue;
      std::optional<std::string> callee =
          functionAt(object, f.section, *target);
      if (!callee)
        continue; // a call resolved by a relocation: another object's
      Expected<FunctionRange> range = findFunction(object, *callee);
      if (!range)
        return range.takeError();
      work.push_back({*callee, std::move(*range)});
    }
    functions.push_back(std::move(decoded));
  }
  return functions;
}

Error expectMnemonic(ArrayRef<DecodedInst> insts, StringRef mnemonic) {
  if (any_of(insts,
             [&](const DecodedInst &i) { return i.mnemonic == mnemonic; }))
    return Error::success();
  SmallVector<StringRef, 16> seen;
  StringSet<> unique;
  for (const DecodedInst &inst : insts)
    if (unique.insert(inst.mnemonic).second)
      seen.push_back(inst.mnemonic);
  std::string seenList = seen.empty() ? "none" : join(seen, ", ");
  return createStringError(
      "expected instruction '" + mnemonic + "' not found; " +
      Twine(insts.size()) +
      " instructions decoded, mnemonics seen: " + seenList);
}

namespace {
bool isBranch(llvm::StringRef m) {
  return m.starts_with("j") || m == "b" || m.starts_with("b.") ||
         m == "cbz" || m == "cbnz" || m == "tbz" || m == "tbnz";
}
} // namespace

std::optional<uint64_t> branchTarget(const DecodedInst &in) {
  if (!isBranch(in.mnemonic))
    return std::nullopt;
  return operandAddress(in);
}

std::vector<std::pair<size_t, size_t>>
allLoops(llvm::ArrayRef<DecodedInst> insts) {
  // Backward branches to one header close one loop, up to the last of
  // them: a loop whose body skips ahead to the next iteration (a border
  // tap `continue`s) has a short latch beside the long one, and the short
  // [header, latch] is no loop inside the long one.
  std::vector<std::pair<size_t, size_t>> loops;
  llvm::DenseMap<uint64_t, size_t> byHeader;
  for (size_t i = 0; i < insts.size(); ++i) {
    auto target = branchTarget(insts[i]);
    if (!target || *target > insts[i].address)
      continue;
    auto [it, fresh] = byHeader.try_emplace(*target, loops.size());
    if (!fresh) {
      loops[it->second].second = i;
      continue;
    }
    size_t first = i;
    while (first > 0 && insts[first].address > *target)
      --first;
    loops.push_back({first, i});
  }
  return loops;
}

std::vector<std::pair<size_t, size_t>>
innermostLoops(llvm::ArrayRef<DecodedInst> insts) {
  std::vector<std::pair<size_t, size_t>> loops = allLoops(insts);
  std::vector<std::pair<size_t, size_t>> inner;
  for (auto l : loops)
    if (llvm::none_of(loops, [&](auto o) {
          return o != l && o.first >= l.first && o.second <= l.second;
        }))
      inner.push_back(l);
  return inner;
}

} // namespace tisa
