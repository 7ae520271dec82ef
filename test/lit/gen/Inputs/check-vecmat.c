/* Runs _mlir_ciface_vecmat (c[n] = sum_k a[k] * b[k][n], s8 x s8 -> s32,
 * k = 70, n = 37) on random and extreme inputs against a C loop, with guard
 * words around c; prints how many outputs are wrong. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "vecmat.h"

enum { K = 70, N = 37, GUARD = 16 };

static int run(const char *what, int extreme) {
  static int8_t a[K], b[K * N];
  static int32_t c[GUARD + N + GUARD];
  for (int k = 0; k < K; ++k)
    a[k] = extreme ? -128 : (int8_t)(rand() % 256 - 128);
  for (int i = 0; i < K * N; ++i)
    b[i] = extreme ? (i % 2 ? 127 : -128) : (int8_t)(rand() % 256 - 128);
  for (int i = 0; i < GUARD + N + GUARD; ++i)
    c[i] = 0x5a5a5a5a;
  tisa_memref_int8_1d ma = {a, a, 0, {K}, {1}};
  tisa_memref_int8_2d mb = {b, b, 0, {K, N}, {N, 1}};
  tisa_memref_int32_1d mc = {c, c + GUARD, 0, {N}, {1}};
  _mlir_ciface_vecmat(&ma, &mb, &mc);
  int wrong = 0;
  for (int n = 0; n < N; ++n) {
    int32_t want = 0;
    for (int k = 0; k < K; ++k)
      want += a[k] * b[k * N + n];
    wrong += c[GUARD + n] != want;
  }
  for (int i = 0; i < GUARD; ++i)
    wrong += (c[i] != 0x5a5a5a5a) + (c[GUARD + N + i] != 0x5a5a5a5a);
  printf("%s: %d of %d outputs wrong\n", what, wrong, N);
  return wrong;
}

int main(void) {
  srand(7);
  return (run("random", 0) + run("extreme", 1)) != 0;
}
