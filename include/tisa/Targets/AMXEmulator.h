//===- AMXEmulator.h - run AMX machine code on CPUs without AMX -*- C++ -*-===//
//
// tisa's AMX kernels must be tested on machines that have no AMX unit (the
// build hosts are AMD Zen 4). This library lets the real machine code run
// there: a SIGILL handler decodes the faulting VEX-encoded AMX instruction,
// executes it on a per-thread software tile file, and resumes after it.
//
// Semantics follow the Intel SDM pseudocode (palette 1: 8 tiles, 16 rows,
// 64 bytes per row), including the zeroing of bytes and rows outside the
// configured shape, the even/odd accumulators of TDPBF16PS and TDPFP16PS,
// DAZ/FTZ/round-to-nearest-even and an untouched MXCSR. Emulated:
//   ldtilecfg sttilecfg tileloadd tileloaddt1 tilestored tilezero tilerelease
//   tdpbssd tdpbsud tdpbusd tdpbuud tdpbf16ps tdpfp16ps
//
// A SIGILL that is not one of these is passed on to the handler that was
// installed before (or to the default action, which kills the process), so
// genuine illegal instructions still crash. An instruction from the AMX
// opcode space that is not emulated, and an AMX instruction that would fault
// on hardware (#UD, #GP: tiles not configured, bad shapes, bad LDTILECFG
// data), print a "tisa-amx: ..." line to stderr and abort(); nothing is ever
// silently skipped.
//
// On a host with native AMX the hardware executes the code and the handler
// never runs; tests that must exercise the emulator check hostHasAMXTile().
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_AMXEMULATOR_H
#define TISA_TARGETS_AMXEMULATOR_H

#include <cstdint>
#include <string>

namespace tisa::amx {

/// Installs the SIGILL handler (idempotent, thread-safe enough for tests).
/// Returns false and sets *why if it cannot.
bool installEmulator(std::string *why = nullptr);

/// Restores the SIGILL disposition that was in place before installEmulator,
/// unless somebody else has replaced the handler since.
void uninstallEmulator();

/// True when the CPU and OS can execute AMX natively: CPUID reports AMX-TILE
/// and XCR0 enables XTILECFG and XTILEDATA. On Linux a process must still ask
/// for XTILEDATA with arch_prctl(ARCH_REQ_XCOMP_PERM) before using tiles.
bool hostHasAMXTile();

/// What CPUID and XCR0 report; all false on CPUs without AMX.
struct HostAMXFeatures {
  bool tile = false;      // CPUID.(7,0):EDX[24]
  bool int8 = false;      // CPUID.(7,0):EDX[25]
  bool bf16 = false;      // CPUID.(7,0):EDX[22]
  bool fp16 = false;      // CPUID.(7,1):EAX[21]
  bool osEnabled = false; // XCR0[17] and XCR0[18]
};
HostAMXFeatures hostAMXFeatures();

/// Number of AMX instructions emulated since install (or resetCounts), in all
/// threads. Lets tests prove that the emulator, not hardware, ran the code.
uint64_t emulatedInstructionCount();

/// Same, for one lower-case mnemonic such as "tdpbssd"; 0 for names the
/// emulator does not know.
uint64_t emulatedCount(const char *mnemonic);

void resetCounts();

} // namespace tisa::amx

#endif // TISA_TARGETS_AMXEMULATOR_H
