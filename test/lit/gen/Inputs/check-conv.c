/* Runs a convolution that `tisa gen FILE.mlir` generated (FUNC, through
 * MLIR's C interface) against a plain reference:
 * O[oh][ow][f] = sum (I[oh*S+kh*D][ow*S+kw*D][c] - IZ) (F[kh][kw][c][f] - FZ),
 * random and mixed-extreme s8 inputs, bit-exact, guard words beside O.
 * Each data set runs twice (fence.h): I, F and O each ending at a PROT_NONE
 * page ("fenced after", O's guard words before it), then each starting right
 * after one ("fenced before", the guard words after O).
 * NHWC input and HWCF filter (quantized-conv.mlir, with -DZERO_POINTS
 * -DIZ= -DFZ=), or -DNCHW: NCHW input and output, FCHW filter
 * (conv-nchw.mlir). */
#include <stdint.h>
#include <stdio.h>

#include "fence.h"

/* H and W may be given (-DH= -DW=) for a kernel of run-time extents. */
#ifndef H
#define H 11
#endif
#ifndef W
#define W 13
#endif
/* Channels, filters, stride and dilation may be given too (-DCH=
 * -DFILTERS= -DSTRIDE= -DDILATION=). */
#ifndef CH
#define CH 19
#endif
#ifndef FILTERS
#define FILTERS 21
#endif
#ifndef STRIDE
#define STRIDE 2
#endif
#ifndef DILATION
#define DILATION 1
#endif
enum { C = CH, KH = 3, KW = 3, F = FILTERS, S = STRIDE, D = DILATION };
#define OH ((H - D * (KH - 1) - 1) / S + 1)
#define OW ((W - D * (KW - 1) - 1) / S + 1)

#ifdef NCHW
static int inAt(int h, int w, int c) { return (c * H + h) * W + w; }
static int filterAt(int kh, int kw, int c, int f) {
  return ((f * C + c) * KH + kh) * KW + kw;
}
static int outAt(int oh, int ow, int f) { return (f * OH + oh) * OW + ow; }
#define IN_SHAPE 1, C, H, W
#define FILTER_SHAPE F, C, KH, KW
#define OUT_SHAPE 1, F, OH, OW
#else
static int inAt(int h, int w, int c) { return (h * W + w) * C + c; }
static int filterAt(int kh, int kw, int c, int f) {
  return ((kh * KW + kw) * C + c) * F + f;
}
static int outAt(int oh, int ow, int f) { return (oh * OW + ow) * F + f; }
#define IN_SHAPE 1, H, W, C
#define FILTER_SHAPE KH, KW, C, F
#define OUT_SHAPE 1, OH, OW, F
#endif
#ifndef ZERO_POINTS
#define IZ 0
#define FZ 0
#endif

typedef struct {
  int8_t *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} Memref8;
typedef struct {
  int32_t *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} Memref32;

#ifdef ZERO_POINTS
void FUNC(Memref8 *in, Memref8 *f, int32_t iz, int32_t fz, Memref32 *out);
#else
void FUNC(Memref8 *in, Memref8 *f, Memref32 *out);
#endif

#define GUARD 16
#define POISON ((int32_t)0x5a5a5a5a)

static uint64_t state = 0x9e3779b9;
static int8_t value(int extreme) {
  static const int8_t s8[] = {0, 1, -1, 127, -128};
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  uint32_t r = (uint32_t)(state >> 33);
  return extreme && (r & 1) ? s8[(r >> 1) % 5] : (int8_t)(r >> 8);
}

static Memref8 view8(int8_t *p, int64_t d0, int64_t d1, int64_t d2,
                     int64_t d3) {
  Memref8 m = {p, p, 0, {d0, d1, d2, d3}, {d1 * d2 * d3, d2 * d3, d3, 1}};
  return m;
}

/* The inputs of the data set being checked; each call gets fenced copies. */
static int8_t in[H * W * C], flt[KH * KW * C * F];

/* One call with every buffer fenced after (after != 0) or before; 0 if
 * right. */
static int run(int extreme, int after) {
  char what[64];
  snprintf(what, sizeof what, "%s inputs (fenced %s)",
           extreme ? "extreme" : "random", after ? "after" : "before");
  int8_t *fi = fence_copy(in, sizeof in, after, "input");
  int8_t *ff = fence_copy(flt, sizeof flt, after, "filter");
  /* O's guard words on the side away from the fence: O itself touches it. */
  int32_t *buffer = fence_alloc((GUARD + OH * OW * F) * 4, after, "output");
  int32_t *out = after ? buffer + GUARD : buffer;
  int32_t *guard = after ? buffer : buffer + OH * OW * F;
  for (int i = 0; i < GUARD + OH * OW * F; ++i)
    buffer[i] = POISON;
  Memref8 mi = view8(fi, IN_SHAPE), mf = view8(ff, FILTER_SHAPE);
  Memref32 mo = {buffer, out, 0, {OUT_SHAPE}, {0, 0, 0, 1}};
  for (int d = 2; d >= 0; --d)
    mo.strides[d] = mo.strides[d + 1] * mo.sizes[d + 1];
#ifdef ZERO_POINTS
  FUNC(&mi, &mf, IZ, FZ, &mo);
#else
  FUNC(&mi, &mf, &mo);
#endif
  int bad = 0;
  for (int i = 0; i < GUARD && !bad; ++i)
    if (guard[i] != POISON) {
      printf("%s: the kernel wrote outside O\n", what);
      bad = 1;
    }
  for (int oh = 0; oh < OH && !bad; ++oh)
    for (int ow = 0; ow < OW && !bad; ++ow)
      for (int f = 0; f < F && !bad; ++f) {
        uint32_t want = 0; /* s32 arithmetic wraps */
        for (int kh = 0; kh < KH; ++kh)
          for (int kw = 0; kw < KW; ++kw)
            for (int c = 0; c < C; ++c)
              want += (uint32_t)(
                  ((int64_t)in[inAt(oh * S + kh * D, ow * S + kw * D, c)] -
                   IZ) *
                  ((int64_t)flt[filterAt(kh, kw, c, f)] - FZ));
        int32_t got = out[outAt(oh, ow, f)];
        if ((uint32_t)got != want) {
          printf("%s: O[%d][%d][%d] = %d, expected %d\n", what, oh, ow, f,
                 got, (int32_t)want);
          bad = 1;
        }
      }
  if (!bad)
    printf("%s: %dx%dx%d -> %d 3x3/%d%s bit-exact\n", what, H, W, C, F, S,
           D > 1 ? " dilated" : "");
  fence_free(fi, sizeof in, after);
  fence_free(ff, sizeof flt, after);
  fence_free(buffer, (GUARD + OH * OW * F) * 4, after);
  return bad;
}

static int check(int extreme) {
  for (int i = 0; i < H * W * C; ++i)
    in[i] = value(extreme);
  for (int i = 0; i < KH * KW * C * F; ++i)
    flt[i] = value(extreme);
  return run(extreme, 1) || run(extreme, 0);
}

int main(void) {
  fence_report_faults();
  return check(0) || check(1);
}
