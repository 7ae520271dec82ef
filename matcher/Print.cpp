//===- Print.cpp - plans as text ------------------------------------------===//

#include "MatcherImpl.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa {

namespace {

std::string accessName(OperandPlan::Access a) {
  switch (a) {
  case OperandPlan::Access::Direct:
    return "direct";
  case OperandPlan::Access::Broadcast:
    return "broadcast";
  case OperandPlan::Access::Strided:
    return "strided";
  case OperandPlan::Access::Packed:
    return "packed";
  case OperandPlan::Access::Gathered:
    return "gathered";
  }
  llvm_unreachable("unknown access");
}

std::string extentText(int64_t e) {
  return e == kDynamic ? "?" : std::to_string(e);
}

/// "n<-n(16) k<-k(4)": instruction loop <- program loops (instruction extent).
std::string mappingText(const Contraction &c, const TensorizePlan &p) {
  std::string s;
  for (const LoopAssignment &la : p.loops) {
    if (!s.empty())
      s += " ";
    s += la.instrName + "<-";
    if (la.sharesWith >= 0)
      s += detail::unitName(c, la.programLoops) + "(outer)";
    else
      s += detail::unitName(c, la.programLoops);
    s += "(" + std::to_string(la.instrExtent) + ")";
  }
  return s;
}

std::string shortAccess(const Contraction &c, const OperandPlan &op) {
  const std::string &name = c.operands[op.programOperand].name;
  switch (op.access) {
  case OperandPlan::Access::Packed:
    return name + " pack " + op.packedShape;
  case OperandPlan::Access::Broadcast:
    return llvm::formatv("{0} broadcast {1}B", name, op.runBytes);
  default:
    return name + " " + accessName(op.access);
  }
}

} // namespace

void printContraction(const Contraction &c, llvm::raw_ostream &os) {
  os << c.opName << " (";
  for (auto [i, l] : llvm::enumerate(c.loops))
    os << (i ? " " : "") << l.name << "=" << extentText(l.extent)
       << (l.reduction ? "r" : "");
  os << "; " << c.arith.text << ")";
}

namespace {

/// "n<-n(16) k<-k(4) | ins0 broadcast 4B, ins1 pack [K/4][N][4], ...".
void printMapping(const Contraction &c, const TensorizePlan &p,
                  llvm::raw_ostream &os) {
  os << mappingText(c, p) << " | ";
  for (auto [j, op] : llvm::enumerate(p.operands))
    os << (j ? ", " : "") << shortAccess(c, op);
}

} // namespace

std::string planKey(const Contraction &c, const TensorizePlan &p) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << p.desc->name << " ";
  printMapping(c, p, os);
  return key;
}

void printPlanSummary(const Contraction &c, const TensorizePlan &p,
                      llvm::raw_ostream &os) {
  os << llvm::formatv("{0,-22} ", p.desc->name);
  printMapping(c, p, os);
  os << llvm::formatv(" | {0:P0} lanes, {1} instr, ~{2:E2} cycles",
                      p.cost.utilization, p.cost.instructions, p.cost.cycles);
  if (!p.cost.unsupported.empty())
    os << ", not generated";
  if (p.repair)
    os << ", repair";
  if (!p.relaxations.empty())
    os << ", relaxed fp";
}

void printPlan(const Contraction &c, const TensorizePlan &p,
               llvm::raw_ostream &os, unsigned indent) {
  std::string pad(indent, ' ');
  const Description &d = *p.desc;
  os << pad << "instruction: " << d.name << " (" << d.extension << ", "
     << d.mnemonic << ")\n";
  os << pad << "loops:";
  for (const LoopAssignment &la : p.loops) {
    os << " " << la.instrName << "(" << la.instrExtent
       << (la.scalable ? " segments" : "") << ") <- ";
    if (la.programLoops.empty())
      os << "padding";
    else
      os << detail::unitName(c, la.programLoops)
         << (la.sharesWith >= 0 ? " (outer digit)" : "") << "("
         << extentText(la.sharesWith >= 0 ? c.loops[la.programLoops[0]].extent
                                          : la.programExtent)
         << ")";
    os << ";";
  }
  os << "\n";
  for (const OperandPlan &op : p.operands) {
    const ProgramOperand &po = c.operands[op.programOperand];
    os << pad << "  " << po.name << " -> operand " << op.instrOperand << " ("
       << d.registers[op.instrOperand].type << "): " << op.detail;
    if (op.packBytes)
      os << " (" << op.packBytes << " bytes written)";
    if (op.access == OperandPlan::Access::Broadcast &&
        d.lowering.byElement == op.instrOperand)
      os << ", read by element (a register of groups per load)";
    os << "\n";
  }
  if (p.repair)
    os << pad << "repair: " << p.repair->text << "\n";
  for (const std::string &r : p.relaxations)
    os << pad << "relaxation: " << r << "\n";
  for (const std::string &n : p.notes)
    os << pad << "note: " << n << "\n";
  os << pad << "instruction tiles:";
  for (const auto &t : p.tiles)
    os << " " << t.name << "=" << t.instr;
  os << "\n";
  if (p.cost.counted())
    os << pad << "schedule: " << p.cost.schedule
       << " (the code generator's default)\n";
  else if (!p.cost.unsupported.empty())
    os << pad << "not generated: " << p.cost.unsupported << "\n";
  // Run-time extents are counted at kNominalExtent iterations each.
  bool runTime = llvm::any_of(
      c.loops, [](const ProgramLoop &l) { return l.extent == kDynamic; });
  std::string counted =
      "counted for the schedule" +
      (runTime ? ", " + std::to_string(kNominalExtent) +
                     " iterations of each run-time loop"
               : std::string());
  os << pad
     << llvm::formatv("cost: {0} instructions, {1:P1} of the lanes useful, "
                      "{2} bytes relaid out, ~{3:E2} cycles ({4})",
                      p.cost.instructions, p.cost.utilization,
                      p.cost.packBytes, p.cost.cycles,
                      p.cost.counted() ? counted
                                       : "lower bound: issues / issue rate "
                                         "+ relayout")
     << "\n";
}

} // namespace tisa
