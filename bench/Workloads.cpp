//===- Workloads.cpp - what the x86 benchmarks run ------------------------===//

#include "Workloads.h"

#include <cmath>

namespace tisa {
namespace bench {

namespace {

KernelSpec gemm(int64_t m, int64_t n, int64_t k) {
  return KernelSpec::makeGemm(m, n, k);
}

KernelSpec conv(int64_t h, int64_t w, int64_t c, int64_t f, int64_t r,
                int64_t stride, int64_t pad) {
  return KernelSpec::makeConv2d(1, h, w, c, f, r, stride, pad);
}

} // namespace

/// ../shared/reference/workloads.md, in its order.
std::vector<Workload> shapes() {
  std::vector<Workload> out;
  for (int64_t n : {256, 512, 1024, 2048})
    out.push_back({"square", gemm(n, n, n)});
  out.push_back({"matvec", gemm(1, 1024, 1024)});
  out.push_back({"matvec", gemm(1, 4096, 4096)});
  out.push_back({"bert", gemm(128, 768, 768)});
  out.push_back({"bert", gemm(128, 3072, 768)});
  out.push_back({"bert", gemm(128, 768, 3072)});
  out.push_back({"odd", gemm(97, 131, 67)});
  out.push_back({"odd", gemm(1, 1, 1)});
  out.push_back({"odd", gemm(17, 15, 65)});
  // ResNet-50 (pads as listed).
  out.push_back({"resnet50", conv(224, 224, 3, 64, 7, 2, 3)});
  out.push_back({"resnet50", conv(56, 56, 64, 64, 3, 1, 1)});
  out.push_back({"resnet50", conv(56, 56, 64, 256, 1, 1, 0)});
  out.push_back({"resnet50", conv(56, 56, 256, 64, 1, 1, 0)});
  out.push_back({"resnet50", conv(28, 28, 128, 128, 3, 1, 1)});
  out.push_back({"resnet50", conv(14, 14, 256, 256, 3, 1, 1)});
  out.push_back({"resnet50", conv(7, 7, 512, 512, 3, 1, 1)});
  out.push_back({"resnet50", conv(14, 14, 1024, 256, 1, 1, 0)});
  // The UNIT evaluation's layers (N, C, H, W, K, C, R, S, stride_h,
  // stride_w); the list gives no padding, so none.
  struct Unit {
    int64_t c, h, w, k, r, stride;
  } unit[] = {{160, 9, 9, 224, 3, 1},      {1056, 7, 7, 192, 1, 1},
              {128, 16, 16, 128, 3, 1},    {192, 16, 16, 192, 3, 1},
              {256, 16, 16, 256, 3, 1},    {1024, 14, 14, 512, 1, 1},
              {128, 16, 16, 160, 3, 1},    {576, 14, 14, 192, 1, 1},
              {96, 16, 16, 128, 3, 1},     {1024, 14, 14, 256, 1, 1},
              {576, 14, 14, 128, 1, 1},    {64, 29, 29, 96, 3, 1},
              {64, 56, 56, 128, 1, 2},     {608, 14, 14, 192, 1, 1},
              {288, 35, 35, 384, 3, 2},    {80, 73, 73, 192, 3, 1}};
  for (const Unit &u : unit)
    out.push_back({"unit", conv(u.h, u.w, u.c, u.k, u.r, u.stride, 0)});
  return out;
}


Problem problemOf(const KernelSpec &s) {
  Problem p;
  p.kind = s.op == KernelSpec::Op::Gemm ? Problem::Kind::Gemm
                                        : Problem::Kind::Conv2d;
  p.precision = s.types.isFloat()           ? Precision::BF16F32
                : s.types.a == ElementType::S8 ? Precision::S8S8S32
                                               : Precision::U8S8S32;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  p.batch = s.batch;
  p.h = s.h;
  p.w = s.w;
  p.c = s.c;
  p.filters = s.filters;
  p.r = s.r;
  p.s = s.s;
  p.stride = s.stride;
  p.pad = s.pad;
  p.postOps.bias = s.epilogue.bias;
  p.postOps.relu = s.epilogue.relu;
  p.postOps.requantU8 = s.epilogue.requant == ElementType::U8;
  p.postOps.bf16 = s.epilogue.bf16;
  return p;
}

double geomean(const std::vector<double> &v) {
  if (v.empty())
    return 0;
  double s = 0;
  for (double x : v)
    s += std::log(x);
  return std::exp(s / v.size());
}

} // namespace bench
} // namespace tisa
