/* A conv2d kernel with n, h and w at run time (3x3 filter, stride 2, no padding), called
 * at images the filter does not fit: h or w = 2, where h - 3 = -1 truncated by 2 gave one
 * output row that read past the input and wrote past the output. Each call gets its input
 * ending at a guard page and an output of poison it must leave alone; _tiles counts the
 * output rows there are (n x floor((h - 3) / 2) + 1, none when h < 3).
 * Compile with -DK=<kernel name> -include <its header>. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#define CAT(a, b) CAT2(a, b)
#define CAT2(a, b) a##b
int main(void) {
  static const int64_t extents[][3] = {{1, 2, 4}, {1, 4, 2}, {1, 2, 2}, {2, 2, 5}, {1, 0, 7}};
  char *page = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mprotect(page + 4096, 4096, PROT_NONE);
  static int8_t filter[3 * 3 * 3 * 5];
  static unsigned char packed[1 << 16];
  memset(filter, 1, sizeof filter);
  if (CAT(K, _packed_bytes)() > (int64_t)sizeof packed)
    return 2;
  CAT(K, _pack_filter)(filter, packed);
  int bad = 0;
  for (unsigned i = 0; i < sizeof extents / sizeof extents[0]; ++i) {
    int64_t n = extents[i][0], h = extents[i][1], w = extents[i][2];
    size_t bytes = (size_t)(n * h * w * 3);
    uint8_t *input = (uint8_t *)page + 4096 - bytes;
    memset(input, 1, bytes);
    int32_t output[64];
    for (int entry = 0; entry < 2; ++entry) {
      memset(output, 0x5a, sizeof output);
      if (entry == 0)
        K(n, h, w, input, filter, output);
      else
        CAT(K, _packed)(n, h, w, input, packed, output);
      for (int j = 0; j < 64; ++j)
        bad += output[j] != 0x5a5a5a5a;
    }
    int64_t tiles = CAT(K, _tiles)(n, h);
    printf("%lldx%lldx%lld: tiles %lld\n", (long long)n, (long long)h, (long long)w, (long long)tiles);
    bad += tiles != (h >= 3 ? n * ((h - 3) / 2 + 1) : 0);
  }
  printf("%d outputs or tile counts wrong\n", bad);
  return bad != 0;
}
