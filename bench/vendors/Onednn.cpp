//===- Onednn.cpp - oneDNN baselines for tisa-bench -----------------------===//
//
// Adapters over oneDNN 2.x (Debian's libdnnl 2.6): the BLAS-like C gemm
// functions, the matmul primitive with plain or packed weights, and the
// convolution primitive in the layouts it prefers.
//
// This file is compiled with -fexceptions, unlike the rest of the project:
// dnnl.hpp reports every failure by throwing dnnl::error. No exception leaves
// this file; prepare() turns them into whyNot, run() and finish() into a
// fatal error (they cannot fail once prepare() succeeded).
//
// This libdnnl uses the GNU OpenMP runtime (libgomp). It reads the thread
// count when a primitive is created (its JIT kernels and work split depend on
// it) and when it runs, so prepare() and every run() set it: other adapters
// may change it in between. Link libgomp itself (-lgomp), not an -fopenmp
// that may mean LLVM's libomp, or omp_set_num_threads() misses oneDNN.
//
// The implementation oneDNN picks for a primitive (impl_info_str(), e.g.
// "brg:avx512_core_vnni") is reported, so a slow "ref:" fallback is visible.
//
//===----------------------------------------------------------------------===//

#include "Vendors.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <utility>

extern "C" void omp_set_num_threads(int);

// Exported by libdnnl 2.x (DNNL_API, used by oneDNN's own tests) but missing
// from its public header. uint16_t stands for dnnl::impl::bfloat16_t, a
// struct holding the same 16 bits.
extern "C" dnnl_status_t dnnl_gemm_bf16bf16f32(char transa, char transb,
                                               dnnl_dim_t m, dnnl_dim_t n,
                                               dnnl_dim_t k, float alpha,
                                               const uint16_t *a,
                                               dnnl_dim_t lda,
                                               const uint16_t *b,
                                               dnnl_dim_t ldb, float beta,
                                               float *c, dnnl_dim_t ldc);

