//===- LaneDotKernelImpl.h - the lane-dot generator's shared state -*- C++ -*-===//
//
// Private to transforms/: the state LaneDotKernel::get computes from a plan
// (layouts, loops, repair, signature) and the helpers its emission files
// share (Tensorize.cpp: the plan; LaneDotBorders.cpp: zero borders, sums
// and range rows; LaneDotPack.cpp: the packed operand; LaneDotCompute.cpp:
// the computation; LaneDotPartition.cpp: cache blocks and the partition
// into ranges; Schedule.cpp: schedules and their cost). Every file that
// includes it works in MLIR's namespace.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_LANEDOTKERNELIMPL_H
#define TISA_TRANSFORMS_LANEDOTKERNELIMPL_H

#include "CodegenUtils.h"
#include "tisa/Transforms/Tensorize.h"
#include "tisa/Semantics/Instruction.h"
#include "tisa/Targets/Target.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <map>
#include <optional>

namespace tisa {

using namespace mlir;

namespace lanedot {

/// A program input given without its zero border: dimension d of the
/// program's operand is `low[d]` zeros, the array's `size[d]` elements, then
/// zeros (conv2d: the unpadded image, read in place).
struct Border {
  SmallVector<int64_t> low, size, logical;
  bool any() const {
    for (unsigned d = 0; d < low.size(); ++d)
      if (padded(d))
        return true;
    return false;
  }
  bool padded(unsigned d) const {
    return low[d] > 0 || low[d] + size[d] < logical[d];
  }
  /// Turns the logical indices `idx` (of the first `idx.size()` dimensions)
  /// into indices of the array, clamped into it; returns whether they were
  /// inside (null when they always are).
  Value clamp(OpBuilder &b, Location loc, MutableArrayRef<Value> idx) const;
};

/// A reduction loop (a filter tap) that indexes a bordered dimension of the
/// broadcast input together with parallel loops: dim = coef . loops + c.
struct TapDim {
  unsigned dim, loop;
  SmallVector<int64_t> coef; ///< per program loop, then the constant
  /// The taps [low, high) some row reads inside the input, for rows whose
  /// parallel part of the index (coef . loops + c, without the tap) lies in
  /// [pMin, pMax].
  std::pair<int64_t, int64_t> taps(const Border &b, int64_t pMin, int64_t pMax,
                                   int64_t extent) const {
    int64_t c = coef[loop];
    int64_t lo = std::max<int64_t>(
        0, llvm::divideCeilSigned(b.low[dim] - pMax, c));
    int64_t hi = std::min<int64_t>(
        extent, llvm::divideCeilSigned(b.low[dim] + b.size[dim] - pMin, c));
    return {lo, std::max(lo, hi)};
  }
};

/// Indices [lo, hi) of dimension `dim` of a program operand.
struct RowRange {
  unsigned dim;
  Value lo, hi;
};

} // namespace lanedot

using lanedot::Border;
using lanedot::RowRange;
using lanedot::TapDim;

struct LaneDotKernel::Impl {
  Contraction c;
  TensorizePlan plan;
  const Description *d = nullptr;
  int64_t lanes = 0, group = 0;
  unsigned laneLoop = 0, groupLoop = 0;
  unsigned bcInput = 0, pkInput = 1; // program inputs
  unsigned bcInstr = 0, pkInstr = 1; // instruction operands they feed
  SmallVector<int64_t> extent;       // per program loop

  // Packed operand: [outer...][groupTiles][lanesPadded * group].
  SmallVector<unsigned> pkOuter;
  int64_t groupTiles = 0, lanesPadded = 0, dataBytes = 0;
  // The broadcast operand's last dimension is the group loop; when its
  // extent is not a multiple of g, the last group is read with a mask (the
  // packed operand holds zeros there).
  bool partialGroup = false;

  // Signedness repair: bias per program input (xor 0x80) and compensation
  //   - bias[1] * sum_red in0 - bias[0] * sum_red in1 - K * bias0 * bias1.
  int64_t bias[2] = {0, 0};
  int64_t constantTerm = 0;
  // Sums of the packed input live in the packed buffer (they change only
  // with it), indexed by its parallel loops with the lane loop last; sums of
  // the broadcast input are computed per call.
  SmallVector<unsigned> pkSumLoops, bcSumLoops;
  int64_t pkSumFactor = 0, bcSumFactor = 0;
  int64_t pkSumBytes = 0;

  SmallVector<unsigned> parallelLoops;  // outer to inner, lane loop excluded
  SmallVector<unsigned> reductionLoops; // outer to inner, group loop last

  FunctionType signature; // of the lowering intrinsic

