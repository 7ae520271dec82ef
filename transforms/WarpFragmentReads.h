//===- WarpFragmentReads.h - how lanes read mma fragments from shared memory ===//
//
// A warp-fragment kernel keeps each input's slice in shared memory with k
// innermost. From a lane-offset table (for each lane and fragment element,
// its offset in the slice, derived from the description's layout map) this
// decides how a lane reads its fragment: one `ldmatrix` for the whole warp
// where the layout is ldmatrix's (each 32-bit register of the fragment is
// one 8x8 matrix of 16-byte rows, lane l holding row l/4, bytes 4*(l%4)..),
// else vector loads of the longest aligned runs, else single elements.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_WARPFRAGMENTREADS_H
#define TISA_TRANSFORMS_WARPFRAGMENTREADS_H

#include <cstdint>
#include <vector>

namespace tisa {

struct FragmentReadPlan {
  int64_t perLane = 0;
  /// ldmatrix: 1, 2 or 4 matrices per fragment (its 32-bit registers, in
  /// order); 0: vector loads.
  int64_t tiles = 0;
  /// ldmatrix: consecutive fragments read by one instruction (tiles * group
  /// <= 4 matrices).
  int64_t group = 1;
  /// ldmatrix.trans: the slice holds k in rows (16-bit elements; lane l
  /// takes rows 2 (l % 4) and 2 (l % 4) + 1 at column l / 4).
  bool transposed = false;
  /// ldmatrix: for each lane, the offset of the row it supplies (row l%8 of
  /// matrix l/8, of fragment (l/8)/tiles of the group; lanes past the last
  /// matrix repeat the first ones).
  std::vector<int32_t> rows;
  /// Vector loads: `run` elements each, starting at `starts` ([32][perLane /
  /// run]).
  int64_t run = 1;
  std::vector<int32_t> starts;
};

/// The reads of `count` fragments `stride` elements apart, each with
/// lane-offset table `table` ([32][perLane]), whose base offsets are
/// multiples of `baseMultiple` elements in a buffer aligned to 16 bytes.
/// `ldmatrix`: whether to use it where it applies; `transposed`: the table
/// is of a slice with k in rows, read only by ldmatrix.trans.
FragmentReadPlan planFragmentReads(const std::vector<int32_t> &table,
                                   int64_t perLane, int64_t elementBytes,
                                   int64_t baseMultiple, int64_t count,
                                   int64_t stride, bool ldmatrix,
                                   bool transposed = false);

} // namespace tisa

#endif // TISA_TRANSFORMS_WARPFRAGMENTREADS_H
