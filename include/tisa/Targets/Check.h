//===- Check.h - executable, hardware-checked descriptions -----*- C++ -*-===//
//
// `verifyDescription` runs every check a description must pass: the evaluator's
// own invariants, the lowering compiled for its target with the expected
// instruction present in the emitted code, and a differential run of that
// compiled lowering against the evaluator on random and edge inputs: natively
// (x86 VNNI/BF16), under qemu-aarch64 at several SVE vector lengths (Arm),
// under the AMX trap-and-emulate library (AMX), or against the independent
// warp-level mma reference with the PTX accepted by ptxas (Tensor Cores). A
// check that cannot run here is reported as skipped with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_TARGETS_CHECK_H
#define TISA_TARGETS_CHECK_H

#include "tisa/Semantics/Layout.h"
#include <array>
#include <string>
#include <vector>

namespace tisa {

enum class CheckStatus { Passed, Failed, Skipped };
llvm::StringRef stringifyCheckStatus(CheckStatus s);

struct CheckResult {
  std::string name;
  CheckStatus status;
  std::string detail;
};

struct VerifyReport {
  std::vector<CheckResult> checks;
  /// Passed when no check failed (skipped checks are reported, not counted as
  /// failures).
  bool passed() const;
};

/// How this machine can execute a description.
enum class ExecutionMode { Native, Qemu, Emulated, CompileOnly };
llvm::StringRef stringifyExecutionMode(ExecutionMode m);
/// The mode, and in `why` what limits it (e.g. "host lacks avx512bf16").
ExecutionMode executionMode(const Description &d, std::string *why = nullptr);

/// One differential test case: values of the two inputs and the accumulator.
struct TestCase {
  std::string label;
  std::array<TensorValue, 3> operands;
};
/// Random cases from `seed` plus the edge values of the operand types.
std::vector<TestCase> makeTestCases(const Description &d, unsigned segments,
                                    uint64_t seed);

struct VerifyOptions {
  uint64_t seed = 0x7153a;
  unsigned randomCases = 16;
  /// SVE vector lengths (bits) for scalable descriptions.
  std::vector<unsigned> sveBits = {128, 256, 512};
  /// PTX architectures for Tensor Core descriptions.
  std::vector<std::string> ptxArchs = {"sm_80", "sm_86", "sm_90"};
};

VerifyReport verifyDescription(const Description &d,
                               const VerifyOptions &options = {});

} // namespace tisa

#endif // TISA_TARGETS_CHECK_H
