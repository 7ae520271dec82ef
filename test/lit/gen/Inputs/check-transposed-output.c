/* C[n][m] += sum_k zext(A[m][k]) * sext(B[k][n]) (C stored transposed), 40x48x64 through
 * the library of Inputs/transposed-output.mlir, against a C loop: random values, then
 * every element at its type's extreme (255 x -128), C starting from values of its own.
 * Each data set runs twice (fence.h): A, B and C each ending at a PROT_NONE page
 * ("fenced after"), then each starting right after one ("fenced before"). */
#include <stdint.h>
#include <stdio.h>
#include "fence.h"
typedef struct { int8_t *al, *ag; int64_t off, sz[2], st[2]; } M8;
typedef struct { int32_t *al, *ag; int64_t off, sz[2], st[2]; } M32;
void _mlir_ciface_f(M8 *a, M8 *b, M32 *c);
#define M 40
#define N 48
#define K 64
static int8_t a[M*K], b[K*N]; static int32_t c0[N*M];
/* One call with every buffer fenced after (after != 0) or before; the number of wrong outputs. */
static int run(const char *data, int after) {
  char what[64]; snprintf(what, sizeof what, "%s (fenced %s)", data, after ? "after" : "before");
  int8_t *fa = fence_copy(a, sizeof a, after, "A"), *fb = fence_copy(b, sizeof b, after, "B");
  int32_t *c = fence_copy(c0, sizeof c0, after, "C");
  M8 ma = {fa, fa, 0, {M, K}, {K, 1}}, mb = {fb, fb, 0, {K, N}, {N, 1}};
  M32 mc = {c, c, 0, {N, M}, {M, 1}};
  _mlir_ciface_f(&ma, &mb, &mc);
  int bad = 0;
  for (int n = 0; n < N; n++) for (int m = 0; m < M; m++) {
    uint32_t r = (uint32_t)c0[n*M+m];
    for (int k = 0; k < K; k++) r += (uint32_t)((int32_t)(uint8_t)a[m*K+k] * (int32_t)b[k*N+n]);
    if (c[n*M+m] != (int32_t)r) { if (bad < 3) printf("%s: C[%d][%d] = %d, expected %d\n", what, n, m, c[n*M+m], (int32_t)r); bad++; }
  }
  printf("%s: %d of %d outputs wrong\n", what, bad, N*M);
  fence_free(fa, sizeof a, after); fence_free(fb, sizeof b, after); fence_free(c, sizeof c0, after);
  return bad;
}
static int check(const char *what) { return run(what, 1) + run(what, 0); }
int main(void) {
  fence_report_faults();
  uint32_t s = 1;
  for (int i = 0; i < M*K; i++) { s = s*1103515245u+12345u; a[i] = (int8_t)(s>>16); }
  for (int i = 0; i < K*N; i++) { s = s*1103515245u+12345u; b[i] = (int8_t)(s>>16); }
  for (int i = 0; i < N*M; i++) { s = s*1103515245u+12345u; c0[i] = (int32_t)(s>>8) - (1 << 23); }
  int bad = check("random");
  for (int i = 0; i < M*K; i++) a[i] = (int8_t)255;
  for (int i = 0; i < K*N; i++) b[i] = -128;
  bad += check("extreme");
  return bad != 0;
}
