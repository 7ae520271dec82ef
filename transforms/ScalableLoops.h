//===- ScalableLoops.h - loops shared by the scalable generators -*- C++ -*-===//
//
// Private to transforms/: the pieces ScalableDotKernel (SVE sdot/udot) and
// ScalableMatrixKernel (SVE smmla/bfmmla) build alike. Both pack one input
// as groups by column, step their columns by a number of vectors only run
// time knows, and share their row blocks out as the range's tiles.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_SCALABLELOOPS_H
#define TISA_TRANSFORMS_SCALABLELOOPS_H

#include "CodegenUtils.h"

#include "mlir/IR/BuiltinTypes.h"

namespace tisa {
struct Target;
namespace scalable {

/// A mask of `like`'s shape (scalable or not) whose first `count` lanes are
/// on.
Value maskOf(OpBuilder &b, Location loc, Value count, VectorType like);

/// for col in [0, n) step tn * perVector: `body(vectors, col)`, where
/// `vectors` is tn, or fewer when fewer vectors of columns are left (n's
/// end, or a long vector): an scf.index_switch over the narrower register
/// tiles, so no instruction runs on lanes that are all off.
void columnBlocks(
    OpBuilder &b, Location loc, int64_t n, Value perVector, int64_t tn,
    function_ref<void(OpBuilder &, Location, int64_t vectors, Value col)> body);

/// The range's tiles [lo, hi) of (the parallel loops before the last...) x
/// blocks of `tm` rows of the last (the row loop; none: one row):
/// `body(ivs, rows)` with ivs one value per program loop (0 for the loops
/// it does not set; the row loop at the block's first row) and the block's
/// rows, fewer in the last block (a nest of its own under an scf.if).
void rowBlockTiles(
    OpBuilder &b, Location loc, Value lo, Value hi, ArrayRef<int64_t> extent,
    ArrayRef<unsigned> parallelLoops, int64_t tm,
    function_ref<void(OpBuilder &, Location, ArrayRef<Value> ivs, int64_t rows)>
        body);

/// The tiles rowBlockTiles counts: row blocks times the other parallel
/// loops.
int64_t rowBlockCount(ArrayRef<int64_t> extent,
                      ArrayRef<unsigned> parallelLoops, int64_t tm);

/// Packs input `in` of `c` (the memref `src`) into `view` (a 1-D memref of
/// its element type) as groups of `group` reduction elements by column:
///   view[outer...][k / group][n][k mod group] = src, zero past its extents
/// with n the lane loop rounded up to `lanesPadded` and k the group loop.
/// The layout does not depend on the vector length. Where n is src's
/// contiguous last dimension and `group` a power of two dividing a 128-bit
/// vector's elements, each group's rows are read a vector of columns at a
/// time and transposed (zipTranspose) into whole groups; past src's
/// extents element by element.
void packGroupsByColumn(OpBuilder &b, Location loc, const Contraction &c,
                        ArrayRef<int64_t> extent, unsigned in,
                        ArrayRef<unsigned> outer, unsigned groupLoop,
                        unsigned laneLoop, int64_t group, int64_t lanesPadded,
                        Value src, Value view);

/// A signedness repair the scalable generators take: on the input that is
/// not packed (A) only. A's bytes are flipped (xor 0x80: the bias) where
/// they are read, and minus that bias times B's sums over the reduction,
/// taken when packing (packGroupsByColumn's data, then columnSums), starts
/// every accumulator of a column: B must keep its own signedness and
/// depend on the columns and reduction loops only (`bOuter`: B's other
/// loops). Returns that factor, 0 without a repair; failure says why not.
FailureOr<int64_t> repairOnA(const Contraction &c, const TensorizePlan &plan,
                             unsigned aInput, unsigned bInput,
                             ArrayRef<unsigned> bOuter, std::string &why);

/// The repair's column sums after the `dataBytes` of packed data in
/// `buffer`: memref<lanes x i32>.
Value columnSums(OpBuilder &b, Location loc, Value buffer, int64_t dataBytes,
                 int64_t lanes);

/// The packed input of a scalable generator: packGroupsByColumn's data in
/// `buffer` (i8, `dataBytes` of it), then, with a repair (`sumFactor`,
/// repairOnA), `sumFactor` times each column's sum of `src` over every
/// reduction loop (columnSums, zero past n).
void packWithSums(OpBuilder &b, Location loc, const Contraction &c,
                  ArrayRef<int64_t> extent, unsigned in,
                  ArrayRef<unsigned> outer, unsigned groupLoop,
                  unsigned laneLoop, int64_t group, int64_t lanesPadded,
                  int64_t dataBytes, int64_t sumFactor, Value src,
                  Value buffer);

/// Whether reduction loop `tap` moves operand `in`'s dimension just before
/// its last alone, with coefficient 1 (a conv2d's kw on NHWC input): a
/// step of the tap then continues the last dimension's elements (the
/// channels) in that operand.
bool movesLastPosition(const Contraction &c, unsigned in, unsigned tap);

/// The memref `v` with its last two dimensions as one, when they are
/// contiguous (the last one's stride 1, the one before's that extent);
/// null otherwise.
Value collapseLastTwo(OpBuilder &b, Location loc, Value v);

/// Whether a `tm` x `tn` register tile of `accumulators` accumulators and
/// `tn` packed vectors per step fits the `budget` of `target`'s vector
/// registers; else why.
LogicalResult checkRegisterTile(int64_t tm, int64_t tn, int64_t accumulators,
                                int64_t budget, const Target &target,
                                std::string &why);

/// Why no register tile fits `budget` registers (one accumulator and one
/// packed vector need 2), or "".
std::string noTileFits(int64_t budget, const Target &target);

/// The register tile (rows, vectors) within `budget` registers (rows *
/// vectors accumulators and one step's vectors of the packed input) that
/// loads the fewest registers over `rows` x `vectors`: a broadcast per row
/// and a packed vector per column vector of every block.
std::pair<int64_t, int64_t> fewestLoadsTile(int64_t rows, int64_t vectors,
                                            int64_t budget);

} // namespace scalable
} // namespace tisa

#endif // TISA_TRANSFORMS_SCALABLELOOPS_H
