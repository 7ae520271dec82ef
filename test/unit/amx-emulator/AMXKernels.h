//===- AMXKernels.h - real AMX machine code for the tests -------*- C++ -*-===//
//
// Functions compiled with -mamx-tile -mamx-int8 -mamx-bf16 -mamx-fp16 (see
// CMakeLists.txt), so the code the emulator runs is what clang-22 and the
// LLVM 22 X86 backend emit, not hand-made bytes. On a CPU without AMX every
// AMX instruction in here raises SIGILL.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TEST_UNIT_AMXEMULATOR_AMXKERNELS_H
#define TISA_TEST_UNIT_AMXEMULATOR_AMXKERNELS_H

#include <cstdint>

namespace tisa::amx::test {

enum class DotKind { Tdpbssd, Tdpbsud, Tdpbusd, Tdpbuud, Tdpbf16ps, Tdpfp16ps };
constexpr DotKind kAllDotKinds[] = {DotKind::Tdpbssd,   DotKind::Tdpbsud,
                                    DotKind::Tdpbusd,   DotKind::Tdpbuud,
                                    DotKind::Tdpbf16ps, DotKind::Tdpfp16ps};
const char *getMnemonic(DotKind kind);
inline bool isFloat(DotKind kind) {
  return kind == DotKind::Tdpbf16ps || kind == DotKind::Tdpfp16ps;
}

/// The 64-byte block LDTILECFG reads and STTILECFG writes.
struct alignas(64) TileConfigBlock {
  uint8_t palette = 0;
  uint8_t startRow = 0;
  uint8_t reserved0[14] = {};
  uint16_t colsb[8] = {};
  uint8_t reserved1[16] = {};
  uint8_t rows[8] = {};
  uint8_t reserved2[8] = {};
};
static_assert(sizeof(TileConfigBlock) == 64, "LDTILECFG reads 64 bytes");

/// Tile registers runExplicitTiles uses for C, A and B. Each kind uses a
/// different triple so that every register number appears in ModRM.reg,
/// ModRM.rm and VEX.vvvv somewhere.
struct TileAssignment {
  unsigned c, a, b;
};
TileAssignment getTileAssignment(DotKind kind);

/// ldtilecfg cfg; load C, A and B (B with tileloaddt1 for half the kinds);
/// C += A.B; store C; tilerelease. Strides may be negative.
void runExplicitTiles(DotKind kind, const TileConfigBlock &cfg, const void *a,
                      long strideA, const void *b, long strideB, void *c,
                      long strideC);

/// The same through the __tile1024i API: clang builds the configuration
/// itself from the shapes (m rows, kBytes and nBytes column bytes) and emits
/// the llvm.x86.*.internal intrinsics that tisa's own lowering uses.
void runCompilerConfigured(DotKind kind, int m, int kBytes, int nBytes,
                           const void *a, long strideA, const void *b,
                           long strideB, void *c, long strideC);

/// sttilecfg after ldtilecfg of `cfg`, and after a following tilerelease.
void storeConfigRoundTrip(const TileConfigBlock &cfg, TileConfigBlock *loaded,
                          TileConfigBlock *released);

/// Loads tmm3 from (src, stride), zeroes it with tilezero if `zero`, stores
/// it to (dst, stride). cfg must configure tmm3.
void loadMaybeZeroStore(const TileConfigBlock &cfg, const void *src, void *dst,
                        long stride, bool zero);

/// Loads tmm0 (16 x 64 as configured) with one addressing form, stores it
/// densely (stride 64) to out.
enum class AddressingForm {
  /// tileloadd disp8(%r13,%r14,4): VEX.B and VEX.X, base 101 with mod 01,
  /// scaled stride.
  ExtendedRegsScaled,
  /// tileloadd disp32(%rdi,%rsi,1).
  Disp32,
  /// tileloadd (%rax): no index, so every row reads the same bytes.
  NoIndex,
  /// tileloadd 0x20000000(,%rcx,8): no base register; the data must be at
  /// kNoBaseAddress.
  NoBase,
  /// tileloadd %fs:(%rax,%rcx,1): FS segment override.
  FSSegment,
  /// tileloadd (%eax,%ecx,1): 0x67 address-size prefix; data below 4 GiB.
  AddressSize32,
};
constexpr uintptr_t kNoBaseAddress = 0x20000000;
/// For NoBase `base` is ignored (the displacement is kNoBaseAddress); for
/// FSSegment it is an offset from the FS base. `stride` is the index register
/// before scaling (ExtendedRegsScaled multiplies it by 4, NoBase by 8).
void loadWithForm(AddressingForm form, const TileConfigBlock &cfg,
                  uintptr_t base, long stride, uint8_t out[16 * 64]);

/// ldtilecfg and sttilecfg through a RIP-relative operand (a static block).
void ripRelativeConfigRoundTrip(const TileConfigBlock &cfg,
                                TileConfigBlock *stored);

/// Hand-encoded instructions for the failure tests. Each executes its bytes
/// after an ldtilecfg of cfg (when cfg is non-null).
void executeUd2();
void executeTdpbf8ps(); // AMX-FP8, not emulated
void executeTdpbssdSameTiles(const TileConfigBlock &cfg);
void executeTilezeroUnconfigured();
void executeLdtilecfg(const TileConfigBlock &cfg);
void executeTileloaddWithoutSIB(const TileConfigBlock &cfg, const void *p);

} // namespace tisa::amx::test

#endif // TISA_TEST_UNIT_AMXEMULATOR_AMXKERNELS_H
