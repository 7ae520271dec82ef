//===- DisassemblerTest.cpp - tisa::Disassembler on real encodings -------===//
//
// Every encoding here is one llvm-mc 22 emits: the objects in Inputs/ are
// assembled at build time, and the few literal byte strings were printed by
// `llvm-mc -show-encoding` (the assembly is next to each).
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/Disassembler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

using namespace llvm;
using namespace tisa;

namespace {

constexpr const char *kX86Triple = "x86_64-unknown-linux-gnu";
constexpr const char *kAArch64Triple = "aarch64-linux-gnu";
constexpr const char *kX86Features =
    "+avx512f,+avx512vl,+avx512vnni,+avxvnni,+avx512bf16,+amx-tile,+amx-int8,"
    "+amx-bf16,+amx-fp16";
constexpr const char *kAArch64Features = "+sve,+i8mm,+bf16,+dotprod";

/// An input object assembled at build time; fails the test if missing.
std::unique_ptr<MemoryBuffer> loadInput(StringRef name) {
  std::string path = std::string(TISA_DISASM_TEST_INPUTS) + "/" + name.str();
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buffer)) << "cannot read " << path;
  return buffer ? std::move(*buffer) : nullptr;
}

/// The value of `e`, or a failed test and `T()` with the error printed.
template <typename T> T take(Expected<T> e) {
  if (!e) {
    ADD_FAILURE() << toString(e.takeError());
    return T();
  }
  return std::move(*e);
}

std::string errorText(Error e) {
  EXPECT_TRUE(bool(e)) << "expected an error";
  return toString(std::move(e));
}

std::unique_ptr<Disassembler> make(StringRef triple, StringRef features,
                                   DisasmBackend backend) {
  return take(Disassembler::create(triple, "", features, backend));
}

std::vector<std::string> mnemonicsOf(ArrayRef<DecodedInst> insts) {
  std::vector<std::string> result;
  for (const DecodedInst &inst : insts)
    result.push_back(inst.mnemonic);
  return result;
}

/// Major version of the Capstone linked in, 0 without one.
int capstoneMajor() {
  if (!isCapstoneAvailable())
    return 0;
  return std::stoi(capstoneVersion().split('.').first.str());
}

//===----------------------------------------------------------------------===//
// Each tensor instruction, as a one-instruction function followed by `ret`.
//===----------------------------------------------------------------------===//

struct Case {
  const char *object;
  const char *symbol;
  const char *mnemonic;
  const char *features;
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
  return os << c.symbol;
}

const Case kX86Cases[] = {
    {"x86_64.o", "vpdpbusd_zmm", "vpdpbusd", kX86Features},
    {"x86_64.o", "vpdpbusd_ymm", "vpdpbusd", kX86Features},
    {"x86_64.o", "vpdpbusd_xmm", "vpdpbusd", kX86Features},
    {"x86_64.o", "vpdpbusd_vex_ymm", "vpdpbusd", kX86Features},
    {"x86_64.o", "vpdpbusds_zmm", "vpdpbusds", kX86Features},
    {"x86_64.o", "vpdpwssd_zmm", "vpdpwssd", kX86Features},
    {"x86_64.o", "vdpbf16ps_zmm", "vdpbf16ps", kX86Features},
    {"x86_64.o", "tdpbssd", "tdpbssd", kX86Features},
    {"x86_64.o", "tdpbsud", "tdpbsud", kX86Features},
    {"x86_64.o", "tdpbusd", "tdpbusd", kX86Features},
    {"x86_64.o", "tdpbuud", "tdpbuud", kX86Features},
    {"x86_64.o", "tdpbf16ps", "tdpbf16ps", kX86Features},
    {"x86_64.o", "tdpfp16ps", "tdpfp16ps", kX86Features},
    {"x86_64.o", "tileloadd", "tileloadd", kX86Features},
    {"x86_64.o", "tilestored", "tilestored", kX86Features},
    {"x86_64.o", "ldtilecfg", "ldtilecfg", kX86Features},
};

