/* Runs a GEMM that `tisa gen FILE.mlir` generated, through MLIR's C interface,
 * against a plain reference: random and mixed-extreme inputs, bit-exact, with
 * guard words around C. Built with -DFUNC=<symbol> -DM= -DN= -DK= and
 * -DA_SIGNED=0|1 -DB_SIGNED=0|1 (the program's extsi/extui), and for a
 * quantized matmul -DZERO_POINTS -DZA= -DZB=; with -DC_INIT=V the program
 * fills C with V and accumulates into it. Prints one line per run and exits
 * non-zero on the first difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

static int check(int extreme) {
  static int8_t a[M * K], b[K * N];
  static int32_t c[GUARD + M * N + GUARD];
  for (int i = 0; i < M * K; ++i)
    a[i] = value(extreme, A_SIGNED);
  for (int i = 0; i < K * N; ++i)
    b[i] = value(extreme, B_SIGNED);
  for (int i = 0; i < GUARD + M * N + GUARD; ++i)
    c[i] = POISON;
#ifdef A_TRANSPOSED
  Memref8 ma = view8(a, K, M), mb = view8(b, K, N);
#else
  Memref8 ma = view8(a, M, K), mb = view8(b, K, N);
#endif
  Memref32 mc = {c, c + GUARD, 0, {M, N}, {N, 1}};
#ifdef ZERO_POINTS
  FUNC(&ma, &mb, ZA, ZB, &mc);
#else
  FUNC(&ma, &mb, &mc);
#endif
  for (int i = 0; i < GUARD; ++i)
    if (c[i] != POISON || c[GUARD + M * N + i] != POISON) {
      printf("%s inputs: the kernel wrote outside C\n",
             extreme ? "extreme" : "random");
      return 1;
    }
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      uint32_t want = (uint32_t)C_INIT; /* s32 arithmetic wraps */
      for (int k = 0; k < K; ++k)
        want += (uint32_t)((widen(a[A_AT(m, k)], A_SIGNED) - ZA) *
                           (widen(b[k * N + n], B_SIGNED) - ZB));
      int32_t got = c[GUARD + m * N + n];
      if ((uint32_t)got != want) {
        printf("%s inputs: C[%d][%d] = %d, expected %d\n",
               extreme ? "extreme" : "random", m, n, got, (int32_t)want);
        return 1;
      }
    }
  printf("%s inputs: %dx%dx%d bit-exact\n", extreme ? "extreme" : "random", M,
         N, K);
  return 0;
}

int main(void) { return check(0) || check(1); }
