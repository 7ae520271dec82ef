/*===- tisa.h - the JIT as a C API ------------------------------*- C -*-===*
 *
 * C99 or later, or C++.
 *
 * Compile a tensorized GEMM or NHWC conv2d for this machine at run time (the
 * best instruction the host executes, plain vector code with a warning where
 * none applies), with tisa's on-disk kernel cache, and get its entry points.
 * The entries are those of a `tisa gen` library; their C signatures are in
 * the kernel's header text (tisa_kernel_header) and in docs/codegen.md:
 *
 *   GEMM:   NAME(A, lda, B, ldb, C, ldc)
 *           NAME_pack_b(B, ldb, packed)   NAME_packed(A, lda, packed, C, ldc)
 *           NAME_packed_range(A, lda, packed, C, ldc, begin, end)
 *   conv2d: NAME(input, filter, output), NAME_pack_filter(filter, packed), ...
 *
 * With m (conv2d: batch) = TISA_RUN_TIME, one kernel serves every m: each
 * entry but the pack takes it as its first argument (int64_t), e.g.
 * NAME(m, A, lda, B, ldb, C, ldc), and NAME_tiles(m) counts the range
 * entry's tiles (16 rows; one image). A GEMM's n and k may be TISA_RUN_TIME
 * too where a tensor instruction of the target implements the types (plain
 * vector code, the fallback, takes m only; tisa_compile says so): every
 * entry then takes its run-time extents first in the order m, n,
 * k, NAME_pack_b and NAME_packed_bytes take n and k (the packed weights grow
 * with them), e.g. NAME(m, n, k, A, lda, B, ldb, C, ldc). A conv2d's h and w
 * may be TISA_RUN_TIME as well: every entry but the pack then takes its
 * run-time extents first in the order batch, h, w, e.g. NAME(h, w, input,
 * filter, output) (examples/c-api/conv2d.c). A negative extent given at
 * run time is taken as 0: a call with no output (for k, a sum of nothing);
 * an image the filter does not fit has no output row and no tile.
 *
 * Example (examples/c-api/gemm.c):
 *
 *   tisa_kernel_spec spec = tisa_gemm_spec(64, 64, 64, "u8,s8,s32");
 *   char *error = NULL;
 *   tisa_kernel *k = tisa_compile(&spec, NULL, &error);
 *   typedef void gemm_fn(const uint8_t *, int64_t, const int8_t *, int64_t,
 *                        int32_t *, int64_t);
 *   gemm_fn *gemm = (gemm_fn *)tisa_kernel_entry(k, "");
 *   gemm(A, 64, B, 64, C, 64);
 *   tisa_kernel_free(k);
 *
 * Thread-safe: kernels may be compiled and called from several threads.
 *===--------------------------------------------------------------------===*/

#ifndef TISA_TISA_H
#define TISA_TISA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TISA_GEMM = 0, TISA_CONV2D = 1 } tisa_op;

/* As a GEMM's m, n or k, or a conv2d's batch, h or w: given at run time, to
 * every call. */
#define TISA_RUN_TIME ((int64_t)-1)

/* What to compile. GEMM: C[m][n] = sum_k A[m][k] * B[k][n]. conv2d: NHWC
 * input [batch][h][w][c], HWCF filter [r][s][c][filters], zero padding
 * `pad`, stride `stride`. `types` is "A,B,C": integers (u8, s8, u16, s16,
 * u32, s32, u64, s64) into an integer at least as wide, or floats (f16,
 * bf16, f32, f64) into f32 or f64, e.g. "u8,s8,s32", "bf16,bf16,f32"
 * (16-bit floats as their 16-bit patterns; plain vector code where no
 * instruction of the host takes them). */
typedef struct {
  tisa_op op;
  int64_t m, n, k;
  int64_t batch, h, w, c, filters, r, s, stride, pad;
  const char *types;
} tisa_kernel_spec;

static inline tisa_kernel_spec tisa_gemm_spec(int64_t m, int64_t n, int64_t k,
                                              const char *types) {
  tisa_kernel_spec s = {TISA_GEMM, m, n, k, 1, 0, 0, 0, 0, 1, 1, 1, 0, types};
  return s;
}

static inline tisa_kernel_spec
tisa_conv2d_spec(int64_t batch, int64_t h, int64_t w, int64_t c,
                 int64_t filters, int64_t r, int64_t s, int64_t stride,
                 int64_t pad, const char *types) {
  tisa_kernel_spec spec = {TISA_CONV2D, 0, 0, 0, batch, h, w, c,
                           filters, r, s, stride, pad, types};
  return spec;
}

typedef struct tisa_kernel tisa_kernel;

/* Compiles `spec` for `target` (NULL or "host": this machine; or a name of
 * targets/data, or the path of a target file of that format (a name with a
 * '/' or ending in .json), that this machine can run: another architecture,
 * or a CPU with features this one lacks, is an error). On failure returns
 * NULL and, when `error` is not NULL, sets *error to a message to release
 * with tisa_free. */
tisa_kernel *tisa_compile(const tisa_kernel_spec *spec, const char *target,
                          char **error);

/* Entry `suffix` of the kernel ("", "_pack_b", "_packed", "_packed_range",
 * "_pack_filter", ...), or NULL when it has none. */
void *tisa_kernel_entry(const tisa_kernel *kernel, const char *suffix);
/* The kernel's symbol prefix ("tisa_gemm_u8s8s32_64x64x64"), the description
 * of the instruction it uses ("" for plain vector code), its C header. */
const char *tisa_kernel_name(const tisa_kernel *kernel);
const char *tisa_kernel_instruction(const tisa_kernel *kernel);
const char *tisa_kernel_header(const tisa_kernel *kernel);
/* Bytes of the buffer the pack entry fills (0 with n or k at run time: call
 * the kernel's "_packed_bytes" entry with them); tiles of the range entry (0
 * with m at run time: call the kernel's "_tiles" entry with m; with a
 * conv2d's h or w at run time, its tiles are output rows: call "_tiles" with
 * the batch and h, those given at run time). */
int64_t tisa_kernel_packed_bytes(const tisa_kernel *kernel);
int64_t tisa_kernel_tiles(const tisa_kernel *kernel);

void tisa_kernel_free(tisa_kernel *kernel);
void tisa_free(char *message);

/* Where tisa reads its data, for a caller to check or report: the
 * directories of instruction descriptions in search order, ':'-separated
 * (those of TISA_ISA_PATH, then the shipped ones: of the prefix libtisa is
 * installed in, else of the prefix it was configured with), and the
 * directory of target data. Release each with tisa_free. */
char *tisa_isa_search_path(void);
char *tisa_target_dir(void);

#ifdef __cplusplus
}
#endif

#endif /* TISA_TISA_H */