const Case kAArch64Cases[] = {
    {"aarch64.o", "neon_sdot", "sdot", kAArch64Features},
    {"aarch64.o", "neon_udot", "udot", kAArch64Features},
    {"aarch64.o", "neon_sdot_lane", "sdot", kAArch64Features},
    {"aarch64.o", "neon_usdot", "usdot", kAArch64Features},
    {"aarch64.o", "neon_smmla", "smmla", kAArch64Features},
    {"aarch64.o", "neon_ummla", "ummla", kAArch64Features},
    {"aarch64.o", "neon_usmmla", "usmmla", kAArch64Features},
    {"aarch64.o", "neon_bfmmla", "bfmmla", kAArch64Features},
    {"aarch64.o", "neon_bfdot", "bfdot", kAArch64Features},
    {"aarch64.o", "sve_sdot", "sdot", kAArch64Features},
    {"aarch64.o", "sve_udot", "udot", kAArch64Features},
    {"aarch64.o", "sve_smmla", "smmla", kAArch64Features},
    {"aarch64.o", "sve_ummla", "ummla", kAArch64Features},
    {"aarch64.o", "sve_bfmmla", "bfmmla", kAArch64Features},
    {"aarch64.o", "sve_bfdot", "bfdot", kAArch64Features},
};

class TensorInstruction : public ::testing::TestWithParam<Case> {
protected:
  std::vector<DecodedInst> decode(DisasmBackend backend, const char *features) {
    const Case &c = GetParam();
    std::unique_ptr<MemoryBuffer> object = loadInput(c.object);
    if (!object)
      return {};
    return take(disassembleFunction(object->getMemBufferRef(), c.symbol,
                                    features, backend));
  }
};

TEST_P(TensorInstruction, LLVMNamesIt) {
  std::vector<DecodedInst> insts =
      decode(DisasmBackend::LLVM, GetParam().features);
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_EQ(insts[0].mnemonic, GetParam().mnemonic) << insts[0].text;
  EXPECT_EQ(insts[1].mnemonic, "ret");
  EXPECT_FALSE(errorToBool(expectMnemonic(insts, GetParam().mnemonic)));
}

// llvm-objdump's habit: no features means all of them, so a caller that does
// not know the kernel's features still sees SVE and i8mm.
TEST_P(TensorInstruction, LLVMNamesItWithoutFeatures) {
  std::vector<DecodedInst> insts = decode(DisasmBackend::LLVM, "");
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_EQ(insts[0].mnemonic, GetParam().mnemonic) << insts[0].text;
}

// Auto is LLVM here, or Capstone with per-instruction LLVM fallback when
// Capstone >= 5: either way the tensor instruction must be named.
TEST_P(TensorInstruction, AutoNamesIt) {
  std::vector<DecodedInst> insts =
      decode(DisasmBackend::Auto, GetParam().features);
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_EQ(insts[0].mnemonic, GetParam().mnemonic) << insts[0].text;
  EXPECT_EQ(insts[1].mnemonic, "ret");
}

// Records what Capstone makes of each tensor instruction. Measured with
// Debian 12's 4.0.2: nothing decodes, so every one is "<invalid>", and the
// `ret` after it still decodes at the right address because LLVM supplies the
// instruction's length. A newer Capstone may name it, but never wrongly.
TEST_P(TensorInstruction, CapstoneMeasured) {
  if (!isCapstoneAvailable())
    GTEST_SKIP() << "tisa was built without capstone";
  std::vector<DecodedInst> insts =
      decode(DisasmBackend::Capstone, GetParam().features);
  ASSERT_EQ(insts.size(), 2u);
  RecordProperty("capstone_version", capstoneVersion().str());
  RecordProperty("capstone_mnemonic", insts[0].mnemonic);
  if (capstoneMajor() < 5)
    EXPECT_EQ(insts[0].mnemonic, kInvalidMnemonic) << insts[0].text;
  else
    EXPECT_TRUE(insts[0].mnemonic == kInvalidMnemonic ||
                insts[0].mnemonic == GetParam().mnemonic)
        << insts[0].text;
  EXPECT_EQ(insts[1].mnemonic, "ret");
  EXPECT_EQ(insts[1].address, insts[0].address + insts[0].size);
}

