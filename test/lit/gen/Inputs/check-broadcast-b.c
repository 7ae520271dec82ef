/* C[m][n] = sum_k zext(A[m][k]) * sext(B[k]) (every column the same), 37x37x37 through
 * the run-time-extent library of Inputs/broadcast-b-dynamic.mlir, against a C loop. The
 * data runs twice (fence.h): A, B and C each ending at a PROT_NONE page ("fenced after"),
 * then each starting right after one ("fenced before"). */
#include <stdint.h>
#include <stdio.h>
#include "fence.h"
typedef struct { int8_t *al, *ag; int64_t off, sz[2], st[2]; } M8;
typedef struct { int8_t *al, *ag; int64_t off, sz[1], st[1]; } V8;
typedef struct { int32_t *al, *ag; int64_t off, sz[2], st[2]; } M32;
void _mlir_ciface_f(M8 *a, V8 *b, M32 *c);
#define M 37
#define N 37
#define K 37
static int8_t a[M*K], b[K];
/* One call with every buffer fenced after (after != 0) or before; the number of wrong outputs. */
static int run(int after) {
  const char *what = after ? "fenced after" : "fenced before";
  int8_t *fa = fence_copy(a, sizeof a, after, "A"), *fb = fence_copy(b, sizeof b, after, "B");
  int32_t *c = fence_alloc(M*N*4, after, "C");  /* zeroed: the program accumulates into C */
  M8 ma = {fa, fa, 0, {M, K}, {K, 1}}; V8 mb = {fb, fb, 0, {K}, {1}}; M32 mc = {c, c, 0, {M, N}, {N, 1}};
  _mlir_ciface_f(&ma, &mb, &mc);
  int bad = 0;
  for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) {
    int32_t r = 0; for (int k = 0; k < K; k++) r += (int32_t)(uint8_t)a[m*K+k] * (int32_t)b[k];  /* extui A, extsi B; C starts at 0 */
    if (c[m*N+n] != r) { if (bad < 3) printf("%s: C[%d][%d] = %d, expected %d\n", what, m, n, c[m*N+n], r); bad++; }
  }
  printf("%s: %d of %d outputs wrong\n", what, bad, M*N);
  fence_free(fa, sizeof a, after); fence_free(fb, sizeof b, after); fence_free(c, M*N*4, after);
  return bad;
}
int main(void) {
  fence_report_faults();
  uint32_t s = 1;
  for (int i = 0; i < M*K; i++) { s = s*1103515245u+12345u; a[i] = (int8_t)(s>>16); }
  for (int i = 0; i < K; i++) { s = s*1103515245u+12345u; b[i] = (int8_t)(s>>16); }
  return (run(1) + run(0)) != 0;
}
