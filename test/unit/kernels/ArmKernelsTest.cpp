//===- ArmKernelsTest.cpp - aarch64 kernels, run under qemu ---------------===//
//
// The kernel matrix's 8-bit integer cases for Arm, and its bf16 cases for
// neoverse-v2: each kernel generated (cross-compiled) for neoverse-n1 (NEON
// dotprod, run under qemu's neoverse-n1 model, which has no i8mm or SVE) and
// for neoverse-v2 with its NEON descriptions (run under qemu's max CPU),
// checked against the reference through the plain and pre-packed entries on
// random and extreme inputs (integers bit-exact, bf16 within the K bound),
// and its machine code holding its instruction in a loop (a dot product in
// an innermost one); one pre-packed call is counted under qemu (every
// multiply-accumulate by the instruction). On neoverse-v2 the matrix
// multiplies (smmla, ummla, bfmmla: 2x2 blocks of C, through the tile
// generator) win where no repair is needed: u8 x s8 runs usmmla, a
// description added with no code change; s8 x u8 a dot product with its
// repair. SVE kernels, which neoverse-v2's cost model prefers to NEON's for
// some shapes, are tested at every vector length below.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/QemuCheck.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/AArch64Runner.h"

#include "mlir/IR/MLIRContext.h"

using namespace tisa;
using namespace tisa::test;

