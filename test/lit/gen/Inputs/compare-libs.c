/* Runs one function of two libraries that `tisa gen FILE.mlir` generated
 * from the same program (for example with and without fused epilogues) on
 * the same random inputs, through MLIR's C interface, and compares their
 * outputs bit for bit.
 *
 *   compare-libs LIB1 LIB2 FUNC ARG...
 *
 * One ARG per argument of FUNC, in order:
 *   in:TYPE:SHAPE[:LO:HI]  a memref input (SHAPE: 33x70), random values in
 *                          [LO, HI] (default: the type's whole range, with
 *                          its extremes over-represented)
 *   out:TYPE:SHAPE         a memref output, compared (filled with a poison
 *                          pattern before each call)
 *   int:VALUE              a scalar integer argument
 * TYPE: i8, u8, i32, f32, bf16 (random floats rounded to it). Both libraries
 * run twice (fence.h): every memref ending at a PROT_NONE page ("fenced
 * after"), then every one starting right after one ("fenced before"), each
 * exactly as large as its shape. Prints one line per placement and exits 0
 * when every output is bit-identical, 1 on the first difference. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fence.h"

#define MAX_ARGS 8
#define MAX_RANK 4

typedef struct {
  int output, isScalar, rank, elementBytes;
  char type[8];
  int64_t sizes[MAX_RANK], count, scalar;
  double lo, hi;
  int ranged;
  void *input;   /* an input's values, copied into each call's buffer */
  void *data[2]; /* per library: the outputs differ, inputs are the same */
  int64_t descriptor[2][3 + 2 * MAX_RANK];
  char name[2][96]; /* per library, for fence.h's fault messages */
} Arg;

static uint64_t state = 0x7153a;
static uint32_t next(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}

static int parse(const char *spec, Arg *a) {
  char kind[8];
  memset(a, 0, sizeof *a);
  if (sscanf(spec, "int:%ld", &a->scalar) == 1) {
    a->isScalar = 1;
    return 0;
  }
  char shape[64] = "";
  int n = sscanf(spec, "%7[a-z]:%7[a-z0-9]:%63[0-9x]:%lf:%lf", kind, a->type,
                 shape, &a->lo, &a->hi);
  if (n < 3)
    return -1;
  a->ranged = n == 5;
  a->output = !strcmp(kind, "out");
  if (!a->output && strcmp(kind, "in"))
    return -1;
  a->elementBytes = !strcmp(a->type, "i8") || !strcmp(a->type, "u8") ? 1
                    : !strcmp(a->type, "bf16")                         ? 2
                    : !strcmp(a->type, "i32") || !strcmp(a->type, "f32") ? 4
                                                                        : 0;
  if (!a->elementBytes)
    return -1;
  a->count = 1;
  for (char *p = shape; *p && a->rank < MAX_RANK; ++a->rank) {
    a->sizes[a->rank] = strtol(p, &p, 10);
    a->count *= a->sizes[a->rank];
    if (*p == 'x')
      ++p;
  }
  return 0;
}

