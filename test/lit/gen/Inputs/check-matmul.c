/* Runs a GEMM that `tisa gen FILE.mlir` generated, through MLIR's C interface,
 * against a plain reference: random and mixed-extreme inputs, bit-exact, with
 * guard words beside C. Each data set runs twice (fence.h): A, B and C each
 * ending at a PROT_NONE page ("fenced after", C's guard words before it),
 * then each starting right after one ("fenced before", the guard words after
 * C). Built with -DFUNC=<symbol> -DM= -DN= -DK= (or without them: then run
 * as `check M N K`, one build for every extent of a run-time kernel) and
 * -DA_SIGNED=0|1 -DB_SIGNED=0|1 (the program's extsi/extui), and for a
 * quantized matmul -DZERO_POINTS -DZA= -DZB=; with -DC_INIT=V the program
 * fills C with V and accumulates into it. Prints one line per run and exits
 * non-zero on the first difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fence.h"

#ifndef C_INIT
#define C_INIT 0
#endif

typedef struct {
  int8_t *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Memref8;
typedef struct {
  int32_t *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Memref32;

#ifdef ZERO_POINTS
/* linalg.quantized_matmul: C += (A - ZA)(B - ZB), the zero points passed
 * as i32 arguments. */
void FUNC(Memref8 *a, Memref8 *b, int32_t za, int32_t zb, Memref32 *c);
#else
void FUNC(Memref8 *a, Memref8 *b, Memref32 *c);
#define ZA 0
#define ZB 0
#endif

/* A is [M][K], or with -DA_TRANSPOSED [K][M] (the program reads A[k][m]). */
#ifdef A_TRANSPOSED
#define A_AT(m, k) ((k) * M + (m))
#else
#define A_AT(m, k) ((m) * K + (k))
#endif

#define GUARD 16
#define POISON ((int32_t)0x5a5a5a5a)

static uint64_t state = 0x7153a;
static uint32_t next(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}

static int8_t value(int extreme, int isSigned) {
  static const int8_t s8[] = {0, 1, -1, 127, -128};
  static const uint8_t u8[] = {0, 1, 127, 128, 255};
  if (extreme && next() % 2)
    return isSigned ? s8[next() % 5] : (int8_t)u8[next() % 5];
  return (int8_t)next();
}

static int64_t widen(int8_t v, int isSigned) {
  return isSigned ? (int64_t)v : (int64_t)(uint8_t)v;
}

static Memref8 view8(int8_t *p, int64_t rows, int64_t cols) {
  Memref8 m = {p, p, 0, {rows, cols}, {cols, 1}};
  return m;
}

/* The inputs of the data set being checked; each call gets fenced copies. */
#ifdef M
static int8_t a[M * K], b[K * N];
#define A_BYTES sizeof a
#define B_BYTES sizeof b
#else
static int M, N, K; /* from the command line */
static int8_t *a, *b;
#define A_BYTES ((size_t)M * K)
#define B_BYTES ((size_t)K * N)
#endif

/* One call with every buffer fenced after (after != 0) or before; 0 if
 * right. */
static int run(int extreme, int after) {
  char what[64];
  snprintf(what, sizeof what, "%s inputs (fenced %s)",
           extreme ? "extreme" : "random", after ? "after" : "before");
  int8_t *fa = fence_copy(a, A_BYTES, after, "A");
  int8_t *fb = fence_copy(b, B_BYTES, after, "B");
  /* C's guard words on the side away from the fence: C itself touches it. */
  int32_t *buffer = fence_alloc((GUARD + M * N) * 4, after, "C");
  int32_t *c = after ? buffer + GUARD : buffer;
  int32_t *guard = after ? buffer : buffer + M * N;
  for (int i = 0; i < GUARD + M * N; ++i)
    buffer[i] = POISON;
#ifdef A_TRANSPOSED
  Memref8 ma = view8(fa, K, M), mb = view8(fb, K, N);
#else
  Memref8 ma = view8(fa, M, K), mb = view8(fb, K, N);
#endif
  Memref32 mc = {buffer, c, 0, {M, N}, {N, 1}};
#ifdef ZERO_POINTS
  FUNC(&ma, &mb, ZA, ZB, &mc);
#else
  FUNC(&ma, &mb, &mc);
#endif
  int bad = 0;
  for (int i = 0; i < GUARD && !bad; ++i)
    if (guard[i] != POISON) {
      printf("%s: the kernel wrote outside C\n", what);
      bad = 1;
    }
  for (int m = 0; m < M && !bad; ++m)
    for (int n = 0; n < N && !bad; ++n) {
      uint32_t want = (uint32_t)C_INIT; /* s32 arithmetic wraps */
      for (int k = 0; k < K; ++k)
        want += (uint32_t)((widen(a[A_AT(m, k)], A_SIGNED) - ZA) *
                           (widen(b[k * N + n], B_SIGNED) - ZB));
      int32_t got = c[m * N + n];
      if ((uint32_t)got != want) {
        printf("%s: C[%d][%d] = %d, expected %d\n", what, m, n, got,
               (int32_t)want);
        bad = 1;
      }
    }
  if (!bad)
    printf("%s: %dx%dx%d bit-exact\n", what, M, N, K);
  fence_free(fa, A_BYTES, after);
  fence_free(fb, B_BYTES, after);
  fence_free(buffer, (GUARD + M * N) * 4, after);
  return bad;
}

static int check(int extreme) {
  for (int i = 0; i < M * K; ++i)
    a[i] = value(extreme, A_SIGNED);
  for (int i = 0; i < K * N; ++i)
    b[i] = value(extreme, B_SIGNED);
  return run(extreme, 1) || run(extreme, 0);
}

int main(int argc, char **argv) {
#ifndef M
  if (argc != 4 || (M = atoi(argv[1])) <= 0 || (N = atoi(argv[2])) <= 0 ||
      (K = atoi(argv[3])) <= 0) {
    fprintf(stderr, "usage: %s M N K (positive extents)\n", argv[0]);
    return 2;
  }
  a = malloc(A_BYTES);
  b = malloc(B_BYTES);
  if (!a || !b)
    return 2;
#else
  (void)argc;
  (void)argv;
#endif
  fence_report_faults();
  return check(0) || check(1);
}