namespace {

/// A part of a large kernel's check, each in a test of its own.
enum class Part {
  Whole,
  Random, ///< its random data
  Extreme ///< its extreme data
};

/// Whether `c`'s check is split into parts, each a test under 30 s: a float
/// kernel of more than 2^27 multiply-accumulates, whose bfmmla qemu 7.2 runs
/// at about 38M a second (128x3072x768: about 8 s per call, 3 calls under
/// the first config; 128x768x768 takes 2 s per call and stays whole).
bool splitCheck(const MatrixCase &c) {
  return c.spec.types.isFloat() && c.spec.ops() / 2 > double(1 << 27);
}

/// The runs of `part`; `plain`: the plain entry too (where check() calls
/// it).
QemuRuns runsOf(Part part, bool plain) {
  QemuRuns which;
  which.random = part != Part::Extreme;
  which.extreme = part != Part::Random;
  which.plain = plain;
  return which;
}

/// The runs a check of `spec` makes under one config (its first, or a
/// further one): 4, but a large kernel's extreme data and plain entry run
/// under the first config only (kQemuLargeMacs), and a part runs its own.
int runsExpected(const KernelSpec &spec, Part part, bool firstConfig) {
  if (spec.ops() / 2 <= kQemuLargeMacs)
    return 4;
  if (!firstConfig)
    return part == Part::Extreme ? 0 : 1;
  return part == Part::Whole ? 3 : part == Part::Random ? 2 : 1;
}

const char *partSuffix(Part part) {
  return part == Part::Random    ? "_random"
         : part == Part::Extreme ? "_extreme"
                                 : "";
}

struct ArmCase {
  MatrixCase kernel;
  const char *target;
  Part part = Part::Whole;
};

void PrintTo(const ArmCase &c, std::ostream *os) {
  *os << c.target << " ";
  PrintTo(c.kernel, os);
  if (c.part != Part::Whole)
    *os << (c.part == Part::Random ? ", random data" : ", extreme data");
}

std::vector<ArmCase> armMatrix(const std::vector<MatrixCase> &cases) {
  std::vector<ArmCase> out;
  for (const char *target : {"neoverse-n1", "neoverse-v2"})
    for (const MatrixCase &c : cases) {
      if (c.spec.types.a == ElementType::S16 ||
          (c.spec.types.isFloat() && llvm::StringRef(target) != "neoverse-v2"))
        continue;
      if (!splitCheck(c)) {
        out.push_back({c, target});
        continue;
      }
      for (Part part : {Part::Random, Part::Extreme})
        out.push_back({c, target, part});
    }
  return out;
}

std::string armName(const testing::TestParamInfo<ArmCase> &info) {
  std::string target = info.param.target;
  for (char &ch : target)
    if (ch == '-')
      ch = '_';
  return target + "_" + testName({info.param.kernel, info.index}) +
         partSuffix(info.param.part);
}

LoadedDescriptions &descriptions() {
  static LoadedDescriptions d;
  return d;
}

/// The NEON descriptions (no SVE: its kernels are tested at several vector
/// lengths of their own).
std::vector<const Description *> neonDescriptions() {
  std::vector<const Description *> out;
  for (const Description *d : descriptions().all)
    if (!d->isScalable())
      out.push_back(d);
  return out;
}

/// `spec` generated for the case's target from the NEON descriptions,
/// without a fallback, warnings checked empty.
llvm::Expected<GeneratedKernel> generateFor(const ArmCase &c,
                                            const KernelSpec &spec) {
  LoadedDescriptions &d = descriptions();
  if (!d.ok)
    return llvm::createStringError(d.errors);
  auto target = loadTarget(c.target);
  if (!target)
    return target.takeError();
  GenerateOptions options;
  options.allowFallback = false;
  auto k = generateKernel(d.ctx, spec, neonDescriptions(), *target, options);
  if (k)
    EXPECT_TRUE(k->warnings.empty()) << llvm::join(k->warnings, "\n");
  return k;
}

class ArmKernels : public testing::TestWithParam<ArmCase> {};

TEST_P(ArmKernels, CorrectAndTensorized) {
  if (std::string why = aarch64::unavailableReason(); !why.empty())
    GTEST_SKIP() << "cannot run aarch64 code here: " << why;
  const KernelSpec &spec = GetParam().kernel.spec;
  expectOutputSize(GetParam().kernel);
  auto target = loadTarget(GetParam().target);
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  auto k = generateFor(GetParam(), spec);
  ASSERT_TRUE(bool(k)) << llvm::toString(k.takeError());
  // neoverse-n1 has no i8mm or bf16: dot products. neoverse-v2 may also
  // multiply 2x2 blocks where the types need no repair (the cost model
  // picks; a matrix-vector product keeps the dot product).
  const KernelTypes &t = spec.types;
  bool n1 = llvm::StringRef(GetParam().target) == "neoverse-n1";
  bool sameSign = (t.a == ElementType::S8) == (t.b == ElementType::S8);
  bool usmmla = t.a == ElementType::U8 && t.b == ElementType::S8;
  const char *matrix = t.isFloat()              ? "bfmmla"
                       : usmmla                 ? "usmmla"
                       : !sameSign              ? nullptr
                       : t.a == ElementType::S8 ? "smmla"
                                                : "ummla";
  bool dotOk = !t.isFloat() && (k->mnemonic == "sdot" || k->mnemonic == "udot");
  bool matrixOk = !n1 && matrix && k->mnemonic == matrix;
  EXPECT_TRUE(dotOk || matrixOk) << k->mnemonic << ": plan " << k->plan;

  // One executable and one qemu process for the checks and the count.
  auto qemu = QemuKernel::link(*k, spec);
  ASSERT_TRUE(bool(qemu)) << llvm::toString(qemu.takeError());
  int runs = 0;
  std::vector<QemuCounts> counts;
  Part part = GetParam().part;
  EXPECT_EQ(qemu->check(spec, qemuOptionsFor(*target), kSeed, runs, &counts,
                        runsOf(part, /*plain=*/true)),
            "")
      << "plan " << k->plan << ", schedule " << k->schedule;
  EXPECT_EQ(runs, runsExpected(spec, part, /*firstConfig=*/true));
  ASSERT_EQ(counts.size(), 1u);

  // A dot product in an innermost loop; a matrix multiply in a loop (its
  // tile kernel unrolls short reductions and copies C's edges in loops of
  // their own, as AMX kernels do).
  bool dot = k->mnemonic == "sdot" || k->mnemonic == "udot";
  expectTensorized(k->object->getMemBufferRef(), k->name, k->mnemonic, spec,
                   double(k->macsPerInstruction), /*innermost=*/dot);

  // One pre-packed call, counted by tisa's TCG plugin: every
  // multiply-accumulate done by the dot instruction.
  EXPECT_GE(double(counts[0].tensor), counts[0].minimum) << "plan " << k->plan;
  EXPECT_GT(counts[0].total, counts[0].tensor);
}

INSTANTIATE_TEST_SUITE_P(Kernels, ArmKernels,
                         testing::ValuesIn(armMatrix(kernelMatrix())), armName);
// Fused epilogues, on lanes (sdot/udot) and on matrix segments (smmla,
// bfmmla: their rows un-interleaved into a scratch, then the epilogue).
INSTANTIATE_TEST_SUITE_P(Epilogues, ArmKernels,
                         testing::ValuesIn(armMatrix(epilogueMatrix())),
                         armName);

} // namespace

// Kernels of run-time m (batch) under qemu: the small ones of
// runTimeRowsMatrix(), each checked at its extents through the plain and
// pre-packed entries (the adapter passes the rows first).
std::vector<ArmCase> armRunTimeRowsMatrix() {
  return armMatrix(smallRunTimeRowsMatrix());
}

