//===- Rates.h - issue rates for instructions a target file does not name -*- C++ -*-===//
//
// A target file gives measured or documented rates by description name; a new
// description (Arm usdot, AMX tdpfp16ps) is not in it. Its rates are resolved
// in this order, and Target::rateOrigin says which applied:
//   1. the target file's entry;
//   2. LLVM's scheduling model of the target's CPU for the instruction the
//      description's lowering emits (its probe compiled for that CPU and
//      disassembled), scaled by the ratio between the target's and the model's
//      figures for a sibling: a description the file names with the same
//      register class and width and the same extension, or failing that the
//      same class and width. The model is not always right (znver4 vpdpbusd
//      zmm modelled at one per 2 cycles, measured one per cycle; AMX latency
//      100), so measured data wins where it exists;
//   3. the model alone, when no sibling exists;
//   4. the defaults (one per cycle, latency 4), with a warning naming the
//      description and the target.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_TARGETS_RATES_H
#define TISA_TARGETS_RATES_H

#include "tisa/Semantics/Description.h"
#include "tisa/Targets/Target.h"

#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace tisa {

/// What LLVM's scheduling model of `target.cpu` says of `d`'s instruction.
struct ModelledRate {
  double issuePerCycle = 0, latency = 0;
  std::string instruction; ///< the disassembled instruction, "vpdpwssd %zmm..."
};

/// Compiles `d`'s probe for `target`'s CPU and reads the model's figures for
/// the first instruction with `d`'s mnemonic. Fails when the CPU has no
/// scheduling model, the probe does not compile or holds no such
/// instruction. Results are remembered per CPU, features and description
/// text for the life of the process.
llvm::Expected<ModelledRate> modelledRate(const Description &d,
                                          const Target &target);

/// Fills target.derivedRates for each of `descriptions` that `target`
/// executes and whose rates its file does not give, a sibling taken from
/// `pool` (empty: from `descriptions`). Returns one warning for each left at
/// the defaults. Each derived rate compiles a probe or two: a caller that
/// will rank a few descriptions resolves those, not every one loaded.
std::vector<std::string>
resolveRates(Target &target, llvm::ArrayRef<const Description *> descriptions,
             llvm::ArrayRef<const Description *> pool = {});

} // namespace tisa

#endif // TISA_TARGETS_RATES_H
