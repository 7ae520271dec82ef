//===- CapstoneDisassembler.cpp - the Capstone second backend ------------===//
//
// What Debian 12's Capstone 4.0.2 decodes, measured on this project's machine
// with the encodings llvm-mc 22 emits (test/unit/disasm/Inputs):
//   x86_64  vpdpbusd zmm/ymm/xmm (EVEX), {vex} vpdpbusd ymm, vpdpbusds,
//           vpdpwssd, vdpbf16ps zmm, tdpbssd/tdpbsud/tdpbusd/tdpbuud,
//           tdpbf16ps, tdpfp16ps, tileloadd, tilestored, ldtilecfg,
//           tilerelease: none (cs_disasm returns 0 instructions).
//           vpaddd zmm, add, ret: decoded.
//   aarch64 NEON sdot/udot (vector and indexed), usdot, smmla/ummla/usmmla,
//           bfmmla, bfdot; SVE sdot/udot/smmla/ummla/bfmmla/bfdot: none.
//           add, ret: decoded.
// Hence LLVM is the decoder that must work, and Capstone is preferred only
// when configure finds version 5 or newer.
//
// Capstone stops at the first byte it cannot decode and, told to skip, skips
// one byte on x86, which lands inside the instruction and decodes garbage
// after it. So LLVM tells how long an undecodable instruction is, and the
// stream stays in sync.
//
//===----------------------------------------------------------------------===//

#include "DisassemblerImpl.h"

#ifdef TISA_HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

using namespace llvm;

namespace tisa {
#ifdef TISA_HAVE_CAPSTONE

bool isCapstoneAvailable() { return true; }

StringRef capstoneVersion() {
  static const std::string version = [] {
    int major = 0, minor = 0;
    cs_version(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
  }();
  return version;
}

namespace detail {
namespace {

class CapstoneDisassembler final : public Disassembler {
public:
  CapstoneDisassembler(csh handle, cs_insn *insn, bool isX86,
                       std::unique_ptr<LLVMDisassembler> llvmDecoder,
                       bool llvmFallback)
      : handle(handle), insn(insn), isX86(isX86),
        llvmDecoder(std::move(llvmDecoder)), llvmFallback(llvmFallback) {}

  ~CapstoneDisassembler() override {
    cs_free(insn, 1);
    cs_close(&handle);
  }

  StringRef backendName() const override {
    return llvmFallback ? "capstone+llvm" : "capstone";
  }

  std::vector<DecodedInst> disassemble(ArrayRef<uint8_t> bytes,
                                       uint64_t address) const override {
    std::vector<DecodedInst> result;
    while (!bytes.empty()) {
      const uint8_t *code = bytes.data();
      size_t remaining = bytes.size();
      uint64_t next = address;
      if (cs_disasm_iter(handle, &code, &remaining, &next, insn)) {
        result.push_back(fromCapstone());
      } else {
        DecodedInst viaLLVM = llvmDecoder->decodeOne(bytes, address);
        if (!llvmFallback)
          viaLLVM = makeInvalid(bytes.take_front(viaLLVM.size), address);
        result.push_back(std::move(viaLLVM));
      }
      unsigned size = result.back().size;
      bytes = bytes.drop_front(size);
      address += size;
    }
    return result;
  }

private:
  DecodedInst fromCapstone() const {
    DecodedInst d;
    d.address = insn->address;
    d.size = insn->size;
    d.text = normalizeAsmText(std::string(insn->mnemonic) + " " + insn->op_str);
    // The handle prints AT&T on x86, whose mnemonics carry size suffixes; the
    // instruction id's name is the suffix-free one ("add" for "addq").
    const char *name = isX86 ? cs_insn_name(handle, insn->id) : nullptr;
    d.mnemonic = mnemonicFromAsmText(name ? name : insn->mnemonic);
    return d;
  }

  csh handle;
  cs_insn *insn; // One reusable slot for cs_disasm_iter.
  bool isX86;
  std::unique_ptr<LLVMDisassembler> llvmDecoder;
  bool llvmFallback;
};

} // namespace

Expected<std::unique_ptr<Disassembler>>
createCapstoneDisassembler(const Triple &triple, StringRef cpu,
                           StringRef features, bool llvmFallback) {
  cs_arch arch;
  cs_mode mode;
  switch (triple.getArch()) {
  case Triple::x86_64:
    arch = CS_ARCH_X86;
    mode = CS_MODE_64;
    break;
  case Triple::aarch64:
#if CS_API_MAJOR >= 6
    arch = CS_ARCH_AARCH64; // Renamed from ARM64 in Capstone 6.
#else
    arch = CS_ARCH_ARM64;
#endif
    mode = CS_MODE_LITTLE_ENDIAN;
    break;
  default:
    return createStringError("the capstone backend decodes x86_64 and aarch64, "
                             "not '%s'",
                             triple.str().c_str());
  }

  Expected<std::unique_ptr<LLVMDisassembler>> llvmDecoder =
      LLVMDisassembler::create(triple, cpu, features);
  if (!llvmDecoder)
    return llvmDecoder.takeError();

  csh handle;
  if (cs_err err = cs_open(arch, mode, &handle))
    return createStringError("capstone cannot open '%s': %s",
                             triple.str().c_str(), cs_strerror(err));
  if (arch == CS_ARCH_X86) {
    // Same syntax as the LLVM backend's text.
    if (cs_err err = cs_option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT)) {
      cs_close(&handle);
      return createStringError("capstone has no at&t syntax: %s",
                               cs_strerror(err));
    }
  }
  cs_insn *insn = cs_malloc(handle);
  if (!insn) {
    cs_close(&handle);
    return createStringError("capstone could not allocate an instruction");
  }
  return std::make_unique<CapstoneDisassembler>(
      handle, insn, arch == CS_ARCH_X86, std::move(*llvmDecoder), llvmFallback);
}

} // namespace detail

#else // !TISA_HAVE_CAPSTONE

bool isCapstoneAvailable() { return false; }
StringRef capstoneVersion() { return ""; }

namespace detail {
Expected<std::unique_ptr<Disassembler>>
createCapstoneDisassembler(const Triple &, StringRef, StringRef, bool) {
  return createStringError("tisa was built without capstone");
}
} // namespace detail

#endif // TISA_HAVE_CAPSTONE
} // namespace tisa