class ArmRunTimeRows : public testing::TestWithParam<ArmCase> {};

TEST_P(ArmRunTimeRows, CorrectAtEachExtent) {
  if (std::string why = aarch64::unavailableReason(); !why.empty())
    GTEST_SKIP() << "cannot run aarch64 code here: " << why;
  const MatrixCase &c = GetParam().kernel;
  auto target = loadTarget(GetParam().target);
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  auto k = generateFor(GetParam(), c.spec);
  ASSERT_TRUE(bool(k)) << llvm::toString(k.takeError());
  bool dot = k->mnemonic == "sdot" || k->mnemonic == "udot";
  expectTensorized(k->object->getMemBufferRef(), k->name, k->mnemonic,
                   c.spec.withRows(c.rows.front()),
                   double(k->macsPerInstruction), /*innermost=*/dot);
  // One executable and one qemu process for every extent.
  auto qemu = QemuKernel::link(*k, c.spec);
  ASSERT_TRUE(bool(qemu)) << llvm::toString(qemu.takeError());
  std::vector<KernelSpec> calls;
  for (int64_t rows : c.rows)
    calls.push_back(c.spec.withRows(rows));
  int runs = 0;
  Part part = GetParam().part;
  EXPECT_EQ(qemu->check(calls, qemuOptionsFor(*target), kSeed, runs, nullptr,
                        runsOf(part, /*plain=*/true)),
            "")
      << "plan " << k->plan;
  int expected = 0;
  for (const KernelSpec &call : calls)
    expected += runsExpected(call, part, /*firstConfig=*/true);
  EXPECT_EQ(runs, expected);
}

INSTANTIATE_TEST_SUITE_P(Matrix, ArmRunTimeRows,
                         testing::ValuesIn(armRunTimeRowsMatrix()), armName);
// The convolutions of that matrix with h and w at run time too.
INSTANTIATE_TEST_SUITE_P(Image, ArmRunTimeRows,
                         testing::ValuesIn(
                             armMatrix(smallRunTimeImageMatrix())),
                         armName);

