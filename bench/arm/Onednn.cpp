//===- Onednn.cpp - oneDNN's matmul and convolution for tisa-arm-vendors --===//

#include "Vendor.h"

#include <dnnl.hpp>

#include <cstring>

namespace armvendors {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct Types2 {
  dt a, b, c;
};
Types2 dataTypes(Types t) {
  switch (t) {
  case Types::S8S8S32: return {dt::s8, dt::s8, dt::s32};
  case Types::U8S8S32: return {dt::u8, dt::s8, dt::s32};
  case Types::BF16BF16F32: return {dt::bf16, dt::bf16, dt::f32};
  case Types::F32: break;
  }
  return {dt::f32, dt::f32, dt::f32};
}

/// A primitive with its source, weights (in the layout the primitive picks,
/// format `any`) and destination. Pre-packed: the weights are reordered
/// into that layout once, outside the counted call; plain: every call
/// reorders them from their plain layout first (packing included, as
/// tisa's plain entry does). Handing the primitive plain weights instead
/// selects oneDNN's reference convolution on aarch64 (ref_int8, about 300
/// instructions per multiply-accumulate).
class OnednnCall : public Call {
public:
  OnednnCall(const Problem &p, const Data &d) : problem(p), stream(engine) {
    Types2 t = dataTypes(p.types);
    dnnl::memory::desc src, plainWeights, dst;
    dnnl::memory::dims weightDims;
    if (p.conv) {
      weightDims = {p.f, p.c, p.r, p.s};
      src = {{p.batch, p.c, p.h, p.w}, t.a, tag::nhwc};
      plainWeights = {weightDims, t.b, tag::hwio};
      dst = {{p.batch, p.f, p.outH(), p.outW()}, t.c, tag::nhwc};
    } else {
      weightDims = {p.k, p.n};
      src = {{p.m, p.k}, t.a, tag::ab};
      plainWeights = {weightDims, t.b, tag::ab};
      dst = {{p.m, p.n}, t.c, tag::ab};
    }
    dnnl::memory::desc weights(weightDims, t.b, tag::any);
    if (p.conv) {
      auto pd = dnnl::convolution_forward::primitive_desc(
          dnnl::convolution_forward::desc(
              dnnl::prop_kind::forward_inference,
              dnnl::algorithm::convolution_direct, src, weights, dst,
              {p.stride, p.stride}, {p.pad, p.pad}, {p.pad, p.pad}),
          engine);
      impl = pd.impl_info_str();
      primitive = dnnl::convolution_forward(pd);
      weights = pd.weights_desc();
    } else {
      auto pd = dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(src, weights, dst), engine);
      impl = pd.impl_info_str();
      primitive = dnnl::matmul(pd);
      weights = pd.weights_desc();
    }
    srcMem = dnnl::memory(src, engine);
    dstMem = dnnl::memory(dst, engine);
    weightsMem = dnnl::memory(weights, engine);
    std::memcpy(srcMem.get_data_handle(), d.a.data(), d.a.size());
    plainMem = dnnl::memory(plainWeights, engine);
    std::memcpy(plainMem.get_data_handle(), d.b.data(), d.b.size());
    pack = dnnl::reorder(plainMem, weightsMem);
    if (p.prePacked)
      repack();
  }
  void repack() {
    pack.execute(stream, plainMem, weightsMem);
    stream.wait();
  }
  std::string implementation() const override {
    return "oneDNN " + impl +
           (problem.prePacked ? "" : " (weights reordered in every call)");
  }
  void run() override {
    if (!problem.prePacked)
      repack();
    primitive.execute(stream, {{DNNL_ARG_SRC, srcMem},
                               {DNNL_ARG_WEIGHTS, weightsMem},
                               {DNNL_ARG_DST, dstMem}});
    stream.wait();
  }
  void readOutput(Data &d) override {
    size_t n = size_t(problem.m * problem.n);
    if (problem.types == Types::S8S8S32 || problem.types == Types::U8S8S32) {
      d.outI32.resize(n);
      std::memcpy(d.outI32.data(), dstMem.get_data_handle(), n * 4);
    } else {
      d.outF32.resize(n);
      std::memcpy(d.outF32.data(), dstMem.get_data_handle(), n * 4);
    }
  }

private:
  Problem problem;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream;
  dnnl::primitive primitive;
  dnnl::reorder pack;
  dnnl::memory srcMem, weightsMem, dstMem, plainMem;
  std::string impl;
};

} // namespace

std::unique_ptr<Call> makeOnednn(const Problem &p, const Data &d,
                                 std::string &why) {
  try {
    return std::make_unique<OnednnCall>(p, d);
  } catch (const dnnl::error &e) {
    why = std::string("no implementation of this problem for this CPU (") +
          e.what() + ")";
    return nullptr;
  }
}

} // namespace armvendors
