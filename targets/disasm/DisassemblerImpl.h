//===- DisassemblerImpl.h - backends behind tisa::Disassembler --*- C++ -*-===//
//
// Private to TisaDisasm: the two backends and the text helpers they share.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_DISASM_DISASSEMBLERIMPL_H
#define TISA_TARGETS_DISASM_DISASSEMBLERIMPL_H

#include "tisa/Targets/Disassembler.h"

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Triple.h"

namespace tisa {
namespace detail {

/// Collapses runs of whitespace (the printers separate mnemonic and operands
/// with tabs) to one space and trims both ends.
std::string normalizeAsmText(llvm::StringRef text);

/// The instruction's mnemonic from assembly text: the first token that is not
/// an x86 prefix ("lock", "rep", "{vex}", ...), lower-cased.
std::string mnemonicFromAsmText(llvm::StringRef text);

/// An entry for `bytes` that could not be decoded.
DecodedInst makeInvalid(llvm::ArrayRef<uint8_t> bytes, uint64_t address);

/// LLVM's MC disassembler. Also used by the Capstone backend to learn how long
/// an instruction Capstone cannot decode is, so decoding stays in sync.
class LLVMDisassembler final : public Disassembler {
public:
  static llvm::Expected<std::unique_ptr<LLVMDisassembler>>
  create(const llvm::Triple &triple, llvm::StringRef cpu,
         llvm::StringRef features);

  llvm::StringRef backendName() const override { return "llvm"; }
  std::vector<DecodedInst> disassemble(llvm::ArrayRef<uint8_t> bytes,
                                       uint64_t address) const override;

  /// Decodes the instruction at the start of `bytes` (non-empty). The result
  /// has size >= 1; on failure it is an invalid entry spanning the bytes the
  /// target says to skip.
  DecodedInst decodeOne(llvm::ArrayRef<uint8_t> bytes, uint64_t address) const;

private:
  LLVMDisassembler() = default;
  /// The CPU's scheduling model figures for `inst`, when it has a model.
  void readSchedModel(const llvm::MCInst &inst, DecodedInst &result) const;

  llvm::Triple triple;
  // Declared in dependency order so that destruction runs users first.
  std::unique_ptr<llvm::MCRegisterInfo> regInfo;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo;
  std::unique_ptr<llvm::MCInstrInfo> instrInfo;
  std::unique_ptr<llvm::MCSubtargetInfo> subtargetInfo;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disasm;
  /// Prints `text`: AT&T on x86, the default syntax elsewhere.
  std::unique_ptr<llvm::MCInstPrinter> textPrinter;
  /// x86 only: Intel syntax, whose mnemonics carry no size suffix.
  std::unique_ptr<llvm::MCInstPrinter> mnemonicPrinter;
  /// x86 branch displacements count from the next instruction; LLVM's
  /// printer adds them to the address it is given.
  bool relativeToNext = false;
};

/// Capstone backend; null when built without Capstone. With `llvmFallback`,
/// instructions Capstone cannot decode are decoded by LLVM instead of being
/// reported invalid.
llvm::Expected<std::unique_ptr<Disassembler>>
createCapstoneDisassembler(const llvm::Triple &triple, llvm::StringRef cpu,
                           llvm::StringRef features, bool llvmFallback);

} // namespace detail
} // namespace tisa

#endif // TISA_TARGETS_DISASM_DISASSEMBLERIMPL_H
