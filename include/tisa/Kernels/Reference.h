//===- Reference.h - data, reference results and calls for kernels -*- C++ -*-===//
//
// What `tisa run` and the end-to-end tests share: operands filled from a
// seed, a straightforward reference (exact integers that wrap like the
// kernel's s32; bf16 products summed in double), the comparison (bit-exact for
// integers; for bf16 a bound derived from K), and calls through each entry.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_REFERENCE_H
#define TISA_KERNELS_REFERENCE_H

#include "tisa/Kernels/Jit.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tisa {

/// How operands are filled: uniformly random, or at the extremes of the type
/// (u8 255, s8 -128 for the weights and 127/-128 alternating for the input;
/// bf16 large magnitudes of mixed sign).
enum class Fill { Random, Extreme };

struct KernelData {
  std::vector<uint8_t> input, weights, output, expected;
};

KernelData makeData(const KernelSpec &spec, uint64_t seed, Fill fill);
/// data.expected = reference(input, weights).
void computeReference(const KernelSpec &spec, KernelData &data);
/// Empty when `data.output` agrees with `data.expected`; otherwise the first
/// mismatch (index, values) and the number of mismatches.
std::string compareOutput(const KernelSpec &spec, const KernelData &data);

/// Calls the kernel on `data` through its plain entry, or through
/// pack + packed entries (with `packed` as the buffer) when `prepacked`.
void runKernel(const CompiledKernel &k, KernelData &data, bool prepacked,
               std::vector<uint8_t> *packed = nullptr);
/// Runs the kernel on random and on extreme data (from `seed`) through its
/// plain and its pre-packed entries and compares each result with the
/// reference. Empty if all agree; otherwise which run differed and how.
/// `runs` counts the runs that agreed.
std::string checkKernel(const CompiledKernel &k, uint64_t seed, int &runs);

/// Packs the weights once (for timing the packed entry).
void packWeights(const CompiledKernel &k, const KernelData &data,
                 std::vector<uint8_t> &packed);

} // namespace tisa

#endif // TISA_KERNELS_REFERENCE_H
