/* The JIT from C (include/tisa/tisa.h): compile a u8 x s8 GEMM for this
 * machine, call its plain, pre-packed and range entries, and check each
 * result against a plain C loop, bit for bit; then the kernel of the same
 * N and K for any m (TISA_RUN_TIME), called on the first 1, 20 and 37 rows,
 * and the kernel for any m, n and k on a 20 x 30 corner and the whole.
 * Exit status 0 when all agree. */
#include "tisa/tisa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 37, N = 53, K = 71 };

typedef void gemm_fn(const uint8_t *, int64_t, const int8_t *, int64_t,
                     int32_t *, int64_t);
typedef void pack_fn(const int8_t *, int64_t, void *);
typedef void packed_fn(const uint8_t *, int64_t, const void *, int32_t *,
                       int64_t);
typedef void range_fn(const uint8_t *, int64_t, const void *, int32_t *,
                      int64_t, int64_t, int64_t);
/* With m at run time, each entry but the pack takes it first. */
typedef void gemm_m_fn(int64_t, const uint8_t *, int64_t, const int8_t *,
                       int64_t, int32_t *, int64_t);
typedef void packed_m_fn(int64_t, const uint8_t *, int64_t, const void *,
                         int32_t *, int64_t);
typedef void range_m_fn(int64_t, const uint8_t *, int64_t, const void *,
                        int32_t *, int64_t, int64_t, int64_t);
typedef int64_t tiles_fn(int64_t);
/* With m, n and k at run time, every entry takes them first; the pack and
 * _packed_bytes take n and k. */
typedef void gemm_mnk_fn(int64_t, int64_t, int64_t, const uint8_t *, int64_t,
                         const int8_t *, int64_t, int32_t *, int64_t);
typedef void pack_nk_fn(int64_t, int64_t, const int8_t *, int64_t, void *);
typedef void packed_mnk_fn(int64_t, int64_t, int64_t, const uint8_t *,
                           int64_t, const void *, int32_t *, int64_t);
typedef int64_t bytes_nk_fn(int64_t, int64_t);

static uint8_t A[M * K];
static int8_t B[K * N];
static int32_t C[M * N], want[M * N];

/* The first `rows` rows and `cols` columns of C against the reference, the
 * rest untouched. */
static int compareBlock(const char *entry, int rows, int cols) {
  for (int i = 0; i < M * N; ++i)
    if (i / N < rows && i % N < cols ? C[i] != want[i]
                                     : C[i] != 0x5a5a5a5a) {
      fprintf(stderr, "%s entry, m = %d, n = %d: C[%d][%d] = %d\n", entry,
              rows, cols, i / N, i % N, C[i]);
      return 1;
    }
  memset(C, 0x5a, sizeof C);
  return 0;
}

static int compareRows(const char *entry, int rows) {
  return compareBlock(entry, rows, N);
}

/* `spec` compiled for this machine, or NULL after printing why. */
static tisa_kernel *compile(tisa_kernel_spec spec, const char *what) {
  char *error = NULL;
  tisa_kernel *k = tisa_compile(&spec, NULL, &error);
  if (!k) {
    fprintf(stderr, "tisa_compile (%s): %s\n", what, error);
    tisa_free(error);
  }
  return k;
}

