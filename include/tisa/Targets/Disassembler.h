//===- Disassembler.h - decode generated kernels for inspection -*- C++ -*-===//
//
// Every generated kernel is disassembled and checked for the instruction it
// was built to use; a silent fallback to scalar code is a bug. This is the one
// interface that inspection goes through.
//
// Two backends:
//  - LLVM's MC disassembler, the decoder that must work. It decodes every
//    tensor instruction tisa targets (AVX512-VNNI, AVX512_BF16, AMX, NEON and
//    SVE dot products and matrix multiplies).
//  - Capstone, used where it decodes. Debian 12's Capstone 4.0.2 decodes none
//    of those tensor instructions (measured; see Disassembler.cpp), so Auto
//    picks it only when configure found Capstone >= 5, and then falls back to
//    LLVM for each instruction Capstone cannot decode.
//
// On x86 `text` is AT&T syntax while `mnemonic` is the Intel-syntax mnemonic,
// which carries no operand-size suffix ("add", not "addq"), so a mnemonic
// names the instruction the same way in both backends and in vendor manuals.
//
// A Disassembler is not thread-safe: it owns one MC context and printer.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_DISASSEMBLER_H
#define TISA_TARGETS_DISASSEMBLER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tisa {

/// Mnemonic of a decoded entry that covers bytes the backend could not decode.
inline constexpr llvm::StringLiteral kInvalidMnemonic = "<invalid>";

/// One decoded instruction.
struct DecodedInst {
  uint64_t address = 0;
  unsigned size = 0;
  /// Lower-case, without prefixes or size suffix: "vpdpbusd", "tdpbssd",
  /// "sdot", "smmla"; kInvalidMnemonic for undecodable bytes.
  std::string mnemonic;
  /// Full assembly text (AT&T on x86), whitespace collapsed to single spaces.
  std::string text;
  /// What LLVM's scheduling model of the disassembler's CPU says of it
  /// (LLVM backend, a CPU with a model): latency and reciprocal throughput
  /// in cycles; 0 when unknown.
  double modelLatency = 0, modelReciprocalThroughput = 0;
};

enum class DisasmBackend {
  /// Capstone (with per-instruction LLVM fallback) when configure found
  /// Capstone >= 5, else LLVM.
  Auto,
  LLVM,
  /// Capstone alone: what it cannot decode comes back as kInvalidMnemonic.
  Capstone,
};

class Disassembler {
public:
  virtual ~Disassembler();

  /// `triple` e.g. "x86_64-unknown-linux-gnu" or "aarch64-linux-gnu";
  /// `features` e.g. "+avx512vnni,+amx-int8" or "+sve,+i8mm,+bf16,+dotprod".
  /// The AArch64 LLVM decoder rejects instructions whose feature is off, so an
  /// empty feature string there means "+all", as in llvm-objdump. Capstone
  /// takes no features and decodes all it knows.
  static llvm::Expected<std::unique_ptr<Disassembler>>
  create(llvm::StringRef triple, llvm::StringRef cpu, llvm::StringRef features,
         DisasmBackend backend = DisasmBackend::Auto);

  /// "llvm", "capstone", or "capstone+llvm" (Auto on Capstone >= 5).
  virtual llvm::StringRef backendName() const = 0;

  /// Decodes all of `bytes`, the first at `address`. Undecodable bytes become
  /// kInvalidMnemonic entries and decoding resumes after them; never fails.
  virtual std::vector<DecodedInst> disassemble(llvm::ArrayRef<uint8_t> bytes,
                                               uint64_t address = 0) const = 0;
};

/// True when tisa was built with the Capstone backend.
bool isCapstoneAvailable();
/// Version of the Capstone library linked in ("4.0"), or "" without one.
llvm::StringRef capstoneVersion();

/// The bytes of a defined function symbol in an in-memory ELF relocatable or
/// shared object. A symbol without a recorded size extends to the next symbol
/// in its section, or to the section end. Error naming the symbol if absent.
llvm::Expected<std::vector<uint8_t>> functionBytes(llvm::MemoryBufferRef object,
                                                   llvm::StringRef symbol);

/// Disassembles `symbol` in `object`, with the triple taken from the object
/// file; addresses are the symbol's own. `cpu` selects the scheduling model
/// the LLVM backend reads (DecodedInst::modelLatency).
llvm::Expected<std::vector<DecodedInst>>
disassembleFunction(llvm::MemoryBufferRef object, llvm::StringRef symbol,
                    llvm::StringRef features,
                    DisasmBackend backend = DisasmBackend::Auto,
                    llvm::StringRef cpu = "");

/// One function of an object, decoded.
struct DecodedFunction {
  std::string name;
  uint64_t address = 0;
  std::vector<DecodedInst> insts;
};

/// Disassembles `symbol` and every function of `object` it calls directly or
/// through those, each once, `symbol` first: the code a call of `symbol`
/// runs when the compiler gave parts of it functions of their own
/// (-tisa-outline-kernels). Calls resolved only by a relocation (into
/// another object) are not followed.
llvm::Expected<std::vector<DecodedFunction>>
disassembleWithCallees(llvm::MemoryBufferRef object, llvm::StringRef symbol,
                       llvm::StringRef features,
                       DisasmBackend backend = DisasmBackend::Auto,
                       llvm::StringRef cpu = "");

/// Success if some instruction in `insts` has mnemonic `mnemonic`; otherwise
/// an error that lists the distinct mnemonics seen, in order.
llvm::Error expectMnemonic(llvm::ArrayRef<DecodedInst> insts,
                           llvm::StringRef mnemonic);

/// The target of a direct jump as LLVM prints it (x86 jumps; aarch64 b,
/// b.cond, cbz, cbnz, tbz, tbnz; not calls): an address, or a signed
/// displacement from the next instruction; nullopt for anything else.
std::optional<uint64_t> branchTarget(const DecodedInst &in);
/// The target of a direct call (x86 call, aarch64 bl) as branchTarget reads
/// a jump's; nullopt for anything else.
std::optional<uint64_t> callTarget(const DecodedInst &in);
/// All loops of a decoded function: [first, last] instruction index ranges
/// from a backward branch's target to the last backward branch to it.
std::vector<std::pair<size_t, size_t>>
allLoops(llvm::ArrayRef<DecodedInst> insts);
/// The loops that contain no other loop.
std::vector<std::pair<size_t, size_t>>
innermostLoops(llvm::ArrayRef<DecodedInst> insts);

} // namespace tisa

#endif // TISA_TARGETS_DISASSEMBLER_H
