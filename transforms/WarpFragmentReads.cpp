//===- WarpFragmentReads.cpp - how lanes read mma fragments ---------------===//

#include "WarpFragmentReads.h"

#include "llvm/ADT/bit.h"

#include <algorithm>

namespace tisa {

namespace {

/// The longest run (a power of two, at most 16 bytes) of consecutive
/// elements that every lane's fragment of `table` is made of, each run
/// starting at a multiple of its length (so that with bases that are such
/// multiples too, each run is one aligned vector load).
int64_t runLength(const std::vector<int32_t> &table, int64_t perLane,
                  int64_t elementBytes, int64_t baseMultiple) {
  int64_t limit =
      std::min<int64_t>(perLane, 16 / std::max<int64_t>(1, elementBytes));
  for (int64_t r =
           int64_t(llvm::bit_floor(uint64_t(std::max<int64_t>(1, limit))));
       r > 1; r /= 2) {
    if (perLane % r || baseMultiple % r)
      continue;
    bool ok = true;
    for (int64_t l = 0; l < 32 && ok; ++l)
      for (int64_t e = 0; e < perLane && ok; e += r) {
        int32_t start = table[l * perLane + e];
        ok = start % r == 0;
        for (int64_t i = 1; i < r && ok; ++i)
          ok = table[l * perLane + e + i] == start + i;
      }
    if (ok)
      return r;
  }
  return 1;
}

/// The number of 8x8 matrices of 32-bit rows ldmatrix reads for `table`,
/// or 0 when the layout is not ldmatrix's or a row is not 16-byte aligned.
int64_t ldmatrixTiles(const std::vector<int32_t> &table, int64_t perLane,
                      int64_t elementBytes, int64_t baseMultiple) {
  if ((perLane * elementBytes) % 4 || (baseMultiple * elementBytes) % 16)
    return 0;
  int64_t per = 4 / elementBytes; // elements per 32-bit register
  int64_t tiles = perLane / per;
  if (tiles != 1 && tiles != 2 && tiles != 4)
    return 0;
  for (int64_t l = 0; l < 32; ++l)
    for (int64_t i = 0; i < tiles; ++i) {
      int32_t row = table[(l / 4) * 4 * perLane + i * per];
      if ((int64_t(row) * elementBytes) % 16)
        return 0;
      for (int64_t j = 0; j < per; ++j)
        if (table[l * perLane + i * per + j] != row + (l % 4) * per + j)
          return 0;
    }
  return tiles;
}

/// The offset of row q of the transposed 8x8 matrix that register `reg`
/// of the fragment reads: lane q / 2 (column 0) holds its element q % 2.
int32_t transposedRow(const std::vector<int32_t> &table, int64_t perLane,
                      int64_t reg, int64_t q) {
  return table[(q / 2) * perLane + reg * 2 + q % 2];
}

/// ldmatrixTiles for ldmatrix.trans (16-bit elements only): element j of
/// register i of lane l is row 2 (l % 4) + j, column l / 4 of matrix i.
int64_t transposedTiles(const std::vector<int32_t> &table, int64_t perLane,
                        int64_t elementBytes, int64_t baseMultiple) {
  if (elementBytes != 2 || perLane % 2 || (baseMultiple * 2) % 16)
    return 0;
  int64_t tiles = perLane / 2;
  if (tiles != 1 && tiles != 2 && tiles != 4)
    return 0;
  for (int64_t i = 0; i < tiles; ++i)
    for (int64_t q = 0; q < 8; ++q)
      if ((int64_t(transposedRow(table, perLane, i, q)) * 2) % 16)
        return 0;
  for (int64_t l = 0; l < 32; ++l)
    for (int64_t i = 0; i < tiles; ++i)
      for (int64_t j = 0; j < 2; ++j)
        if (table[l * perLane + i * 2 + j] !=
            transposedRow(table, perLane, i, 2 * (l % 4) + j) + l / 4)
          return 0;
  return tiles;
}

} // namespace

FragmentReadPlan planFragmentReads(const std::vector<int32_t> &table,
                                   int64_t perLane, int64_t elementBytes,
                                   int64_t baseMultiple, int64_t count,
                                   int64_t stride, bool ldmatrix,
                                   bool transposed) {
  FragmentReadPlan p;
  p.perLane = perLane;
  p.transposed = transposed;
  if (transposed)
    p.tiles = ldmatrix ? transposedTiles(table, perLane, elementBytes,
                                         baseMultiple)
                       : 0;
  else if (ldmatrix)
    p.tiles = ldmatrixTiles(table, perLane, elementBytes, baseMultiple);
  if (p.tiles && (stride * elementBytes) % 16)
    p.tiles = 0;
  if (p.tiles) {
    // As many whole fragments per instruction as four matrices hold.
    while (p.group * 2 * p.tiles <= 4 && count % (p.group * 2) == 0)
      p.group *= 2;
    int64_t per = perLane / p.tiles, matrices = p.tiles * p.group;
    for (int64_t l = 0; l < 32; ++l) {
      int64_t matrix = (l / 8) % matrices;
      int64_t fragment = matrix / p.tiles, reg = matrix % p.tiles;
      // Row l % 8 of the register's matrix.
      int32_t row = transposed
                        ? transposedRow(table, perLane, reg, l % 8)
                        : table[(l % 8) * 4 * perLane + reg * per];
      p.rows.push_back(int32_t(fragment * stride) + row);
    }
    return p;
  }
  p.run = runLength(table, perLane, elementBytes, baseMultiple);
  for (size_t i = 0; i < table.size(); i += p.run)
    p.starts.push_back(table[i]);
  return p;
}

} // namespace tisa