static void fill(Arg *a, void *p) {
  for (int64_t i = 0; i < a->count; ++i) {
    double r = (double)next() / 4294967296.0;
    if (!strcmp(a->type, "f32") || !strcmp(a->type, "bf16")) {
      float v = (float)(a->ranged ? a->lo + r * (a->hi - a->lo) : r - 0.5);
      uint32_t bits;
      memcpy(&bits, &v, 4);
      if (a->elementBytes == 2)
        ((uint16_t *)p)[i] = (uint16_t)((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
      else
        ((float *)p)[i] = v;
    } else if (a->ranged) {
      int64_t v = (int64_t)(a->lo + r * (a->hi - a->lo + 1));
      if (a->elementBytes == 1)
        ((int8_t *)p)[i] = (int8_t)v;
      else
        ((int32_t *)p)[i] = (int32_t)v;
    } else if (a->elementBytes == 1) {
      static const uint8_t extremes[] = {0, 1, 127, 128, 255};
      ((uint8_t *)p)[i] = next() % 4 ? (uint8_t)next() : extremes[next() % 5];
    } else {
      ((int32_t *)p)[i] = (int32_t)next();
    }
  }
}

static void describe(Arg *a, int lib) {
  int64_t *d = a->descriptor[lib];
  d[0] = d[1] = (int64_t)(intptr_t)a->data[lib];
  d[2] = 0;
  int64_t stride = 1;
  for (int k = a->rank - 1; k >= 0; --k) {
    d[3 + k] = a->sizes[k];
    d[3 + a->rank + k] = stride;
    stride *= a->sizes[k];
  }
}

typedef void (*Fn)(intptr_t, intptr_t, intptr_t, intptr_t, intptr_t,
                   intptr_t, intptr_t, intptr_t);

int main(int argc, char **argv) {
  fence_report_faults();
  if (argc < 5 || argc - 4 > MAX_ARGS) {
    fprintf(stderr, "usage: compare-libs LIB1 LIB2 FUNC ARG... (at most %d)\n",
            MAX_ARGS);
    return 2;
  }
  int nargs = argc - 4;
  Arg args[MAX_ARGS];
  for (int i = 0; i < nargs; ++i)
    if (parse(argv[4 + i], &args[i])) {
      fprintf(stderr, "compare-libs: bad argument '%s'\n", argv[4 + i]);
      return 2;
    }
  Fn fns[2];
  for (int lib = 0; lib < 2; ++lib) {
    void *h = dlopen(argv[1 + lib], RTLD_NOW | RTLD_LOCAL);
    fns[lib] = h ? (Fn)(intptr_t)dlsym(h, argv[3]) : NULL;
    if (!fns[lib]) {
      fprintf(stderr, "compare-libs: %s: %s\n", argv[1 + lib], dlerror());
      return 2;
    }
  }
  for (int i = 0; i < nargs; ++i) {
    Arg *a = &args[i];
    if (a->isScalar)
      continue;
    for (int lib = 0; lib < 2; ++lib)
      snprintf(a->name[lib], sizeof a->name[lib], "argument %d (%s) of library %d",
               i, argv[4 + i], lib + 1);
    if (!a->output) {
      a->input = malloc(a->count * a->elementBytes);
      fill(a, a->input);
    }
  }
  for (int after = 1; after >= 0; --after) {
    const char *placement = after ? "after" : "before";
    for (int lib = 0; lib < 2; ++lib) {
      intptr_t call[MAX_ARGS] = {0};
      for (int i = 0; i < nargs; ++i) {
        Arg *a = &args[i];
        if (a->isScalar) {
          call[i] = (intptr_t)a->scalar;
          continue;
        }
        size_t bytes = a->count * a->elementBytes;
        if (a->output) {
          a->data[lib] = fence_alloc(bytes, after, a->name[lib]);
          memset(a->data[lib], 0x5a, bytes);
        } else {
          a->data[lib] = fence_copy(a->input, bytes, after, a->name[lib]);
        }
        describe(a, lib);
        call[i] = (intptr_t)a->descriptor[lib];
      }
      fns[lib](call[0], call[1], call[2], call[3], call[4], call[5], call[6],
               call[7]);
    }
    int64_t compared = 0;
    for (int i = 0; i < nargs; ++i) {
      Arg *a = &args[i];
      if (!a->output)
        continue;
      for (int64_t e = 0; e < a->count; ++e) {
        const char *x = (const char *)a->data[0] + e * a->elementBytes;
        const char *y = (const char *)a->data[1] + e * a->elementBytes;
        if (memcmp(x, y, a->elementBytes)) {
          int32_t vx = 0, vy = 0;
          memcpy(&vx, x, a->elementBytes);
          memcpy(&vy, y, a->elementBytes);
          printf("MISMATCH (fenced %s): argument %d element %ld: 0x%x vs 0x%x\n",
                 placement, i, (long)e, (unsigned)vx, (unsigned)vy);
          return 1;
        }
      }
      compared += a->count;
    }
    printf("%s (fenced %s): %ld output elements bit-identical\n", argv[3],
           placement, (long)compared);
    if (!compared)
      return 1;
    for (int i = 0; i < nargs; ++i)
      for (int lib = 0; lib < 2 && !args[i].isScalar; ++lib)
        fence_free(args[i].data[lib], args[i].count * args[i].elementBytes,
                   after);
  }
  return 0;
}