INSTANTIATE_TEST_SUITE_P(X86, TensorInstruction,
                         ::testing::ValuesIn(kX86Cases));
INSTANTIATE_TEST_SUITE_P(AArch64, TensorInstruction,
                         ::testing::ValuesIn(kAArch64Cases));

//===----------------------------------------------------------------------===//
// Raw bytes through Disassembler::disassemble.
//===----------------------------------------------------------------------===//

TEST(LLVMBackend, DecodesAStreamWithAddresses) {
  std::unique_ptr<Disassembler> d =
      make(kX86Triple, kX86Features, DisasmBackend::LLVM);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->backendName(), "llvm");
  const uint8_t bytes[] = {
      0x62, 0xf2, 0x75, 0x48, 0x50, 0xc2, // vpdpbusd %zmm2, %zmm1, %zmm0
      0xc4, 0xe2, 0x7b, 0x4b, 0x0c, 0x16, // tileloadd (%rsi,%rdx), %tmm1
      0xc4, 0xe2, 0x6b, 0x5e, 0xc1,       // tdpbssd %tmm2, %tmm1, %tmm0
      0xc3,                               // retq
  };
  std::vector<DecodedInst> insts = d->disassemble(bytes, 0x1000);
  ASSERT_EQ(insts.size(), 4u);
  EXPECT_EQ(insts[0].address, 0x1000u);
  EXPECT_EQ(insts[0].size, 6u);
  EXPECT_EQ(insts[0].text, "vpdpbusd %zmm2, %zmm1, %zmm0");
  EXPECT_EQ(insts[1].address, 0x1006u);
  EXPECT_EQ(insts[1].text, "tileloadd (%rsi,%rdx), %tmm1");
  EXPECT_EQ(insts[2].address, 0x100cu);
  EXPECT_EQ(insts[2].size, 5u);
  EXPECT_EQ(insts[3].address, 0x1011u);
  EXPECT_EQ(
      mnemonicsOf(insts),
      (std::vector<std::string>{"vpdpbusd", "tileloadd", "tdpbssd", "ret"}));
}

// AT&T text keeps its size suffix; the mnemonic is the suffix-free one, and
// prefixes are not the mnemonic. LLVM decodes a lock prefix as an instruction
// of its own ("lock", 1 byte), as llvm-mc --disassemble shows.
TEST(LLVMBackend, MnemonicHasNoSuffixOrPrefix) {
  std::unique_ptr<Disassembler> d = make(kX86Triple, "", DisasmBackend::LLVM);
  ASSERT_TRUE(d);
  const uint8_t bytes[] = {
      0x48, 0x01, 0xf7,             // addq %rsi, %rdi
      0xf0, 0x48, 0x01, 0x37,       // lock addq %rsi, (%rdi)
      0xf3, 0xa4,                   // rep movsb (%rsi), %es:(%rdi)
      0xc4, 0xe2, 0x75, 0x50, 0xc2, // {vex} vpdpbusd %ymm2, %ymm1, %ymm0
  };
  std::vector<DecodedInst> insts = d->disassemble(bytes);
  ASSERT_EQ(insts.size(), 5u);
  EXPECT_EQ(insts[0].text, "addq %rsi, %rdi");
  EXPECT_EQ(insts[1].text, "lock");
  EXPECT_EQ(insts[1].size, 1u);
  EXPECT_EQ(insts[2].text, "addq %rsi, (%rdi)");
  EXPECT_EQ(insts[3].text, "rep movsb (%rsi), %es:(%rdi)");
  EXPECT_EQ(insts[4].text, "{vex} vpdpbusd %ymm2, %ymm1, %ymm0");
  EXPECT_EQ(
      mnemonicsOf(insts),
      (std::vector<std::string>{"add", "lock", "add", "movsb", "vpdpbusd"}));
}

