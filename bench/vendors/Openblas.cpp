//===- Openblas.cpp - OpenBLAS baseline for tisa-bench --------------------===//
//
// "openblas": cblas_sgemm (row-major, no transposes) for f32 GEMM, the usual
// reference point for a plain BLAS. OpenBLAS has no integer GEMM and no
// convolution, and Debian's 0.3.21 build exports no cblas_sbgemm (bf16).
//
// Debian's libopenblas-dev with the pthread backend: the header is
// <cblas.h> from /usr/include/x86_64-linux-gnu/openblas-pthread/ and the
// library -lopenblas from /usr/lib/x86_64-linux-gnu/openblas-pthread/
// (pkg-config openblas). Its thread count is process-wide, so prepare() and
// every run() set it: another adapter may have changed it in between.
//
// After each call OpenBLAS's worker threads busy-wait for up to 2^28 cycles
// (its THREAD_TIMEOUT) before sleeping, taking a core from whatever the process
// runs next: the two-thread timings of the other adapters right after an
// OpenBLAS run collapse on a two-core machine. OPENBLAS_THREAD_TIMEOUT=4 in
// the environment (read when the library loads) avoids that.
//
//===----------------------------------------------------------------------===//

#include "Vendors.h"

#include <cblas.h>

namespace tisa::bench {
namespace {

class SgemmKernel final : public VendorKernel {
public:
  SgemmKernel(const Problem &p, const Buffers &buffers, int threads)
      : m_(p.m), n_(p.n), k_(p.k), threads_(threads < 1 ? 1 : threads),
        a_(static_cast<const float *>(buffers.a)),
        b_(static_cast<const float *>(buffers.b)),
        c_(static_cast<float *>(buffers.c)) {
    openblas_set_num_threads(threads_);
  }

  void run() override {
    openblas_set_num_threads(threads_);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(m_),
                blasint(n_), blasint(k_), 1.0f, a_, blasint(k_), b_,
                blasint(n_), 0.0f, c_, blasint(n_));
  }

private:
  int64_t m_, n_, k_;
  int threads_;
  const float *a_, *b_;
  float *c_;
};

std::unique_ptr<VendorKernel> prepare(const Problem &p, const Buffers &buffers,
                                      int threads, std::string &whyNot) {
  if (p.postOps.any()) {
    whyNot = "this adapter has no post-ops";
    return nullptr;
  }
  if (p.kind != Problem::Kind::Gemm) {
    whyNot = "OpenBLAS has no convolution";
    return nullptr;
  }
  if (p.precision != Precision::F32) {
    whyNot = "OpenBLAS has no integer GEMM and Debian's build no bf16 "
             "sbgemm; this baseline is f32 only";
    return nullptr;
  }
  return std::make_unique<SgemmKernel>(p, buffers, threads);
}

} // namespace

std::vector<Vendor> openblasVendors() { return {{"openblas", prepare}}; }

std::string openblasVersion() {
  // E.g. "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Cooperlake
  // MAX_THREADS=64": the core name is the kernel set DYNAMIC_ARCH chose at
  // run time (Cooperlake on Zen 4, for its AVX-512 BF16).
  return std::string(openblas_get_config());
}

} // namespace tisa::bench