namespace tisa::bench {
namespace {

using dnnl::memory;
using Dt = memory::data_type;
using Tag = memory::format_tag;
using Args = std::unordered_map<int, memory>;

dnnl::engine &cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream &cpuStream() {
  static dnnl::stream stream(cpuEngine());
  return stream;
}

[[noreturn]] void fatal(const std::string &what) {
  std::fprintf(stderr, "onednn adapter: %s\n", what.c_str());
  std::abort();
}

struct Types {
  Dt a, b, c;
};

Types typesOf(Precision precision) {
  switch (precision) {
  case Precision::U8S8S32:
    return {Dt::u8, Dt::s8, Dt::s32};
  case Precision::S8S8S32:
    return {Dt::s8, Dt::s8, Dt::s32};
  case Precision::BF16F32:
    return {Dt::bf16, Dt::bf16, Dt::f32};
  case Precision::F32:
    return {Dt::f32, Dt::f32, Dt::f32};
  }
  fatal("unknown precision");
}

/// A memory object over a caller's buffer; oneDNN wants a non-const handle
/// even for inputs, which it only reads.
memory wrap(const memory::desc &md, const void *data) {
  return memory(md, cpuEngine(), const_cast<void *>(data));
}

/// Copies `from` into `to` now (prepare-time layout changes).
void reorderNow(memory &from, memory &to) {
  dnnl::reorder(from, to).execute(cpuStream(), from, to);
  cpuStream().wait();
}

/// Scratch memory is the caller's so that it is allocated in prepare(), not
/// inside a timed run().
dnnl::primitive_attr userScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

//===----------------------------------------------------------------------===//
// Post-ops (Problem::postOps)
//===----------------------------------------------------------------------===//

/// The type oneDNN stores: the accumulator's, or the post-ops' conversion.
Dt dstType(const Problem &p) {
  if (p.postOps.requantU8)
    return Dt::u8;
  if (p.postOps.bf16)
    return Dt::bf16;
  return typesOf(p.precision).c;
}

/// A user scratchpad, ReLU, and for requantization the output scales per
/// channel (dimension `channelDim` of the destination) and the destination
/// zero point.
dnnl::primitive_attr postOpsAttr(const Problem &p, const Buffers &b,
                                 int64_t channels, int channelDim) {
  dnnl::primitive_attr attr = userScratchpad();
  if (p.postOps.relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  if (p.postOps.requantU8) {
    attr.set_output_scales(1 << channelDim,
                           std::vector<float>(b.scales, b.scales + channels));
    attr.set_zero_points(DNNL_ARG_DST, 0, {b.zeroPoint});
  }
  return attr;
}

/// The bias as oneDNN takes it, f32 per channel, in a memory of `md`. Its
/// int8 kernels add it to the accumulator before the output scales (dst =
/// scale * (acc + bias), measured on 2.6.3), as tisa does in s32: the f32
/// sum differs only beyond 2^24.
memory biasMemory(const Problem &p, const Buffers &b, int64_t channels,
                  const memory::desc &md) {
  memory mem(md, cpuEngine());
  auto *out = static_cast<float *>(mem.get_data_handle());
  for (int64_t j = 0; j < channels; ++j)
    out[j] = p.precision == Precision::BF16F32
                 ? static_cast<const float *>(b.bias)[j]
                 : float(static_cast<const int32_t *>(b.bias)[j]);
  return mem;
}

//===----------------------------------------------------------------------===//
// onednn.gemm: the C gemm functions (row-major, no offsets, C = A x B).
//===----------------------------------------------------------------------===//

class GemmKernel final : public VendorKernel {
public:
  GemmKernel(const Problem &p, const Buffers &buffers, int threads)
      : p(p), buffers(buffers), threads(threads) {}

  const char *callName() const {
    switch (p.precision) {
    case Precision::U8S8S32:
      return "dnnl_gemm_u8s8s32";
    case Precision::S8S8S32:
      return "dnnl_gemm_s8s8s32";
    case Precision::BF16F32:
      return "dnnl_gemm_bf16bf16f32";
    case Precision::F32:
      return "dnnl_sgemm";
    }
    return "?";
  }

  dnnl_status_t call() const {
    const int32_t zeroOffset = 0;
    switch (p.precision) {
    case Precision::U8S8S32:
      return dnnl_gemm_u8s8s32(
          'N', 'N', 'F', p.m, p.n, p.k, 1.0f,
          static_cast<const uint8_t *>(buffers.a), p.k, 0,
          static_cast<const int8_t *>(buffers.b), p.n, 0, 0.0f,
          static_cast<int32_t *>(buffers.c), p.n, &zeroOffset);
    case Precision::S8S8S32:
      return dnnl_gemm_s8s8s32(
          'N', 'N', 'F', p.m, p.n, p.k, 1.0f,
          static_cast<const int8_t *>(buffers.a), p.k, 0,
          static_cast<const int8_t *>(buffers.b), p.n, 0, 0.0f,
          static_cast<int32_t *>(buffers.c), p.n, &zeroOffset);
    case Precision::BF16F32:
      return dnnl_gemm_bf16bf16f32(
          'N', 'N', p.m, p.n, p.k, 1.0f,
          static_cast<const uint16_t *>(buffers.a), p.k,
          static_cast<const uint16_t *>(buffers.b), p.n, 0.0f,
          static_cast<float *>(buffers.c), p.n);
    case Precision::F32:
      return dnnl_sgemm('N', 'N', p.m, p.n, p.k, 1.0f,
                        static_cast<const float *>(buffers.a), p.k,
                        static_cast<const float *>(buffers.b), p.n, 0.0f,
                        static_cast<float *>(buffers.c), p.n);
    }
    return dnnl_invalid_arguments;
  }

  void run() override {
    omp_set_num_threads(threads);
    if (dnnl_status_t status = call(); status != dnnl_success)
      fatal(std::string(callName()) + ": " + dnnl_status2str(status));
  }

private:
  Problem p;
  Buffers buffers;
  int threads;
};

std::unique_ptr<VendorKernel> prepareGemm(const Problem &p,
                                          const Buffers &buffers, int threads,
                                          std::string &whyNot) {
  if (p.kind != Problem::Kind::Gemm) {
    whyNot = "not a GEMM";
    return nullptr;
  }
  if (p.postOps.any()) {
    whyNot = "the C gemm functions have no post-ops";
    return nullptr;
  }
  omp_set_num_threads(threads);
  auto kernel = std::make_unique<GemmKernel>(p, buffers, threads);
  // The C API has no separate argument check, and it generates its JIT
  // kernels on first use: one trial call does both outside the timed run().
  if (dnnl_status_t status = kernel->call(); status != dnnl_success) {
    whyNot = std::string(kernel->callName()) + ": " + dnnl_status2str(status);
    return nullptr;
  }
  return kernel;
}

//===----------------------------------------------------------------------===//
// Primitive-based vendors: onednn.matmul, onednn.matmul.packed, onednn.conv.
//===----------------------------------------------------------------------===//

class PrimitiveKernel final : public VendorKernel {
public:
  PrimitiveKernel(dnnl::primitive primitive, Args args, int threads,
                  std::string impl)
      : primitive(std::move(primitive)), args(std::move(args)),
        threads(threads), impl(std::move(impl)) {}

  std::string implementation() const override { return impl; }

  /// Makes finish() reorder the primitive's output `from` into the caller's
  /// plain output `to`.
  void setOutputReorder(const memory &from, const memory &to) {
    outFrom = from;
    outTo = to;
    outReorder = dnnl::reorder(from, to);
  }

  void run() override {
    omp_set_num_threads(threads);
    try {
      primitive.execute(cpuStream(), args);
      cpuStream().wait();
    } catch (const dnnl::error &e) {
      fatal(std::string("primitive::execute: ") + e.what());
    }
  }

  void finish() override {
    if (!outReorder)
      return;
    omp_set_num_threads(threads);
    try {
      outReorder.execute(cpuStream(), outFrom, outTo);
      cpuStream().wait();
    } catch (const dnnl::error &e) {
      fatal(std::string("reorder::execute: ") + e.what());
    }
  }

private:
  dnnl::primitive primitive;
  Args args; // Holds the packed/reordered operands and the scratchpad.
  int threads;
  dnnl::reorder outReorder;
  memory outFrom, outTo;
  std::string impl;
};

/// For a problem of `kind` (else whyNot says it is not `what`), on
/// `threads` threads: runs `body(step, engine)`, which names the dnnl call it
/// is in through `step`, and turns a dnnl::error into whyNot.
template <typename Body>
std::unique_ptr<VendorKernel>
preparePrimitive(const Problem &p, Problem::Kind kind, const char *what,
                 int threads, std::string &whyNot, Body body) {
  if (p.kind != kind) {
    whyNot = std::string("not a ") + what;
    return nullptr;
  }
  omp_set_num_threads(threads);
  const char *step = "dnnl::engine";
  try {
    dnnl::engine &engine = cpuEngine();
    step = "memory::desc";
    return body(step, engine);
  } catch (const dnnl::error &e) {
    whyNot = std::string(step) + ": " + e.what();
    return nullptr;
  }
}

/// `data` (described by `userMd`) in the layout `chosen`: reordered into a
/// new memory if it differs, untimed.
memory inLayout(const memory::desc &userMd, const void *data,
                const memory::desc &chosen) {
  memory user = wrap(userMd, data);
  if (chosen == userMd)
    return user;
  memory mem(chosen, cpuEngine());
  reorderNow(user, mem);
  return mem;
}

std::unique_ptr<VendorKernel> prepareMatmul(const Problem &p,
                                            const Buffers &buffers,
                                            int threads, bool packed,
                                            std::string &whyNot) {
  return preparePrimitive(
      p, Problem::Kind::Gemm, "GEMM", threads, whyNot,
      [&](const char *&step, dnnl::engine &engine) {
        Types t = typesOf(p.precision);
        memory::desc aMd({p.m, p.k}, t.a, Tag::ab);
        memory::desc bMd({p.k, p.n}, t.b, Tag::ab);
        memory::desc cMd({p.m, p.n}, dstType(p), Tag::ab);
        memory::desc biasMd({1, p.n}, Dt::f32, Tag::ab);
        // `any` lets oneDNN choose its blocked (VNNI-interleaved) weights
        // layout.
        memory::desc bWantMd =
            packed ? memory::desc({p.k, p.n}, t.b, Tag::any) : bMd;
        step = "matmul::primitive_desc";
        dnnl::matmul::desc desc =
            p.postOps.bias ? dnnl::matmul::desc(aMd, bWantMd, biasMd, cMd)
                           : dnnl::matmul::desc(aMd, bWantMd, cMd);
        dnnl::matmul::primitive_desc pd(
            desc, postOpsAttr(p, buffers, p.n, /*channelDim=*/1), engine);
        step = "reorder (weights)";
        memory bMem = inLayout(bMd, buffers.b, pd.weights_desc());
        Args args{{DNNL_ARG_SRC, wrap(aMd, buffers.a)},
                  {DNNL_ARG_WEIGHTS, bMem},
                  {DNNL_ARG_DST, wrap(cMd, buffers.c)},
                  {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), engine)}};
        if (p.postOps.bias)
          args[DNNL_ARG_BIAS] = biasMemory(p, buffers, p.n, biasMd);
        step = "matmul";
        return std::make_unique<PrimitiveKernel>(
            dnnl::matmul(pd), std::move(args), threads, pd.impl_info_str());
      });
}

std::unique_ptr<VendorKernel> prepareConv(const Problem &p,
                                          const Buffers &buffers, int threads,
                                          std::string &whyNot) {
  return preparePrimitive(
      p, Problem::Kind::Conv2d, "conv2d", threads, whyNot,
      [&](const char *&step, dnnl::engine &engine) {
        Types t = typesOf(p.precision);
        // oneDNN's logical dims are NCHW / OIHW; the tags give the memory
        // order.
        memory::dims srcDims{p.batch, p.c, p.h, p.w};
        memory::dims wDims{p.filters, p.c, p.r, p.s};
        memory::dims dstDims{p.batch, p.filters, p.outH(), p.outW()};
        memory::desc srcUserMd(srcDims, t.a, Tag::nhwc);
        memory::desc wUserMd(wDims, t.b, Tag::hwio); // HWCF
        memory::desc dstUserMd(dstDims, dstType(p), Tag::nhwc);
        memory::desc biasMd({p.filters}, Dt::f32, Tag::a);
        // Direct, not auto: auto may pick Winograd, which changes the numerics.
        step = "convolution_forward::primitive_desc";
        memory::desc srcMd(srcDims, t.a, Tag::any), wMd(wDims, t.b, Tag::any),
            dstMd(dstDims, dstType(p), Tag::any);
        auto kind = dnnl::prop_kind::forward_inference;
        auto direct = dnnl::algorithm::convolution_direct;
        memory::dims strides{p.stride, p.stride}, pads{p.pad, p.pad};
        dnnl::convolution_forward::desc desc =
            p.postOps.bias
                ? dnnl::convolution_forward::desc(kind, direct, srcMd, wMd,
                                                  biasMd, dstMd, strides, pads,
                                                  pads)
                : dnnl::convolution_forward::desc(kind, direct, srcMd, wMd,
                                                  dstMd, strides, pads, pads);
        dnnl::convolution_forward::primitive_desc pd(
            desc, postOpsAttr(p, buffers, p.filters, /*channelDim=*/1),
            engine);

        // Operands go into the layouts oneDNN chose. The input reorder is a
        // per-inference cost in a real deployment (activations arrive in the
        // application's layout); we still do it here, untimed, to give oneDNN
        // its best case. With int8 oneDNN usually picks NHWC and nothing moves.
        step = "reorder (input, filter)";
        memory src = inLayout(srcUserMd, buffers.a, pd.src_desc());
        memory weights = inLayout(wUserMd, buffers.b, pd.weights_desc());

        step = "memory (output)";
        memory dstUser = wrap(dstUserMd, buffers.c);
        bool plainDst = pd.dst_desc() == dstUserMd;
        memory dst = plainDst ? dstUser : memory(pd.dst_desc(), engine);
        Args args{{DNNL_ARG_SRC, src},
                  {DNNL_ARG_WEIGHTS, weights},
                  {DNNL_ARG_DST, dst},
                  {DNNL_ARG_SCRATCHPAD, memory(pd.scratchpad_desc(), engine)}};
        if (p.postOps.bias)
          args[DNNL_ARG_BIAS] = biasMemory(p, buffers, p.filters, biasMd);
        step = "convolution_forward";
        auto kernel = std::make_unique<PrimitiveKernel>(
            dnnl::convolution_forward(pd), std::move(args), threads,
            pd.impl_info_str());
        step = "reorder (output)";
        if (!plainDst)
          kernel->setOutputReorder(dst, dstUser);
        return kernel;
      });
}

} // namespace

std::vector<Vendor> onednnVendors() {
  auto matmul = [](bool packed) {
    return [packed](const Problem &p, const Buffers &buffers, int threads,
                    std::string &whyNot) {
      return prepareMatmul(p, buffers, threads, packed, whyNot);
    };
  };
  return {{"onednn.gemm", prepareGemm},
          {"onednn.matmul", matmul(false)},
          {"onednn.matmul.packed", matmul(true)},
          {"onednn.conv", prepareConv}};
}

std::string onednnVersion() {
  const dnnl_version_t *v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." +
         std::to_string(v->minor) + "." + std::to_string(v->patch);
}

} // namespace tisa::bench
