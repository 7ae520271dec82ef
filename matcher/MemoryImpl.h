//===- MemoryImpl.h - the memory match's pieces, shared ---------*- C++ -*-===//
//
// Internal to the matcher: the program side of the memory match (address
// coefficients of each operand, runs of loops, register row digits) that
// Memory.cpp computes, and the Evaluator (Evaluator.cpp) that judges one
// assignment of instruction loops to program loops with them.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_MATCHER_MEMORYIMPL_H
#define TISA_MATCHER_MEMORYIMPL_H

#include "MatcherImpl.h"

namespace tisa::detail::memory {

using namespace mlir;

struct ProgramAccess {
  /// Per program loop: memory offset coefficient, or nullopt when the access
  /// is not linear in the loop.
  SmallVector<std::optional<int64_t>> addr;
  /// Per result (tensor dimension): index coefficients per program loop.
  SmallVector<SmallVector<int64_t>> index;
  SmallVector<int64_t> strides; ///< with run-time strides substituted
  bool runTimeStrides = false;
  /// Per tensor dimension: the program loop it is exactly (d_l), or -1.
  SmallVector<int> bareLoop;
};

/// A run of adjacent program loops of one kind that may feed one instruction
/// loop.
struct Unit {
  SmallVector<unsigned, 3> loops;
  bool reduction = false;
  int64_t extent = 1;
};

/// Why an assignment failed; deeper stages are more informative.
struct Failure {
  int depth = -1;
  std::string reason;
  void note(int d, std::string r) {
    if (d > depth) {
      depth = d;
      reason = std::move(r);
    }
  }
};

/// One digit of a register row: instruction loop `loop` advances by `step`
/// `count` times.
struct Digit {
  unsigned loop;
  int64_t step, count;
};

/// Stand-in for a stride only run time knows: large, distinct per dimension,
/// so it never passes for a unit or a small stride.
int64_t runTimeStride(unsigned dim);
ProgramAccess readAccess(const Contraction &c, unsigned p);
SmallVector<Unit> buildUnits(const Contraction &c, bool fuse);
/// Name of dimension `d` of a program operand: the loop that indexes it, in
/// capitals ("K"), or "D<d>".
std::string dimName(const Contraction &c, const ProgramAccess &a, unsigned d);
std::string shapeText(const Contraction &c, const ProgramAccess &a,
                      unsigned rank);
/// Mixed-radix digits of the instruction loop values along positions
/// [begin, begin + len) of the image, innermost first; fails when the row is
/// not such a product (or holds empty positions).
FailureOr<SmallVector<Digit>> rowDigits(const InstrModel::Operand &op,
                                        int64_t begin, int64_t len,
                                        ArrayRef<bool> active);

/// What derivePack finds: the program loop (single) behind each instruction
/// loop and the factor by which the instruction loop advances it; the
/// inner tile of each operand dimension; the row's packed group and length.
struct PackDerivation {
  SmallVector<int> progLoop;
  SmallVector<int64_t> factor;
  SmallVector<int64_t> tileOf;
  int64_t group = 0, len = 0;
};

/// Everything one (assignment, correspondence) evaluation needs.
class Evaluator {
public:
  Evaluator(const Contraction &c, const InstrModel &model,
            const ArithMatch &arith)
      : c(c), model(model), arith(arith) {
    for (unsigned p = 0; p < 3; ++p)
      access.push_back(readAccess(c, p));
  }

  /// `unitOf[i]`: the unit of instruction loop i, or -1 for padding;
  /// `shares[i]`: the instruction loop whose program loop i extends, or -1.
  FailureOr<TensorizePlan> evaluate(ArrayRef<Unit> units,
                                    ArrayRef<int> unitOf, ArrayRef<int> shares,
                                    Failure &failure);

private:
  unsigned programOperand(unsigned j) const {
    return j == 2 ? 2 : arith.programInputOf[j];
  }
  OperandPlan analyse(unsigned j, ArrayRef<std::optional<int64_t>> addr,
                      ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
                      ArrayRef<int> shares, ArrayRef<Unit> units);
  bool tryPack(unsigned j, ArrayRef<std::optional<int64_t>> addr,
               ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
               ArrayRef<int> shares, ArrayRef<Unit> units,
               ArrayRef<bool> active, OperandPlan &plan);
  /// The pack tryPack proposes: `plan`'s linalg.pack parameters and `pack`.
  bool derivePack(unsigned j, ArrayRef<std::optional<int64_t>> addr,
                  ArrayRef<int64_t> eff, ArrayRef<int> unitOf,
                  ArrayRef<int> shares, ArrayRef<Unit> units,
                  ArrayRef<bool> active, PackDerivation &pack,
                  OperandPlan &plan) const;
  /// Whether in that pack every register row is contiguous (up to the
  /// broadcast group) and rows lie one stride apart.
  bool packLoadable(unsigned j, const PackDerivation &pack,
                    const OperandPlan &plan, ArrayRef<bool> active) const;

  const Contraction &c;
  const InstrModel &model;
  const ArithMatch &arith;
  SmallVector<ProgramAccess, 3> access;
};

} // namespace tisa::detail::memory

#endif // TISA_MATCHER_MEMORYIMPL_H
