//===- Vendors.h - vendor library baselines for tisa-bench ------*- C++ -*-===//
//
// Each vendor adapter computes the same problem as a tisa kernel, from the
// same input buffers, so tisa-bench can check agreement and then time both in
// one process. Adapters depend only on the vendor library, not on tisa.
//
// Conventions (identical to tisa's generated kernels):
//   GEMM   C[M][N] = A[M][K] x B[K][N]; A, B, C dense row-major.
//   conv2d out[N][OH][OW][F] = sum_{r,s,c} in[N][H][W][C] (NHWC, zero padding)
//          x filter[R][S][C][F] (HWCF); OH = (H + 2 pad - R) / stride + 1.
//   Element types: u8/s8 as uint8_t/int8_t, s32 as int32_t, bf16 as the
//   uint16_t bit pattern, f32 as float. A is the activation/input operand,
//   B the weights/filter.
//
// prepare() does everything that a deployment does once (reorders of the
// weights into the vendor's preferred layout, JIT code generation, scratch
// allocation); run() is what is timed. Input reorders that a vendor's chosen
// layout needs are part of prepare() only when the user-facing layout is the
// vendor's own (see each adapter); the output must end in `output`, in the
// plain layout above, after finish().
//
//===----------------------------------------------------------------------===//

#ifndef TISA_BENCH_VENDORS_H
#define TISA_BENCH_VENDORS_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tisa::bench {

enum class Precision { U8S8S32, S8S8S32, BF16F32, F32 };

/// Elementwise work on the result before it is stored (oneDNN's post-ops),
/// as tisa's --epilogue computes it: s32 results get a bias per channel
/// (the GEMM's column, the convolution's filter), ReLU, and requantization
/// to u8 (q = round(f32(x) * scale[channel]) + zero point, saturated); f32
/// results a bias, ReLU and rounding to bf16.
struct PostOps {
  bool bias = false, relu = false;
  bool requantU8 = false;
  bool bf16 = false;
  bool any() const { return bias || relu || requantU8 || bf16; }
};

struct Problem {
  enum class Kind { Gemm, Conv2d } kind = Kind::Gemm;
  PostOps postOps;
  Precision precision = Precision::U8S8S32;
  // GEMM
  int64_t m = 0, n = 0, k = 0;
  // conv2d
  int64_t batch = 1, h = 0, w = 0, c = 0, filters = 0, r = 1, s = 1,
          stride = 1, pad = 0;
  int64_t outH() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t outW() const { return (w + 2 * pad - s) / stride + 1; }
};

/// Buffers owned by the caller, valid for the adapter's lifetime.
struct Buffers {
  const void *a = nullptr; ///< A or the NHWC input
  const void *b = nullptr; ///< B or the HWCF filter
  void *c = nullptr;       ///< C or the NHWC output (plain layout)
  /// Post-ops: the bias (s32 or f32, one per channel), the requantization's
  /// scales (f32, one per channel) and zero point.
  const void *bias = nullptr;
  const float *scales = nullptr;
  int32_t zeroPoint = 0;
};

class VendorKernel {
public:
  virtual ~VendorKernel() = default;
  /// Computes the output (timed). May leave it in a vendor layout.
  virtual void run() = 0;
  /// Moves the output into Buffers::c in the plain layout (not timed).
  virtual void finish() {}
  /// The implementation the library chose, when it says (oneDNN's
  /// "brg:avx512_core_vnni"): a "ref:" entry explains a slow row.
  virtual std::string implementation() const { return ""; }
};

struct Vendor {
  /// Short stable name used in tables: "onednn.gemm", "onednn.matmul",
  /// "onednn.matmul.packed", "onednn.conv", "libxsmm.brgemm", "openblas".
  std::string name;
  /// Null with `whyNot` set when the vendor cannot do this problem (e.g. no
  /// s8 x s8 in the API). `threads` is the number of threads to use.
  std::function<std::unique_ptr<VendorKernel>(const Problem &, const Buffers &,
                                              int threads,
                                              std::string &whyNot)>
      prepare;
};

std::vector<Vendor> onednnVendors();
std::vector<Vendor> libxsmmVendors();
std::vector<Vendor> openblasVendors();

/// Library versions for the report ("oneDNN 2.6.3", ...).
std::string onednnVersion();
std::string libxsmmVersion();
std::string openblasVersion();

} // namespace tisa::bench

#endif // TISA_BENCH_VENDORS_H
