//===- MatcherImpl.h - matcher internals shared by its files ----*- C++ -*-===//
#ifndef TISA_MATCHER_MATCHERIMPL_H
#define TISA_MATCHER_MATCHERIMPL_H

#include "tisa/Matcher/Matcher.h"

namespace tisa::detail {

/// One way the program's factors feed the instruction's.
struct ArithMatch {
  unsigned programInputOf[2] = {0, 1};
  std::optional<Repair> repair;
  llvm::SmallVector<std::string> relaxations;
};

/// Every operand correspondence whose arithmetic is the instruction's (up to
/// repairs and, unless strict, float relaxations); fails with the reason of
/// the closest miss.
mlir::FailureOr<llvm::SmallVector<ArithMatch, 2>>
matchArithmetic(const Contraction &c, const Description &d,
                const MatchOptions &options, std::string &why);

/// The instruction side, precomputed once per description and target.
struct InstrModel {
  const Description *desc = nullptr;
  /// Instruction loops of the body, then the segment loop when scalable.
  llvm::SmallVector<bool> reduction;
  llvm::SmallVector<int64_t> extent;
  llvm::SmallVector<std::string> names;
  int segLoop = -1;
  /// Segments per vector: the target's, or 2 (checked) when unknown.
  int64_t segments = 1;
  bool segmentsKnown = true;
  int64_t macsPerIssue = 1;

  struct Operand {
    llvm::SmallVector<bool> uses; ///< per instruction loop
    RegisterClass cls = RegisterClass::Vector;
    int64_t rows = 1, width = 1; ///< register image as rows x width elements
    unsigned elemBytes = 1;
    /// Per image position: the instruction loop values held there (all
    /// segments), or empty when the position holds nothing.
    std::vector<llvm::SmallVector<int64_t, 4>> image;
    int64_t imageBytes = 0;
  };
  Operand operands[3];
};

/// The name of the instruction loop over a scalable vector's 128-bit
/// segments.
inline constexpr llvm::StringLiteral kSegmentLoop = "seg";

/// The instruction side of `d` for vectors of `vectorBits` (a scalable
/// instruction's segments; unknown: costs assume two, and a loop over them
/// stays).
InstrModel buildInstrModel(const Description &d,
                           std::optional<unsigned> vectorBits);

/// Loop assignments for one operand correspondence, checked operand by
/// operand; appends valid plans (without cost) and, when none is valid, sets
/// `why` to the most informative failure.
void enumeratePlans(const Contraction &c, const InstrModel &model,
                    const ArithMatch &arith, const MatchOptions &options,
                    std::vector<TensorizePlan> &plans,
                    std::string &why);

/// The loop nest tiled by the instruction, the counts and the lower bound of
/// the cycles (Matcher.cpp).
void estimateCost(const Contraction &c, const InstrModel &model,
                  const Target *target, TensorizePlan &plan);

/// Short spelling of an element type with its signedness: u8, s8, bf16.
std::string typeText(mlir::Type t, bool isSigned);

/// "tf32 (truncated)": the format a narrowed factor is read in.
std::string narrowingText(const MulAcc::Narrowing &n);

/// "m", "kw.c": a fused run of program loops as one name.
std::string unitName(const Contraction &c, llvm::ArrayRef<unsigned> loops);

} // namespace tisa::detail

#endif // TISA_MATCHER_MATCHERIMPL_H
