//===- QemuCheck.h - generated aarch64 kernels checked under qemu -*- C++ -*-===//
//
// An aarch64 kernel cannot run in this process: its object is linked with
// an adapter (C, naming the kernel's entries) into the static harness of
// AArch64Runner and run under qemu-aarch64 on the same data, reference and
// comparison as `tisa run` on the host (Reference.h). Times under qemu mean
// nothing; only results are checked here.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_KERNELS_QEMUCHECK_H
#define TISA_KERNELS_QEMUCHECK_H

#include "tisa/Kernels/Kernels.h"
#include "tisa/Targets/AArch64Runner.h"
#include "tisa/Targets/Target.h"

#include <string>

namespace tisa {

/// qemu's CPU model for `target`: the model of the same name where qemu 7.2
/// has one (neoverse-n1: dotprod without i8mm or SVE, so an instruction the
/// target lacks faults), else "max" at the target's SVE vector length.
aarch64::RunOptions qemuOptionsFor(const Target &target);

/// What one call of a kernel's pre-packed entry executed under qemu, and
/// one call of its plain entry (packing included).
struct QemuCounts {
  uint64_t total = 0;  ///< instructions the pre-packed call executed
  uint64_t tensor = 0; ///< of them, the kernel's instruction
  /// The kernel's multiply-accumulates divided by one instruction's: the
  /// fewest tensor instructions that can do the work (0 for the fallback).
  double minimum = 0;
  std::map<std::string, uint64_t> executed; ///< per mnemonic
  /// Instructions one call of the plain entry executed (it packs the
  /// weights itself); 0 where check() did not call it (kQemuLargeMacs).
  uint64_t plainTotal = 0;
};

/// Multiply-accumulates above which QemuKernel::check runs a kernel's
/// extreme data, and its plain entry, under its first config only (its random
/// data through the pre-packed entry under every config): under qemu 7.2 a
/// BERT-sized bf16 GEMM takes about 8 s per call (bfmmla at about 38M
/// multiply-accumulates a second). Both data sets take the same code paths at
/// each vector length, only the values differ; the plain entry packs the
/// weights (as the adapter does before every call) and calls the pre-packed
/// entry.
constexpr double kQemuLargeMacs = double(1 << 25);

/// Which runs QemuKernel::check makes: a large kernel's check may be split
/// over several tests, each a part (its random data, its extreme data, a
/// further config without the plain entry).
struct QemuRuns {
  bool random = true;  ///< the random data, in padded rows
  bool extreme = true; ///< the extreme data, in tight rows
  bool plain = true;   ///< the plain entry too, where check() calls it
};

/// A generated kernel linked for qemu once, with an adapter that takes each
/// call's leading dimensions, zero point, guard bytes and run-time extents
/// as data: every data set, extent, CPU model, vector length and count of
/// it runs the same executable (a compile and a link cost more than most
/// runs under qemu).
class QemuKernel {
public:
  /// `spec`: the spec `k` was generated for (its entries' signatures).
  static llvm::Expected<QemuKernel> link(const GeneratedKernel &k,
                                         const KernelSpec &spec);
  /// Runs the kernel on random data with padded leading dimensions and on
  /// extreme data with tight ones (each made, with its reference, once),
  /// under each of `configs` in turn, through its plain entry and through
  /// its pack and pre-packed entries, and compares each result with the
  /// reference. Empty if all agree; otherwise which run differed and how, or
  /// why it could not run. `runs` counts the runs that agreed: 4 per spec
  /// and config, but a spec of more than kQemuLargeMacs runs 3 under the
  /// first config and 1 under each further one; `which` may leave out a data
  /// set or the plain entry. With `counts`, also
  /// the counts count() gives, for each config in the same process (the
  /// counting plugin then runs throughout), of the first spec's random data
  /// in padded rows (count()'s are in tight rows: the same code runs).
  /// Several `specs` (the kernel called at several run-time extents) run
  /// in the same processes, each as one spec would. The counts are of the
  /// first data set that runs under each config.
  std::string check(llvm::ArrayRef<KernelSpec> specs,
                    llvm::ArrayRef<aarch64::RunOptions> configs, uint64_t seed,
                    int &runs, std::vector<QemuCounts> *counts = nullptr,
                    const QemuRuns &which = {}) const;
  /// Packs the weights, then counts one call of the pre-packed entry and
  /// one of the plain entry on random data: every instruction executed from
  /// the call to its return, in the entry and in whatever it calls.
  llvm::Expected<QemuCounts> count(const KernelSpec &spec,
                                   const aarch64::RunOptions &options,
                                   uint64_t seed) const;

private:
  /// check() and count(): the checks of `specs` (with `counts`, the first
  /// data set's calls counted), or with no specs a counted call of
  /// `countedSpec` per config.
  std::string run(llvm::ArrayRef<KernelSpec> specs,
                  const KernelSpec &countedSpec,
                  llvm::ArrayRef<aarch64::RunOptions> configs, uint64_t seed,
                  const QemuRuns &which, int &runs,
                  std::vector<QemuCounts> *counts) const;
  QemuKernel(const GeneratedKernel &kernel, aarch64::LinkedProgram program)
      : kernel(kernel), program(std::move(program)) {}
  const GeneratedKernel &kernel; ///< outlives this
  aarch64::LinkedProgram program;
};

/// One line for `tisa run`: llvm-mca's cycles per iteration, for `target`'s
/// CPU, of the pre-packed entry's innermost loop with the most tensor
/// instructions, against its throughput bound (what the hardware would do,
/// where qemu only counts), or why it was not run.
std::string hotLoopReport(const GeneratedKernel &k, const Target &target);

} // namespace tisa

#endif // TISA_KERNELS_QEMUCHECK_H
