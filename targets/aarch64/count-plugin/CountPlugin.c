/*===- CountPlugin.c - count executed instructions under qemu-aarch64 ----===*
 *
 * A TCG plugin for qemu-aarch64 (plugin API v1, as Debian's qemu-user 7.2
 * loads it; Debian ships no plugin header, so the few functions used are
 * declared here):
 *
 *   -plugin libtisa-qemu-count.so,mark=0x...,out=FILE
 *       every instruction the process executes between the 1st and 2nd
 *       execution of the instruction at `mark` (and the 3rd and 4th, ...),
 *       wherever it lies (libraries, JIT-generated code): for each counted
 *       part a line "part" and then "opcode count" lines (hex instruction
 *       word, decimal); last a line "marks N". The program calls a function
 *       at `mark` around each part to count.
 *
 * Counting is by inline addition into one slot per translated instruction,
 * so the counts are exact and the same run to run. A program counted by marks must run its counted parts on one
 * thread; the calls to the mark function are counted too (a few
 * instructions per part).
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
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
                                            void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(
    qemu_plugin_id_t id,
    void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
                                                 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op,
                                                void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags,
                                            void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                    void (*cb)(qemu_plugin_id_t id,
                                               void *userdata),
                                    void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static char outPath[4096];

/*--- a slot per translated instruction -------------------------------------*/

/* Slots live in chunks that never move: translated code adds into them. */
enum { kChunkSlots = 1 << 16, kMaxChunks = 1 << 12, kOpcodeBuckets = 1 << 18 };
struct Chunk {
  uint64_t count[kChunkSlots];
  uint64_t atStart[kChunkSlots]; /* count when the open mark was hit */
  uint32_t opcode[kChunkSlots];
};
static struct Chunk *chunks[kMaxChunks];
static uint64_t slotsUsed;
static uint64_t mark;
static uint64_t marksHit;
static int overflow;
/* Counted executions per opcode (open addressing on the instruction word). */
static uint32_t bucketOpcode[kOpcodeBuckets];
static uint64_t bucketCount[kOpcodeBuckets];
static int bucketUsed[kOpcodeBuckets];

static uint64_t *newSlot(uint32_t opcode) {
  uint64_t chunk = slotsUsed / kChunkSlots, at = slotsUsed % kChunkSlots;
  if (chunk >= kMaxChunks)
    return 0;
  if (!chunks[chunk] && !(chunks[chunk] = calloc(1, sizeof(struct Chunk))))
    return 0;
  ++slotsUsed;
  chunks[chunk]->opcode[at] = opcode;
  return &chunks[chunk]->count[at];
}

static void addToOpcode(uint32_t opcode, uint64_t n) {
  uint32_t h = (opcode * 2654435761u) % kOpcodeBuckets;
  for (uint32_t probe = 0; probe < kOpcodeBuckets; ++probe) {
    uint32_t b = (h + probe) % kOpcodeBuckets;
    if (!bucketUsed[b]) {
      bucketUsed[b] = 1;
      bucketOpcode[b] = opcode;
    }
    if (bucketOpcode[b] == opcode) {
      bucketCount[b] += n;
      return;
    }
  }
  overflow = 1;
}

/* Odd hits open a counted part (every slot's count is remembered), even
 * hits close it (what each slot ran since goes to its opcode). */
static void writePart(void);

static void onMark(unsigned int vcpu, void *userdata) {
  (void)vcpu;
  (void)userdata;
  int opening = marksHit++ % 2 == 0;
  for (uint64_t s = 0; s < slotsUsed; ++s) {
    struct Chunk *c = chunks[s / kChunkSlots];
    uint64_t at = s % kChunkSlots;
    if (opening)
      c->atStart[at] = c->count[at];
    else if (c->count[at] != c->atStart[at])
      addToOpcode(c->opcode[at], c->count[at] - c->atStart[at]);
  }
  if (!opening)
    writePart();
}

static void onTranslateMarked(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint32_t opcode = 0;
    if (qemu_plugin_insn_size(insn) == 4)
      memcpy(&opcode, qemu_plugin_insn_data(insn), 4);
    if (qemu_plugin_insn_vaddr(insn) == mark)
      qemu_plugin_register_vcpu_insn_exec_cb(insn, onMark,
                                             QEMU_PLUGIN_CB_NO_REGS, 0);
    uint64_t *slot = newSlot(opcode);
    if (!slot) {
      overflow = 1;
      continue;
    }
    /* A slot created inside a counted part starts at zero: remembered 0. */
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                               slot, 1);
  }
}

/* Appends the part just closed to the output and empties the table. */
static void writePart(void) {
  FILE *f = fopen(outPath, "a");
  if (!f) {
    overflow = 1;
    return;
  }
  fprintf(f, "part\n");
  for (uint32_t b = 0; b < kOpcodeBuckets; ++b) {
    if (bucketUsed[b] && bucketCount[b])
      fprintf(f, "%08" PRIx32 " %" PRIu64 "\n", bucketOpcode[b],
              bucketCount[b]);
    bucketUsed[b] = 0;
    bucketCount[b] = 0;
  }
  fclose(f);
}

static void writeMarked(FILE *f) {
  if (overflow)
    fprintf(f, "overflow\n");
  fprintf(f, "marks %" PRIu64 "\n", marksHit);
}

/*--------------------------------------------------------------------------*/

static void onExit(qemu_plugin_id_t id, void *userdata) {
  (void)id;
  (void)userdata;
  FILE *f = fopen(outPath, "a");
  if (!f) {
    qemu_plugin_outs("tisa-qemu-count: cannot write the counts\n");
    return;
  }
  writeMarked(f);
  fclose(f);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                    char **argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "mark=", 5) == 0)
      mark = strtoull(argv[i] + 5, 0, 0);
    else if (strncmp(argv[i], "out=", 4) == 0 &&
             strlen(argv[i] + 4) < sizeof outPath)
      strcpy(outPath, argv[i] + 4);
    else
      return -1;
  }
  if (!outPath[0] || !mark)
    return -1;
  /* Parts are appended as they close: start from an empty file. */
  FILE *f = fopen(outPath, "w");
  if (!f)
    return -1;
  fclose(f);
  qemu_plugin_register_vcpu_tb_trans_cb(id, onTranslateMarked);
  qemu_plugin_register_atexit_cb(id, onExit, 0);
  return 0;
}
