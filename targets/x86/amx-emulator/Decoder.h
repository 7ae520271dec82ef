//===- Decoder.h - decode VEX-encoded AMX instructions ----------*- C++ -*-===//
//
// Pure decoding, no machine state: turns the bytes at a faulting RIP into an
// AMX instruction with its tile registers and memory operand, or says that
// the bytes are not AMX (so the SIGILL belongs to somebody else), or that
// they are AMX but cannot be emulated (with the reason).
//
// Encodings (Intel SDM; all VEX.128.0F38.W0, 3-byte VEX only):
//   49 NP  !(11):000:bbb  ldtilecfg m512      49 66 !(11):000:bbb sttilecfg
//   49 NP  C0             tilerelease         49 F2 11:rrr:000    tilezero
//   4B F2  !(11):rrr:100  tileloadd           4B 66 !(11):rrr:100 tileloaddt1
//   4B F3  !(11):rrr:100  tilestored
//   5E F2/F3/66/NP 11:rrr:bbb tdpbssd/tdpbsud/tdpbusd/tdpbuud
//   5C F3/F2       11:rrr:bbb tdpbf16ps/tdpfp16ps
// with tmm1 = ModRM.reg, tmm2 = ModRM.rm, tmm3 = VEX.vvvv.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_X86_AMXEMULATOR_DECODER_H
#define TISA_TARGETS_X86_AMXEMULATOR_DECODER_H

#include <cstddef>
#include <cstdint>

namespace tisa::amx::detail {

enum class Opcode : uint8_t {
  Ldtilecfg,
  Sttilecfg,
  Tileloadd,
  Tileloaddt1,
  Tilestored,
  Tilezero,
  Tilerelease,
  Tdpbssd,
  Tdpbsud,
  Tdpbusd,
  Tdpbuud,
  Tdpbf16ps,
  Tdpfp16ps,
};
constexpr unsigned kNumOpcodes = unsigned(Opcode::Tdpfp16ps) + 1;

/// Lower-case Intel mnemonic.
const char *getMnemonic(Opcode op);

/// x86-64 general register numbers as encoded (REX/VEX extension included).
enum : int8_t {
  kRAX = 0,
  kRCX,
  kRDX,
  kRBX,
  kRSP,
  kRBP,
  kRSI,
  kRDI,
  kR8,
  kR15 = 15,
  kNoReg = -1,
};

enum class Segment : uint8_t { Default, FS, GS };

/// base + (index << scaleLog2) + disp, or rip_next + disp when ripRelative.
/// For tileloadd/tilestored the index register is the row stride instead.
struct MemOperand {
  int8_t base = kNoReg;
  int8_t index = kNoReg;
  uint8_t scaleLog2 = 0;
  bool ripRelative = false;
  /// 0x67 prefix: the address is computed and wrapped in 32 bits.
  bool addressSize32 = false;
  Segment segment = Segment::Default;
  int32_t disp = 0;
};

struct Instruction {
  Opcode opcode = Opcode::Tilerelease;
  uint8_t length = 0;
  /// Tile numbers as encoded, 0..15; the executor rejects >= 8 (#UD).
  uint8_t reg = 0;  // ModRM.reg + VEX.R
  uint8_t rm = 0;   // ModRM.rm + VEX.B (register forms)
  uint8_t vvvv = 0; // VEX.vvvv
  bool hasMemory = false;
  MemOperand mem;
};

enum class DecodeStatus {
  /// Not from the AMX opcode space: pass the SIGILL on.
  NotAMX,
  Ok,
  /// AMX opcode space, but an instruction or form this emulator does not
  /// implement (newer AMX extensions, VEX.L/VEX.W set, ...).
  Unsupported,
  /// A form that raises #UD on AMX hardware too (no SIB, vvvv != 1111, ...).
  Invalid,
};

struct DecodeResult {
  DecodeStatus status = DecodeStatus::NotAMX;
  Instruction inst;
  /// Bytes read so far (the whole instruction when Ok); for diagnostics.
  uint8_t consumed = 0;
  /// Static string saying why for Unsupported and Invalid.
  const char *reason = "";
};

/// Decodes the instruction at `bytes`, reading at most `maxLength` bytes and
/// only as many as needed, in order (so a short non-AMX instruction at the
/// end of a mapping is never read past).
DecodeResult decode(const uint8_t *bytes, size_t maxLength);

} // namespace tisa::amx::detail

#endif // TISA_TARGETS_X86_AMXEMULATOR_DECODER_H
