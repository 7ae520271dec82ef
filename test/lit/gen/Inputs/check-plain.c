/* Runs plain.mlir's library (tisa gen FILE.mlir, MLIR's C interface) against
 * plain references, on random and mixed-extreme inputs, with guard words
 * around each output: the f32 GEMM bit-exact (each output summed in k order,
 * one rounding per multiply and per add: build with -ffp-contract=off), the
 * s8 depthwise conv2d bit-exact. Exits non-zero on the first difference. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static int checkGemm(int extreme) {
  static float a[M * K], b[K * N], c[GUARD + M * N + GUARD];
  for (int i = 0; i < M * K; ++i)
    a[i] = real(extreme);
  for (int i = 0; i < K * N; ++i)
    b[i] = real(extreme);
  for (int i = 0; i < GUARD + M * N + GUARD; ++i)
    c[i] = 12345.0f;
  MemrefF2 ma = {a, a, 0, {M, K}, {K, 1}}, mb = {b, b, 0, {K, N}, {N, 1}},
           mc = {c, c + GUARD, 0, {M, N}, {N, 1}};
  _mlir_ciface_mm(&ma, &mb, &mc);
  for (int i = 0; i < GUARD; ++i)
    if (c[i] != 12345.0f || c[GUARD + M * N + i] != 12345.0f) {
      printf("gemm: the kernel wrote outside C\n");
      return 1;
    }
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float want = 0.0f;
      for (int k = 0; k < K; ++k) {
        float p = a[m * K + k] * b[k * N + n];
        want = want + p;
      }
      float got = c[GUARD + m * N + n];
      if (memcmp(&got, &want, sizeof got) != 0 && !(got != got && want != want)) {
        printf("gemm %s inputs: C[%d][%d] = %a, expected %a\n",
               extreme ? "extreme" : "random", m, n, got, want);
        return 1;
      }
    }
  printf("gemm f32 %s inputs: %dx%dx%d bit-exact\n",
         extreme ? "extreme" : "random", M, N, K);
  return 0;
}

static int checkDepthwise(int extreme) {
  static int8_t in[H * W * C], f[3 * 3 * C];
  static int32_t o[GUARD + OH * OW * C + GUARD];
  for (int i = 0; i < H * W * C; ++i)
    in[i] = byte(extreme);
  for (int i = 0; i < 3 * 3 * C; ++i)
    f[i] = byte(extreme);
  for (int i = 0; i < GUARD + OH * OW * C + GUARD; ++i)
    o[i] = 0x5a5a5a5a;
  Memref8x4 mi = {in, in, 0, {1, H, W, C}, {H * W * C, W * C, C, 1}};
  Memref8x3 mf = {f, f, 0, {3, 3, C}, {3 * C, C, 1}};
  Memref32x4 mo = {o, o + GUARD, 0, {1, OH, OW, C}, {OH * OW * C, OW * C, C, 1}};
  _mlir_ciface_dw(&mi, &mf, &mo);
  for (int i = 0; i < GUARD; ++i)
    if (o[i] != 0x5a5a5a5a || o[GUARD + OH * OW * C + i] != 0x5a5a5a5a) {
      printf("depthwise: the kernel wrote outside O\n");
      return 1;
    }
  for (int oh = 0; oh < OH; ++oh)
    for (int ow = 0; ow < OW; ++ow)
      for (int c = 0; c < C; ++c) {
        int32_t want = 0;
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw)
            want += (int32_t)in[((oh + kh) * W + ow + kw) * C + c] *
                    (int32_t)f[(kh * 3 + kw) * C + c];
        int32_t got = o[GUARD + (oh * OW + ow) * C + c];
        if (got != want) {
          printf("depthwise %s inputs: O[%d][%d][%d] = %d, expected %d\n",
                 extreme ? "extreme" : "random", oh, ow, c, got, want);
          return 1;
        }
      }
  printf("depthwise s8 %s inputs: %dx%dx%d 3x3 bit-exact\n",
         extreme ? "extreme" : "random", H, W, C);
  return 0;
}

int main(void) {
  return checkGemm(0) || checkGemm(1) || checkDepthwise(0) ||
         checkDepthwise(1);
}
