//===- TisaAttrs.cpp - #tisa.plan, #tisa.loop, #tisa.schedule -------------===//
//
// Syntax and the checks that need nothing but the attribute itself; checks
// against a description and a contraction are tisa::planFromAttr's.
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/TisaAttrs.h"
#include "tisa/Dialect/TisaDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#define GET_ATTRDEF_CLASSES
#include "tisa/Dialect/TisaAttrs.cpp.inc"

namespace tisa {

void TisaDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tisa/Dialect/TisaAttrs.cpp.inc"
      >();
}

namespace {

/// Prints `name` bare when it reads back as a keyword, else quoted.
void printName(AsmPrinter &printer, StringRef name) {
  bool bare = !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
              llvm::all_of(name, [](char c) {
                return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
              });
  if (bare)
    printer << name;
  else
    printer.printString(name);
}

/// `[a, b, ...]`, possibly empty.
ParseResult parseIntegerList(AsmParser &parser, SmallVectorImpl<int64_t> &out) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        int64_t v;
        if (parser.parseInteger(v))
          return failure();
        out.push_back(v);
        return success();
      });
}

void printIntegerList(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << "[";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

} // namespace

//===----------------------------------------------------------------------===//
// #tisa.loop
//===----------------------------------------------------------------------===//

InstrLoopAttr InstrLoopAttr::parseEntry(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseKeywordOrString(&name) || parser.parseEqual())
    return {};
  SmallVector<int64_t> loops;
  int64_t sharesWith = -1;
  if (succeeded(parser.parseOptionalKeyword("padding"))) {
  } else if (succeeded(parser.parseOptionalKeyword("outer"))) {
    if (parser.parseLParen() || parser.parseInteger(sharesWith) ||
        parser.parseRParen())
      return {};
  } else if (parseIntegerList(parser, loops)) {
    return {};
  } else if (loops.empty()) {
    parser.emitError(loc) << "instruction loop '" << name
                          << "' takes no program loop: write 'padding'";
    return {};
  }
  return parser.getChecked<InstrLoopAttr>(loc, parser.getContext(), name,
                                          loops, sharesWith);
}

/// `n = [1]`: no `<-`, whose `<` the parser would pair with a `>` when it
/// finds the end of `#tisa.plan<...>`.
void InstrLoopAttr::printEntry(AsmPrinter &printer) const {
  printName(printer, getName());
  printer << " = ";
  if (getSharesWith() >= 0)
    printer << "outer(" << getSharesWith() << ")";
  else if (getProgramLoops().empty())
    printer << "padding";
  else
    printIntegerList(printer, getProgramLoops());
}

Attribute InstrLoopAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  InstrLoopAttr entry = parseEntry(parser);
  if (!entry || parser.parseGreater())
    return {};
  return entry;
}

void InstrLoopAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printEntry(printer);
  printer << ">";
}

LogicalResult
InstrLoopAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef name, ArrayRef<int64_t> programLoops,
                      int64_t sharesWith) {
  if (name.empty())
    return emitError() << "an instruction loop needs a name";
  if (sharesWith < -1)
    return emitError() << "outer(" << sharesWith
                       << ") names no instruction loop";
  if (sharesWith >= 0 && !programLoops.empty())
    return emitError() << "instruction loop '" << name
                       << "' both takes program loops and extends another's";
  for (auto [i, l] : llvm::enumerate(programLoops)) {
    if (l < 0)
      return emitError() << "program loop " << l << " of '" << name
                         << "' is negative";
    if (i && l != programLoops[i - 1] + 1)
      return emitError() << "the program loops of '" << name
                         << "' are not a run of adjacent loops, outer to "
                            "inner";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// #tisa.plan
//===----------------------------------------------------------------------===//

namespace {
/// `[loop : size, ...]` as pairs.
ParseResult parseBlocks(AsmParser &parser, SmallVectorImpl<int64_t> &pairs) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        int64_t loop, size;
        if (parser.parseInteger(loop) || parser.parseColon() ||
            parser.parseInteger(size))
          return failure();
        pairs.append({loop, size});
        return success();
      });
}
} // namespace

Attribute PlanAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string instruction;
  SmallVector<InstrLoopAttr> loops;
  if (parser.parseLess() || parser.parseString(&instruction) ||
      parser.parseComma() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            InstrLoopAttr entry = InstrLoopAttr::parseEntry(parser);
            if (!entry)
              return failure();
            loops.push_back(entry);
            return success();
          }))
    return {};
  bool swapped = false;
  SmallVector<int64_t> blocks;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    if (!swapped && succeeded(parser.parseOptionalKeyword("swapped"))) {
      swapped = true;
    } else if (blocks.empty() &&
               succeeded(parser.parseOptionalKeyword("blocks"))) {
      if (parser.parseEqual() || parseBlocks(parser, blocks))
        return {};
      if (blocks.empty()) {
        parser.emitError(at) << "blocks is empty; leave it out";
        return {};
      }
    } else {
      parser.emitError(at)
          << "expected 'swapped' or 'blocks = [...]', each at most once";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PlanAttr>(loc, parser.getContext(), instruction,
                                     loops, swapped, blocks);
}

void PlanAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printString(getInstruction());
  printer << ", [";
  llvm::interleaveComma(getLoops(), printer,
                        [&](InstrLoopAttr l) { l.printEntry(printer); });
  printer << "]";
  if (getSwapped())
    printer << ", swapped";
  if (!getBlocks().empty()) {
    printer << ", blocks = [";
    ArrayRef<int64_t> b = getBlocks();
    for (size_t i = 0; i + 1 < b.size(); i += 2)
      printer << (i ? ", " : "") << b[i] << " : " << b[i + 1];
    printer << "]";
  }
  printer << ">";
}

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef instruction,
                               ArrayRef<InstrLoopAttr> loops, bool,
                               ArrayRef<int64_t> blocks) {
  if (instruction.empty())
    return emitError() << "a plan needs an instruction name";
  if (loops.empty())
    return emitError() << "a plan needs the instruction's loops";
  llvm::StringSet<> names;
  llvm::SmallSet<int64_t, 8> taken;
  for (auto [i, l] : llvm::enumerate(loops)) {
    if (!names.insert(l.getName()).second)
      return emitError() << "instruction loop '" << l.getName()
                         << "' appears twice";
    for (int64_t p : l.getProgramLoops())
      if (!taken.insert(p).second)
        return emitError() << "program loop " << p
                           << " feeds two instruction loops";
    int64_t s = l.getSharesWith();
    if (s < 0)
      continue;
    if (s >= int64_t(loops.size()) || s == int64_t(i))
      return emitError() << "'" << l.getName() << " = outer(" << s
                         << ")' names no other instruction loop";
    if (loops[s].getProgramLoops().size() != 1)
      return emitError() << "'" << l.getName() << " = outer(" << s
                         << ")': instruction loop '" << loops[s].getName()
                         << "' does not take exactly one program loop";
  }
  llvm::SmallSet<int64_t, 4> blocked;
  for (size_t i = 0; i + 1 < blocks.size(); i += 2) {
    if (blocks[i] < 0 || blocks[i + 1] < 1)
      return emitError() << "block '" << blocks[i] << " : " << blocks[i + 1]
                         << "' needs a loop >= 0 and a size >= 1";
    if (!blocked.insert(blocks[i]).second)
      return emitError() << "program loop " << blocks[i]
                         << " is blocked twice";
  }
  if (blocks.size() % 2)
    return emitError() << "blocks holds loop : size pairs";
  return success();
}

//===----------------------------------------------------------------------===//
// #tisa.schedule
//===----------------------------------------------------------------------===//

namespace {
/// The schedule's fields after `unroll`, by keyword: an integer field's
/// storage or a flag's.
struct ScheduleFields {
  int64_t block = 0, panel = 0, edge = 0, kunroll = 1, hold = 0;
  bool lanesOuter = false, fuse = false, evenRows = false;
  int64_t *integer(StringRef key) {
    return llvm::StringSwitch<int64_t *>(key)
        .Case("block", &block)
        .Case("panel", &panel)
        .Case("edge", &edge)
        .Case("kunroll", &kunroll)
        .Case("hold", &hold)
        .Default(nullptr);
  }
  bool *flag(StringRef key) {
    return llvm::StringSwitch<bool *>(key)
        .Case("lanes_outer", &lanesOuter)
        .Case("fuse", &fuse)
        .Case("even_rows", &evenRows)
        .Default(nullptr);
  }
};
} // namespace

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> unroll;
  if (parser.parseLess() || parser.parseKeyword("unroll") ||
      parser.parseEqual() || parseIntegerList(parser, unroll))
    return {};
  ScheduleFields f;
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    std::string key;
    if (parser.parseKeywordOrString(&key))
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(at) << "schedule field '" << key << "' is given twice";
      return {};
    }
    if (bool *flag = f.flag(key)) {
      *flag = true;
    } else if (int64_t *value = f.integer(key)) {
      if (parser.parseEqual() || parser.parseInteger(*value))
        return {};
    } else {
      parser.emitError(at) << "unknown schedule field '" << key
                           << "' (expected block, lanes_outer, panel, fuse, "
                              "edge, kunroll, hold, even_rows)";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<ScheduleAttr>(
      loc, parser.getContext(), unroll, f.block, f.lanesOuter, f.panel, f.fuse,
      f.edge, f.kunroll, f.hold, f.evenRows);
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<unroll = ";
  printIntegerList(printer, getUnroll());
  auto integer = [&](StringRef key, int64_t v, int64_t byDefault) {
    if (v != byDefault)
      printer << ", " << key << " = " << v;
  };
  auto flag = [&](StringRef key, bool on) {
    if (on)
      printer << ", " << key;
  };
  integer("block", getBlock(), 0);
  flag("lanes_outer", getLanesOuter());
  integer("panel", getPanel(), 0);
  flag("fuse", getFuse());
  integer("edge", getEdge(), 0);
  integer("kunroll", getKunroll(), 1);
  integer("hold", getHold(), 0);
  flag("even_rows", getEvenRows());
  printer << ">";
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> unroll, int64_t block, bool,
                     int64_t panel, bool, int64_t edge, int64_t kunroll,
                     int64_t hold, bool) {
  if (unroll.empty())
    return emitError() << "unroll needs a factor per program loop";
  for (int64_t u : unroll)
    if (u < 1 || u > 64)
      return emitError() << "unroll factor " << u
                         << " is not an integer in [1, 64]";
  auto inRange = [&](StringRef key, int64_t v, int64_t lo,
                     int64_t hi) -> LogicalResult {
    if (v >= lo && v <= hi)
      return success();
    return emitError() << key << " " << v << " is not an integer in [" << lo
                       << ", " << hi << "]";
  };
  int64_t unbounded = std::numeric_limits<int64_t>::max();
  return success(succeeded(inRange("block", block, 0, unbounded)) &&
                 succeeded(inRange("panel", panel, 0, unbounded)) &&
                 succeeded(inRange("edge", edge, 0, 64)) &&
                 succeeded(inRange("kunroll", kunroll, 1, 16)) &&
                 succeeded(inRange("hold", hold, 0, 64)));
}

} // namespace tisa
