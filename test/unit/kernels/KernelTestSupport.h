//===- KernelTestSupport.h - shared pieces of the kernel tests --*- C++ -*-===//
//
// The kernel matrices (host lane-dot kernels, AMX kernels under the
// emulator) share how cases are named and compiled and how a kernel's
// machine code is checked for its instruction in an innermost loop.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TEST_UNIT_KERNELS_KERNELTESTSUPPORT_H
#define TISA_TEST_UNIT_KERNELS_KERNELTESTSUPPORT_H

#include "tisa/Kernels/Jit.h"
#include "tisa/Targets/Disassembler.h"

#include "gtest/gtest.h"

#include <optional>
#include <ostream>

namespace tisa {
// Test parameters print as their description, not as bytes.
void PrintTo(const KernelSpec &spec, std::ostream *os);
} // namespace tisa

namespace tisa::test {

inline constexpr uint64_t kSeed = 0x7153a;

KernelSpec gemm(int64_t m, int64_t n, int64_t k, llvm::StringRef types);
KernelSpec conv(int64_t batch, int64_t h, int64_t w, int64_t c, int64_t f,
                int64_t r, int64_t stride, int64_t pad, llvm::StringRef types);

/// A kernel of a matrix; a conv2d's output size is written here, not taken
/// from the code under test.
struct MatrixCase {
  KernelSpec spec;
  int64_t outH = 0, outW = 0;
  /// A kernel of run-time rows (spec.runTimeRows): the rows it runs at.
  std::vector<int64_t> rows = {};
};
void PrintTo(const MatrixCase &c, std::ostream *os);

/// conv2d with an r x s filter whose output is outH x outW.
MatrixCase convCase(int64_t batch, int64_t h, int64_t w, int64_t c, int64_t f,
                    int64_t r, int64_t s, int64_t stride, int64_t pad,
                    llvm::StringRef types, int64_t outH, int64_t outW);

/// The kernel test matrix: GEMM and conv2d shapes x types (u8s8s32, s8s8s32
/// and bf16 on every shape; s16s16s32, u8u8s32 and s8u8s32 on a few).
std::vector<MatrixCase> kernelMatrix();
/// The part of kernelMatrix() of odd N and K (weights that end inside a
/// register or a group), checked against fence pages.
std::vector<MatrixCase> oddWidthMatrix();

/// Kernels with an --epilogue (bias, residual, ReLU, requantization to
/// u8/s8, bf16 output) on GEMM and conv2d shapes, remainders included.
std::vector<MatrixCase> epilogueMatrix();
/// kernelMatrix() then epilogueMatrix().
std::vector<MatrixCase> allMatrixCases();
/// The kernels of kernelMatrix() and epilogueMatrix() with their GEMM m
/// (conv2d batch) given at run time: one kernel per shape without it,
/// run at each of the matrix's extents of it, at 1, and (GEMMs of at most
/// 64 Ki weights) at 300, which takes a block of 256 rows and a remainder.
std::vector<MatrixCase> runTimeRowsMatrix();
/// Its GEMMs of at most 64 Ki weights and convolutions of at most 16 Ki
/// outputs per image: for targets that run under an emulator or QEMU.
std::vector<MatrixCase> smallRunTimeRowsMatrix();
/// Its convolutions with h and w at run time too: one kernel for any image
/// of a filter, run at each of the case's extents.
std::vector<MatrixCase> smallRunTimeImageMatrix();
/// `s` with the epilogue `list` (which must parse).
KernelSpec withEpilogue(KernelSpec s, llvm::StringRef list);

std::string testName(const testing::TestParamInfo<MatrixCase> &info);

/// Checks a conv2d case's output size against the one written in the case.
void expectOutputSize(const MatrixCase &c);

/// Whether function `from` of the object `obj` holds a relocation against
/// symbol `to` (a call: the object is not linked yet).
bool refersTo(llvm::MemoryBufferRef obj, llvm::StringRef from,
              llvm::StringRef to);


/// Why this CPU cannot run code compiled for `target` (the features of it
/// this CPU lacks, or why a target does not load), or "" when it can.
std::string cannotRunHere(llvm::StringRef target);

/// The x86 kernel matrix's target for kernels of `types`: "host" on a CPU
/// with AVX-512 and the instruction of those types (AVX512-VNNI for
/// integers, AVX512_BF16 for bf16), where its kernels run; elsewhere
/// "znver4", whose kernels are compiled and inspected but not run, with the
/// reason in `notRun`.
std::string x86MatrixTarget(const KernelTypes &types, std::string &notRun);

/// Compiles `spec` for `target` without the disk cache (the tests are about
/// the compiler), without `withoutFeatures`, collecting warnings.
llvm::Expected<std::unique_ptr<CompiledKernel>>
compileUncached(const KernelSpec &spec, llvm::StringRef target,
                std::string &warnings,
                llvm::ArrayRef<std::string> withoutFeatures = {},
                llvm::StringRef isa = "auto");


/// Expects every entry of `k` to run its instruction in an innermost loop
/// (or any loop, when not `innermost`: a tile kernel unrolls its short
/// reduction and copies C's edges in loops of their own), no innermost loop
/// to multiply without it, or (fully unrolled code) enough copies of it for
/// half of the multiply-accumulates at `macsPerInstruction` each.
void expectTensorized(const CompiledKernel &k, const KernelSpec &spec,
                      double macsPerInstruction, bool innermost = true);
/// The same for the entries of kernel `name` in an object of any target.
void expectTensorized(llvm::MemoryBufferRef object, llvm::StringRef name,
                      llvm::StringRef mnemonic, const KernelSpec &spec,
                      double macsPerInstruction, bool innermost = true);

} // namespace tisa::test

#endif // TISA_TEST_UNIT_KERNELS_KERNELTESTSUPPORT_H
