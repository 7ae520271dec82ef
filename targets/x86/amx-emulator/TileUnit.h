//===- TileUnit.h - software AMX tile file and its instructions -*- C++ -*-===//
//
// The architectural AMX state (TILECFG and TILEDATA for palette 1) and the
// instructions that act on it, written after the Intel SDM pseudocode,
// including the helpers it uses (write_row_and_zero, zero_upper_rows,
// zero_tilecfg_start). Instructions that fault on hardware return the #UD or
// #GP they would raise instead of changing state.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_X86_AMXEMULATOR_TILEUNIT_H
#define TISA_TARGETS_X86_AMXEMULATOR_TILEUNIT_H

#include "Decoder.h"

#include <cstdint>

namespace tisa::amx::detail {

/// Palette 1 (the only non-INIT palette): 8 tile names, 16 rows of 64 bytes.
constexpr unsigned kNumTiles = 8;
constexpr unsigned kMaxRows = 16;
constexpr unsigned kBytesPerRow = 64;
constexpr unsigned kTileConfigBytes = 64;
constexpr uint8_t kMaxPalette = 1;

struct TileConfig {
  uint8_t paletteId;
  uint8_t startRow;
  uint16_t colsb[kNumTiles];
  uint8_t rows[kNumTiles];
};

/// One thread's AMX state. Zero-initialised memory is the INIT state.
struct TileFile {
  bool configured; // TILES_CONFIGURED
  TileConfig config;
  uint8_t data[kNumTiles][kMaxRows][kBytesPerRow];
};

enum class FaultKind : uint8_t { None, UD, GP };

struct Fault {
  FaultKind kind = FaultKind::None;
  const char *reason = "";
  explicit operator bool() const { return kind != FaultKind::None; }
};

/// Where the memory operand points once registers are read. For tile loads
/// and stores row r is at segmentBase + (begin + r * stride); for the
/// configuration instructions stride is 0 and row 0 is the 64-byte block.
struct ResolvedMemory {
  uint64_t segmentBase = 0;
  uint64_t begin = 0;
  int64_t stride = 0;
  /// 0x67: effective addresses wrap at 2^32.
  bool wrap32 = false;
  uint8_t *row(unsigned r) const;
};

/// Executes one decoded instruction on `tiles`, reading and writing process
/// memory through `mem` (ignored by register-only instructions).
Fault execute(TileFile &tiles, const Instruction &inst,
              const ResolvedMemory &mem);

} // namespace tisa::amx::detail

#endif // TISA_TARGETS_X86_AMXEMULATOR_TILEUNIT_H