  /// The instruction on `bc`, `pk` and `acc` (one value per register role):
  /// a tisa.apply with the registers in the description's order.
  Value apply(OpBuilder &b, Location loc, std::array<Value, 3> roles) const {
    SmallVector<Value> registers(3);
    registers[bcInstr] = roles[0];
    registers[pkInstr] = roles[1];
    registers[2] = roles[2];
    return buildApply(b, loc, *d, signature, registers);
  }

  Type elementType(unsigned input) const {
    return c.operands[input].elementType;
  }
  /// The instruction takes the broadcast register by element: a register of
  /// `lanes` groups is loaded per `lanes` steps (-tisa-by-element), and the
  /// rows' registers stay live across them.
  bool broadcastByElement() const {
    return d->lowering.byElement == bcInstr && lanes > 1;
  }
  Type accType() const { return c.operands[2].elementType; }
  /// The dimension of the output the accumulator lanes run along.
  unsigned outputLaneDim() const { return *c.operands[2].dimOf(laneLoop); }
  /// Lanes per packed panel and the number of panels under `s`.
  int64_t panelLanes(const Schedule &s) const {
    return s.panel > 0 && s.panel < lanesPadded ? s.panel : lanesPadded;
  }
  int64_t panels(const Schedule &s) const {
    return llvm::divideCeil(lanesPadded, panelLanes(s));
  }
  /// Packed operand: [panels][outer...][groupTiles][panel * group]: a
  /// register tile's whole reduction is one contiguous run.
  MemRefType dataType(MLIRContext *ctx, const Schedule &s) const {
    SmallVector<int64_t> shape = {panels(s)};
    for (unsigned l : pkOuter)
      shape.push_back(extent[l]);
    shape.push_back(groupTiles);
    shape.push_back(panelLanes(s) * group);
    return MemRefType::get(shape, elementType(pkInput));
  }
  int64_t dataBytesFor(const Schedule &s) const {
    return dataBytes / lanesPadded * panels(s) * panelLanes(s);
  }
  /// The packed operand's sums follow its data, 64-byte aligned.
  int64_t sumOffset(const Schedule &s) const {
    return pkSumFactor ? llvm::alignTo(dataBytesFor(s), 64) : dataBytesFor(s);
  }
  MemRefType sumType(ArrayRef<unsigned> loops, MLIRContext *ctx) const {
    SmallVector<int64_t> shape;
    for (unsigned l : loops)
      shape.push_back(l == laneLoop ? lanesPadded : extent[l]);
    return MemRefType::get(shape, IntegerType::get(ctx, 32));
  }
  /// The broadcast input's border when it is given as `shape` with
  /// `padding` zeros before each dimension (none when `padding` is empty).
  Border borderOf(ArrayRef<int64_t> shape, ArrayRef<int64_t> padding) const {
    const ProgramOperand &bc = c.operands[bcInput];
    Border border;
    border.logical.assign(bc.shape.begin(), bc.shape.end());
    for (unsigned dim = 0; dim < bc.shape.size(); ++dim) {
      border.low.push_back(padding.empty() ? 0 : padding[dim]);
      border.size.push_back(shape.empty() ? bc.shape[dim] : shape[dim]);
      assert(border.low[dim] >= 0 &&
             border.low[dim] + border.size[dim] <= bc.shape[dim] &&
             "the input does not fit its program operand");
    }
    return border;
  }
  /// Tap loops whose iterations a tile may skip: a reduction loop that
  /// indexes a bordered dimension together with parallel loops (conv2d: kh
  /// with oh, kw with ow). Not with a bias on the broadcast input: the
  /// compensation counts every tap.
  SmallVector<TapDim> tapDimsOf(const Border &border) const;
  /// emitPack's vector form, when the packed operand's lanes are contiguous
  /// in its source: a register of lanes per group row, interleaved into
  /// the packed layout (a scalar loop with a select per element packed 16
  /// MiB at under 3 GB/s). False, emitting nothing, otherwise.
  bool emitVectorPack(OpBuilder &b, Location loc, Value src, Value data,
                      const Schedule &s) const;
  /// The packed operand's sums (signedness repairs), after its data.
  void emitPackSums(OpBuilder &b, Location loc, Value src, Value buffer,
                    const Schedule &s) const;
  /// Copies the broadcast input `input` (given without `border`, which must
  /// not border its group dimension) into `dst`, its zero-filled padded copy
  /// with rows of whole groups: a group (masked where the row ends) per
  /// step, where linalg.copy into rows of another length was a byte loop.
  /// With `rows`, only those indices of that dimension.
  void emitGroupCopy(OpBuilder &b, Location loc, Value input, Value dst,
                     const Border &border, std::optional<RowRange> rows) const;
  /// The rows of the broadcast input that the tiles [begin, end) of the
  /// partitioned level read, when one dimension alone depends on that loop
  /// (conv2d split by rows of oh: the input rows under them and their
  /// taps); else none (they read all of it).
  std::optional<RowRange> rangeRows(OpBuilder &b, Location loc,
                                    const Schedule &s, const Border &border,
                                    Value begin, Value end) const;
  /// Schedule::edge: the columns [first, second) of the innermost parallel
  /// loop besides the lanes (conv2d ow) whose every tap lies inside the
  /// input, when the others are border columns (some, not all); the loop
  /// must index its dimensions alone (with their tap loops).
  std::optional<std::pair<int64_t, int64_t>>
  interiorColumns(const Border &border, ArrayRef<TapDim> taps) const;
  /// `border`: `src` is program input `in` without it (reads there are 0).
  void emitSums(OpBuilder &b, Location loc, unsigned in, Value src,
                ArrayRef<unsigned> loops, int64_t factor, Value out,
                const Border *border = nullptr) const;
  /// With `s.fuse`, the innermost parallel loop besides the lanes runs
  /// fused into the one around it (its unroll factor tiles the fused loop).
  std::optional<std::pair<unsigned, unsigned>>
  fused(const Schedule &s) const {
    if (!s.fuse || parallelLoops.size() < 2)
      return std::nullopt;
    return std::pair{parallelLoops[parallelLoops.size() - 2],
                     parallelLoops.back()};
  }
  /// The parallel loops of the register nest, outer to inner (a fused inner
  /// loop is part of its outer one).
  SmallVector<unsigned> parallelOrder(const Schedule &s) const {
    SmallVector<unsigned> order;
    if (s.lanesOuter)
      order.push_back(laneLoop);
    auto f = fused(s);
    for (unsigned l : parallelLoops)
      if (!f || l != f->second)
        order.push_back(l);
    if (!s.lanesOuter)
      order.push_back(laneLoop);
    return order;
  }
  /// Iterations of loop `l` of the register nest, and its unroll factor.
  int64_t whole(unsigned l, const Schedule &s) const {
    if (l == laneLoop)
      return lanesPadded;
    auto f = fused(s);
    return f && f->first == l ? extent[l] * extent[f->second] : extent[l];
  }
  int64_t unrollOf(unsigned l, const Schedule &s) const {
    auto f = fused(s);
    return f && f->first == l ? s.unroll[f->second] : s.unroll[l];
  }
  /// A loop split into blocks of `size` iterations (index units: lanes for
  /// the lane loop) around the register nest.
  struct BlockLevel {
    unsigned loop;
    int64_t size;
    bool partitioned;
    bool cache; ///< a cache block (else only there for the partition)
    /// A partition over two levels numbers their blocks major first (the
    /// major level's block times the minor's count, plus the minor's
    /// block): the other level's index among the block levels, whether
    /// this one is major, and its number of blocks.
    std::optional<unsigned> partner;
    bool major = false;
    int64_t blocks = 0;
  };
  int64_t step(unsigned l) const { return l == laneLoop ? lanes : 1; }
  /// The block levels for `s`, outer to inner, and the number of tiles of
  /// the partition (LaneDotPartition.cpp).
  SmallVector<BlockLevel> blockLevels(const Schedule &s,
                                      int64_t *partitionTiles = nullptr) const;
  // LaneDotKernel::get's steps, in order (Tensorize.cpp): each reads part of
  // the plan into this state, or says why the generator cannot apply it.
  LogicalResult readInstruction(std::string &why);
  LogicalResult readExtents(std::string &why);
  LogicalResult readInputs(std::string &why);
  LogicalResult readBroadcast(std::string &why);
  LogicalResult readPacked(std::string &why);
  LogicalResult readOutput(std::string &why);
  void orderLoops();
  void readRepair();
  LogicalResult readSignature(std::string &why);

  /// One emitCompute call: its state and the pieces that emit it
  /// (LaneDotCompute.cpp).
  class Compute;
  /// The default schedule's search (Schedule.cpp).
  class TileSearch;
  /// The rows of each tile of `a` rows over `n`: full tiles, then the rest;
  /// `even` (Schedule::evenRows): the last full tile and the rest as two
  /// tiles of nearly even rows (6 + 2 as 4 + 4). The cost model counts these
  /// tiles and Compute::parallel emits them.
  static SmallVector<int64_t> rowTiles(int64_t n, int64_t a, bool even);

  int64_t reductionVolume() const {
    int64_t v = 1;
    for (auto [l, loop] : llvm::enumerate(c.loops))
      if (loop.reduction)
        v *= extent[l];
    return v;
  }
};

} // namespace tisa

#endif // TISA_TRANSFORMS_LANEDOTKERNELIMPL_H
