//===- Libxsmm.cpp - libxsmm BRGEMM baselines for tisa-bench --------------===//
//
// "libxsmm.brgemm": GEMM and conv2d built from the JIT batch-reduce GEMM
// kernels (BRGEMM) of libxsmm 1.17 (Debian's libxsmm-dev), the building block
// of libxsmm's own deep-learning layers.
//
// libxsmm is column-major, so row-major C = A x B is computed as
// C^T = B^T x A^T: libxsmm's m is our N, its n our M, its first operand our
// weights B and its second our activations A, read in place (a column of
// libxsmm's second operand is a row of A). Its int8 and bf16 kernels want the
// first operand in VNNI layout [k / v][m][v] (v = 4 for int8, 2 for bf16);
// prepare() repacks the weights so, once, in blocks of N.
//
// Kernels (on Zen 4 libxsmm's CPUID picks "cpx": AVX-512 VNNI and BF16):
//   u8 x s8 -> s32  subimm: first operand signed, second unsigned, so the
//                   broadcast activations are VPDPBUSD's unsigned operand
//                   (usbimm, the other way round, JITs wrong code on cpx).
//   s8 x s8 -> s32  none: VPDPBUSD is u8 x s8, and 1.17's ssbimm dispatch
//                   returns NULL.
//   bf16 -> f32     bsmm (VDPBF16PS);  f32: smm.
// They need k and the activations' leading dimension in whole VNNI groups:
// the weights are zero-padded in prepare(), and when K is not a multiple of v
// run() first copies A into rows padded with zeros (an input reorder the
// library needs, so timed).
//
// conv2d is the direct BRGEMM convolution: for each (image, output row,
// block of output columns, block of filters) one BRGEMM sums over the filter
// taps and channel blocks, its batch being the addresses of the prepacked
// filter blocks and of the matching input pixels. (The S taps of a filter row
// cannot form one deeper entry although their pixels are contiguous: libxsmm
// rejects a leading dimension below k.) For zero padding, and channels padded
// to a VNNI group, run() first copies the input into a buffer whose zero
// border prepare() set up; that copy is timed, like the padded copy tisa's
// generated conv kernels make on entry.
//
// libxsmm 1.17's address-variant kernels advance the pointers in both address
// arrays in place while they run (and restore them at the end), so each call
// gets its own arrays: sharing one between threads gives wrong sums.
//
// Threads: the (M block, N block) or (image, output row, column block, filter
// block) tiles are split into contiguous ranges run by a tisa::ThreadPool.
//
//===----------------------------------------------------------------------===//

#include "Vendors.h"

#include "tisa/Kernels/ThreadPool.h"

#include <libxsmm.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace tisa::bench {
namespace {

/// Zero-initialized scratch on 64-byte (cache line) boundaries.
struct Scratch {
  struct Free {
    void operator()(char *p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;

  void allocate(size_t bytes) {
    const size_t rounded = bytes / 64 * 64 + 64;
    data.reset(static_cast<char *>(std::aligned_alloc(64, rounded)));
    if (!data)
      std::abort();
    std::memset(data.get(), 0, rounded);
  }
  char *get() const { return data.get(); }
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }
bool fitsInt(int64_t value) { return value >= 0 && value <= INT_MAX; }

/// Elements per VNNI group; an element has 4 / v bytes.
int vnniOf(Precision p) {
  return p == Precision::BF16F32 ? 2 : p == Precision::F32 ? 1 : 4;
}

/// A JIT kernel. dispatch() stores the typed pointer libxsmm returns; calls
/// go through the union's weak-typed members, as libxsmm's own layers do:
/// xmm for the stride variant (the batch count follows c), xbm for the
/// address variant.
struct Brgemm {
  libxsmm_xmmfunction fn{};

