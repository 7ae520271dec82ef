/*===- CountPlugin.c - count executed instructions per address under qemu -===*
 *
 * A TCG plugin for qemu-aarch64 (plugin API v1, as Debian's qemu-user 7.2
 * loads it; Debian ships no plugin header, so the few functions used are
 * declared here). It counts how often each instruction in [lo, hi) executes
 * and writes "address count" lines (hex, decimal) for those that ran to the
 * file `out` when the program exits:
 *
 *   qemu-aarch64 -plugin libtisa-qemu-count.so,lo=0x...,hi=0x...,out=FILE
 *
 * Counting is by inline addition into one slot per 4-byte instruction, so
 * the counts are exact and the same run to run.
 *
 *===----------------------------------------------------------------------===*/

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(
    qemu_plugin_id_t id,
    void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
                                                 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    void (*cb)(qemu_plugin_id_t id,
                                               void *userdata),
                                    void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t lo, hi;
static uint64_t *counts;
static char outPath[4096];

static void onTranslate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    if (pc >= lo && pc < hi)
      qemu_plugin_register_vcpu_insn_exec_inline(
          insn, QEMU_PLUGIN_INLINE_ADD_U64, &counts[(pc - lo) / 4], 1);
  }
}

static void onExit(qemu_plugin_id_t id, void *userdata) {
  (void)id;
  (void)userdata;
  FILE *f = fopen(outPath, "w");
  if (!f) {
    qemu_plugin_outs("tisa-qemu-count: cannot write the counts\n");
    return;
  }
  for (uint64_t i = 0; i < (hi - lo) / 4; ++i)
    if (counts[i])
      fprintf(f, "%" PRIx64 " %" PRIu64 "\n", lo + 4 * i, counts[i]);
  fclose(f);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                    char **argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "lo=", 3) == 0)
      lo = strtoull(argv[i] + 3, 0, 0);
    else if (strncmp(argv[i], "hi=", 3) == 0)
      hi = strtoull(argv[i] + 3, 0, 0);
    else if (strncmp(argv[i], "out=", 4) == 0 &&
             strlen(argv[i] + 4) < sizeof outPath)
      strcpy(outPath, argv[i] + 4);
    else
      return -1;
  }
  if (hi <= lo || (hi - lo) % 4 || !outPath[0])
    return -1;
  counts = calloc((hi - lo) / 4, sizeof *counts);
  if (!counts)
    return -1;
  qemu_plugin_register_vcpu_tb_trans_cb(id, onTranslate);
  qemu_plugin_register_atexit_cb(id, onExit, 0);
  return 0;
}
