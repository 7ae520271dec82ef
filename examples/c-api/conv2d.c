/* The JIT from C (include/tisa/tisa.h): compile a u8 x s8 NHWC conv2d (3x3,
 * stride 2, zero padding 1, 19 channels into 21 filters) whose batch, height
 * and width are given at run time (TISA_RUN_TIME), call its plain and
 * pre-packed entries on images from the smallest with an output to a wide
 * one, and check each result against a plain C loop, bit for bit, with
 * guard words around the output. Exit status 0 when all agree. */
#include "tisa/tisa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C = 19, F = 21, R = 3, S = 2, P = 1, GUARD = 16 };
#define POISON ((int32_t)0x5a5a5a5a)

typedef void conv_fn(int64_t, int64_t, int64_t, const uint8_t *,
                     const int8_t *, int32_t *);
typedef void pack_fn(const int8_t *, void *);
typedef void packed_fn(int64_t, int64_t, int64_t, const uint8_t *,
                       const void *, int32_t *);
typedef void range_fn(int64_t, int64_t, int64_t, const uint8_t *, const void *,
                      int32_t *, int64_t, int64_t);
typedef int64_t tiles_fn(int64_t, int64_t);

static int8_t filter[R * R * C * F];

static int outExtent(int in) { return (in + 2 * P - R) / S + 1; }

/* out (between guards) against the reference for input `in`. */
static int check(const char *entry, int n, int h, int w, const uint8_t *in,
                 const int32_t *out) {
  int oh = outExtent(h), ow = outExtent(w), size = n * oh * ow * F;
  for (int i = 0; i < GUARD; ++i)
    if (out[i] != POISON || out[GUARD + size + i] != POISON) {
      fprintf(stderr, "%s entry at %dx%dx%d: wrote outside the output\n",
              entry, n, h, w);
      return 1;
    }
  for (int i = 0; i < size; ++i) {
    int f = i % F, x = i / F % ow, y = i / F / ow % oh, b = i / F / ow / oh;
    int32_t want = 0;
    for (int kh = 0; kh < R; ++kh)
      for (int kw = 0; kw < R; ++kw) {
        int ih = y * S + kh - P, iw = x * S + kw - P;
        if (ih < 0 || ih >= h || iw < 0 || iw >= w)
          continue;
        for (int c = 0; c < C; ++c)
          want += in[((b * h + ih) * w + iw) * C + c] *
                  filter[((kh * R + kw) * C + c) * F + f];
      }
    if (out[GUARD + i] != want) {
      fprintf(stderr, "%s entry at %dx%dx%d: output %d = %d, expected %d\n",
              entry, n, h, w, i, out[GUARD + i], want);
      return 1;
    }
  }
  return 0;
}

int main(void) {
  /* A bad extent is refused by its field's name (filters, not GEMM's k). */
  char *why = NULL;
  tisa_kernel_spec bad = tisa_conv2d_spec(1, 8, 8, C, 0, R, R, S, P, "u8,s8,s32");
  if (tisa_compile(&bad, NULL, &why) || !why || !strstr(why, "spec.filters")) {
    fprintf(stderr, "filters = 0 was not refused by its name: %s\n",
            why ? why : "(no error)");
    return 1;
  }
  tisa_free(why);
  tisa_kernel_spec spec =
      tisa_conv2d_spec(TISA_RUN_TIME, TISA_RUN_TIME, TISA_RUN_TIME, C, F, R,
                       R, S, P, "u8,s8,s32");
  char *error = NULL;
  tisa_kernel *k = tisa_compile(&spec, NULL, &error);
  if (!k) {
    fprintf(stderr, "tisa_compile: %s\n", error);
    tisa_free(error);
    return 1;
  }
  conv_fn *conv = (conv_fn *)tisa_kernel_entry(k, "");
  pack_fn *pack = (pack_fn *)tisa_kernel_entry(k, "_pack_filter");
  packed_fn *packed = (packed_fn *)tisa_kernel_entry(k, "_packed");
  if (!conv || !pack || !packed) {
    fprintf(stderr, "missing entry points\n");
    return 1;
  }
  srand(7);
  for (int i = 0; i < R * R * C * F; ++i)
    filter[i] = (int8_t)(rand() % 256 - 128);
  void *buffer = malloc((size_t)tisa_kernel_packed_bytes(k));
  pack(filter, buffer);
  const int images[3][3] = {{1, 2, 2}, {2, 11, 13}, {1, 30, 300}};
  int failed = 0;
  for (int t = 0; t < 3; ++t) {
    int n = images[t][0], h = images[t][1], w = images[t][2];
    int size = n * outExtent(h) * outExtent(w) * F;
    uint8_t *in = malloc((size_t)(n * h * w * C));
    int32_t *out = malloc(sizeof(int32_t) * (size_t)(size + 2 * GUARD));
    for (int i = 0; i < n * h * w * C; ++i)
      in[i] = (uint8_t)(rand() % 256);
    for (int i = 0; i < size + 2 * GUARD; ++i)
      out[i] = POISON;
    conv(n, h, w, in, filter, out + GUARD);
    failed |= check("plain", n, h, w, in, out);
    for (int i = 0; i < size + 2 * GUARD; ++i)
      out[i] = POISON;
    packed(n, h, w, in, buffer, out + GUARD);
    failed |= check("pre-packed", n, h, w, in, out);
    free(in);
    free(out);
  }
  /* An image the filter does not fit (h + 2P < R) has no output row: no
   * tile, and the range entry writes nothing, whatever range it is given
   * (it divided by the 0 output rows: SIGFPE). */
  range_fn *range = (range_fn *)tisa_kernel_entry(k, "_packed_range");
  tiles_fn *tiles = (tiles_fn *)tisa_kernel_entry(k, "_tiles");
  uint8_t none[5 * C] = {0};
  int32_t guard[GUARD];
  for (int i = 0; i < GUARD; ++i)
    guard[i] = POISON;
  if (!range || !tiles || tiles(1, 0) != 0) {
    fprintf(stderr, "h = 0: no range entry, or tiles(1, 0) is not 0\n");
    failed = 1;
  } else {
    range(1, 0, 5, none, buffer, guard, 0, 0);
    range(1, 0, 5, none, buffer, guard, 0, 4);
    for (int i = 0; i < GUARD; ++i)
      if (guard[i] != POISON) {
        fprintf(stderr, "h = 0: the range entry wrote word %d\n", i);
        failed = 1;
        break;
      }
  }
  printf("%s: n x h x w = 1x2x2, 2x11x13, 1x30x300 through the plain and "
         "pre-packed entries %s; an image of no output, through the range "
         "entry, nothing written\n",
         tisa_kernel_name(k), failed ? "DIFFER" : "bit-exact");
  free(buffer);
  tisa_kernel_free(k);
  return failed;
}
