/* Calls the functions of return-memref.mlir as return-memref.h declares
 * them (the returned memrefs first) and checks every element against a C
 * loop; frees what they allocated. Runs twice (fence.h): A, B and the
 * descriptors the functions return through each ending at a PROT_NONE page
 * ("fenced after"), then each starting right after one ("fenced before").
 * Prints "returned memrefs (fenced after): ok" and the same for before. */
#include "return-memref.h"

#include <stdio.h>
#include <stdlib.h>

#include "fence.h"

enum { M = 16, N = 32, K = 64 };
static int8_t A[M * K], B[K * N];

static tisa_memref_int8_2d view(int8_t *p, int64_t rows, int64_t cols) {
  tisa_memref_int8_2d d = {p, p, 0, {rows, cols}, {cols, 1}};
  return d;
}

static int checkC(const char *f, const tisa_memref_int32_2d *c) {
  if (c->sizes[0] != M || c->sizes[1] != N) {
    printf("%s: result of %lldx%lld\n", f, (long long)c->sizes[0],
           (long long)c->sizes[1]);
    return 1;
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int32_t want = 0;
      for (int k = 0; k < K; ++k)
        want += (int32_t)A[i * K + k] * B[k * N + j]; /* signed: the named op's default cast */
      int32_t got = c->aligned[c->offset + i * c->strides[0] + j * c->strides[1]];
      if (got != want) {
        printf("%s: C[%d][%d] = %d, not %d\n", f, i, j, got, want);
        return 1;
      }
    }
  return 0;
}

/* Both functions with every pointer they take fenced after (after != 0) or
 * before: the inputs, and the result descriptors they write, which must be
 * exactly as large as the header declares them. 0 if right. */
static int run(int after) {
  const char *placement = after ? "after" : "before";
  char one[32], two[32];
  snprintf(one, sizeof one, "one (fenced %s)", placement);
  snprintf(two, sizeof two, "two (fenced %s)", placement);
  int8_t *fa = fence_copy(A, sizeof A, after, "A");
  int8_t *fb = fence_copy(B, sizeof B, after, "B");
  tisa_memref_int8_2d a = view(fa, M, K), b = view(fb, K, N);

  tisa_memref_int32_2d *c = fence_alloc(sizeof *c, after, "one's result");
  _mlir_ciface_one(c, &a, &b);
  if (checkC(one, c))
    return 1;
  free(c->allocated);
  fence_free(c, sizeof *c, after);

  two_results *r = fence_alloc(sizeof *r, after, "two's results");
  _mlir_ciface_two(r, &a, &b);
  if (checkC(two, &r->r0))
    return 1;
  for (int i = 0; i < M; ++i) {
    int32_t want = 0;
    for (int j = 0; j < N; ++j)
      want += r->r0.aligned[r->r0.offset + i * r->r0.strides[0] + j * r->r0.strides[1]];
    if (r->r1.aligned[r->r1.offset + i * r->r1.strides[0]] != want) {
      printf("%s: S[%d] = %d, not %d\n", two, i,
             r->r1.aligned[r->r1.offset + i], want);
      return 1;
    }
  }
  free(r->r0.allocated);
  free(r->r1.allocated);
  fence_free(r, sizeof *r, after);
  fence_free(fa, sizeof A, after);
  fence_free(fb, sizeof B, after);
  printf("returned memrefs (fenced %s): ok\n", placement);
  return 0;
}

int main(void) {
  fence_report_faults();
  srand(11);
  for (int i = 0; i < M * K; ++i)
    A[i] = (int8_t)(rand() & 0xff);
  for (int i = 0; i < K * N; ++i)
    B[i] = (int8_t)(rand() & 0xff);
  return run(1) || run(0);
}