TEST(LLVMBackend, InvalidBytesResync) {
  std::unique_ptr<Disassembler> d = make(kX86Triple, "", DisasmBackend::LLVM);
  ASSERT_TRUE(d);
  // 0x06 (push %es) does not exist in 64-bit mode.
  const uint8_t bytes[] = {0x06, 0xc3};
  std::vector<DecodedInst> insts = d->disassemble(bytes, 0x10);
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_EQ(insts[0].mnemonic, kInvalidMnemonic);
  EXPECT_EQ(insts[0].size, 1u);
  EXPECT_EQ(insts[0].text, "<invalid> 06");
  EXPECT_EQ(insts[1].mnemonic, "ret");
  EXPECT_EQ(insts[1].address, 0x11u);
}

// x86 branches count from the next instruction: a loop's head is where the
// backward branch says (the kernel tests find loops this way).
TEST(LLVMBackend, X86BranchTargetsAreAddresses) {
  std::unique_ptr<Disassembler> d = make(kX86Triple, "", DisasmBackend::LLVM);
  ASSERT_TRUE(d);
  const uint8_t bytes[] = {
      0x90,                               // 0x100: nop
      0x0f, 0x85, 0xf9, 0xff, 0xff, 0xff, // 0x101: jne 0x100 (rel32 -7)
      0x75, 0xf7,                         // 0x107: jne 0x100 (rel8 -9)
      0xe8, 0x00, 0x00, 0x00, 0x00,       // 0x109: callq 0x10e (rel32 0)
  };
  std::vector<DecodedInst> insts = d->disassemble(bytes, 0x100);
  ASSERT_EQ(insts.size(), 4u);
  EXPECT_EQ(insts[1].text, "jne 0x100");
  EXPECT_EQ(insts[2].text, "jne 0x100");
  EXPECT_EQ(insts[3].text, "callq 0x10e");
}

TEST(LLVMBackend, AArch64WithoutTheFeatureIsInvalid) {
  // Explicit features are honoured: SVE smmla without +sve,+i8mm is not an
  // instruction, which is how a wrongly targeted kernel shows up.
  std::unique_ptr<Disassembler> d =
      make(kAArch64Triple, "+neon", DisasmBackend::LLVM);
  ASSERT_TRUE(d);
  const uint8_t bytes[] = {
      0x20, 0x98, 0x02, 0x45, // smmla z0.s, z1.b, z2.b
      0xc0, 0x03, 0x5f, 0xd6, // ret
  };
  std::vector<DecodedInst> insts = d->disassemble(bytes);
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_EQ(insts[0].mnemonic, kInvalidMnemonic);
  EXPECT_EQ(insts[0].size, 4u);
  EXPECT_EQ(insts[1].mnemonic, "ret");
}

TEST(LLVMBackend, AArch64Text) {
  std::unique_ptr<Disassembler> d =
      make(kAArch64Triple, kAArch64Features, DisasmBackend::LLVM);
  ASSERT_TRUE(d);
  const uint8_t bytes[] = {
      0x20, 0xe0, 0xa2, 0x4f, // sdot v0.4s, v1.16b, v2.4b[1]
      0x20, 0xe4, 0x62, 0x64, // bfmmla z0.s, z1.h, z2.h
  };
  std::vector<DecodedInst> insts = d->disassemble(bytes);
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_EQ(insts[0].text, "sdot v0.4s, v1.16b, v2.4b[1]");
  EXPECT_EQ(insts[1].text, "bfmmla z0.s, z1.h, z2.h");
}

TEST(Create, UnknownTripleIsAnError) {
  std::string message = errorText(
      Disassembler::create("nosucharch-linux", "", "", DisasmBackend::LLVM)
          .takeError());
  EXPECT_NE(message.find("nosucharch"), std::string::npos) << message;
}

TEST(Create, AutoBackend) {
  std::unique_ptr<Disassembler> d = make(kX86Triple, "", DisasmBackend::Auto);
  ASSERT_TRUE(d);
#ifdef TISA_CAPSTONE_PREFERRED
  EXPECT_EQ(d->backendName(), "capstone+llvm");
#else
  // Capstone < 5 (Debian 12 has 4.0.2) is never preferred.
  EXPECT_EQ(d->backendName(), "llvm");
  EXPECT_LT(capstoneMajor(), 5);
#endif
}

