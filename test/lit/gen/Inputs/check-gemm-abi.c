/* Runs a GEMM library that `tisa gen gemm` wrote, through its C ABI, against a
 * plain reference: the plain, pre-packed and range (3 uneven parts) entries,
 * on random inputs with gaps after every row (lda = K+3, ldb = N+5,
 * ldc = N+7) and on mixed-extreme inputs with tight rows, with guard words
 * beside C and its gaps checked. Every run is made twice (fence.h): A, B, C
 * and the packed B each ending at a PROT_NONE page ("fenced after", C's guard
 * words before it), then each starting right after one ("fenced before", the
 * guard words after C); each holds exactly the bytes its entry may touch (A:
 * (M - 1) x lda + K; no gap after the last row). Integers only, bit-exact.
 * Built with -DNAME=<symbol prefix> -DM= -DN= -DK= -DA_SIGNED=0|1
 * -DB_SIGNED=0|1 and the generated header included (-include). Prints one
 * line per run and placement; exits non-zero on the first difference.
 * Builds for any target (x86-64, or aarch64 to run under qemu-aarch64). With
 * -DRUN_TIME_M the library was generated with --m ?: every entry but the
 * pack takes M first, and so does NAME_tiles. With -DRUN_TIME_N /
 * -DRUN_TIME_K (--n ?, --k ?) every entry takes N and K after it, and the
 * pack and NAME_packed_bytes take them. With -DTHREADS (link -lpthread)
 * the range parts run at once, one pthread each, as a caller's thread pool
 * would run them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fence.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define PLAIN NAME
#define PACK_B CAT(NAME, _pack_b)
#define PACKED CAT(NAME, _packed)
#define PACKED_RANGE CAT(NAME, _packed_range)
#define PACKED_BYTES CAT(NAME, _packed_bytes)
#define TILES CAT(NAME, _tiles)
#ifdef RUN_TIME_M
#define M_ARG (int64_t)M,
#define TILES_OF_M TILES((int64_t)M)
#else
#define M_ARG
#define TILES_OF_M TILES()
#endif
#ifdef RUN_TIME_N
#define N_ARG (int64_t)N,
#else
#define N_ARG
#endif
#ifdef RUN_TIME_K
#define K_ARG (int64_t)K,
#else
#define K_ARG
#endif
/* The run-time extents every computing entry takes first (m, n, k), and
 * those the pack and NAME_packed_bytes take (n, k). */
#define ROWS M_ARG N_ARG K_ARG
#define WEIGHTS_ARGS N_ARG K_ARG


#if A_SIGNED
typedef int8_t TA;
#else
typedef uint8_t TA;
#endif
#if B_SIGNED
typedef int8_t TB;
#else
typedef uint8_t TB;
#endif

#ifdef THREADS
#include <pthread.h>
/* One range part of the call runFenced() is making, on a thread of its own. */
struct Part {
  const TA *a;
  int64_t lda;
  const void *packed;
  int32_t *out;
  int64_t ldc, begin, end;
};
static void *runPart(void *arg) {
  struct Part *p = arg;
  PACKED_RANGE(ROWS p->a, p->lda, p->packed, p->out, p->ldc, p->begin, p->end);
  return NULL;
}
#endif

#define GUARD 16
#define POISON ((int32_t)0x5a5a5a5a)

static uint64_t state = 0x7153a;
static uint32_t next(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}

static uint8_t value(int extreme, int isSigned) {
  static const int8_t s8[] = {0, 1, -1, 127, -128};
  static const uint8_t u8[] = {0, 1, 127, 128, 255};
  if (extreme && next() % 2)
    return isSigned ? (uint8_t)s8[next() % 5] : u8[next() % 5];
  return (uint8_t)next();
}

static int64_t widen(uint8_t v, int isSigned) {
  return isSigned ? (int64_t)(int8_t)v : (int64_t)v;
}

/* One call through `entry` (0 plain, 1 pre-packed, 2 ranges) on a and b
 * (rows lda and ldb apart) with every buffer fenced after (after != 0) or
 * before, C's rows ldc apart; 0 if right. */
