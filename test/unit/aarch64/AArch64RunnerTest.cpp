//===- AArch64RunnerTest.cpp - probes under qemu-aarch64 ------------------===//
//
// Real aarch64 probes (C compiled by the cross clang at test time, and LLVM IR
// compiled in-process by LLVM's TargetMachine) run under qemu and are checked
// bit-exactly against scalar references, including edge values.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/AArch64Runner.h"

#include "tisa/Config.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include "gtest/gtest.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace llvm;
using namespace tisa::aarch64;

namespace {

/// Features the C probes are compiled with (the harness uses the same).
constexpr StringLiteral kProbeMarch = "-march=armv8.6-a+sve+i8mm+bf16+dotprod";
constexpr unsigned kSeed = 20240611;

template <typename T> std::vector<uint8_t> toBytes(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  if (!bytes.empty())
    std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

template <typename T> std::vector<T> fromBytes(const std::vector<uint8_t> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty())
    std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

std::vector<int8_t> randomS8(size_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = static_cast<int8_t>(dist(rng));
  return v;
}

std::vector<int32_t> randomS32(size_t n, std::mt19937 &rng) {
  std::uniform_int_distribution<int32_t> dist(INT32_MIN, INT32_MAX);
  std::vector<int32_t> v(n);
  for (int32_t &x : v)
    x = dist(rng);
  return v;
}

/// Wrapping i32 accumulation, as the instructions do.
int32_t addWrap(int32_t acc, int64_t term) {
  return static_cast<int32_t>(static_cast<uint32_t>(acc) +
                              static_cast<uint32_t>(term));
}

/// acc + sum of four s8 x s8 products: one lane of sdot.
int32_t dot4(int32_t acc, const int8_t *a, const int8_t *b) {
  int64_t sum = 0;
  for (int k = 0; k < 4; ++k)
    sum += int32_t(a[k]) * int32_t(b[k]);
  return addWrap(acc, sum);
}

/// Makes lanes [first, first+4) of the s8 operands and lane `accLane` of the
/// accumulator hit the extremes: all -128 x -128 with INT32_MAX (overflow),
/// -128 x 127 with INT32_MIN (underflow).
void plantEdges(std::vector<int32_t> &acc, std::vector<int8_t> &a,
                std::vector<int8_t> &b) {
  for (int k = 0; k < 4; ++k) {
    a[k] = b[k] = -128;
    a[4 + k] = -128;
    b[4 + k] = 127;
  }
  acc[0] = INT32_MAX;
  acc[1] = INT32_MIN;
}

std::string crossClang() {
  if (std::optional<std::string> env = sys::Process::GetEnv("TISA_CROSS_CLANG"))
    if (!env->empty())
      return *env;
  return TISA_CROSS_CLANG;
}

/// Compiles C source for aarch64 into a relocatable object.
Expected<std::vector<uint8_t>> compileC(StringRef source) {
  SmallString<128> dir;
  if (std::error_code ec =
          sys::fs::createUniqueDirectory("tisa-aarch64-test", dir))
    return createStringError(ec, "cannot create a temporary directory");
  scope_exit cleanup([&] { sys::fs::remove_directories(dir); });
  SmallString<128> src(dir), obj(dir), log(dir);
  sys::path::append(src, "probe.c");
  sys::path::append(obj, "probe.o");
  sys::path::append(log, "clang.log");
  {
    std::error_code ec;
    raw_fd_ostream os(src, ec);
    if (ec)
      return createStringError(ec, "cannot write probe source");
    os << source;
  }
  std::string clang = crossClang();
  StringRef args[] = {
      clang, "--target=aarch64-linux-gnu", kProbeMarch, "-O2", "-c", src, "-o",
      obj};
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(log),
                                          StringRef(log)};
  std::string err;
  if (sys::ExecuteAndWait(clang, args, std::nullopt, redirects, 120, 0, &err) !=
      0) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> text = MemoryBuffer::getFile(log);
    return createStringError(inconvertibleErrorCode(),
                             "compiling probe failed: " + err + "\n" +
                                 (text ? (*text)->getBuffer().str() : ""));
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> bytes =
      MemoryBuffer::getFile(obj, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!bytes)
    return createStringError(bytes.getError(), "cannot read probe object");
  StringRef b = (*bytes)->getBuffer();
  return std::vector<uint8_t>(b.bytes_begin(), b.bytes_end());
}

/// Compiles LLVM IR for aarch64 with LLVM's TargetMachine, the way tisa's
/// own pipeline produces probe objects.
Expected<std::vector<uint8_t>> compileIR(StringRef ir, StringRef features) {
  LLVMInitializeAArch64TargetInfo();
  LLVMInitializeAArch64Target();
  LLVMInitializeAArch64TargetMC();
  LLVMInitializeAArch64AsmPrinter();
  LLVMContext context;
  SMDiagnostic diag;
  std::unique_ptr<Module> module = parseAssemblyString(ir, diag, context);
  if (!module) {
    std::string msg;
    raw_string_ostream os(msg);
    diag.print("probe.ll", os);
    return createStringError(inconvertibleErrorCode(), msg);
  }
  Triple triple("aarch64-unknown-linux-gnu");
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError(inconvertibleErrorCode(), error);
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, "generic", features, TargetOptions(), Reloc::PIC_));
  module->setTargetTriple(triple);
  module->setDataLayout(machine->createDataLayout());
  SmallVector<char, 0> object;
  raw_svector_ostream os(object);
  legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, nullptr,
                                   CodeGenFileType::ObjectFile))
    return createStringError(inconvertibleErrorCode(),
                             "target cannot emit an object file");
  passes.run(*module);
  return std::vector<uint8_t>(object.begin(), object.end());
}

