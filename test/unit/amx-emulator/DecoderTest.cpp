//===- DecoderTest.cpp - AMX instruction decoding -------------------------===//
//
// Byte sequences are llvm-mc-22 -show-encoding output for the instruction in
// each comment, plus hand-made invalid forms.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"

#include "gtest/gtest.h"

#include <vector>

using namespace tisa::amx::detail;

namespace {

DecodeResult decodeBytes(const std::vector<uint8_t> &bytes) {
  return decode(bytes.data(), bytes.size());
}

struct Expected {
  Opcode opcode;
  unsigned length;
  unsigned reg, rm, vvvv;
};

void expectOk(const std::vector<uint8_t> &bytes, Expected e) {
  DecodeResult r = decodeBytes(bytes);
  ASSERT_EQ(r.status, DecodeStatus::Ok) << r.reason;
  EXPECT_EQ(r.inst.opcode, e.opcode) << getMnemonic(r.inst.opcode);
  EXPECT_EQ(r.inst.length, e.length);
  EXPECT_EQ(r.inst.reg, e.reg);
  EXPECT_EQ(r.inst.rm, e.rm);
  EXPECT_EQ(r.inst.vvvv, e.vvvv);
}

TEST(AMXDecoder, DotProducts) {
  // tdpbssd %tmm2, %tmm1, %tmm0: tmm1 = reg, tmm2 = rm, tmm3 = vvvv.
  expectOk({0xc4, 0xe2, 0x6b, 0x5e, 0xc1}, {Opcode::Tdpbssd, 5, 0, 1, 2});
  expectOk({0xc4, 0xe2, 0x52, 0x5e, 0xdc}, {Opcode::Tdpbsud, 5, 3, 4, 5});
  expectOk({0xc4, 0xe2, 0x69, 0x5e, 0xc1}, {Opcode::Tdpbusd, 5, 0, 1, 2});
  expectOk({0xc4, 0xe2, 0x68, 0x5e, 0xc1}, {Opcode::Tdpbuud, 5, 0, 1, 2});
  expectOk({0xc4, 0xe2, 0x42, 0x5c, 0xee}, {Opcode::Tdpbf16ps, 5, 5, 6, 7});
  expectOk({0xc4, 0xe2, 0x6b, 0x5c, 0xc1}, {Opcode::Tdpfp16ps, 5, 0, 1, 2});
}

TEST(AMXDecoder, ConfigurationAndZeroing) {
  expectOk({0xc4, 0xe2, 0x78, 0x49, 0xc0}, {Opcode::Tilerelease, 5, 0, 0, 0});
  expectOk({0xc4, 0xe2, 0x7b, 0x49, 0xd8}, {Opcode::Tilezero, 5, 3, 0, 0});

  // ldtilecfg (%rdi)
  DecodeResult r = decodeBytes({0xc4, 0xe2, 0x78, 0x49, 0x07});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.opcode, Opcode::Ldtilecfg);
  EXPECT_EQ(r.inst.mem.base, kRDI);
  EXPECT_EQ(r.inst.mem.index, kNoReg);

  // ldtilecfg 64(%r13,%r14): VEX.B and VEX.X, disp8.
  r = decodeBytes({0xc4, 0x82, 0x78, 0x49, 0x44, 0x35, 0x40});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.length, 7u);
  EXPECT_EQ(r.inst.mem.base, 13);
  EXPECT_EQ(r.inst.mem.index, 14);
  EXPECT_EQ(r.inst.mem.disp, 64);

  // sttilecfg 0x7fffffff(%rip)-style RIP-relative operand.
  r = decodeBytes({0xc4, 0xe2, 0x79, 0x49, 0x05, 0xff, 0xff, 0xff, 0x7f});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.opcode, Opcode::Sttilecfg);
  EXPECT_TRUE(r.inst.mem.ripRelative);
  EXPECT_EQ(r.inst.mem.disp, 0x7fffffff);
  EXPECT_EQ(r.inst.length, 9u);
}

