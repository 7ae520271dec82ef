//===- Vendor.h - one vendor-library call, counted under qemu ---*- C++ -*-===//
//
// tisa-arm-vendors is an aarch64 program: it calls one Arm vendor library on
// one problem and marks one steady-state call for tisa's counting plugin
// (see ArmVendors.cpp). Each library adapter builds a Call for a Problem.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_ARM_VENDOR_H
#define TISA_BENCH_ARM_VENDOR_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace armvendors {

enum class Types { S8S8S32, U8S8S32, BF16BF16F32, F32 };

/// C = A x B (row-major, M x K times K x N), or an NHWC convolution with
/// HWCF filters (R x S x C x F) written as the GEMM M = N*OH*OW, N = F,
/// K = R*S*C.
struct Problem {
  bool conv = false;
  Types types = Types::S8S8S32;
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 0, h = 0, w = 0, c = 0, f = 0, r = 0, s = 0, stride = 1,
          pad = 0;
  /// Weights reordered once before the counted call (the library's own
  /// packed layout) or passed plain to every call.
  bool prePacked = true;
  int64_t outH() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t outW() const { return (w + 2 * pad - s) / stride + 1; }
};

/// Inputs as bytes of the element type (A or the NHWC input, then B or the
/// HWCF filter), output as s32 or f32.
struct Data {
  std::vector<uint8_t> a, b;
  std::vector<int32_t> outI32;
  std::vector<float> outF32;
};

/// One library call set up for a problem: run() may be called many times.
class Call {
public:
  virtual ~Call() = default;
  /// The library's name for what it runs ("gemm:jit", "NEGEMMLowp...").
  virtual std::string implementation() const = 0;
  virtual void run() = 0;
  /// Writes the result into data.outI32 or data.outF32 (M x N row-major).
  virtual void readOutput(Data &data) = 0;
};

/// Each returns nullptr with `why` set when the library cannot do the
/// problem (a type it lacks, ...).
std::unique_ptr<Call> makeOnednn(const Problem &p, const Data &d,
                                 std::string &why);
std::unique_ptr<Call> makeAcl(const Problem &p, const Data &d,
                              std::string &why);
std::unique_ptr<Call> makeOpenblas(const Problem &p, const Data &d,
                                   std::string &why);

} // namespace armvendors

#endif // TISA_BENCH_ARM_VENDOR_H
