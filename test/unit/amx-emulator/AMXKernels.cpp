//===- AMXKernels.cpp - real AMX machine code for the emulator tests ------===//
//
// Compiled with the AMX target features; everything else in the test binary
// is not, so AMX instructions only ever come from this file.
//
//===----------------------------------------------------------------------===//

#include "AMXKernels.h"

#include <immintrin.h>

namespace tisa::amx::test {

const char *getMnemonic(DotKind kind) {
  switch (kind) {
  case DotKind::Tdpbssd:
    return "tdpbssd";
  case DotKind::Tdpbsud:
    return "tdpbsud";
  case DotKind::Tdpbusd:
    return "tdpbusd";
  case DotKind::Tdpbuud:
    return "tdpbuud";
  case DotKind::Tdpbf16ps:
    return "tdpbf16ps";
  case DotKind::Tdpfp16ps:
    return "tdpfp16ps";
  }
  return "?";
}

// The _tile_* intrinsics take tile numbers as constants, hence the macro.
// C, A, B and the B load must match getTileAssignment.
#define TISA_DOT_KERNEL(C, A, B, DOT, LOAD_B)                                  \
  do {                                                                         \
    _tile_loadconfig(&cfg);                                                    \
    _tile_loadd(C, c, strideC);                                                \
    _tile_loadd(A, a, strideA);                                                \
    LOAD_B(B, b, strideB);                                                     \
    DOT(C, A, B);                                                              \
    _tile_stored(C, c, strideC);                                               \
    _tile_release();                                                           \
  } while (false)

TileAssignment getTileAssignment(DotKind kind) {
  switch (kind) {
  case DotKind::Tdpbssd:
    return {0, 1, 2};
  case DotKind::Tdpbsud:
    return {3, 4, 5};
  case DotKind::Tdpbusd:
    return {6, 7, 0};
  case DotKind::Tdpbuud:
    return {1, 2, 3};
  case DotKind::Tdpbf16ps:
    return {4, 5, 6};
  case DotKind::Tdpfp16ps:
    return {7, 0, 1};
  }
  return {0, 1, 2};
}

void runExplicitTiles(DotKind kind, const TileConfigBlock &cfg, const void *a,
                      long strideA, const void *b, long strideB, void *c,
                      long strideC) {
  switch (kind) {
  case DotKind::Tdpbssd:
    TISA_DOT_KERNEL(0, 1, 2, _tile_dpbssd, _tile_loadd);
    break;
  case DotKind::Tdpbsud:
    TISA_DOT_KERNEL(3, 4, 5, _tile_dpbsud, _tile_stream_loadd);
    break;
  case DotKind::Tdpbusd:
    TISA_DOT_KERNEL(6, 7, 0, _tile_dpbusd, _tile_loadd);
    break;
  case DotKind::Tdpbuud:
    TISA_DOT_KERNEL(1, 2, 3, _tile_dpbuud, _tile_stream_loadd);
    break;
  case DotKind::Tdpbf16ps:
    TISA_DOT_KERNEL(4, 5, 6, _tile_dpbf16ps, _tile_loadd);
    break;
  case DotKind::Tdpfp16ps:
    TISA_DOT_KERNEL(7, 0, 1, _tile_dpfp16ps, _tile_stream_loadd);
    break;
  }
}

#undef TISA_DOT_KERNEL

void runCompilerConfigured(DotKind kind, int m, int kBytes, int nBytes,
                           const void *a, long strideA, const void *b,
                           long strideB, void *c, long strideC) {
  // Shapes only (row and col are const); the contents come from the loads.
  __tile1024i ta = {uint16_t(m), uint16_t(kBytes), {}};
  __tile1024i tb = {uint16_t(kBytes / 4), uint16_t(nBytes), {}};
  __tile1024i tc = {uint16_t(m), uint16_t(nBytes), {}};
  __tile_loadd(&tc, c, strideC);
  __tile_loadd(&ta, a, strideA);
  __tile_stream_loadd(&tb, b, strideB);
  switch (kind) {
  case DotKind::Tdpbssd:
    __tile_dpbssd(&tc, ta, tb);
    break;
  case DotKind::Tdpbsud:
    __tile_dpbsud(&tc, ta, tb);
    break;
  case DotKind::Tdpbusd:
    __tile_dpbusd(&tc, ta, tb);
    break;
  case DotKind::Tdpbuud:
    __tile_dpbuud(&tc, ta, tb);
    break;
  case DotKind::Tdpbf16ps:
    __tile_dpbf16ps(&tc, ta, tb);
    break;
  case DotKind::Tdpfp16ps:
    __tile_dpfp16ps(&tc, ta, tb);
    break;
  }
  __tile_stored(c, strideC, tc);
}

void storeConfigRoundTrip(const TileConfigBlock &cfg, TileConfigBlock *loaded,
                          TileConfigBlock *released) {
  _tile_loadconfig(&cfg);
  _tile_storeconfig(loaded);
  _tile_release();
  _tile_storeconfig(released);
}

void loadMaybeZeroStore(const TileConfigBlock &cfg, const void *src, void *dst,
                        long stride, bool zero) {
  _tile_loadconfig(&cfg);
  _tile_loadd(3, src, stride);
  if (zero)
    _tile_zero(3);
  _tile_stored(3, dst, stride);
  _tile_release();
}

void loadWithForm(AddressingForm form, const TileConfigBlock &cfg,
                  uintptr_t base, long stride, uint8_t out[16 * 64]) {
  const long dense = 64;
  switch (form) {
  case AddressingForm::ExtendedRegsScaled: {
    register uintptr_t r13 asm("r13") = base - 16;
    register long r14 asm("r14") = stride;
    asm volatile("ldtilecfg %[cfg]\n\t"
                 "tileloadd 16(%%r13,%%r14,4), %%tmm0\n\t"
                 "tilestored %%tmm0, (%[out],%[dense],1)\n\t"
                 "tilerelease"
                 :
                 : [cfg] "m"(cfg), "r"(r13),
                   "r"(r14), [out] "r"(out), [dense] "r"(dense)
                 : "memory");
    break;
  }
  case AddressingForm::Disp32:
    asm volatile("ldtilecfg %[cfg]\n\t"
                 "tileloadd 0x12340(%[b],%[s],1), %%tmm0\n\t"
                 "tilestored %%tmm0, (%[out],%[dense],1)\n\t"
                 "tilerelease"
                 :
                 : [cfg] "m"(cfg), [b] "r"(base - 0x12340), [s] "r"(stride),
                   [out] "r"(out), [dense] "r"(dense)
                 : "memory");
    break;
  case AddressingForm::NoIndex:
    asm volatile(
        "ldtilecfg %[cfg]\n\t"
        "tileloadd (%[b]), %%tmm0\n\t"
        "tilestored %%tmm0, (%[out],%[dense],1)\n\t"
        "tilerelease"
        :
        : [cfg] "m"(cfg), [b] "r"(base), [out] "r"(out), [dense] "r"(dense)
        : "memory");
    break;
  case AddressingForm::NoBase:
    // The displacement is the address itself; the caller maps it there.
    asm volatile(
        "ldtilecfg %[cfg]\n\t"
        "tileloadd 0x20000000(,%[s],8), %%tmm0\n\t"
        "tilestored %%tmm0, (%[out],%[dense],1)\n\t"
        "tilerelease"
        :
        : [cfg] "m"(cfg), [s] "r"(stride), [out] "r"(out), [dense] "r"(dense)
        : "memory");
    break;
  case AddressingForm::FSSegment:
    asm volatile("ldtilecfg %[cfg]\n\t"
                 "tileloadd %%fs:(%[b],%[s],1), %%tmm0\n\t"
                 "tilestored %%tmm0, (%[out],%[dense],1)\n\t"
                 "tilerelease"
                 :
                 : [cfg] "m"(cfg), [b] "r"(base), [s] "r"(stride),
                   [out] "r"(out), [dense] "r"(dense)
                 : "memory");
    break;
  case AddressingForm::AddressSize32:
    asm volatile("ldtilecfg %[cfg]\n\t"
                 "tileloadd (%k[b],%k[s],1), %%tmm0\n\t"
                 "tilestored %%tmm0, (%[out],%[dense],1)\n\t"
                 "tilerelease"
                 :
                 : [cfg] "m"(cfg), [b] "r"(base), [s] "r"(stride),
                   [out] "r"(out), [dense] "r"(dense)
                 : "memory");
    break;
  }
}

// Named in assembly so the instructions below can address them RIP-relative.
static TileConfigBlock RipConfigIn asm("tisa_amx_test_rip_cfg_in")
    __attribute__((used));
static TileConfigBlock RipConfigOut asm("tisa_amx_test_rip_cfg_out")
    __attribute__((used));

void ripRelativeConfigRoundTrip(const TileConfigBlock &cfg,
                                TileConfigBlock *stored) {
  RipConfigIn = cfg;
  asm volatile("ldtilecfg tisa_amx_test_rip_cfg_in(%%rip)\n\t"
               "sttilecfg tisa_amx_test_rip_cfg_out(%%rip)\n\t"
               "tilerelease" ::
                   : "memory");
  *stored = RipConfigOut;
}

void executeUd2() { asm volatile("ud2"); }

void executeTdpbf8ps() {
  // tdpbf8ps %tmm2, %tmm1, %tmm0 (VEX map 5), spelled as bytes so the test
  // does not depend on the assembler knowing AMX-FP8.
  asm volatile(".byte 0xc4, 0xe5, 0x68, 0xfd, 0xc1");
}

void executeTdpbssdSameTiles(const TileConfigBlock &cfg) {
  // tdpbssd %tmm1, %tmm1, %tmm0: tmm2 == tmm3 is #UD.
  asm volatile("ldtilecfg %0\n\t"
               ".byte 0xc4, 0xe2, 0x73, 0x5e, 0xc1" ::"m"(cfg)
               : "memory");
}

void executeTilezeroUnconfigured() {
  asm volatile("tilerelease\n\t"
               "tilezero %%tmm0" ::
                   : "memory");
}

void executeLdtilecfg(const TileConfigBlock &cfg) {
  asm volatile("ldtilecfg %0" ::"m"(cfg) : "memory");
}

void executeTileloaddWithoutSIB(const TileConfigBlock &cfg, const void *p) {
  // tileloadd (%rax), %tmm0 encoded with ModRM.rm = 000 instead of a SIB.
  asm volatile("ldtilecfg %[cfg]\n\t"
               ".byte 0xc4, 0xe2, 0x7b, 0x4b, 0x00"
               :
               : [cfg] "m"(cfg), "a"(p)
               : "memory");
}

} // namespace tisa::amx::test