TEST(AMXDecoder, TileLoadStoreAddressing) {
  // tileloadd 8(%r8,%r9,4), %tmm7
  DecodeResult r = decodeBytes({0xc4, 0x82, 0x7b, 0x4b, 0x7c, 0x88, 0x08});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.opcode, Opcode::Tileloadd);
  EXPECT_EQ(r.inst.reg, 7u);
  EXPECT_EQ(r.inst.mem.base, kR8);
  EXPECT_EQ(r.inst.mem.index, 9);
  EXPECT_EQ(r.inst.mem.scaleLog2, 2u);
  EXPECT_EQ(r.inst.mem.disp, 8);

  // tileloadd 0x12345(%rsp,%rax,2), %tmm2: disp32.
  r = decodeBytes({0xc4, 0xe2, 0x7b, 0x4b, 0x94, 0x44, 0x45, 0x23, 0x01, 0x00});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.length, 10u);
  EXPECT_EQ(r.inst.mem.base, kRSP);
  EXPECT_EQ(r.inst.mem.index, kRAX);
  EXPECT_EQ(r.inst.mem.scaleLog2, 1u);
  EXPECT_EQ(r.inst.mem.disp, 0x12345);

  // tileloadd (%rbp,%rax,8): base 101 needs mod 01 with disp8 0.
  r = decodeBytes({0xc4, 0xe2, 0x7b, 0x4b, 0x44, 0xc5, 0x00});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.mem.base, kRBP);
  EXPECT_EQ(r.inst.mem.disp, 0);
  EXPECT_EQ(r.inst.length, 7u);

  // tileloadd (%rax): SIB without index, stride 0.
  r = decodeBytes({0xc4, 0xe2, 0x7b, 0x4b, 0x04, 0x20});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.mem.base, kRAX);
  EXPECT_EQ(r.inst.mem.index, kNoReg);

  // tileloadd (%rax,%r12): index field 100 with VEX.X is r12, not "none".
  r = decodeBytes({0xc4, 0xa2, 0x7b, 0x4b, 0x0c, 0x20});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.mem.index, 12);
  EXPECT_EQ(r.inst.reg, 1u);

  // tileloadd (%r13), %tmm1: base r13 with mod 01.
  r = decodeBytes({0xc4, 0xc2, 0x7b, 0x4b, 0x4c, 0x25, 0x00});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.mem.base, 13);
  EXPECT_EQ(r.inst.mem.index, kNoReg);

  // tileloadd (,%rax): no base, disp32.
  r = decodeBytes({0xc4, 0xe2, 0x7b, 0x4b, 0x04, 0x05, 0x00, 0x00, 0x00, 0x00});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.mem.base, kNoReg);
  EXPECT_EQ(r.inst.mem.index, kRAX);
  EXPECT_EQ(r.inst.length, 10u);

  // tileloadd -128(%r15,%rbx,8), %tmm4: negative disp8.
  r = decodeBytes({0xc4, 0xc2, 0x7b, 0x4b, 0x64, 0xdf, 0x80});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.mem.base, kR15);
  EXPECT_EQ(r.inst.mem.index, kRBX);
  EXPECT_EQ(r.inst.mem.scaleLog2, 3u);
  EXPECT_EQ(r.inst.mem.disp, -128);
  EXPECT_EQ(r.inst.reg, 4u);

  // tileloaddt1 (%rdi,%rsi), %tmm5 and tilestored %tmm6, 16(%r12,%r15).
  r = decodeBytes({0xc4, 0xe2, 0x79, 0x4b, 0x2c, 0x37});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.opcode, Opcode::Tileloaddt1);
  EXPECT_EQ(r.inst.reg, 5u);
  r = decodeBytes({0xc4, 0x82, 0x7a, 0x4b, 0x74, 0x3c, 0x10});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.opcode, Opcode::Tilestored);
  EXPECT_EQ(r.inst.reg, 6u);
  EXPECT_EQ(r.inst.mem.base, 12);
  EXPECT_EQ(r.inst.mem.index, kR15);
  EXPECT_EQ(r.inst.mem.disp, 16);
}

