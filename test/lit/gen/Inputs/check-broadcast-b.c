/* C[m][n] = sum_k zext(A[m][k]) * sext(B[k]) (every column the same), 37x37x37 through
 * the run-time-extent library of Inputs/broadcast-b-dynamic.mlir, against a C loop. */
#include <stdint.h>
#include <stdio.h>
typedef struct { int8_t *al, *ag; int64_t off, sz[2], st[2]; } M8;
typedef struct { int8_t *al, *ag; int64_t off, sz[1], st[1]; } V8;
typedef struct { int32_t *al, *ag; int64_t off, sz[2], st[2]; } M32;
void _mlir_ciface_f(M8 *a, V8 *b, M32 *c);
#define M 37
#define N 37
#define K 37
int main(void) {
  static int8_t a[M*K], b[K]; static int32_t c[M*N];
  uint32_t s = 1;
  for (int i = 0; i < M*K; i++) { s = s*1103515245u+12345u; a[i] = (int8_t)(s>>16); }
  for (int i = 0; i < K; i++) { s = s*1103515245u+12345u; b[i] = (int8_t)(s>>16); }
  M8 ma = {a, a, 0, {M, K}, {K, 1}}; V8 mb = {b, b, 0, {K}, {1}}; M32 mc = {c, c, 0, {M, N}, {N, 1}};
  _mlir_ciface_f(&ma, &mb, &mc);
  int bad = 0;
  for (int m = 0; m < M; m++) for (int n = 0; n < N; n++) {
    int32_t r = 0; for (int k = 0; k < K; k++) r += (int32_t)(uint8_t)a[m*K+k] * (int32_t)b[k];  /* extui A, extsi B; C starts at 0 */
    if (c[m*N+n] != r) { if (bad < 3) printf("C[%d][%d] = %d, expected %d\n", m, n, c[m*N+n], r); bad++; }
  }
  printf("%d of %d outputs wrong\n", bad, M*N); return bad != 0;
}
