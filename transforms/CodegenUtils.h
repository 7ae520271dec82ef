//===- CodegenUtils.h - small IR builders every generator uses --*- C++ -*-===//
//
// Private to transforms/: constants, loop nests and affine helpers shared by
// the lane-dot (LaneDot*.cpp) and tile (Tile*.cpp) generators. Every file
// that includes it works in MLIR's namespace.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_CODEGENUTILS_H
#define TISA_TRANSFORMS_CODEGENUTILS_H

#include "tisa/Matcher/Matcher.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/AffineMap.h"

#include <optional>

namespace tisa {

using namespace mlir;

namespace codegen {

/// An index constant, and an integer constant of type `t`.
Value cIndex(OpBuilder &b, Location loc, int64_t v);
Value cInt(OpBuilder &b, Location loc, Type t, int64_t v);
/// The indices `map` gives for loop values `ivs` (one per program loop).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs);
/// A loop nest over `extents` (constant bounds, step 1); `body` gets the
/// induction variables.
void loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
              function_ref<void(OpBuilder &, Location, ValueRange)> body);
/// The coefficients of the loops in `e` and, last, its constant, when `e`
/// is a sum of loops times constants.
std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr e,
                                                       unsigned loops);
/// Whether the operand's last dimension is contiguous.
bool isIdentityStride(const ProgramOperand &o);

/// The instruction operands of a dot-product plan whose lanes run along
/// program loop `laneLoop`: the broadcast input (the lane loop does not
/// index it; read in place, so its plan must not relay it out) and the one
/// along the lanes (packed or read in place), as instruction operands and
/// as program inputs; the accumulator read in place. Else why not, one line.
struct DotRoles {
  unsigned broadcast = 0, lanes = 1;           ///< instruction operands
  unsigned broadcastInput = 0, lanesInput = 1; ///< program inputs
};
FailureOr<DotRoles> dotRoles(const Contraction &c, const TensorizePlan &plan,
                             unsigned laneLoop, std::string &why);
/// Whether `operand`'s memref has unit stride in its last dimension and
/// `map` indexes that dimension by loop `loop` alone and no other dimension
/// by it (plain code's vectorizable dimension).
bool contiguousAlong(Value operand, AffineMap map, unsigned loop);
/// The loops of a projected permutation `map` other than `besides`, in the
/// map's order (a packed operand's outer loops).
SmallVector<unsigned> loopsBesides(AffineMap map, ArrayRef<unsigned> besides);
/// `why` = `reason`, and failure: a generator refusing a plan.
LogicalResult refuse(std::string &why, const Twine &reason);
/// The signature of `d`'s lowering intrinsic into `out`, or why not.
LogicalResult readLoweringSignature(const Description &d, MLIRContext *ctx,
                                    FunctionType &out, std::string &why);
/// A loop's index clamped to its extent: what elementOrZero reads at.
struct BoundedIndex {
  unsigned loop;
  Value index;
  int64_t extent;
};
/// `src` at `map` of `ivs` (one value per program loop), the `bounded`
/// loops set to their indices, or `zero` where one is past its extent (the
/// read itself clamped inside): a pack's zero padding.
Value elementOrZero(OpBuilder &b, Location loc, Value src, AffineMap map,
                    MutableArrayRef<Value> ivs, ArrayRef<BoundedIndex> bounded,
                    Value zero);
/// xor 0x80 in every byte of an integer or integer vector (a signedness
/// repair's bias of +-128).
Value flipSignBits(OpBuilder &b, Location loc, Value v);
/// `values` of `loops` as one row-major index over their `extent`s (0 for
/// no loops), a composed affine.apply.
Value rowMajorIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> extent,
                    ArrayRef<unsigned> loops, ValueRange values);