  explicit operator bool() const { return fn.xmm != nullptr; }
  /// Batch entry i reads w + i * strideA and x + i * strideB (bytes).
  void strided(const void *w, const void *x, void *c, int64_t count) const {
    const auto n = static_cast<unsigned long long>(count);
    fn.xmm(w, x, c, &n);
  }
  /// Batch entry i reads w[i] and x[i]; both arrays are scratch (see above).
  void addressed(const void **w, const void **x, void *c, int64_t count) const {
    const auto n = static_cast<unsigned long long>(count);
    fn.xbm(w, x, c, &n);
  }
};

/// Column-major shape of one BRGEMM: C[m][n] (+)= sum_i A_i[m][k] B_i[k][n].
struct Shape {
  libxsmm_blasint m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
};

/// JITs (or finds in libxsmm's registry) a batch-reduce kernel: the stride
/// variant with strides in bytes, or with strideA < 0 the address variant.
/// `accumulate` adds to C (beta = 1) instead of overwriting it.
Brgemm dispatch(Precision precision, const Shape &s, int64_t strideA,
                int64_t strideB, bool accumulate) {
  const bool addr = strideA < 0;
  const auto sa = libxsmm_blasint(strideA), sb = libxsmm_blasint(strideB);
  const int flags = precision == Precision::F32 ? 0 : LIBXSMM_GEMM_FLAG_VNNI_A;
  // These variants take no prefetch pointers.
  const int prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  const int iOne = 1, iBeta = accumulate ? 1 : 0;
  const float fOne = 1, fBeta = accumulate ? 1 : 0;
  Brgemm kernel;
  if (precision == Precision::U8S8S32 && addr)
    kernel.fn.subimra = libxsmm_subimmdispatch_reducebatch_addr(
        s.m, s.n, s.k, &s.lda, &s.ldb, &s.ldc, &iOne, &iBeta, &flags,
        &prefetch);
  else if (precision == Precision::U8S8S32)
    kernel.fn.subimrs = libxsmm_subimmdispatch_reducebatch_strd(
        s.m, s.n, s.k, sa, sb, &s.lda, &s.ldb, &s.ldc, &iOne, &iBeta, &flags,
        &prefetch);
  else if (precision == Precision::BF16F32 && addr)
    kernel.fn.bsmra = libxsmm_bsmmdispatch_reducebatch_addr(
        s.m, s.n, s.k, &s.lda, &s.ldb, &s.ldc, &fOne, &fBeta, &flags,
        &prefetch);
  else if (precision == Precision::BF16F32)
    kernel.fn.bsmrs = libxsmm_bsmmdispatch_reducebatch_strd(
        s.m, s.n, s.k, sa, sb, &s.lda, &s.ldb, &s.ldc, &fOne, &fBeta, &flags,
        &prefetch);
  else if (precision == Precision::F32 && addr)
    kernel.fn.smra = libxsmm_smmdispatch_reducebatch_addr(
        s.m, s.n, s.k, &s.lda, &s.ldb, &s.ldc, &fOne, &fBeta, &flags,
        &prefetch);
  else if (precision == Precision::F32)
    kernel.fn.smrs = libxsmm_smmdispatch_reducebatch_strd(
        s.m, s.n, s.k, sa, sb, &s.lda, &s.ldb, &s.ldc, &fOne, &fBeta, &flags,
        &prefetch);
  return kernel;
}

/// Calls fn(tile) for tiles [0, tiles) in contiguous ranges, so that a
/// thread's consecutive tiles share their weight (or input) blocks. Eight
/// ranges per thread, handed out on demand, balance uneven tiles and a
/// thread that is descheduled on a shared core.
template <typename Fn> void forTiles(ThreadPool &pool, int64_t tiles, Fn fn) {
  const int64_t parts =
      pool.threads() == 1 ? 1 : std::min<int64_t>(8 * pool.threads(), tiles);
  pool.run(parts, [&](int64_t part, int64_t count) {
    for (int64_t t = part * tiles / count, e = (part + 1) * tiles / count;
         t < e; ++t)
      fn(t);
  });
}

/// Packs rows [k, k + v) of columns [n0, n0 + width) of the row-major matrix
/// `src` (leading dimension ld, elements of es bytes) into one VNNI group
/// [width][v]; rows at or past `rows` stay zero.
void packGroup(const char *src, char *dst, int64_t k, int64_t rows, int64_t ld,
               int64_t n0, int64_t width, int v, int64_t es) {
  for (int64_t j = 0; j < width; ++j)
    for (int i = 0; i < v && k + i < rows; ++i)
      std::memcpy(dst + (j * v + i) * es, src + ((k + i) * ld + n0 + j) * es,
                  size_t(es));
}

class GemmKernel final : public VendorKernel {
public:
  GemmKernel(const Problem &p, const Buffers &buffers, int threads)
      : pool_(threads), m_(p.m), n_(p.n), k_(p.k),
        kp_(roundUp(p.k, vnniOf(p.precision))), es_(4 / vnniOf(p.precision)),
        a_(static_cast<const char *>(buffers.a)),
        c_(static_cast<char *>(buffers.c)) {}
  bool init(const Problem &p, const Buffers &buffers, std::string &whyNot);
  void run() override;

private:
  void tile(int64_t t, const char *a) const;

