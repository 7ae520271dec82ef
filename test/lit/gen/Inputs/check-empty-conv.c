/* A conv2d kernel with n, h and w at run time (3x3 filter, stride 2, no padding), called
 * at images the filter does not fit: h or w = 2, where h - 3 = -1 truncated by 2 gave one
 * output row that read past the input and wrote past the output. None of these images has
 * an output, so the output is 0 bytes with 64 guard words of poison beside it the kernel
 * must leave alone. Each image runs twice (fence.h): the input, the filter, the packed
 * filter and the output each ending at a PROT_NONE page (the guard words before the
 * output), then each starting right after one (the guard words after it), through the
 * plain and the pre-packed entry; _tiles counts the output rows there are
 * (n x floor((h - 3) / 2) + 1, none when h < 3).
 * Compile with -DK=<kernel name> -include <its header>. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "fence.h"
#define CAT(a, b) CAT2(a, b)
#define CAT2(a, b) a##b
#define GUARD 64
int main(void) {
  fence_report_faults();
  static const int64_t extents[][3] = {{1, 2, 4}, {1, 4, 2}, {1, 2, 2}, {2, 2, 5}, {1, 0, 7}};
  static int8_t filter[3 * 3 * 3 * 5];
  memset(filter, 1, sizeof filter);
  size_t packedBytes = (size_t)CAT(K, _packed_bytes)();
  int bad = 0;
  for (unsigned i = 0; i < sizeof extents / sizeof extents[0]; ++i) {
    int64_t n = extents[i][0], h = extents[i][1], w = extents[i][2];
    size_t bytes = (size_t)(n * h * w * 3);
    for (int after = 1; after >= 0; --after) {
      uint8_t *input = fence_alloc(bytes, after, "input");
      memset(input, 1, bytes);
      int8_t *f = fence_copy(filter, sizeof filter, after, "filter");
      void *packed = fence_alloc(packedBytes, after, "packed filter");
      CAT(K, _pack_filter)(f, packed);
      /* The guard words on the side away from the fence: the (empty) output touches it. */
      int32_t *output = fence_alloc(GUARD * 4, after, "output");
      int32_t *start = after ? output + GUARD : output;
      for (int entry = 0; entry < 2; ++entry) {
        memset(output, 0x5a, GUARD * 4);
        if (entry == 0)
          K(n, h, w, input, f, start);
        else
          CAT(K, _packed)(n, h, w, input, packed, start);
        for (int j = 0; j < GUARD; ++j)
          bad += output[j] != 0x5a5a5a5a;
      }
      fence_free(input, bytes, after);
      fence_free(f, sizeof filter, after);
      fence_free(packed, packedBytes, after);
      fence_free(output, GUARD * 4, after);
    }
    int64_t tiles = CAT(K, _tiles)(n, h);
    printf("%lldx%lldx%lld: tiles %lld\n", (long long)n, (long long)h, (long long)w, (long long)tiles);
    bad += tiles != (h >= 3 ? n * ((h - 3) / 2 + 1) : 0);
  }
  printf("%d outputs or tile counts wrong\n", bad);
  return bad != 0;
}