/// Whether each (first, size, bound) has first + size <= bound: the i1
/// conjunction (a block of `size` from `first` lies inside `bound`).
struct Span {
  Value first;
  int64_t size, bound;
};
Value spansFit(OpBuilder &b, Location loc, ArrayRef<Span> spans);
/// `count` vectors of type `type` loaded from `src` through `map` at `ivs`
/// with loop `loop` at first, first + 1, ... (ivs[loop] is left at the
/// last).
SmallVector<Value> loadRows(OpBuilder &b, Location loc, Value src,
                            AffineMap map, MutableArrayRef<Value> ivs,
                            unsigned loop, Value first, int64_t count,
                            VectorType type);
/// The transpose of `rows` (R vectors of W elements each, R a power of two
/// dividing W): R vectors holding the W x R transpose row-major, vector j
/// its rows j * W / R to (j + 1) * W / R - 1. log2 R rounds of zips
/// (interleaves of two vectors, which LLVM selects as zip1/zip2 on AArch64,
/// unpck on x86), R per round.
SmallVector<Value> zipTranspose(OpBuilder &b, Location loc,
                                ArrayRef<Value> rows);
/// The integer value of a program element, widened to i32 as the program's
/// body extends it.
Value widen(OpBuilder &b, Location loc, Value v, bool isSigned);
/// out[loops...] = factor * the sum, over every reduction loop of `c`, of
/// its input `in` (read from `src` at its map, widened as the program does;
/// 0 where `inside`, given the indices it may clamp, says false), for each
/// value of the loops `loops` (of extents `extent[l]`). A repair's
/// compensation. A reduction loop alone on `src`'s contiguous last
/// dimension is read in vectors, unless `insideAlongLast` (what `inside`
/// says may change along that dimension); without `inside`, where the last
/// of `loops` is alone on it (a GEMM's weights [K][N]), the sums of
/// consecutive values of that loop are taken together, as vectors.
void emitReductionSums(
    OpBuilder &b, Location loc, const Contraction &c, ArrayRef<int64_t> extent,
    unsigned in, Value src, ArrayRef<unsigned> loops, int64_t factor,
    Value out,
    function_ref<Value(OpBuilder &, MutableArrayRef<Value>)> inside = nullptr,
    bool insideAlongLast = true);
/// The digits of `t` in the mixed radix `radices` (the first the least
/// significant; the last digit takes what is left).
SmallVector<Value> splitIndex(OpBuilder &b, Location loc, Value t,
                              ArrayRef<int64_t> radices);
/// A zero-filled copy of `src` of `shape` (64-byte aligned, to be freed by
/// the caller), `src` placed at `offsets` (empty: at 0). What of `src` falls
/// past `shape` (the last rows of a strided convolution's input that no
/// output reads) is left out.
Value paddedCopy(OpBuilder &b, Location loc, Value src,
                 ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets);

/// The linear index `coef` (one coefficient per program loop, then the
/// constant) of `ivs` without loops `skip`, as a composed affine.apply.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> coef,
                  ArrayRef<Value> ivs, ArrayRef<unsigned> skip);
/// A filter tap's bounds on a zero border: the taps t in [0, extent) of
/// loop `l` at which A's dimension index, `coef` (one coefficient per
/// program loop, then the constant) of `ivs` with loop `l` at t, lies in
/// [low, low + size): [lo, hi), both clamped to [0, extent]. The loops
/// besides `l` with a coefficient must have their values in `ivs`.
std::pair<Value, Value> tapRange(OpBuilder &b, Location loc,
                                 ArrayRef<int64_t> coef, unsigned l,
                                 ArrayRef<Value> ivs, int64_t low,
                                 int64_t size, int64_t extent);

} // namespace codegen

using codegen::applyMap;
using codegen::BoundedIndex;
using codegen::elementOrZero;
using codegen::cIndex;
using codegen::cInt;
using codegen::isIdentityStride;
using codegen::linearCoefficients;
using codegen::linearIndex;
using codegen::loopNest;
using codegen::loopsBesides;
using codegen::paddedCopy;
using codegen::readLoweringSignature;
using codegen::refuse;
using codegen::emitReductionSums;
using codegen::flipSignBits;
using codegen::splitIndex;
using codegen::tapRange;
using codegen::widen;

} // namespace tisa

#endif // TISA_TRANSFORMS_CODEGENUTILS_H