//===----------------------------------------------------------------------===//
// Capstone: plain instructions decode; what it cannot decode is "<invalid>".
//===----------------------------------------------------------------------===//

TEST(CapstoneBackend, DecodesPlainInstructions) {
  if (!isCapstoneAvailable())
    GTEST_SKIP() << "tisa was built without capstone";
  std::unique_ptr<Disassembler> d =
      make(kX86Triple, "", DisasmBackend::Capstone);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->backendName(), "capstone");
  const uint8_t bytes[] = {
      0x62, 0xf1, 0x75, 0x48, 0xfe, 0xc2, // vpaddd %zmm2, %zmm1, %zmm0
      0x48, 0x01, 0xf7,                   // addq %rsi, %rdi
      0xc3,                               // retq
  };
  std::vector<DecodedInst> insts = d->disassemble(bytes, 0x40);
  ASSERT_EQ(insts.size(), 3u);
  EXPECT_EQ(mnemonicsOf(insts),
            (std::vector<std::string>{"vpaddd", "add", "ret"}));
  EXPECT_EQ(insts[0].text, "vpaddd %zmm2, %zmm1, %zmm0");
  EXPECT_EQ(insts[1].text, "addq %rsi, %rdi");
  EXPECT_EQ(insts[1].address, 0x46u);
  EXPECT_EQ(insts[2].address, 0x49u);
}

TEST(CapstoneBackend, DecodesPlainAArch64) {
  if (!isCapstoneAvailable())
    GTEST_SKIP() << "tisa was built without capstone";
  std::unique_ptr<MemoryBuffer> object = loadInput("aarch64.o");
  ASSERT_TRUE(object);
  std::vector<DecodedInst> insts = take(disassembleFunction(
      object->getMemBufferRef(), "a64_add", "", DisasmBackend::Capstone));
  EXPECT_EQ(mnemonicsOf(insts), (std::vector<std::string>{"add", "ret"}));
}

TEST(CapstoneBackend, AgreesWithLLVMOnPlainInstructions) {
  if (!isCapstoneAvailable())
    GTEST_SKIP() << "tisa was built without capstone";
  std::unique_ptr<MemoryBuffer> object = loadInput("x86_64.o");
  ASSERT_TRUE(object);
  for (const char *symbol : {"vpaddd_zmm", "add"}) {
    std::vector<DecodedInst> viaCapstone = take(disassembleFunction(
        object->getMemBufferRef(), symbol, "", DisasmBackend::Capstone));
    std::vector<DecodedInst> viaLLVM = take(disassembleFunction(
        object->getMemBufferRef(), symbol, "", DisasmBackend::LLVM));
    EXPECT_EQ(mnemonicsOf(viaCapstone), mnemonicsOf(viaLLVM)) << symbol;
  }
}

TEST(CapstoneBackend, RejectsOtherArchitectures) {
  if (!isCapstoneAvailable())
    GTEST_SKIP() << "tisa was built without capstone";
  std::string message = errorText(
      Disassembler::create("riscv64-linux-gnu", "", "", DisasmBackend::Capstone)
          .takeError());
  EXPECT_EQ(message, "the capstone backend decodes x86_64 and aarch64, not "
                     "'riscv64-unknown-linux-gnu'");
}

//===----------------------------------------------------------------------===//
// functionBytes and disassembleFunction on ELF objects.
//===----------------------------------------------------------------------===//

TEST(FunctionBytes, SizedFunction) {
  std::unique_ptr<MemoryBuffer> object = loadInput("x86_64.o");
  ASSERT_TRUE(object);
  std::vector<uint8_t> bytes =
      take(functionBytes(object->getMemBufferRef(), "vpdpbusd_zmm"));
  EXPECT_EQ(bytes,
            (std::vector<uint8_t>{0x62, 0xf2, 0x75, 0x48, 0x50, 0xc2, 0xc3}));
}