  ThreadPool pool_;
  int64_t m_ = 0, n_ = 0, k_ = 0, kp_ = 0, es_ = 0;
  int64_t mBlk_ = 0, nBlk_ = 0, kBlk_ = 0, mBlocks_ = 0, nBlocks_ = 0;
  int64_t kFull_ = 0, kTail_ = 0;
  const char *a_ = nullptr;
  char *c_ = nullptr;
  Scratch packedB_, paddedA_;
  // [N block is full ? 0 : 1][M block is full ? 0 : 1]
  Brgemm main_[2][2], tail_[2][2];
};

bool GemmKernel::init(const Problem &p, const Buffers &buffers,
                      std::string &whyNot) {
  const int v = vnniOf(p.precision);
  // Blocking rule, from a search over N block {32, 64}, M block {8..64} and
  // K block {128 bytes..K} on 512^3 and 128x3072x768 (u8s8s32 and bf16, one
  // thread): all settings with a 64-wide N block were within 1-2% of each
  // other, at 98-99% of the measured VPDPBUSD / VDPBF16PS peak. So: N block
  // 64 (libxsmm's widest register block, 4 zmm of s32/f32), M block 32
  // (libxsmm blocks it further in registers) and K block 256, a packed
  // weight block of 16-64 KB that stays in L1/L2 while the batch moves on.
  nBlk_ = std::min<int64_t>(n_, 64);
  mBlk_ = std::min<int64_t>(m_, 32);
  kBlk_ = std::min<int64_t>(kp_, 256);
  mBlocks_ = ceilDiv(m_, mBlk_);
  nBlocks_ = ceilDiv(n_, nBlk_);
  kFull_ = kp_ / kBlk_;
  kTail_ = kp_ % kBlk_;
  if (!fitsInt(kp_ * nBlk_ * es_) || !fitsInt(n_)) {
    whyNot = "dimensions exceed libxsmm's int arguments";
    return false;
  }

  // Weights: one VNNI panel [kp / v][width][v] per N block, panels back to
  // back; K block i of a panel starts at i * kBlk * width elements.
  const auto *b = static_cast<const char *>(buffers.b);
  packedB_.allocate(size_t(kp_ * n_ * es_));
  for (int64_t n0 = 0; n0 < n_; n0 += nBlk_) {
    const int64_t width = std::min(nBlk_, n_ - n0);
    char *panel = packedB_.get() + n0 * kp_ * es_;
    for (int64_t k = 0; k < kp_; k += v)
      packGroup(b, panel + k * width * es_, k, k_, n_, n0, width, v, es_);
  }
  if (kp_ != k_)
    paddedA_.allocate(size_t(m_ * kp_ * es_));

  for (int ni = 0; ni < 2; ++ni) {
    const int64_t width = ni == 0 ? nBlk_ : n_ - (nBlocks_ - 1) * nBlk_;
    for (int mi = 0; mi < 2; ++mi) {
      Shape s;
      s.m = s.lda = libxsmm_blasint(width);
      s.n = libxsmm_blasint(mi == 0 ? mBlk_ : m_ - (mBlocks_ - 1) * mBlk_);
      s.ldb = libxsmm_blasint(kp_);
      s.ldc = libxsmm_blasint(n_);
      if (kFull_ > 0) {
        s.k = libxsmm_blasint(kBlk_);
        main_[ni][mi] = dispatch(p.precision, s, kBlk_ * width * es_,
                                 kBlk_ * es_, /*accumulate=*/false);
      }
      if (kTail_ > 0) {
        s.k = libxsmm_blasint(kTail_);
        tail_[ni][mi] = dispatch(p.precision, s, 0, 0, kFull_ > 0);
      }
      if ((kFull_ > 0 && !main_[ni][mi]) || (kTail_ > 0 && !tail_[ni][mi])) {
        whyNot = "libxsmm returned no kernel for this shape";
        return false;
      }
    }
  }
  return true;
}

void GemmKernel::tile(int64_t t, const char *a) const {
  // N blocks outermost: a thread's consecutive tiles share a weight panel.
  const int64_t n0 = t / mBlocks_ * nBlk_, m0 = t % mBlocks_ * mBlk_;
  const int ni = n0 + nBlk_ <= n_ ? 0 : 1, mi = m0 + mBlk_ <= m_ ? 0 : 1;
  const int64_t width = std::min(nBlk_, n_ - n0);
  const char *w = packedB_.get() + n0 * kp_ * es_;
  const char *x = a + m0 * kp_ * es_;
  char *c = c_ + (m0 * n_ + n0) * 4;
  if (kFull_ > 0)
    main_[ni][mi].strided(w, x, c, kFull_);
  if (kTail_ > 0)
    tail_[ni][mi].strided(w + kFull_ * kBlk_ * width * es_,
                          x + kFull_ * kBlk_ * es_, c, 1);
}

void GemmKernel::run() {
  const char *a = a_;
  if (kp_ != k_) {
    char *padded = paddedA_.get(); // row tails stay zero from allocate()
    forTiles(pool_, m_, [&](int64_t row) {
      std::memcpy(padded + row * kp_ * es_, a_ + row * k_ * es_,
                  size_t(k_ * es_));
    });
    a = padded;
  }
  forTiles(pool_, mBlocks_ * nBlocks_, [&](int64_t t) { tile(t, a); });
}

/// Bound on a convolution's batch (R * S * channel blocks), so that run()
/// keeps its address arrays on the stack.
constexpr int64_t kMaxEntries = 1024;

class ConvKernel final : public VendorKernel {
public:
  ConvKernel(const Problem &p, const Buffers &buffers, int threads)
      : pool_(threads), batch_(p.batch), h_(p.h), w_(p.w), c_(p.c), pad_(p.pad),
        stride_(p.stride), f_(p.filters),
        cp_(roundUp(p.c, vnniOf(p.precision))), es_(4 / vnniOf(p.precision)),
        oh_(p.outH()), ow_(p.outW()), in_(static_cast<const char *>(buffers.a)),
        out_(static_cast<char *>(buffers.c)) {}
  bool init(const Problem &p, const Buffers &buffers, std::string &whyNot);
  void run() override;

private:
  void copyRow(int64_t row) const;
  void tile(int64_t t) const;

