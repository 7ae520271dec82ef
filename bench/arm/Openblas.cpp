//===- Openblas.cpp - OpenBLAS sgemm for tisa-arm-vendors -----------------===//

#include "Vendor.h"

#include <cblas.h>

#include <cstring>

namespace armvendors {
namespace {

/// cblas_sgemm on row-major f32: OpenBLAS packs both operands inside every
/// call (it has no pre-packed interface), so both modes are the same call.
class OpenblasCall : public Call {
public:
  OpenblasCall(const Problem &p, const Data &d)
      : problem(p), a(p.m * p.k), b(p.k * p.n), c(p.m * p.n) {
    std::memcpy(a.data(), d.a.data(), d.a.size());
    std::memcpy(b.data(), d.b.data(), d.b.size());
  }
  std::string implementation() const override {
    return std::string("OpenBLAS cblas_sgemm (") + openblas_get_corename() +
           ")";
  }
  void run() override {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(problem.m),
                int(problem.n), int(problem.k), 1.0f, a.data(), int(problem.k),
                b.data(), int(problem.n), 0.0f, c.data(), int(problem.n));
  }
  void readOutput(Data &d) override { d.outF32 = c; }

private:
  Problem problem;
  std::vector<float> a, b, c;
};

} // namespace

std::unique_ptr<Call> makeOpenblas(const Problem &p, const Data &d,
                                   std::string &why) {
  if (p.conv || p.types != Types::F32) {
    why = "OpenBLAS has f32 GEMM only";
    return nullptr;
  }
  return std::make_unique<OpenblasCall>(p, d);
}

} // namespace armvendors