static int runFenced(int entry, const uint8_t *a, int64_t lda,
                     const uint8_t *b, int64_t ldb, int64_t ldc,
                     const char *data, int after) {
  char what[96];
  snprintf(what, sizeof what, "%s (fenced %s)", data,
           after ? "after" : "before");
  size_t aBytes = (size_t)((M - 1) * lda + K),
         bBytes = (size_t)((K - 1) * ldb + N);
  const TA *fa = fence_copy(a, aBytes, after, "A");
  const TB *fb = fence_copy(b, bBytes, after, "B");
  /* C from its first element to its last, gaps between rows included, and
   * its guard words on the side away from the fence: C itself touches it. */
  int64_t span = (M - 1) * ldc + N, cWords = GUARD + span;
  int32_t *c = fence_alloc((size_t)cWords * 4, after, "C");
  for (int64_t i = 0; i < cWords; ++i)
    c[i] = POISON;
  int32_t *out = after ? c + GUARD : c;
  void *packed = NULL;
  size_t packedBytes = 0;
  if (entry == 0) {
    PLAIN(ROWS fa, lda, fb, ldb, out, ldc);
  } else {
#if defined(RUN_TIME_N) && defined(RUN_TIME_K)
    packedBytes = (size_t)PACKED_BYTES((int64_t)N, (int64_t)K);
#elif defined(RUN_TIME_N)
    packedBytes = (size_t)PACKED_BYTES((int64_t)N);
#elif defined(RUN_TIME_K)
    packedBytes = (size_t)PACKED_BYTES((int64_t)K);
#else
    packedBytes = (size_t)PACKED_BYTES();
#endif
    packed = fence_alloc(packedBytes, after, "packed B");
    PACK_B(WEIGHTS_ARGS fb, ldb, packed);
    if (entry == 1) {
      PACKED(ROWS fa, lda, packed, out, ldc);
    } else {
      int64_t tiles = TILES_OF_M;
#ifdef THREADS
      struct Part parts[3];
      pthread_t threads[3];
      for (int part = 0; part < 3; ++part) {
        struct Part p = {fa, lda, packed, out, ldc,
                         tiles * part / 3, tiles * (part + 1) / 3};
        parts[part] = p;
        if (pthread_create(&threads[part], NULL, runPart, &parts[part])) {
          printf("%s: pthread_create failed\n", what);
          return 1;
        }
      }
      for (int part = 0; part < 3; ++part)
        pthread_join(threads[part], NULL);
#else
      for (int part = 0; part < 3; ++part)
        PACKED_RANGE(ROWS fa, lda, packed, out, ldc, tiles * part / 3,
                     tiles * (part + 1) / 3);
#endif
    }
  }
  int bad = 0;
  for (int m = 0; m < M && !bad; ++m)
    for (int n = 0; n < N && !bad; ++n) {
      uint32_t want = 0; /* s32 arithmetic wraps */
      for (int k = 0; k < K; ++k)
        want += (uint32_t)(widen(a[m * lda + k], A_SIGNED) *
                           widen(b[k * ldb + n], B_SIGNED));
      if ((uint32_t)out[m * ldc + n] != want) {
        printf("%s: C[%d][%d] = %d, expected %d\n", what, m, n,
               out[m * ldc + n], (int32_t)want);
        bad = 1;
      }
    }
  for (int64_t i = 0; i < cWords && !bad; ++i) {
    int64_t at = i - (out - c);
    int inside = at >= 0 && at < span && at % ldc < N;
    if (!inside && c[i] != POISON) {
      printf("%s: the kernel wrote outside C (word %lld from C's start)\n",
             what, (long long)at);
      bad = 1;
    }
  }
  if (!bad)
    printf("%s: %dx%dx%d bit-exact\n", what, M, N, K);
  fence_free((void *)fa, aBytes, after);
  fence_free((void *)fb, bBytes, after);
  fence_free(c, (size_t)cWords * 4, after);
  if (packed)
    fence_free(packed, packedBytes, after);
  return bad;
}

/* One data set (random with gaps after every row, or mixed-extreme and
 * tight) through `entry`, fenced after and then before; 0 if right. */
static int run(int entry, int padded, const char *what) {
  int64_t lda = K + (padded ? 3 : 0), ldb = N + (padded ? 5 : 0),
          ldc = N + (padded ? 7 : 0);
  /* Exactly the bytes the entries may touch: no gap after the last row. */
  size_t aBytes = (size_t)((M - 1) * lda + K),
         bBytes = (size_t)((K - 1) * ldb + N);
  uint8_t *a = malloc(aBytes), *b = malloc(bBytes);
  memset(a, 0x5a, aBytes); /* the gaps: values that change a result */
  memset(b, 0x5a, bBytes);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k)
      a[m * lda + k] = value(!padded, A_SIGNED);
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      b[k * ldb + n] = value(!padded, B_SIGNED);
  int bad = runFenced(entry, a, lda, b, ldb, ldc, what, 1) ||
            runFenced(entry, a, lda, b, ldb, ldc, what, 0);
  free(a);
  free(b);
  return bad;
}

int main(void) {
  fence_report_faults();
  static const char *names[3][2] = {
      {"plain, extreme inputs", "plain, random inputs, padded rows"},
      {"pre-packed, extreme inputs", "pre-packed, random inputs, padded rows"},
      {"range, extreme inputs", "range, random inputs, padded rows"}};
  int bad = 0;
  for (int entry = 0; entry < 3; ++entry)
    for (int padded = 0; padded < 2; ++padded)
      bad |= run(entry, padded, names[entry][padded]);
  return bad;
}