class AArch64RunnerTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string reason = unavailableReason();
    if (!reason.empty())
      GTEST_SKIP() << "aarch64 probes cannot run here: " << reason;
  }
};

#define ASSERT_OK(expected)                                                    \
  ASSERT_TRUE(static_cast<bool>(expected)) << toString((expected).takeError())

constexpr StringLiteral kNeonSdotSource = R"c(
#include <arm_neon.h>
#include <stdint.h>
/* acc[4*i..] += sdot(a[16*i..], b[16*i..]) for 4 vectors. */
void neon_sdot_probe(int32_t *acc, const int8_t *a, const int8_t *b) {
  for (int i = 0; i < 4; ++i)
    vst1q_s32(acc + 4 * i, vdotq_s32(vld1q_s32(acc + 4 * i),
                                     vld1q_s8(a + 16 * i),
                                     vld1q_s8(b + 16 * i)));
}
)c";

TEST_F(AArch64RunnerTest, NeonSdotMatchesScalarReference) {
  Expected<std::vector<uint8_t>> object = compileC(kNeonSdotSource);
  ASSERT_OK(object);
  std::mt19937 rng(kSeed);
  std::vector<int32_t> acc = randomS32(16, rng);
  std::vector<int8_t> a = randomS8(64, rng), b = randomS8(64, rng);
  plantEdges(acc, a, b);

  Expected<ProbeResult> result = runProbe(
      *object, "neon_sdot_probe", {toBytes(acc), toBytes(a), toBytes(b)}, 0);
  ASSERT_OK(result);
  ASSERT_EQ(result->buffers.size(), 3u);
  EXPECT_EQ(result->buffers[1], toBytes(a));
  EXPECT_EQ(result->buffers[2], toBytes(b));
  std::vector<int32_t> got = fromBytes<int32_t>(result->buffers[0]);
  ASSERT_EQ(got.size(), acc.size());
  for (size_t lane = 0; lane < acc.size(); ++lane)
    EXPECT_EQ(got[lane], dot4(acc[lane], &a[4 * lane], &b[4 * lane]))
        << "lane " << lane;
  // The planted extremes: 4 * 16384 wraps INT32_MAX; 4 * -16256 wraps
  // INT32_MIN.
  EXPECT_EQ(got[0], addWrap(INT32_MAX, 65536));
  EXPECT_EQ(got[1], addWrap(INT32_MIN, -65024));
}

constexpr StringLiteral kNeonSmmlaSource = R"c(
#include <arm_neon.h>
#include <stdint.h>
/* acc (2x2 s32) += a (2x8 s8, row-major) * transpose(b (2x8 s8, row-major)). */
void neon_smmla_probe(int32_t *acc, const int8_t *a, const int8_t *b) {
  vst1q_s32(acc, vmmlaq_s32(vld1q_s32(acc), vld1q_s8(a), vld1q_s8(b)));
}
)c";