/* The kernel for any m, n and k, on the first 20 x 30 and the whole C. */
static int runTimeMNK(void) {
  tisa_kernel *k = compile(
      tisa_gemm_spec(TISA_RUN_TIME, TISA_RUN_TIME, TISA_RUN_TIME, "u8,s8,s32"),
      "m, n, k at run time");
  if (!k)
    return 1;
  gemm_mnk_fn *gemm = (gemm_mnk_fn *)tisa_kernel_entry(k, "");
  pack_nk_fn *pack = (pack_nk_fn *)tisa_kernel_entry(k, "_pack_b");
  packed_mnk_fn *packed = (packed_mnk_fn *)tisa_kernel_entry(k, "_packed");
  bytes_nk_fn *bytes = (bytes_nk_fn *)tisa_kernel_entry(k, "_packed_bytes");
  if (!gemm || !pack || !packed || !bytes ||
      tisa_kernel_packed_bytes(k) != 0) {
    fprintf(stderr, "m, n, k at run time: missing entry points\n");
    return 1;
  }
  int failed = 0;
  memset(C, 0x5a, sizeof C);
  const int shapes[2][2] = {{20, 30}, {M, N}};
  for (int i = 0; i < 2; ++i) {
    int rows = shapes[i][0], cols = shapes[i][1];
    gemm(rows, cols, K, A, K, B, N, C, N);
    failed |= compareBlock("plain", rows, cols);
    void *buffer = malloc((size_t)bytes(cols, K));
    pack(cols, K, B, N, buffer);
    packed(rows, cols, K, A, K, buffer, C, N);
    failed |= compareBlock("pre-packed", rows, cols);
    free(buffer);
  }
  /* A negative extent is taken as 0 (a negative n or k crashed every
   * entry): n = -1 computes nothing; k = -1 sums nothing, so the 3 x 4
   * corner becomes zeros, and nothing else is written. */
  memset(C, 0x5a, sizeof C);
  int64_t negativeBytes = bytes(-1, K) + bytes(N, -1);
  void *small = malloc((size_t)negativeBytes + 64);
  pack(-1, K, B, N, small);
  gemm(3, -1, K, A, K, B, N, C, N);
  packed(3, -1, K, A, K, small, C, N);
  failed |= compareBlock("n = -1", 0, 0);
  pack(N, -1, B, N, small);
  gemm(3, 4, -1, A, K, B, N, C, N);
  for (int i = 0; i < M * N; ++i)
    if (C[i] != (i / N < 3 && i % N < 4 ? 0 : 0x5a5a5a5a)) {
      fprintf(stderr, "k = -1: C[%d][%d] = %d\n", i / N, i % N, C[i]);
      failed = 1;
      break;
    }
  free(small);
  printf("%s: 20x30x%d and %dx%dx%d through the plain and pre-packed "
         "entries %s; n or k = -1 (packed bytes %lld) computes nothing\n",
         tisa_kernel_name(k), K, M, N, K, failed ? "DIFFER" : "bit-exact",
         (long long)negativeBytes);
  tisa_kernel_free(k);
  return failed;
}

/* The kernel for any m, on the first 1, 20 and M rows. */
static int runTimeM(void) {
  tisa_kernel *k =
      compile(tisa_gemm_spec(TISA_RUN_TIME, N, K, "u8,s8,s32"), "m at run time");
  if (!k)
    return 1;
  gemm_m_fn *gemm = (gemm_m_fn *)tisa_kernel_entry(k, "");
  pack_fn *pack = (pack_fn *)tisa_kernel_entry(k, "_pack_b");
  packed_m_fn *packed = (packed_m_fn *)tisa_kernel_entry(k, "_packed");
  range_m_fn *range = (range_m_fn *)tisa_kernel_entry(k, "_packed_range");
  tiles_fn *tiles = (tiles_fn *)tisa_kernel_entry(k, "_tiles");
  if (!gemm || !pack || !packed || !range || !tiles ||
      tisa_kernel_tiles(k) != 0) {
    fprintf(stderr, "m at run time: missing entry points\n");
    return 1;
  }
  void *buffer = malloc((size_t)tisa_kernel_packed_bytes(k));
  pack(B, N, buffer);
  int failed = 0;
  memset(C, 0x5a, sizeof C);
  const int rowCounts[] = {1, 20, M};
  for (int r = 0; r < 3; ++r) {
    int rows = rowCounts[r];
    gemm(rows, A, K, B, N, C, N);
    failed |= compareRows("plain", rows);
    packed(rows, A, K, buffer, C, N);
    failed |= compareRows("pre-packed", rows);
    for (int64_t t = 0; t < tiles(rows); ++t)
      range(rows, A, K, buffer, C, N, t, t + 1);
    failed |= compareRows("range", rows);
  }
  /* A negative m computes nothing (it once wrote thousands of words before
   * C): the output and the 8192 words before it stay as they were. */
  enum { GUARD = 8192 };
  int32_t *guarded = malloc(sizeof(int32_t) * (GUARD + M * N));
  memset(guarded, 0x5a, sizeof(int32_t) * (GUARD + M * N));
  gemm(-1, A, K, B, N, guarded + GUARD, N);
  packed(-1, A, K, buffer, guarded + GUARD, N);
  range(-1, A, K, buffer, guarded + GUARD, N, -1, 1);
  for (int i = 0; i < GUARD + M * N; ++i)
    if (guarded[i] != 0x5a5a5a5a) {
      fprintf(stderr, "m = -1 wrote word %d of the output's guard\n", i - GUARD);
      failed = 1;
      break;
    }
  free(guarded);
  printf("%s: m = 1, 20, %d through the plain, pre-packed and range entries "
         "%s\n",
         tisa_kernel_name(k), M, failed ? "DIFFER" : "bit-exact");
  free(buffer);
  tisa_kernel_free(k);
  return failed;
}