TEST(FunctionBytes, UnsizedFunctionStopsAtNextSymbol) {
  std::unique_ptr<MemoryBuffer> object = loadInput("x86_64.o");
  ASSERT_TRUE(object);
  // no_size is `vpdpbusd; retq` with no .size; `ud2` after it belongs to the
  // next label.
  std::vector<uint8_t> bytes =
      take(functionBytes(object->getMemBufferRef(), "no_size"));
  EXPECT_EQ(bytes.size(), 7u);
}

TEST(FunctionBytes, MissingSymbolIsNamed) {
  std::unique_ptr<MemoryBuffer> object = loadInput("aarch64.o");
  ASSERT_TRUE(object);
  std::string message = errorText(
      functionBytes(object->getMemBufferRef(), "no_such_kernel").takeError());
  EXPECT_EQ(
      message.rfind("no defined function symbol 'no_such_kernel' in '", 0), 0u)
      << message;
  // The functions present are listed, to spot a typo or mangling.
  size_t list = message.find("; functions: ");
  ASSERT_NE(list, std::string::npos) << message;
  EXPECT_NE(message.find("neon_sdot, neon_udot", list), std::string::npos)
      << message;
}

TEST(FunctionBytes, DataSymbolIsNotAFunction) {
  std::unique_ptr<MemoryBuffer> object = loadInput("x86_64.o");
  ASSERT_TRUE(object);
  std::string message =
      errorText(functionBytes(object->getMemBufferRef(), "table").takeError());
  EXPECT_NE(message.find("symbol 'table' in '"), std::string::npos) << message;
  EXPECT_NE(message.find("' is not a function"), std::string::npos) << message;
}

TEST(FunctionBytes, NotAnObject) {
  std::unique_ptr<MemoryBuffer> buffer =
      MemoryBuffer::getMemBuffer("not an object", "junk.bin");
  std::string message =
      errorText(functionBytes(buffer->getMemBufferRef(), "f").takeError());
  EXPECT_EQ(message.rfind("cannot read object 'junk.bin': ", 0), 0u) << message;
}

// A stripped shared object: only dynamic symbols, and the code sits at a
// non-zero address, which the decoded addresses must carry.
TEST(FunctionBytes, StrippedSharedObject) {
  std::unique_ptr<MemoryBuffer> object = loadInput("x86_64.so");
  ASSERT_TRUE(object);
  std::vector<uint8_t> bytes =
      take(functionBytes(object->getMemBufferRef(), "tdpbssd"));
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0xc4, 0xe2, 0x6b, 0x5e, 0xc1, 0xc3}));
  std::vector<DecodedInst> insts = take(disassembleFunction(
      object->getMemBufferRef(), "tdpbssd", "", DisasmBackend::LLVM));
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_NE(insts[0].address, 0u);
  EXPECT_EQ(insts[1].address, insts[0].address + 5);
  EXPECT_FALSE(errorToBool(expectMnemonic(insts, "tdpbssd")));
}

// An entry and the local functions it calls, each once (the leaf calls the
// piece back), entry first; a call through a relocation (memcpy) is not
// followed, and callTarget names each callee's address.
TEST(DisassembleWithCallees, FollowsLocalCalls) {
  for (auto [input, entry, callees] :
       {std::tuple{"x86_64.o", "outlined_entry",
                   std::vector<std::string>{"piece", "leaf"}},
        std::tuple{"aarch64.o", "a64_outlined_entry",
                   std::vector<std::string>{"a64_piece"}}}) {
    std::unique_ptr<MemoryBuffer> object = loadInput(input);
    ASSERT_TRUE(object);
    std::vector<DecodedFunction> functions = take(disassembleWithCallees(
        object->getMemBufferRef(), entry, "", DisasmBackend::LLVM));
    std::vector<std::string> names;
    for (const DecodedFunction &f : functions)
      names.push_back(f.name);
    std::vector<std::string> expected = {entry};
    llvm::append_range(expected, callees);
    EXPECT_EQ(names, expected) << input;
    ASSERT_EQ(functions.size(), expected.size()) << input;
    // The entry's loop holds the call of the first callee.
    auto loops = innermostLoops(functions[0].insts);
    ASSERT_EQ(loops.size(), 1u) << input;
    std::optional<uint64_t> target;
    for (size_t i = loops[0].first; i <= loops[0].second; ++i)
      if (auto t = callTarget(functions[0].insts[i]))
        target = t;
    EXPECT_EQ(target, functions[1].address) << input;
    EXPECT_EQ(functions[1].insts.front().address, functions[1].address);
    EXPECT_FALSE(errorToBool(expectMnemonic(
        functions.back().insts, llvm::StringRef(input).starts_with("x86")
                                    ? "vpdpbusd"
                                    : "sdot")));
  }
}