// SVE kernels (vector-length agnostic), each generated once for neoverse-v1
// and its one binary run under qemu at 128, 256, 512 and 2048 bits (a large
// bf16 kernel in a test per length):
// bit-exact (bf16 within the K bound) through the plain and pre-packed
// entries at every length, its instruction in a loop (a dot product in an
// innermost one), and one pre-packed call counted at each length (every
// multiply-accumulate by the instruction, at that length's lanes per
// instruction). Dot products (sve.sdot, sve.udot): the kernel matrix's s8 x s8
// and u8 x u8 cases, and u8 x s8 on sdot with the repair on the broadcast
// input; matrix multiplies (sve.smmla, sve.ummla, sve.usmmla, sve.bfmmla):
// s8 x s8, u8 x u8, u8 x s8, bf16, and s8 x u8 on ummla with the repair on
// A (flipped in the panel). Fused epilogues included.
namespace {

struct ScalableCase {
  MatrixCase kernel;
  bool matrix; ///< a matrix multiply, else a dot product
  /// The one vector length a part of a split check runs at; 0: every
  /// length (kSveLengths).
  unsigned bits = 0;
  Part part = Part::Whole;
};

constexpr unsigned kSveLengths[] = {128, 256, 512, 2048};

void PrintTo(const ScalableCase &c, std::ostream *os) {
  *os << (c.matrix ? "mmla " : "dot ");
  PrintTo(c.kernel, os);
  if (c.bits)
    *os << " at SVE " << c.bits << " bits, "
        << (c.part == Part::Random ? "random" : "extreme") << " data";
}

/// A large kernel's check split (splitCheck): at the first length its
/// random data (through both entries) and its extreme data, at each further
/// length its random data through the pre-packed entry.
std::vector<ScalableCase> splitByLength(const MatrixCase &c, bool matrix) {
  std::vector<ScalableCase> out;
  for (unsigned bits : kSveLengths) {
    out.push_back({c, matrix, bits, Part::Random});
    if (bits == kSveLengths[0])
      out.push_back({c, matrix, bits, Part::Extreme});
  }
  return out;
}

std::vector<ScalableCase> scalableMatrix() {
  std::vector<ScalableCase> out;
  for (bool matrix : {false, true})
    for (const MatrixCase &c : allMatrixCases()) {
      const KernelTypes &t = c.spec.types;
      bool sameSign = t.a == t.b &&
                      (t.a == ElementType::S8 || t.a == ElementType::U8);
      bool u8s8 = t.a == ElementType::U8 && t.b == ElementType::S8;
      bool s8u8 = t.a == ElementType::S8 && t.b == ElementType::U8;
      if (!sameSign && !u8s8 && !(matrix && (t.isFloat() || s8u8)))
        continue;
      if (!splitCheck(c)) {
        out.push_back({c, matrix});
        continue;
      }
      for (const ScalableCase &part : splitByLength(c, matrix))
        out.push_back(part);
    }
  return out;
}

std::string scalableName(const testing::TestParamInfo<ScalableCase> &info) {
  return std::string(info.param.matrix ? "mmla_" : "dot_") +
         testName({info.param.kernel, info.index}) +
         (info.param.bits ? "_sve" + std::to_string(info.param.bits) : "") +
         partSuffix(info.param.part);
}

/// The SVE description that runs `t` in the case's family.
std::string scalableIsa(const KernelTypes &t, bool matrix) {
  bool s8 = t.b == ElementType::S8;
  if (!matrix)
    return s8 ? "sve.sdot" : "sve.udot"; // u8 x s8: sdot and its repair
  if (t.isFloat())
    return "sve.bfmmla";
  if (t.a == ElementType::S8)
    return s8 ? "sve.smmla" : "sve.ummla"; // s8 x u8: ummla and its repair
  return s8 ? "sve.usmmla" : "sve.ummla";
}

class ArmScalableKernels : public testing::TestWithParam<ScalableCase> {};

TEST_P(ArmScalableKernels, CorrectAtEveryVectorLength) {
  if (std::string why = aarch64::unavailableReason(); !why.empty())
    GTEST_SKIP() << "cannot run aarch64 code here: " << why;
  const KernelSpec &spec = GetParam().kernel.spec;
  expectOutputSize(GetParam().kernel);
  bool matrix = GetParam().matrix;
  ArmCase c{GetParam().kernel, "neoverse-v1"};
  LoadedDescriptions &d = descriptions();
  ASSERT_TRUE(d.ok) << d.errors;
  auto target = loadTarget(c.target);
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  GenerateOptions options;
  options.allowFallback = false;
  options.isa = scalableIsa(spec.types, matrix);
  auto k = generateKernel(d.ctx, spec, d.all, *target, options);
  ASSERT_TRUE(bool(k)) << llvm::toString(k.takeError());
  EXPECT_TRUE(k->warnings.empty()) << llvm::join(k->warnings, "\n");
  EXPECT_EQ("sve." + k->mnemonic, options.isa);
  EXPECT_TRUE(k->scalable);
  // A matrix multiply's reduction loop is unrolled away when it is short:
  // the instruction is then in the column loop.
  expectTensorized(k->object->getMemBufferRef(), k->name, k->mnemonic, spec,
                   double(k->macsPerInstruction), /*innermost=*/!matrix);
  // One executable and one qemu process at every length (set by prctl);
  // the data and reference made once.
  auto qemu = QemuKernel::link(*k, spec);
  ASSERT_TRUE(bool(qemu)) << llvm::toString(qemu.takeError());
  std::vector<aarch64::RunOptions> lengths;
  for (unsigned bits : kSveLengths) {
    if (GetParam().bits && bits != GetParam().bits)
      continue;
    lengths.push_back(qemuOptionsFor(*target));
    lengths.back().sveBits = bits;
  }
  // A part at a further length: the pre-packed entry alone.
  Part part = GetParam().part;
  bool firstLength = GetParam().bits == 0 || GetParam().bits == kSveLengths[0];
  int runs = 0;
  std::vector<QemuCounts> counts;
  EXPECT_EQ(qemu->check(spec, lengths, kSeed, runs, &counts,
                        runsOf(part, /*plain=*/firstLength)),
            "")
      << "plan " << k->plan << ", schedule " << k->schedule;
  int expected = 0;
  for (size_t i = 0; i < lengths.size(); ++i)
    expected += runsExpected(spec, part, firstLength && i == 0);
  EXPECT_EQ(runs, expected);
  ASSERT_EQ(counts.size(), lengths.size());
  for (auto [length, count] : llvm::zip(lengths, counts))
    EXPECT_GE(double(count.tensor), count.minimum)
        << length.sveBits << " bits";
}

INSTANTIATE_TEST_SUITE_P(Matrix, ArmScalableKernels,
                         testing::ValuesIn(scalableMatrix()), scalableName);

} // namespace