TEST_F(AArch64RunnerTest, NeonSmmlaMatchesScalarReference) {
  Expected<std::vector<uint8_t>> object = compileC(kNeonSmmlaSource);
  ASSERT_OK(object);
  std::mt19937 rng(kSeed + 1);
  // Case 0: random; case 1: all -128 x -128 onto INT32_MAX (wraps); case 2:
  // -128 x 127 onto INT32_MIN.
  for (int c = 0; c < 3; ++c) {
    std::vector<int32_t> acc = randomS32(4, rng);
    std::vector<int8_t> a = randomS8(16, rng), b = randomS8(16, rng);
    if (c == 1) {
      std::fill(a.begin(), a.end(), -128);
      std::fill(b.begin(), b.end(), -128);
      std::fill(acc.begin(), acc.end(), INT32_MAX);
    } else if (c == 2) {
      std::fill(a.begin(), a.end(), -128);
      std::fill(b.begin(), b.end(), 127);
      std::fill(acc.begin(), acc.end(), INT32_MIN);
    }
    Expected<ProbeResult> result = runProbe(
        *object, "neon_smmla_probe", {toBytes(acc), toBytes(a), toBytes(b)}, 0);
    ASSERT_OK(result);
    std::vector<int32_t> got = fromBytes<int32_t>(result->buffers[0]);
    ASSERT_EQ(got.size(), 4u);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        int64_t sum = 0;
        for (int k = 0; k < 8; ++k)
          sum += int32_t(a[8 * i + k]) * int32_t(b[8 * j + k]);
        EXPECT_EQ(got[2 * i + j], addWrap(acc[2 * i + j], sum))
            << "case " << c << " element (" << i << ", " << j << ")";
      }
    }
  }
}

constexpr StringLiteral kSveSdotSource = R"c(
#include <arm_sve.h>
#include <stdint.h>
/* One SVE vector: acc[0 .. VL/32) += sdot(a, b); the rest stays untouched. */
void sve_sdot_probe(int32_t *acc, const int8_t *a, const int8_t *b) {
  svbool_t all32 = svptrue_b32(), all8 = svptrue_b8();
  svint32_t c = svld1_s32(all32, acc);
  c = svdot_s32(c, svld1_s8(all8, a), svld1_s8(all8, b));
  svst1_s32(all32, acc, c);
}
)c";

class AArch64SveLengthTest : public AArch64RunnerTest,
                             public ::testing::WithParamInterface<unsigned> {};

TEST_P(AArch64SveLengthTest, SveSdotCoversOneVector) {
  const unsigned vectorBits = GetParam();
  Expected<std::vector<uint8_t>> object = compileC(kSveSdotSource);
  ASSERT_OK(object);
  // Buffers sized for the largest vector, so shorter ones must leave a tail.
  const size_t maxLanes = kMaxSveVectorBits / 32;
  std::mt19937 rng(kSeed + vectorBits);
  std::vector<int32_t> acc = randomS32(maxLanes, rng);
  std::vector<int8_t> a = randomS8(4 * maxLanes, rng);
  std::vector<int8_t> b = randomS8(4 * maxLanes, rng);
  plantEdges(acc, a, b);

  Expected<ProbeResult> result =
      runProbe(*object, "sve_sdot_probe",
               {toBytes(acc), toBytes(a), toBytes(b)}, vectorBits);
  ASSERT_OK(result);
  EXPECT_EQ(result->sveVectorBits, vectorBits);
  std::vector<int32_t> got = fromBytes<int32_t>(result->buffers[0]);
  ASSERT_EQ(got.size(), maxLanes);
  const size_t lanes = vectorBits / 32;
  for (size_t lane = 0; lane < maxLanes; ++lane) {
    int32_t expected =
        lane < lanes ? dot4(acc[lane], &a[4 * lane], &b[4 * lane]) : acc[lane];
    EXPECT_EQ(got[lane], expected) << "lane " << lane << " of " << lanes;
  }
}

INSTANTIATE_TEST_SUITE_P(VectorBits, AArch64SveLengthTest,
                         ::testing::Values(128u, 256u, 512u, 2048u),
                         [](const ::testing::TestParamInfo<unsigned> &info) {
                           return "vl" + std::to_string(info.param);
                         });

TEST_F(AArch64RunnerTest, DefaultVectorLengthIsMeasured) {
  Expected<std::vector<uint8_t>> object =
      compileC("void nop_probe(void *p) { (void)p; }\n");
  ASSERT_OK(object);
  Expected<ProbeResult> result = runProbe(*object, "nop_probe", {{1, 2, 3}}, 0);
  ASSERT_OK(result);
  EXPECT_EQ(result->buffers[0], (std::vector<uint8_t>{1, 2, 3}));
  // `-cpu max` has SVE; qemu picks the length.
  EXPECT_GT(result->sveVectorBits, 0u);
  EXPECT_EQ(result->sveVectorBits % kSveGranuleBits, 0u);
  EXPECT_LE(result->sveVectorBits, kMaxSveVectorBits);
}

