/* Runs _mlir_ciface_gemm (C[m][n] += sum_k A[m][k] * B[k][n], all f32, M x N x
 * K from -DM= -DN= -DK=) that `tisa gen` generated for a same-precision
 * instruction, against two references: the instruction's own arithmetic
 * (each product rounded to f32, products added in pairs, each pair added to
 * the accumulator in ascending k: SVE FMMLA's order), compared bit-exactly,
 * and the exact sum in double, which every output must be within the
 * rounding-error bound (K + 1) * 2^-24 * (|C0| + sum |A*B|) of. Inputs:
 * random values, values of mixed magnitudes (denormals, signed zeros, 2^60),
 * and a NaN in one row of A and an infinity in one column of B, which must
 * reach exactly their own row and column. Each data set runs with the
 * buffers fenced after and before (fence.h), with guard words beside C.
 * Built with -include of the header tisa wrote (which declares
 * _mlir_ciface_gemm). Prints one line per run; exits non-zero on any
 * difference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fence.h"

enum { GUARD = 16 };
#define POISON 0x5a5a5a5au

static float a[M * K], b[K * N], c0[M * N];
static uint64_t state = 0x7153a;

static uint32_t next(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}

/* Uniform in [-1, 1), or (mixed) a random sign times 2^e, e in [-140, 60],
 * zero, or a denormal. */
static float value(int mixed) {
  if (!mixed)
    return (float)((int32_t)next() % 65536) / 65536.0f;
  float sign = next() % 2 ? -1.0f : 1.0f;
  switch (next() % 8) {
  case 0:
    return sign * 0.0f;
  case 1:
    return sign * 0x1p-140f;
  default:
    return sign * ldexpf(1.0f + (next() % 256) / 256.0f,
                         (int)(next() % 201) - 140);
  }
}

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* The instruction's order: acc + (p0 + p1) per pair of k, each step in f32. */
static float pairwise(int m, int n) {
  float acc = c0[m * N + n];
  for (int k = 0; k < K; k += 2) {
    float p0 = a[m * K + k] * b[k * N + n];
    float p1 = k + 1 < K ? a[m * K + k + 1] * b[(k + 1) * N + n] : 0.0f;
    acc = acc + (p0 + p1);
  }
  return acc;
}

static int check(int m, int n, float got, int *inexact) {
  float want = pairwise(m, n);
  if (isnan(want))
    return !isnan(got);
  if (bits(got) != bits(want))
    ++*inexact;
  double exact = c0[m * N + n], mass = fabs(exact);
  for (int k = 0; k < K; ++k) {
    double p = (double)a[m * K + k] * b[k * N + n];
    exact += p;
    mass += fabs(p);
  }
  if (isinf(exact))
    return got != (float)exact;
  return !(fabs(got - exact) <= (K + 1) * 0x1p-24 * mass + 0x1p-149);
}

static int call(const char *data, int after) {
  float *fa = fence_copy(a, sizeof a, after, "A");
  float *fb = fence_copy(b, sizeof b, after, "B");
  size_t cbytes = (GUARD + M * N) * 4;
  float *buffer = fence_alloc(cbytes, after, "C");
  float *c = after ? buffer + GUARD : buffer;
  uint32_t *guard = (uint32_t *)(after ? buffer : buffer + M * N);
  for (int i = 0; i < GUARD; ++i)
    guard[i] = POISON;
  memcpy(c, c0, sizeof c0);
  tisa_memref_float_2d ma = {fa, fa, 0, {M, K}, {K, 1}};
  tisa_memref_float_2d mb = {fb, fb, 0, {K, N}, {N, 1}};
  tisa_memref_float_2d mc = {buffer, c, 0, {M, N}, {N, 1}};
  _mlir_ciface_gemm(&ma, &mb, &mc);
  int wrong = 0, inexact = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n)
      wrong += check(m, n, c[m * N + n], &inexact);
  for (int i = 0; i < GUARD; ++i)
    wrong += guard[i] != POISON;
  printf("%s (fenced %s): %d of %d outputs wrong, %d differ from the "
         "pairwise sum\n",
         data, after ? "after" : "before", wrong, M * N, inexact);
  fence_free(fa, sizeof a, after);
  fence_free(fb, sizeof b, after);
  fence_free(buffer, cbytes, after);
  return wrong + inexact;
}

static int run(const char *what, int mixed, int special) {
  for (int i = 0; i < M * K; ++i)
    a[i] = value(mixed);
  for (int i = 0; i < K * N; ++i)
    b[i] = value(mixed);
  for (int i = 0; i < M * N; ++i)
    c0[i] = value(mixed);
  if (special) {
    a[(M / 2) * K + K - 1] = NAN;
    b[(K / 3) * N + N - 1] = INFINITY;
  }
  return call(what, 1) + call(what, 0);
}

int main(void) {
  fence_report_faults();
  int failed = run("random", 0, 0) + run("mixed", 1, 0) + run("special", 0, 1);
  return failed != 0;
}
