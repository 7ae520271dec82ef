/* Runs _mlir_ciface_vecmat (c[n] = sum_k a[k] * b[k][n], s8 x s8 -> s32,
 * k = 70, n = 37) on random and extreme inputs against a C loop, with guard
 * words beside c; prints how many outputs are wrong. Each data set runs twice
 * (fence.h): a, b and c each ending at a PROT_NONE page ("fenced after", c's
 * guard words before it), then each starting right after one ("fenced
 * before", the guard words after c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "vecmat.h"
#include "fence.h"

enum { K = 70, N = 37, GUARD = 16 };

/* The inputs of the data set being checked; each call gets fenced copies. */
static int8_t a[K], b[K * N];

/* One call with every buffer fenced after (after != 0) or before; the
 * number of wrong outputs and guard words. */
static int call(const char *data, int after) {
  char what[64];
  snprintf(what, sizeof what, "%s (fenced %s)", data,
           after ? "after" : "before");
  int8_t *fa = fence_copy(a, sizeof a, after, "a");
  int8_t *fb = fence_copy(b, sizeof b, after, "b");
  /* c's guard words on the side away from the fence: c itself touches it. */
  int32_t *buffer = fence_alloc((GUARD + N) * 4, after, "c");
  int32_t *c = after ? buffer + GUARD : buffer;
  int32_t *guard = after ? buffer : buffer + N;
  for (int i = 0; i < GUARD + N; ++i)
    buffer[i] = 0x5a5a5a5a;
  tisa_memref_int8_1d ma = {fa, fa, 0, {K}, {1}};
  tisa_memref_int8_2d mb = {fb, fb, 0, {K, N}, {N, 1}};
  tisa_memref_int32_1d mc = {buffer, c, 0, {N}, {1}};
  _mlir_ciface_vecmat(&ma, &mb, &mc);
  int wrong = 0;
  for (int n = 0; n < N; ++n) {
    int32_t want = 0;
    for (int k = 0; k < K; ++k)
      want += a[k] * b[k * N + n];
    wrong += c[n] != want;
  }
  for (int i = 0; i < GUARD; ++i)
    wrong += guard[i] != 0x5a5a5a5a;
  printf("%s: %d of %d outputs wrong\n", what, wrong, N);
  fence_free(fa, sizeof a, after);
  fence_free(fb, sizeof b, after);
  fence_free(buffer, (GUARD + N) * 4, after);
  return wrong;
}

static int run(const char *what, int extreme) {
  for (int k = 0; k < K; ++k)
    a[k] = extreme ? -128 : (int8_t)(rand() % 256 - 128);
  for (int i = 0; i < K * N; ++i)
    b[i] = extreme ? (i % 2 ? 127 : -128) : (int8_t)(rand() % 256 - 128);
  return call(what, 1) + call(what, 0);
}

int main(void) {
  fence_report_faults();
  srand(7);
  return (run("random", 0) + run("extreme", 1)) != 0;
}