constexpr StringLiteral kEightBuffersSource = R"c(
#include <stdint.h>
/* Buffer i gets {i, address mod 64}: checks order, count and alignment. */
#define MARK(p, i) ((uint32_t *)(p))[0] = (i), ((uint32_t *)(p))[1] = (uint32_t)((uintptr_t)(p) % 64)
void eight_probe(void *b0, void *b1, void *b2, void *b3, void *b4, void *b5,
                 void *b6, void *b7) {
  MARK(b0, 0); MARK(b1, 1); MARK(b2, 2); MARK(b3, 3);
  MARK(b4, 4); MARK(b5, 5); MARK(b6, 6); MARK(b7, 7);
}
)c";

TEST_F(AArch64RunnerTest, EightAlignedBuffersInOrder) {
  Expected<std::vector<uint8_t>> object = compileC(kEightBuffersSource);
  ASSERT_OK(object);
  // Odd sizes: each buffer must still start 64-byte aligned.
  std::vector<std::vector<uint8_t>> buffers;
  for (unsigned i = 0; i < kMaxProbeBuffers; ++i)
    buffers.push_back(std::vector<uint8_t>(8 + 3 * i, 0xEE));
  Expected<ProbeResult> result = runProbe(*object, "eight_probe", buffers, 0);
  ASSERT_OK(result);
  ASSERT_EQ(result->buffers.size(), kMaxProbeBuffers);
  for (unsigned i = 0; i < kMaxProbeBuffers; ++i) {
    const std::vector<uint8_t> &got = result->buffers[i];
    ASSERT_EQ(got.size(), buffers[i].size());
    std::vector<uint32_t> words = fromBytes<uint32_t>(got);
    EXPECT_EQ(words[0], i);
    EXPECT_EQ(words[1], 0u) << "buffer " << i << " is not 64-byte aligned";
    for (size_t j = 8; j < got.size(); ++j)
      EXPECT_EQ(got[j], 0xEE) << "buffer " << i << " byte " << j;
  }
}

TEST_F(AArch64RunnerTest, IRProbeFromTargetMachine) {
  constexpr StringLiteral ir = R"ll(
define void @ir_sdot_probe(ptr %acc, ptr %a, ptr %b) {
  %c = load <4 x i32>, ptr %acc, align 16
  %x = load <16 x i8>, ptr %a, align 16
  %y = load <16 x i8>, ptr %b, align 16
  %r = call <4 x i32> @llvm.aarch64.neon.sdot.v4i32.v16i8(<4 x i32> %c, <16 x i8> %x, <16 x i8> %y)
  store <4 x i32> %r, ptr %acc, align 16
  ret void
}
declare <4 x i32> @llvm.aarch64.neon.sdot.v4i32.v16i8(<4 x i32>, <16 x i8>, <16 x i8>)
)ll";
  Expected<std::vector<uint8_t>> object = compileIR(ir, "+neon,+dotprod");
  ASSERT_OK(object);
  std::mt19937 rng(kSeed + 2);
  std::vector<int32_t> acc = randomS32(4, rng);
  std::vector<int8_t> a = randomS8(16, rng), b = randomS8(16, rng);
  plantEdges(acc, a, b);
  Expected<ProbeResult> result = runProbe(
      *object, "ir_sdot_probe", {toBytes(acc), toBytes(a), toBytes(b)}, 256);
  ASSERT_OK(result);
  EXPECT_EQ(result->sveVectorBits, 256u);
  std::vector<int32_t> got = fromBytes<int32_t>(result->buffers[0]);
  for (size_t lane = 0; lane < 4; ++lane)
    EXPECT_EQ(got[lane], dot4(acc[lane], &a[4 * lane], &b[4 * lane]))
        << "lane " << lane;
}

// A probe is linked by lld's library in this process (scripts/setup.sh
// installs liblld-22-dev), not by a fallback to starting ld.lld.
TEST_F(AArch64RunnerTest, LinksInProcess) {
  std::optional<unsigned> before = linkedInProcess();
  if (!before)
    GTEST_SKIP() << "tisa was built without lld's library (liblld-22-dev): "
                    "probes are linked by starting ld.lld";
  Expected<std::vector<uint8_t>> object = compileC(kNeonSdotSource);
  ASSERT_OK(object);
  std::vector<uint8_t> zeros(256);
  Expected<ProbeResult> result =
      runProbe(*object, "neon_sdot_probe", {zeros, zeros, zeros}, 0);
  ASSERT_OK(result);
  EXPECT_EQ(linkedInProcess(), *before + 1);
}