TEST(AMXDecoder, Prefixes) {
  // tileloadd %fs:(%rdi,%rsi), %tmm1
  DecodeResult r = decodeBytes({0x64, 0xc4, 0xe2, 0x7b, 0x4b, 0x0c, 0x37});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_EQ(r.inst.mem.segment, Segment::FS);
  EXPECT_EQ(r.inst.length, 7u);
  // tileloadd (%edi,%esi), %tmm1
  r = decodeBytes({0x67, 0xc4, 0xe2, 0x7b, 0x4b, 0x0c, 0x37});
  ASSERT_EQ(r.status, DecodeStatus::Ok);
  EXPECT_TRUE(r.inst.mem.addressSize32);
  // 66 in front of VEX is #UD.
  r = decodeBytes({0x66, 0xc4, 0xe2, 0x7b, 0x49, 0xd8});
  EXPECT_EQ(r.status, DecodeStatus::Invalid);
}

TEST(AMXDecoder, NotAMXIsPassedOn) {
  EXPECT_EQ(decodeBytes({0x0f, 0x0b}).status, DecodeStatus::NotAMX); // ud2
  EXPECT_EQ(decodeBytes({0x90}).status, DecodeStatus::NotAMX);       // nop
  // {vex} vpdpbusd %ymm2, %ymm1, %ymm0: VEX map 0F38, but not AMX.
  EXPECT_EQ(decodeBytes({0xc4, 0xe2, 0x75, 0x50, 0xc2}).status,
            DecodeStatus::NotAMX);
  // EVEX vpdpbusd.
  EXPECT_EQ(decodeBytes({0x62, 0xf2, 0x75, 0x08, 0x50, 0xc2}).status,
            DecodeStatus::NotAMX);
  // A lone C4 at the end of the readable bytes.
  EXPECT_EQ(decodeBytes({0xc4}).status, DecodeStatus::NotAMX);
}

TEST(AMXDecoder, LaterAMXExtensionsAreReportedNotIgnored) {
  // tdpbf8ps (AMX-FP8), tileloaddrs (AMX-MOVRS), tcmmimfp16ps
  // (AMX-COMPLEX), tmmultf32ps (AMX-TF32).
  for (const std::vector<uint8_t> &bytes :
       {std::vector<uint8_t>{0xc4, 0xe5, 0x68, 0xfd, 0xc1},
        std::vector<uint8_t>{0xc4, 0xe2, 0x7b, 0x4a, 0x0c, 0x37},
        std::vector<uint8_t>{0xc4, 0xe2, 0x69, 0x6c, 0xc1},
        std::vector<uint8_t>{0xc4, 0xe2, 0x69, 0x48, 0xc1}})
    EXPECT_EQ(decodeBytes(bytes).status, DecodeStatus::Unsupported);
}

TEST(AMXDecoder, InvalidForms) {
  struct Case {
    std::vector<uint8_t> bytes;
    const char *what;
  };
  const Case cases[] = {
      {{0xc4, 0xe2, 0x7b, 0x4b, 0x00}, "tileloadd without SIB"},
      {{0xc4, 0xe2, 0x6f, 0x5e, 0xc1}, "tdpbssd with VEX.L = 1"},
      {{0xc4, 0xe2, 0xeb, 0x5e, 0xc1}, "tdpbssd with VEX.W = 1"},
      {{0xc4, 0xe2, 0x6b, 0x5e, 0x00}, "tdpbssd with a memory operand"},
      {{0xc4, 0xe2, 0x73, 0x49, 0xd8}, "tilezero with vvvv != 1111"},
      {{0xc4, 0xe2, 0x78, 0x49, 0xc8}, "tilerelease with reg != 000"},
      {{0xc4, 0xe2, 0x7b, 0x4b, 0x0c}, "tileloadd cut before its SIB"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(decodeBytes(c.bytes).status, DecodeStatus::Invalid) << c.what;
}

TEST(AMXDecoder, MnemonicsAreDistinct) {
  for (unsigned i = 0; i < kNumOpcodes; ++i)
    for (unsigned j = i + 1; j < kNumOpcodes; ++j)
      EXPECT_STRNE(getMnemonic(Opcode(i)), getMnemonic(Opcode(j)));
}

} // namespace
