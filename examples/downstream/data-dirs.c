/* Prints where libtisa reads its data (tisa_isa_search_path, tisa_target_dir):
 * an installed libtisa reads those of its own prefix, wherever it is. */
#include "tisa/tisa.h"

#include <stdio.h>

int main(void) {
  char *isa = tisa_isa_search_path();
  char *targets = tisa_target_dir();
  printf("descriptions: %s\ntargets: %s\n", isa, targets);
  tisa_free(isa);
  tisa_free(targets);
  return 0;
}