TEST_F(AArch64RunnerTest, MissingSymbolReportsLinkError) {
  Expected<std::vector<uint8_t>> object =
      compileC("void present(void *p) { (void)p; }\n");
  ASSERT_OK(object);
  Expected<ProbeResult> result =
      runProbe(*object, "absent", {std::vector<uint8_t>(1)}, 0);
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = toString(result.takeError());
  EXPECT_NE(message.find("linking probe 'absent' failed"), std::string::npos)
      << message;
  // lld's own diagnostic is carried through.
  EXPECT_NE(message.find("absent"), message.rfind("absent")) << message;
  EXPECT_NE(message.find("ld.lld"), std::string::npos) << message;
}

TEST_F(AArch64RunnerTest, CrashingProbeReportsSignal) {
  Expected<std::vector<uint8_t>> object = compileC(
      "void crash_probe(void *p) { (void)p; *(volatile int *)16 = 1; }\n");
  ASSERT_OK(object);
  Expected<ProbeResult> result =
      runProbe(*object, "crash_probe", {std::vector<uint8_t>(1)}, 0);
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = toString(result.takeError());
  EXPECT_NE(message.find("running probe 'crash_probe'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("probe crashed: signal 11"), std::string::npos)
      << message;
}

TEST_F(AArch64RunnerTest, WritePastBufferEndIsReported) {
  Expected<std::vector<uint8_t>> object =
      compileC("void overrun_probe(unsigned char *p) { p[5] = 1; }\n");
  ASSERT_OK(object);
  Expected<ProbeResult> result =
      runProbe(*object, "overrun_probe", {std::vector<uint8_t>(5)}, 0);
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = toString(result.takeError());
  EXPECT_NE(message.find("probe wrote past the end of buffer 0 (5 bytes)"),
            std::string::npos)
      << message;
}

// With BufferFence::After each buffer ends at a PROT_NONE page, with Before
// each starts right after one: a read one byte outside faults, and the
// harness names the buffer; reads inside run as before.
TEST_F(AArch64RunnerTest, FencedBuffersFaultOneByteOutside) {
  Expected<std::vector<uint8_t>> object = compileC(
      "void fence_probe(unsigned char *p, unsigned char *q, long *at) {\n"
      "  q[0] = ((volatile unsigned char *)p)[*at];\n"
      "}\n");
  ASSERT_OK(object);
  auto program = LinkedProgram::link(*object, "fence_probe", "", {});
  ASSERT_OK(program);
  auto call = [](long at, BufferFence fence) {
    std::vector<uint8_t> index(sizeof at);
    std::memcpy(index.data(), &at, sizeof at);
    std::vector<uint8_t> p = {1, 2, 3, 4, 5};
    return ProgramCall{{p, std::vector<uint8_t>(1), index}, 0, fence};
  };
  // Inside: both placements read what the buffer holds.
  auto inside = program->runCalls(
      {call(4, BufferFence::After), call(0, BufferFence::Before)}, {});
  ASSERT_OK(inside);
  EXPECT_EQ(inside->calls[0].buffers[1][0], 5);
  EXPECT_EQ(inside->calls[1].buffers[1][0], 1);
  auto past = program->runCalls({call(5, BufferFence::After)}, {});
  ASSERT_FALSE(static_cast<bool>(past));
  std::string message = toString(past.takeError());
  EXPECT_NE(message.find("0 bytes past the end of buffer 0"),
            std::string::npos)
      << message;
  auto before = program->runCalls({call(-1, BufferFence::Before)}, {});
  ASSERT_FALSE(static_cast<bool>(before));
  message = toString(before.takeError());
  EXPECT_NE(message.find("1 bytes before buffer 0"), std::string::npos)
      << message;
}

// A probe that marks two parts: part 1 runs `n` sdot instructions in a
// loop, part 2 none; outside the parts it runs 5 more.
constexpr StringLiteral kMarkedSource = R"c(
#include <arm_neon.h>
#include <stdint.h>
__attribute__((noinline)) void tisa_count_mark(void) { __asm__ volatile(""); }
__attribute__((noinline)) static int32x4_t dots(int32x4_t acc, int8x16_t a, int n) {
  for (int i = 0; i < n; ++i)
    __asm__ volatile("sdot %0.4s, %1.16b, %1.16b" : "+w"(acc) : "w"(a));
  return acc;
}
void marked_probe(int32_t *acc, const int8_t *a, const int32_t *times) {
  int32x4_t v = vld1q_s32(acc);
  v = dots(v, vld1q_s8(a), 5);
  tisa_count_mark();
  v = dots(v, vld1q_s8(a), times[0]);
  tisa_count_mark();
  tisa_count_mark();
  tisa_count_mark();
  for (int i = 1; i < times[1]; ++i)
    tisa_count_mark();
  vst1q_s32(acc, v);
}
)c";

TEST_F(AArch64RunnerTest, MarkedPartsAreCountedApart) {
  Expected<std::vector<uint8_t>> object =
      compileC(kMarkedSource);
  ASSERT_OK(object);
  RunOptions options;
  options.countParts = true;
  std::vector<int32_t> acc(4, 0), times = {37, 1};
  std::vector<int8_t> a(16, 1);
  Expected<ProbeResult> result = runProgram(
      *object, "marked_probe", {toBytes(acc), toBytes(a), toBytes(times)},
      options);
  ASSERT_OK(result);
  ASSERT_EQ(result->parts.size(), 2u);
  // Exactly the loop's 37 sdot in part 1 (the 5 before it are outside);
  // none in part 2, which is only the mark's own call and return.
  EXPECT_EQ(result->parts[0].executed["sdot"], 37u);
  EXPECT_GT(result->parts[0].total, 37u);
  EXPECT_EQ(result->parts[1].executed.count("sdot"), 0u);
  EXPECT_LT(result->parts[1].total, 10u);
  // 4 * (5 + 37) dot products of 16 ones, each 4 wide.
  EXPECT_EQ(fromBytes<int32_t>(result->buffers[0])[0], 42 * 4);

  // An odd number of marks leaves a part open: an error, not a count.
  times = {3, 2};
  result = runProgram(*object, "marked_probe",
                      {toBytes(acc), toBytes(a), toBytes(times)}, options);
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = toString(result.takeError());
  EXPECT_NE(message.find("'tisa_count_mark' ran 5 times"), std::string::npos)
      << message;
}

// Argument checks come before any tool is needed: these run everywhere.
TEST(AArch64RunnerArgsTest, RejectsBadArguments) {
  std::vector<uint8_t> noObject;
  struct Case {
    size_t buffers;
    unsigned sveBits;
    StringRef symbol;
    StringRef expected;
  } cases[] = {
      {0, 0, "f", "a probe takes 1 to 8 buffers, got 0"},
      {9, 0, "f", "a probe takes 1 to 8 buffers, got 9"},
      {1, 100, "f", "SVE vector length 100 bits is not a multiple of 128"},
      {1, 4096, "f", "SVE vector length 4096 bits"},
      {1, 0, "f=g", "probe symbol 'f=g' is not a plain identifier"},
      {1, 0, "", "probe symbol '' is not a plain identifier"},
  };
  for (const Case &c : cases) {
    Expected<ProbeResult> result =
        runProbe(noObject, c.symbol,
                 std::vector<std::vector<uint8_t>>(c.buffers), c.sveBits);
    ASSERT_FALSE(static_cast<bool>(result));
    std::string message = toString(result.takeError());
    EXPECT_NE(message.find(c.expected.str()), std::string::npos) << message;
  }
}

TEST(AArch64RunnerEnvTest, MissingQemuIsReported) {
  std::optional<std::string> saved = sys::Process::GetEnv("TISA_QEMU_AARCH64");
  ::setenv("TISA_QEMU_AARCH64", "/nonexistent/qemu-aarch64", 1);
  std::string reason = unavailableReason();
  std::vector<uint8_t> noObject;
  Expected<ProbeResult> result =
      runProbe(noObject, "f", {std::vector<uint8_t>(1)}, 0);
  if (saved)
    ::setenv("TISA_QEMU_AARCH64", saved->c_str(), 1);
  else
    ::unsetenv("TISA_QEMU_AARCH64");
  // When clang is missing too, that is reported first.
  if (reason.find("clang") != std::string::npos)
    GTEST_SKIP() << reason;
  EXPECT_NE(reason.find("qemu-aarch64 not found"), std::string::npos) << reason;
  ASSERT_FALSE(static_cast<bool>(result));
  EXPECT_NE(toString(result.takeError()).find("qemu-aarch64 not found"),
            std::string::npos);
}

} // namespace