  ThreadPool pool_;
  int64_t batch_ = 0, h_ = 0, w_ = 0, c_ = 0, pad_ = 0, stride_ = 0, f_ = 0;
  int64_t hp_ = 0, wp_ = 0, cp_ = 0, es_ = 0, cBlk_ = 0, cBlocks_ = 0;
  int64_t oh_ = 0, ow_ = 0, owBlk_ = 0, owBlocks_ = 0, fBlk_ = 0, fBlocks_ = 0;
  int64_t entries_ = 0;
  const char *in_ = nullptr;
  char *out_ = nullptr;
  Scratch paddedIn_, packedW_;
  // Per filter block, each batch entry's weights; per entry, the byte offset
  // of its input pixels from the tile's first pixel.
  std::vector<const void *> wAddr_;
  std::vector<int64_t> xOffset_;
  // [filter block is full ? 0 : 1][column block is full ? 0 : 1]
  Brgemm kernel_[2][2];
};

bool ConvKernel::init(const Problem &p, const Buffers &buffers,
                      std::string &whyNot) {
  const int v = vnniOf(p.precision);
  // A 1x1, stride-1, unpadded convolution is a GEMM over an image's pixels:
  // view each image as one row so that column blocks span rows.
  if (p.r == 1 && p.s == 1 && stride_ == 1 && pad_ == 0) {
    w_ *= h_;
    h_ = 1;
    ow_ *= oh_;
    oh_ = 1;
  }

  // Channels in blocks of at most 256 (a divisor of cp in whole VNNI
  // groups); a batch entry per (r, s, channel block).
  cBlk_ = cp_;
  for (int64_t d = 256; cBlk_ > 256; d -= v)
    if (cp_ % d == 0)
      cBlk_ = d;
  cBlocks_ = cp_ / cBlk_;
  entries_ = p.r * p.s * cBlocks_;
  if (entries_ > kMaxEntries) {
    whyNot = "too many filter taps and channel blocks for one batch";
    return false;
  }
  if (!fitsInt(stride_ * cp_) || !fitsInt(f_)) {
    whyNot = "dimensions exceed libxsmm's int arguments";
    return false;
  }

  // Blocks: 64 filters (4 zmm of s32/f32) by up to 112 output columns; a
  // search over {32, 64} x {14..224} on the three ResNet-50 shapes of the
  // test moved throughput by less than 3%.
  fBlk_ = std::min<int64_t>(f_, 64);
  fBlocks_ = ceilDiv(f_, fBlk_);
  owBlk_ = ceilDiv(ow_, ceilDiv(ow_, 112));
  owBlocks_ = ceilDiv(ow_, owBlk_);

  hp_ = h_ + 2 * pad_;
  wp_ = w_ + 2 * pad_;
  if (pad_ != 0 || cp_ != c_)
    paddedIn_.allocate(size_t(batch_ * hp_ * wp_ * cp_ * es_));

  // Filter [r][s][c][f]: per filter block and batch entry (r, s, channel
  // block) one VNNI block [cBlk / v][width][v], channels past C zero.
  const auto *filter = static_cast<const char *>(buffers.b);
  packedW_.allocate(size_t(f_ * entries_ * cBlk_ * es_));
  for (int64_t f0 = 0; f0 < f_; f0 += fBlk_) {
    const int64_t width = std::min(fBlk_, f_ - f0);
    char *block = packedW_.get() + f0 * entries_ * cBlk_ * es_;
    for (int64_t e = 0; e < entries_; ++e, block += cBlk_ * width * es_) {
      wAddr_.push_back(block);
      const char *tap = filter + e / cBlocks_ * c_ * f_ * es_;
      for (int64_t d = 0; d < cBlk_; d += v)
        packGroup(tap, block + d * width * es_, e % cBlocks_ * cBlk_ + d, c_,
                  f_, f0, width, v, es_);
    }
  }
  for (int64_t e = 0; e < entries_; ++e) {
    const int64_t r = e / (p.s * cBlocks_), s = e / cBlocks_ % p.s;
    xOffset_.push_back(((r * wp_ + s) * cp_ + e % cBlocks_ * cBlk_) * es_);
  }

  for (int fi = 0; fi < 2; ++fi) {
    for (int oi = 0; oi < 2; ++oi) {
      Shape s;
      s.m = s.lda =
          libxsmm_blasint(fi == 0 ? fBlk_ : f_ - (fBlocks_ - 1) * fBlk_);
      s.n = libxsmm_blasint(oi == 0 ? owBlk_ : ow_ - (owBlocks_ - 1) * owBlk_);
      s.k = libxsmm_blasint(cBlk_);
      s.ldb = libxsmm_blasint(stride_ * cp_);
      s.ldc = libxsmm_blasint(f_);
      kernel_[fi][oi] = dispatch(p.precision, s, -1, -1, false);
      if (!kernel_[fi][oi]) {
        whyNot = "libxsmm returned no kernel for this shape";
        return false;
      }
    }
  }
  return true;
}

void ConvKernel::copyRow(int64_t row) const {
  // Input row `row` (image * h + y) into the interior of the padded copy.
  const int64_t n = row / h_, y = row % h_, bytes = c_ * es_;
  const char *src = in_ + row * w_ * bytes;
  char *dst = paddedIn_.get() + ((n * hp_ + y + pad_) * wp_ + pad_) * cp_ * es_;
  if (cp_ == c_) {
    std::memcpy(dst, src, size_t(w_ * bytes));
    return;
  }
  for (int64_t x = 0; x < w_; ++x)
    for (int64_t i = 0; i < bytes; ++i)
      dst[x * cp_ * es_ + i] = src[x * bytes + i];
}

void ConvKernel::tile(int64_t t) const {
  // Tiles are (image, output row, column block, filter block), filters
  // innermost so that consecutive tiles reuse the same input rows.
  const int64_t fb = t % fBlocks_, x0 = t / fBlocks_ % owBlocks_ * owBlk_;
  const int64_t n = t / (fBlocks_ * owBlocks_) / oh_;
  const int64_t y = t / (fBlocks_ * owBlocks_) % oh_, f0 = fb * fBlk_;
  const int fi = f0 + fBlk_ <= f_ ? 0 : 1, oi = x0 + owBlk_ <= ow_ ? 0 : 1;
  const char *in = paddedIn_.get() ? paddedIn_.get() : in_;
  const char *base =
      in + ((n * hp_ + y * stride_) * wp_ + x0 * stride_) * cp_ * es_;
  // Fresh address arrays for every call: the kernel rewrites them as it runs.
  const void *wAddr[kMaxEntries], *xAddr[kMaxEntries];
  std::copy_n(wAddr_.data() + fb * entries_, entries_, wAddr);
  for (int64_t e = 0; e < entries_; ++e)
    xAddr[e] = base + xOffset_[size_t(e)];
  char *c = out_ + (((n * oh_ + y) * ow_ + x0) * f_ + f0) * 4;
  kernel_[fi][oi].addressed(wAddr, xAddr, c, entries_);
}

void ConvKernel::run() {
  if (paddedIn_.get())
    forTiles(pool_, batch_ * h_, [&](int64_t row) { copyRow(row); });
  forTiles(pool_, batch_ * oh_ * owBlocks_ * fBlocks_,
           [&](int64_t t) { tile(t); });
}

template <typename Kernel>
std::unique_ptr<VendorKernel> make(const Problem &p, const Buffers &buffers,
                                   int threads, std::string &whyNot) {
  auto kernel = std::make_unique<Kernel>(p, buffers, threads);
  if (!kernel->init(p, buffers, whyNot))
    return nullptr;
  return kernel;
}

std::unique_ptr<VendorKernel> prepare(const Problem &p, const Buffers &buffers,
                                      int threads, std::string &whyNot) {
  if (p.postOps.any()) {
    whyNot = "this adapter has no post-ops";
    return nullptr;
  }
  if (p.precision == Precision::S8S8S32) {
    whyNot = "libxsmm 1.17 has no s8 x s8 int8 kernel on x86 (VPDPBUSD is "
             "u8 x s8; libxsmm_ssbimmdispatch_* return NULL)";
    return nullptr;
  }
  libxsmm_init();
  if (p.kind == Problem::Kind::Gemm)
    return make<GemmKernel>(p, buffers, threads, whyNot);
  return make<ConvKernel>(p, buffers, threads, whyNot);
}

} // namespace

std::vector<Vendor> libxsmmVendors() { return {{"libxsmm.brgemm", prepare}}; }

std::string libxsmmVersion() {
  libxsmm_init();
  return "libxsmm " + std::to_string(LIBXSMM_VERSION_MAJOR) + "." +
         std::to_string(LIBXSMM_VERSION_MINOR) + "." +
         std::to_string(LIBXSMM_VERSION_UPDATE) + " (JIT target " +
         libxsmm_get_target_arch() + ")";
}

} // namespace tisa::bench
