/* Runs plain.mlir's library (tisa gen FILE.mlir, MLIR's C interface) against
 * plain references, on random and mixed-extreme inputs, with guard words
 * beside each output: the f32 GEMM bit-exact (each output summed in k order,
 * one rounding per multiply and per add: build with -ffp-contract=off), the
 * s8 depthwise conv2d bit-exact. Each data set runs twice (fence.h): every
 * buffer ending at a PROT_NONE page ("fenced after", an output's guard words
 * before it), then every buffer starting right after one ("fenced before",
 * the guard words after the output). Exits non-zero on the first
 * difference. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fence.h"

enum { M = 33, N = 47, K = 29 };
enum { H = 10, W = 10, C = 35, OH = 8, OW = 8 };
#define GUARD 16

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemrefF2;
typedef struct {
  int8_t *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} Memref8x4;
typedef struct {
  int8_t *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} Memref8x3;
typedef struct {
  int32_t *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} Memref32x4;

void _mlir_ciface_mm(MemrefF2 *a, MemrefF2 *b, MemrefF2 *c);
void _mlir_ciface_dw(Memref8x4 *i, Memref8x3 *f, Memref32x4 *o);

static uint64_t state = 0x7153a;
static uint32_t next(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}
static float real(int extreme) {
  static const float edge[] = {0.0f, -0.0f, 1e30f, -1e30f, 1e-30f, 3.0f};
  if (extreme && next() % 2)
    return edge[next() % 6];
  return (float)((int32_t)next() % 2001 - 1000) / 37.0f;
}
static int8_t byte(int extreme) {
  static const int8_t edge[] = {0, 1, -1, 127, -128};
  return extreme && next() % 2 ? edge[next() % 5] : (int8_t)next();
}

/* The inputs of the data set being checked; each call gets fenced copies. */
static float ga[M * K], gb[K * N];
static int8_t din[H * W * C], df[3 * 3 * C];

/* The label of one call's lines: "gemm f32 random inputs (fenced after)". */
static void label(char *what, size_t size, const char *kernel, int extreme,
                  int after) {
  snprintf(what, size, "%s %s inputs (fenced %s)", kernel,
           extreme ? "extreme" : "random", after ? "after" : "before");
}

/* One GEMM call with every buffer fenced after (after != 0) or before; 0 if
 * right. */
static int runGemm(int extreme, int after) {
  char what[64];
  label(what, sizeof what, "gemm f32", extreme, after);
  float *a = fence_copy(ga, sizeof ga, after, "A");
  float *b = fence_copy(gb, sizeof gb, after, "B");
  /* C's guard words on the side away from the fence: C itself touches it. */
  float *buffer = fence_alloc((GUARD + M * N) * 4, after, "C");
  float *c = after ? buffer + GUARD : buffer;
  float *guard = after ? buffer : buffer + M * N;
  for (int i = 0; i < GUARD + M * N; ++i)
    buffer[i] = 12345.0f;
  MemrefF2 ma = {a, a, 0, {M, K}, {K, 1}}, mb = {b, b, 0, {K, N}, {N, 1}},
           mc = {buffer, c, 0, {M, N}, {N, 1}};
  _mlir_ciface_mm(&ma, &mb, &mc);
  int bad = 0;
  for (int i = 0; i < GUARD && !bad; ++i)
    if (guard[i] != 12345.0f) {
      printf("%s: the kernel wrote outside C\n", what);
      bad = 1;
    }
  for (int m = 0; m < M && !bad; ++m)
    for (int n = 0; n < N && !bad; ++n) {
      float want = 0.0f;
      for (int k = 0; k < K; ++k) {
        float p = ga[m * K + k] * gb[k * N + n];
        want = want + p;
      }
      float got = c[m * N + n];
      if (memcmp(&got, &want, sizeof got) != 0 && !(got != got && want != want)) {
        printf("%s: C[%d][%d] = %a, expected %a\n", what, m, n, got, want);
        bad = 1;
      }
    }
  if (!bad)
    printf("%s: %dx%dx%d bit-exact\n", what, M, N, K);
  fence_free(a, sizeof ga, after);
  fence_free(b, sizeof gb, after);
  fence_free(buffer, (GUARD + M * N) * 4, after);
  return bad;
}

static int checkGemm(int extreme) {
  for (int i = 0; i < M * K; ++i)
    ga[i] = real(extreme);
  for (int i = 0; i < K * N; ++i)
    gb[i] = real(extreme);
  return runGemm(extreme, 1) || runGemm(extreme, 0);
}

/* One depthwise call with every buffer fenced after (after != 0) or
 * before; 0 if right. */
static int runDepthwise(int extreme, int after) {
  char what[64];
  label(what, sizeof what, "depthwise s8", extreme, after);
  int8_t *in = fence_copy(din, sizeof din, after, "input");
  int8_t *f = fence_copy(df, sizeof df, after, "filter");
  /* O's guard words on the side away from the fence: O itself touches it. */
  int32_t *buffer = fence_alloc((GUARD + OH * OW * C) * 4, after, "output");
  int32_t *o = after ? buffer + GUARD : buffer;
  int32_t *guard = after ? buffer : buffer + OH * OW * C;
  for (int i = 0; i < GUARD + OH * OW * C; ++i)
    buffer[i] = 0x5a5a5a5a;
  Memref8x4 mi = {in, in, 0, {1, H, W, C}, {H * W * C, W * C, C, 1}};
  Memref8x3 mf = {f, f, 0, {3, 3, C}, {3 * C, C, 1}};
  Memref32x4 mo = {buffer, o, 0, {1, OH, OW, C}, {OH * OW * C, OW * C, C, 1}};
  _mlir_ciface_dw(&mi, &mf, &mo);
  int bad = 0;
  for (int i = 0; i < GUARD && !bad; ++i)
    if (guard[i] != 0x5a5a5a5a) {
      printf("%s: the kernel wrote outside O\n", what);
      bad = 1;
    }
  for (int oh = 0; oh < OH && !bad; ++oh)
    for (int ow = 0; ow < OW && !bad; ++ow)
      for (int c = 0; c < C && !bad; ++c) {
        int32_t want = 0;
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw)
            want += (int32_t)din[((oh + kh) * W + ow + kw) * C + c] *
                    (int32_t)df[(kh * 3 + kw) * C + c];
        int32_t got = o[(oh * OW + ow) * C + c];
        if (got != want) {
          printf("%s: O[%d][%d][%d] = %d, expected %d\n", what, oh, ow, c,
                 got, want);
          bad = 1;
        }
      }
  if (!bad)
    printf("%s: %dx%dx%d 3x3 bit-exact\n", what, H, W, C);
  fence_free(in, sizeof din, after);
  fence_free(f, sizeof df, after);
  fence_free(buffer, (GUARD + OH * OW * C) * 4, after);
  return bad;
}

static int checkDepthwise(int extreme) {
  for (int i = 0; i < H * W * C; ++i)
    din[i] = byte(extreme);
  for (int i = 0; i < 3 * 3 * C; ++i)
    df[i] = byte(extreme);
  return runDepthwise(extreme, 1) || runDepthwise(extreme, 0);
}

int main(void) {
  fence_report_faults();
  return checkGemm(0) || checkGemm(1) || checkDepthwise(0) ||
         checkDepthwise(1);
}