static int compare(const char *entry) {
  for (int i = 0; i < M * N; ++i)
    if (C[i] != want[i]) {
      fprintf(stderr, "%s entry: C[%d][%d] = %d, want %d\n", entry, i / N,
              i % N, C[i], want[i]);
      return 1;
    }
  memset(C, 0x5a, sizeof C);
  return 0;
}

int main(void) {
  uint32_t seed = 12345;
  for (int i = 0; i < M * K; ++i) {
    seed = seed * 1664525u + 1013904223u;
    A[i] = (uint8_t)(i % 17 == 0 ? 255 : seed >> 24);
  }
  for (int i = 0; i < K * N; ++i) {
    seed = seed * 1664525u + 1013904223u;
    B[i] = (int8_t)(i % 13 == 0 ? -128 : (int)(seed >> 24) - 128);
  }
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int32_t sum = 0;
      for (int k = 0; k < K; ++k)
        sum += (int32_t)A[m * K + k] * (int32_t)B[k * N + n];
      want[m * N + n] = sum;
    }

  /* A bad spec is an error message, not a crash. */
  char *error = NULL;
  tisa_kernel_spec bad = tisa_gemm_spec(M, N, K, "u8,s8,f32");
  if (tisa_compile(&bad, NULL, &error) || !error || !strstr(error, "u8,s8,f32")) {
    fprintf(stderr, "a bad spec was not refused with its reason\n");
    return 1;
  }
  tisa_free(error);
  /* A bad extent is named by its field. */
  error = NULL;
  bad = tisa_gemm_spec(0, N, K, "u8,s8,s32");
  if (tisa_compile(&bad, NULL, &error) || !error ||
      !strstr(error, "spec.m is 0")) {
    fprintf(stderr, "m = 0 was not refused by its field name: %s\n",
            error ? error : "(no error)");
    return 1;
  }
  tisa_free(error);
  /* So is a target whose code this machine cannot run (another
   * architecture): the entries would be called here. */
  error = NULL;
  tisa_kernel_spec good = tisa_gemm_spec(M, N, K, "u8,s8,s32");
  if (tisa_compile(&good, "neoverse-v2", &error) || !error ||
      !strstr(error, "cannot run code for neoverse-v2")) {
    fprintf(stderr, "a foreign target was not refused with its reason\n");
    return 1;
  }
  tisa_free(error);

  tisa_kernel *k = compile(tisa_gemm_spec(M, N, K, "u8,s8,s32"), "static");
  if (!k)
    return 1;
  gemm_fn *gemm = (gemm_fn *)tisa_kernel_entry(k, "");
  pack_fn *pack = (pack_fn *)tisa_kernel_entry(k, "_pack_b");
  packed_fn *packed = (packed_fn *)tisa_kernel_entry(k, "_packed");
  range_fn *range = (range_fn *)tisa_kernel_entry(k, "_packed_range");
  if (!gemm || !pack || !packed || !range || tisa_kernel_entry(k, "_nope")) {
    fprintf(stderr, "missing or unexpected entry points\n");
    return 1;
  }
  int failed = 0;
  gemm(A, K, B, N, C, N);
  failed |= compare("plain");
  void *buffer = malloc((size_t)tisa_kernel_packed_bytes(k));
  pack(B, N, buffer);
  packed(A, K, buffer, C, N);
  failed |= compare("pre-packed");
  for (int64_t t = 0; t < tisa_kernel_tiles(k); ++t)
    range(A, K, buffer, C, N, t, t + 1);
  failed |= compare("range");
  free(buffer);
  const char *instruction = tisa_kernel_instruction(k);
  printf("%s (%s): plain, pre-packed and range entries %s\n",
         tisa_kernel_name(k), *instruction ? instruction : "plain vector code",
         failed ? "DIFFER" : "bit-exact");
  tisa_kernel_free(k);
  return failed | runTimeM() | runTimeMNK();
}
