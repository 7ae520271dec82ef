//===- Decoder.cpp - decode VEX-encoded AMX instructions ------------------===//

#include "Decoder.h"

namespace tisa::amx::detail {
namespace {

constexpr size_t kMaxInstructionLength = 15;
constexpr unsigned kMap0F38 = 2;
constexpr unsigned kMap5 = 5;

// SIMD prefix implied by VEX.pp.
constexpr unsigned kPPNone = 0, kPP66 = 1, kPPF3 = 2, kPPF2 = 3;

/// Opcodes the AMX extensions occupy. Only VEX-encoded instructions with
/// these map/opcode pairs are claimed; every other SIGILL is passed on. The
/// ones outside 49/4B/5C/5E belong to later extensions (AMX-TF32, AMX-MOVRS,
/// AMX-COMPLEX, AMX-TRANSPOSE, AMX-FP8) and are reported, not ignored.
bool isAMXOpcodeSpace(unsigned map, uint8_t opcode) {
  if (map == kMap0F38) {
    switch (opcode) {
    case 0x48:
    case 0x49:
    case 0x4A:
    case 0x4B:
    case 0x5C:
    case 0x5E:
    case 0x5F:
    case 0x6B:
    case 0x6C:
    case 0x6E:
    case 0x6F:
      return true;
    default:
      return false;
    }
  }
  return map == kMap5 && (opcode == 0xF8 || opcode == 0xF9 || opcode == 0xFD);
}

DecodeResult fail(DecodeStatus status, size_t consumed, const char *reason) {
  DecodeResult result;
  result.status = status;
  result.consumed = uint8_t(consumed);
  result.reason = reason;
  return result;
}

} // namespace

const char *getMnemonic(Opcode op) {
  switch (op) {
  case Opcode::Ldtilecfg:
    return "ldtilecfg";
  case Opcode::Sttilecfg:
    return "sttilecfg";
  case Opcode::Tileloadd:
    return "tileloadd";
  case Opcode::Tileloaddt1:
    return "tileloaddt1";
  case Opcode::Tilestored:
    return "tilestored";
  case Opcode::Tilezero:
    return "tilezero";
  case Opcode::Tilerelease:
    return "tilerelease";
  case Opcode::Tdpbssd:
    return "tdpbssd";
  case Opcode::Tdpbsud:
    return "tdpbsud";
  case Opcode::Tdpbusd:
    return "tdpbusd";
  case Opcode::Tdpbuud:
    return "tdpbuud";
  case Opcode::Tdpbf16ps:
    return "tdpbf16ps";
  case Opcode::Tdpfp16ps:
    return "tdpfp16ps";
  }
  return "<unknown>";
}

DecodeResult decode(const uint8_t *bytes, size_t maxLength) {
  if (maxLength > kMaxInstructionLength)
    maxLength = kMaxInstructionLength;
  size_t pos = 0;
  Segment segment = Segment::Default;
  bool addressSize32 = false;
  bool illegalPrefix = false;

  // Legacy prefixes. Segment overrides other than FS/GS are ignored in
  // 64-bit mode; 66/F2/F3/LOCK/REX in front of VEX make the instruction #UD.
  for (;; ++pos) {
    if (pos >= maxLength)
      return fail(DecodeStatus::NotAMX, pos, "");
    uint8_t b = bytes[pos];
    if (b == 0x64)
      segment = Segment::FS;
    else if (b == 0x65)
      segment = Segment::GS;
    else if (b == 0x26 || b == 0x2E || b == 0x36 || b == 0x3E)
      continue;
    else if (b == 0x67)
      addressSize32 = true;
    else if (b == 0x66 || b == 0xF2 || b == 0xF3 || b == 0xF0 ||
             (b & 0xF0) == 0x40)
      illegalPrefix = true;
    else
      break;
  }

  // The AMX instructions need map 0F38, which only the 3-byte VEX form has.
  if (bytes[pos] != 0xC4 || pos + 3 >= maxLength)
    return fail(DecodeStatus::NotAMX, pos, "");
  uint8_t p1 = bytes[pos + 1];
  uint8_t p2 = bytes[pos + 2];
  uint8_t opcode = bytes[pos + 3];
  unsigned map = p1 & 0x1F;
  if (!isAMXOpcodeSpace(map, opcode))
    return fail(DecodeStatus::NotAMX, pos, "");
  pos += 4;

  // VEX stores R, X, B and vvvv inverted.
  unsigned r = (p1 & 0x80) ? 0 : 8;
  unsigned x = (p1 & 0x40) ? 0 : 8;
  unsigned b = (p1 & 0x20) ? 0 : 8;
  bool w = p2 & 0x80;
  unsigned vvvv = (~p2 >> 3) & 0xF;
  bool l = p2 & 0x04;
  unsigned pp = p2 & 0x3;

  if (map != kMap0F38 || opcode == 0x48 || opcode == 0x4A || opcode >= 0x5F)
    return fail(DecodeStatus::Unsupported, pos,
                "AMX instruction from an extension the emulator does not "
                "implement (AMX-TF32/MOVRS/COMPLEX/TRANSPOSE/FP8)");
  if (pos >= maxLength)
    return fail(DecodeStatus::Invalid, pos, "instruction longer than 15 bytes");
  uint8_t modrm = bytes[pos++];
  unsigned mod = modrm >> 6;
  unsigned regField = ((modrm >> 3) & 7) | r;
  unsigned rmField = modrm & 7;
  bool isRegForm = mod == 3;

  Instruction inst;
  inst.reg = regField;
  inst.rm = rmField | b;
  inst.vvvv = vvvv;
  bool needsMemory = false, usesVvvv = false;
  switch (opcode) {
  case 0x49:
    if (pp == kPPNone && isRegForm) {
      if (regField != 0 || inst.rm != 0)
        return fail(DecodeStatus::Invalid, pos, "tilerelease needs ModRM C0");
      inst.opcode = Opcode::Tilerelease;
    } else if (pp == kPPNone || pp == kPP66) {
      if (isRegForm || regField != 0)
        return fail(DecodeStatus::Invalid, pos,
                    "ldtilecfg/sttilecfg need a memory operand and reg 000");
      inst.opcode = pp == kPPNone ? Opcode::Ldtilecfg : Opcode::Sttilecfg;
      needsMemory = true;
    } else if (pp == kPPF2) {
      if (!isRegForm || inst.rm != 0)
        return fail(DecodeStatus::Invalid, pos,
                    "tilezero needs ModRM 11:rrr:000");
      inst.opcode = Opcode::Tilezero;
    } else {
      return fail(DecodeStatus::Unsupported, pos,
                  "unknown AMX opcode F3 0F38 49");
    }
    break;
  case 0x4B:
    if (pp == kPPF2)
      inst.opcode = Opcode::Tileloadd;
    else if (pp == kPP66)
      inst.opcode = Opcode::Tileloaddt1;
    else if (pp == kPPF3)
      inst.opcode = Opcode::Tilestored;
    else
      return fail(DecodeStatus::Unsupported, pos,
                  "unknown AMX opcode NP 0F38 4B");
    if (isRegForm || rmField != 4)
      return fail(DecodeStatus::Invalid, pos,
                  "tile loads and stores need a SIB memory operand");
    needsMemory = true;
    break;
  case 0x5E: {
    static const Opcode byPP[4] = {Opcode::Tdpbuud, Opcode::Tdpbusd,
                                   Opcode::Tdpbsud, Opcode::Tdpbssd};
    inst.opcode = byPP[pp];
    usesVvvv = true;
    break;
  }
  case 0x5C:
    if (pp == kPPF3)
      inst.opcode = Opcode::Tdpbf16ps;
    else if (pp == kPPF2)
      inst.opcode = Opcode::Tdpfp16ps;
    else
      return fail(DecodeStatus::Unsupported, pos,
                  "AMX 0F38 5C with NP/66 prefix is not emulated");
    usesVvvv = true;
    break;
  default:
    return fail(DecodeStatus::Unsupported, pos, "unknown AMX opcode");
  }

  if (illegalPrefix)
    return fail(DecodeStatus::Invalid, pos,
                "66/F2/F3/LOCK/REX prefix in front of VEX");
  if (l)
    return fail(DecodeStatus::Invalid, pos, "VEX.L must be 0");
  if (w)
    return fail(DecodeStatus::Invalid, pos, "VEX.W must be 0");
  if (usesVvvv && !isRegForm)
    return fail(DecodeStatus::Invalid, pos,
                "tile dot products take three tile registers, not memory");
  if (!usesVvvv && vvvv != 0)
    return fail(DecodeStatus::Invalid, pos, "VEX.vvvv must be 1111");

  if (needsMemory) {
    MemOperand &mem = inst.mem;
    mem.segment = segment;
    mem.addressSize32 = addressSize32;
    bool disp32 = mod == 2;
    if (rmField == 4) {
      if (pos >= maxLength)
        return fail(DecodeStatus::Invalid, pos,
                    "instruction longer than 15 bytes");
      uint8_t sib = bytes[pos++];
      unsigned index = ((sib >> 3) & 7) | x;
      unsigned base = sib & 7;
      mem.scaleLog2 = sib >> 6;
      // Index 100 without VEX.X means no index (and, for tile loads and
      // stores, a stride of 0).
      mem.index = index == 4 ? int8_t(kNoReg) : int8_t(index);
      if (base == 5 && mod == 0)
        disp32 = true;
      else
        mem.base = int8_t(base | b);
    } else if (rmField == 5 && mod == 0) {
      mem.ripRelative = true;
      disp32 = true;
    } else {
      mem.base = int8_t(rmField | b);
    }
    if (mod == 1) {
      if (pos >= maxLength)
        return fail(DecodeStatus::Invalid, pos,
                    "instruction longer than 15 bytes");
      mem.disp = int8_t(bytes[pos++]);
    } else if (disp32) {
      if (pos + 4 > maxLength)
        return fail(DecodeStatus::Invalid, pos,
                    "instruction longer than 15 bytes");
      uint32_t d = uint32_t(bytes[pos]) | uint32_t(bytes[pos + 1]) << 8 |
                   uint32_t(bytes[pos + 2]) << 16 |
                   uint32_t(bytes[pos + 3]) << 24;
      mem.disp = int32_t(d);
      pos += 4;
    }
    inst.hasMemory = true;
  }
  inst.length = uint8_t(pos);

  DecodeResult result;
  result.status = DecodeStatus::Ok;
  result.consumed = inst.length;
  result.inst = inst;
  return result;
}

} // namespace tisa::amx::detail
