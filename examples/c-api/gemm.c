/* The JIT from C (include/tisa/tisa.h): compile a u8 x s8 GEMM for this
 * machine, call its plain, pre-packed and range entries, and check each
 * result against a plain C loop, bit for bit; then the kernel of the same
 * N and K for any m (TISA_RUN_TIME), called on the first 1, 20 and 37 rows.
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

static uint8_t A[M * K];
static int8_t B[K * N];
static int32_t C[M * N], want[M * N];

/* The first `rows` rows of C against the reference, the rest untouched. */
static int compareRows(const char *entry, int rows) {
  for (int i = 0; i < M * N; ++i)
    if (i < rows * N ? C[i] != want[i] : C[i] != 0x5a5a5a5a) {
      fprintf(stderr, "%s entry, m = %d: C[%d][%d] = %d\n", entry, rows,
              i / N, i % N, C[i]);
      return 1;
    }
  memset(C, 0x5a, sizeof C);
  return 0;
}

/* The kernel for any m, on the first 1, 20 and M rows. */
static int runTimeM(void) {
  char *error = NULL;
  tisa_kernel_spec spec = tisa_gemm_spec(TISA_RUN_TIME, N, K, "u8,s8,s32");
  tisa_kernel *k = tisa_compile(&spec, NULL, &error);
  if (!k) {
    fprintf(stderr, "tisa_compile (m at run time): %s\n", error);
    tisa_free(error);
    return 1;
  }
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

  tisa_kernel_spec spec = tisa_gemm_spec(M, N, K, "u8,s8,s32");
  tisa_kernel *k = tisa_compile(&spec, NULL, &error);
  if (!k) {
    fprintf(stderr, "tisa_compile: %s\n", error);
    tisa_free(error);
    return 1;
  }
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
  return failed | runTimeM();
}
