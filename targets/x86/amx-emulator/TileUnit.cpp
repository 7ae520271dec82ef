//===- TileUnit.cpp - software AMX tile file and its instructions ---------===//
//
// Exception checks follow the SDM's AMX exception classes (E2 for
// sttilecfg, E3 for loads/stores, E4 for the dot products, E5 for tilezero,
// #GP for a bad ldtilecfg block). The TMUL limits of the first AMX
// implementation (maxk = 16 rows of B, maxn = 64 bytes) coincide with the
// palette-1 limits that ldtilecfg already enforces.
//
//===----------------------------------------------------------------------===//

#include "TileUnit.h"

#include "HostFloat.h"
#include "SoftFloat.h"

#include <cstring>

namespace tisa::amx::detail {

uint8_t *ResolvedMemory::row(unsigned r) const {
  uint64_t ea = begin + uint64_t(r) * uint64_t(stride);
  if (wrap32)
    ea = uint32_t(ea);
  return reinterpret_cast<uint8_t *>(segmentBase + ea);
}

namespace {

Fault ud(const char *reason) { return {FaultKind::UD, reason}; }
Fault gp(const char *reason) { return {FaultKind::GP, reason}; }

uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
uint16_t load16(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
void store32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, sizeof(v)); }

// SDM helpers.
void writeRowAndZero(TileFile &tiles, unsigned t, unsigned r,
                     const uint8_t *data, unsigned nbytes) {
  uint8_t *row = tiles.data[t][r];
  std::memcpy(row, data, nbytes);
  std::memset(row + nbytes, 0, kBytesPerRow - nbytes);
}

void zeroUpperRows(TileFile &tiles, unsigned t, unsigned firstRow) {
  for (unsigned r = firstRow; r < kMaxRows; ++r)
    std::memset(tiles.data[t][r], 0, kBytesPerRow);
}

void zeroTileConfigStart(TileFile &tiles) { tiles.config.startRow = 0; }

void zeroAllTileData(TileFile &tiles) {
  std::memset(tiles.data, 0, sizeof(tiles.data));
}

bool anyNonZero(const uint8_t *p, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    if (p[i])
      return true;
  return false;
}

Fault checkConfigured(const TileFile &tiles) {
  if (!tiles.configured)
    return ud("tiles are not configured (no ldtilecfg with palette 1 on "
              "this thread, or tilerelease since)");
  return {};
}

Fault loadTileConfig(TileFile &tiles, const uint8_t *mem) {
  uint8_t buf[kTileConfigBytes];
  std::memcpy(buf, mem, sizeof(buf));
  TileConfig cfg = {};
  cfg.paletteId = buf[0];
  if (cfg.paletteId > kMaxPalette)
    return gp("ldtilecfg: palette id above 1");
  if (cfg.paletteId == 0) {
    // INIT state.
    tiles.configured = false;
    tiles.config = TileConfig{};
    zeroAllTileData(tiles);
    return {};
  }
  cfg.startRow = buf[1];
  if (anyNonZero(buf + 2, 14))
    return gp("ldtilecfg: reserved bytes 2-15 are not zero");
  for (unsigned n = 0; n < kNumTiles; ++n) {
    cfg.colsb[n] = load16(buf + 16 + 2 * n);
    if (cfg.colsb[n] > kBytesPerRow)
      return gp("ldtilecfg: colsb above 64");
  }
  if (anyNonZero(buf + 32, 16))
    return gp("ldtilecfg: reserved bytes 32-47 are not zero");
  for (unsigned n = 0; n < kNumTiles; ++n) {
    cfg.rows[n] = buf[48 + n];
    if (cfg.rows[n] > kMaxRows)
      return gp("ldtilecfg: rows above 16");
  }
  if (anyNonZero(buf + 56, 8))
    return gp("ldtilecfg: reserved bytes 56-63 are not zero");
  for (unsigned n = 0; n < kNumTiles; ++n)
    if ((cfg.rows[n] == 0) != (cfg.colsb[n] == 0))
      return gp("ldtilecfg: a tile has rows == 0 or colsb == 0 but not both");
  tiles.configured = true;
  tiles.config = cfg;
  zeroAllTileData(tiles);
  return {};
}

void storeTileConfig(const TileFile &tiles, uint8_t *mem) {
  uint8_t buf[kTileConfigBytes] = {};
  if (tiles.configured) {
    const TileConfig &cfg = tiles.config;
    buf[0] = cfg.paletteId;
    buf[1] = cfg.startRow;
    for (unsigned n = 0; n < kNumTiles; ++n) {
      std::memcpy(buf + 16 + 2 * n, &cfg.colsb[n], 2);
      buf[48 + n] = cfg.rows[n];
    }
  }
  std::memcpy(mem, buf, sizeof(buf));
}

void releaseTiles(TileFile &tiles) {
  zeroAllTileData(tiles);
  tiles.config = TileConfig{};
  tiles.configured = false;
}

Fault checkTileName(unsigned t) {
  if (t >= kNumTiles)
    return ud("tile register above tmm7 (VEX.R, VEX.B or vvvv[3] set)");
  return {};
}

Fault zeroTile(TileFile &tiles, unsigned t) {
  if (Fault f = checkConfigured(tiles))
    return f;
  if (Fault f = checkTileName(t))
    return f;
  std::memset(tiles.data[t], 0, sizeof(tiles.data[t]));
  zeroTileConfigStart(tiles);
  return {};
}

Fault loadTile(TileFile &tiles, unsigned t, const ResolvedMemory &mem) {
  if (Fault f = checkConfigured(tiles))
    return f;
  if (Fault f = checkTileName(t))
    return f;
  unsigned rows = tiles.config.rows[t];
  unsigned nbytes = tiles.config.colsb[t];
  zeroUpperRows(tiles, t, rows);
  uint8_t buf[kBytesPerRow];
  for (unsigned r = tiles.config.startRow; r < rows; ++r) {
    std::memcpy(buf, mem.row(r), nbytes);
    writeRowAndZero(tiles, t, r, buf, nbytes);
  }
  zeroTileConfigStart(tiles);
  return {};
}

Fault storeTile(TileFile &tiles, unsigned t, const ResolvedMemory &mem) {
  if (Fault f = checkConfigured(tiles))
    return f;
  if (Fault f = checkTileName(t))
    return f;
  unsigned rows = tiles.config.rows[t];
  unsigned nbytes = tiles.config.colsb[t];
  for (unsigned r = tiles.config.startRow; r < rows; ++r)
    std::memcpy(mem.row(r), tiles.data[t][r], nbytes);
  zeroTileConfigStart(tiles);
  return {};
}

/// Shape rules shared by all dot products (AMX-E4).
Fault checkDotProduct(const TileFile &tiles, unsigned dst, unsigned src1,
                      unsigned src2) {
  if (Fault f = checkConfigured(tiles))
    return f;
  if (dst >= kNumTiles || src1 >= kNumTiles || src2 >= kNumTiles)
    return checkTileName(kNumTiles);
  if (dst == src1 || dst == src2 || src1 == src2)
    return ud("tmm1, tmm2 and tmm3 must be three different tiles");
  const TileConfig &cfg = tiles.config;
  if (cfg.colsb[dst] % 4 || cfg.colsb[src1] % 4 || cfg.colsb[src2] % 4)
    return ud("a tile operand's colsb is not a multiple of 4");
  if (cfg.rows[dst] != cfg.rows[src1])
    return ud("tmm1.rows != tmm2.rows");
  if (cfg.colsb[src1] / 4 != cfg.rows[src2])
    return ud("tmm2.colsb / 4 != tmm3.rows");
  if (cfg.colsb[dst] != cfg.colsb[src2])
    return ud("tmm1.colsb != tmm3.colsb");
  return {};
}

int32_t extendByte(uint8_t v, bool isSigned) {
  return isSigned ? int32_t(int8_t(v)) : int32_t(v);
}

/// TDPB[SU][SU]D: C[m][n] += sum over k and i < 4 of A[m][4k+i] * B[k][4n+i],
/// wrapping modulo 2^32 (computed in uint32_t so the wrap is defined).
void dotProductInt8(TileFile &tiles, unsigned dst, unsigned src1, unsigned src2,
                    bool aSigned, bool bSigned) {
  const TileConfig &cfg = tiles.config;
  unsigned rows = cfg.rows[dst];
  unsigned kDwords = cfg.colsb[src1] / 4;
  unsigned nDwords = cfg.colsb[dst] / 4;
  for (unsigned m = 0; m < rows; ++m) {
    uint8_t tmp[kBytesPerRow];
    std::memcpy(tmp, tiles.data[dst][m], kBytesPerRow);
    const uint8_t *a = tiles.data[src1][m];
    for (unsigned k = 0; k < kDwords; ++k) {
      const uint8_t *b = tiles.data[src2][k];
      for (unsigned n = 0; n < nDwords; ++n) {
        uint32_t acc = load32(tmp + 4 * n);
        for (unsigned i = 0; i < 4; ++i)
          acc += uint32_t(extendByte(a[4 * k + i], aSigned) *
                          extendByte(b[4 * n + i], bSigned));
        store32(tmp + 4 * n, acc);
      }
    }
    writeRowAndZero(tiles, dst, m, tmp, cfg.colsb[dst]);
  }
  zeroUpperRows(tiles, dst, rows);
  zeroTileConfigStart(tiles);
}

bool isNaNOrInf(uint32_t x) { return (x & 0x7F800000u) == 0x7F800000u; }

/// The operands of a pair dot product widened for dotProductPairsOnHost
/// (B's columns past colsb zero). Returns whether B holds a NaN or an
/// infinity; `special[m]`: whether A's row m does.
bool widenOperands(const TileFile &tiles, unsigned dst, unsigned src1,
                   unsigned src2, uint32_t (*widen)(uint16_t),
                   PairOperands &ops, bool special[kPairRows]) {
  const TileConfig &cfg = tiles.config;
  ops.rows = cfg.rows[dst];
  ops.steps = cfg.colsb[src1] / 4;
  ops.columns = cfg.colsb[dst] / 4;
  for (unsigned m = 0; m < ops.rows; ++m) {
    const uint8_t *a = tiles.data[src1][m];
    special[m] = false;
    for (unsigned k = 0; k < ops.steps; ++k) {
      ops.aEven[m][k] = widen(load16(a + 4 * k));
      ops.aOdd[m][k] = widen(load16(a + 4 * k + 2));
      special[m] = special[m] || isNaNOrInf(ops.aEven[m][k]) ||
                   isNaNOrInf(ops.aOdd[m][k]);
    }
  }
  bool bSpecial = false;
  for (unsigned k = 0; k < ops.steps; ++k) {
    const uint8_t *b = tiles.data[src2][k];
    for (unsigned n = 0; n < kPairColumns; ++n) {
      bool used = n < ops.columns;
      ops.bEven[k][n] = used ? widen(load16(b + 4 * n)) : 0;
      ops.bOdd[k][n] = used ? widen(load16(b + 4 * n + 2)) : 0;
      bSpecial =
          bSpecial || isNaNOrInf(ops.bEven[k][n]) || isNaNOrInf(ops.bOdd[k][n]);
    }
  }
  return bSpecial;
}

/// Row m's even and odd accumulators in the integer soft-float, step by
/// step.
void pairSumsSoft(PairOperands &ops, unsigned m) {
  for (unsigned n = 0; n < ops.columns; ++n)
    ops.even[m][n] = ops.odd[m][n] = 0;
  for (unsigned k = 0; k < ops.steps; ++k)
    for (unsigned n = 0; n < ops.columns; ++n) {
      ops.even[m][n] =
          fmaF32DazFtz(ops.aEven[m][k], ops.bEven[k][n], ops.even[m][n]);
      ops.odd[m][n] =
          fmaF32DazFtz(ops.aOdd[m][k], ops.bOdd[k][n], ops.odd[m][n]);
    }
}

/// C's row m plus its pair sums, in the soft-float.
void addPairSumsSoft(const PairOperands &ops, unsigned m, uint8_t *row) {
  for (unsigned n = 0; n < ops.columns; ++n) {
    uint32_t pairSum = addF32DazFtz(ops.even[m][n], ops.odd[m][n]);
    store32(row + 4 * n, addF32DazFtz(load32(row + 4 * n), pairSum));
  }
}

bool anyNaN(const uint32_t *x, unsigned n) {
  for (unsigned i = 0; i < n; ++i)
    if ((x[i] & 0x7FFFFFFFu) > 0x7F800000u)
      return true;
  return false;
}

/// TDPBF16PS / TDPFP16PS as the SDM writes them: per row, separate fp32
/// accumulators for the even and the odd element of each pair, each updated
/// by an FMA over all k starting from +0; then even + odd, then that sum is
/// added to C. Every step: DAZ, FTZ, round to nearest even. On the host's FMA
/// where that gives the soft-float's bits (an FMA unit, no NaN or infinity in
/// B or in the row of A, no NaN in the row of C), else in the soft-float.
void dotProductPairs(TileFile &tiles, unsigned dst, unsigned src1,
                     unsigned src2, uint32_t (*widen)(uint16_t)) {
  PairOperands ops;
  bool special[kPairRows];
  bool bSpecial = widenOperands(tiles, dst, src1, src2, widen, ops, special);
  bool host = hostHasFma() && !bSpecial;
  if (host) {
    for (unsigned m = 0; m < ops.rows; ++m)
      std::memcpy(ops.c[m], tiles.data[dst][m], 4 * kPairColumns);
    pairSumsOnHost(ops);
  }
  for (unsigned m = 0; m < ops.rows; ++m) {
    uint8_t row[kBytesPerRow];
    std::memcpy(row, tiles.data[dst][m], kBytesPerRow);
    if (!host || special[m])
      pairSumsSoft(ops, m);
    if (!host || special[m] || anyNaN(ops.c[m], ops.columns))
      addPairSumsSoft(ops, m, row);
    else
      std::memcpy(row, ops.c[m], 4 * ops.columns);
    writeRowAndZero(tiles, dst, m, row, 4 * ops.columns);
  }
  zeroUpperRows(tiles, dst, ops.rows);
  zeroTileConfigStart(tiles);
}

Fault dotProduct(TileFile &tiles, Opcode op, unsigned dst, unsigned src1,
                 unsigned src2) {
  if (Fault f = checkDotProduct(tiles, dst, src1, src2))
    return f;
  switch (op) {
  case Opcode::Tdpbssd:
    dotProductInt8(tiles, dst, src1, src2, true, true);
    break;
  case Opcode::Tdpbsud:
    dotProductInt8(tiles, dst, src1, src2, true, false);
    break;
  case Opcode::Tdpbusd:
    dotProductInt8(tiles, dst, src1, src2, false, true);
    break;
  case Opcode::Tdpbuud:
    dotProductInt8(tiles, dst, src1, src2, false, false);
    break;
  case Opcode::Tdpbf16ps:
    dotProductPairs(tiles, dst, src1, src2, bf16ToF32);
    break;
  case Opcode::Tdpfp16ps:
    dotProductPairs(tiles, dst, src1, src2, fp16ToF32);
    break;
  default:
    return ud("internal error: not a dot product");
  }
  return {};
}

} // namespace

Fault execute(TileFile &tiles, const Instruction &inst,
              const ResolvedMemory &mem) {
  switch (inst.opcode) {
  case Opcode::Ldtilecfg:
    return loadTileConfig(tiles, mem.row(0));
  case Opcode::Sttilecfg:
    storeTileConfig(tiles, mem.row(0));
    return {};
  case Opcode::Tilerelease:
    releaseTiles(tiles);
    return {};
  case Opcode::Tilezero:
    return zeroTile(tiles, inst.reg);
  case Opcode::Tileloadd:
  case Opcode::Tileloaddt1: // the T1 hint only concerns caches
    return loadTile(tiles, inst.reg, mem);
  case Opcode::Tilestored:
    return storeTile(tiles, inst.reg, mem);
  case Opcode::Tdpbssd:
  case Opcode::Tdpbsud:
  case Opcode::Tdpbusd:
  case Opcode::Tdpbuud:
  case Opcode::Tdpbf16ps:
  case Opcode::Tdpfp16ps:
    return dotProduct(tiles, inst.opcode, inst.reg, inst.rm, inst.vvvv);
  }
  return ud("internal error: unknown opcode");
}

} // namespace tisa::amx::detail