TEST(DisassembleWithCallees, MissingEntryIsNamed) {
  std::unique_ptr<MemoryBuffer> object = loadInput("x86_64.o");
  ASSERT_TRUE(object);
  std::string message = errorText(
      disassembleWithCallees(object->getMemBufferRef(), "no_such", "")
          .takeError());
  EXPECT_EQ(message.rfind("no defined function symbol 'no_such' in '", 0), 0u)
      << message;
}

//===----------------------------------------------------------------------===//
// expectMnemonic.
//===----------------------------------------------------------------------===//

TEST(ExpectMnemonic, ListsWhatWasSeen) {
  std::vector<DecodedInst> insts = {
      {0, 6, "vpaddd", "vpaddd %zmm2, %zmm1, %zmm0"},
      {6, 6, "vpmulld", "vpmulld %zmm2, %zmm1, %zmm0"},
      {12, 6, "vpaddd", "vpaddd %zmm2, %zmm1, %zmm0"},
      {18, 1, "<invalid>", "<invalid> 06"},
      {19, 1, "ret", "retq"},
  };
  EXPECT_FALSE(errorToBool(expectMnemonic(insts, "vpmulld")));
  EXPECT_EQ(errorText(expectMnemonic(insts, "vpdpbusd")),
            "expected instruction 'vpdpbusd' not found; 5 instructions "
            "decoded, mnemonics seen: vpaddd, vpmulld, <invalid>, ret");
}

TEST(ExpectMnemonic, EmptyFunction) {
  EXPECT_EQ(errorText(expectMnemonic({}, "sdot")),
            "expected instruction 'sdot' not found; 0 instructions decoded, "
            "mnemonics seen: none");
}

} // namespace

namespace {

/// An aarch64 instruction at `address` (4 bytes), as the decoder gives it.
tisa::DecodedInst inst(uint64_t address, llvm::StringRef mnemonic,
                       llvm::StringRef operands = "") {
  tisa::DecodedInst i;
  i.address = address;
  i.size = 4;
  i.mnemonic = mnemonic.str();
  i.text = (mnemonic + (operands.empty() ? "" : " ") + operands).str();
  return i;
}

} // namespace

// A loop over taps whose border taps skip ahead to the next iteration: two
// backward branches to one header are one loop (with the udot in it), not a
// short loop nested in a long one.
TEST(Loops, LatchesOfOneHeaderAreOneLoop) {
  std::vector<tisa::DecodedInst> code = {
      inst(0x100, "mov"),         // 0
      inst(0x104, "cmp"),         // 1: header
      inst(0x108, "b.hs", "0x104"), // 2: border tap: next iteration
      inst(0x10c, "udot"),        // 3
      inst(0x110, "cmp"),         // 4
      inst(0x114, "b.lo", "0x104"), // 5: latch
      inst(0x118, "ret")};        // 6
  auto loops = tisa::allLoops(code);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0], std::make_pair(size_t(1), size_t(5)));
  EXPECT_EQ(tisa::innermostLoops(code), loops);
  // A loop with another header inside is not innermost.
  code.insert(code.begin() + 4, inst(0x10e, "b.ne", "0x10c"));
  auto inner = tisa::innermostLoops(code);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0], std::make_pair(size_t(3), size_t(4)));
}
