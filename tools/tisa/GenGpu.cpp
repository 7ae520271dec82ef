//===- GenGpu.cpp - tisa gen and run for Tensor Core targets --------------===//
//
// `tisa gen gemm|conv2d --target sm_XX` writes the kernel's PTX, cubin and CUDA
// driver launch header; `tisa run gemm|conv2d --target sm_XX` checks the same
// kernel through its host lowering. Nothing is timed: no GPU runs here.
//
//===----------------------------------------------------------------------===//

#include "GenCommon.h"
#include "tisa/Kernels/Reference.h"
#include "tisa/Targets/Codegen.h"
#include "tisa/Targets/WarpMma.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace tisa::driver {

namespace {

/// `spec` generated for the GPU `target` from the loaded descriptions.
llvm::Expected<GeneratedGpuKernel>
generateGpuFor(const Options &o, const KernelSpec &spec, const Target &target) {
  auto host = loadTarget("host", o.targetDir);
  if (!host)
    return host.takeError();
  return withDescriptions<GeneratedGpuKernel>(
      o, [&](MLIRContext &ctx, ArrayRef<const Description *> descriptions,
             GenerateOptions &options) {
        return generateGpuKernel(ctx, spec, descriptions, target, *host,
                                 options);
      });
}

/// The kernel's instruction, launch and ptxas figures.
void printGpuKernel(const KernelSpec &spec, const Target &target,
                    const GeneratedGpuKernel &kernel) {
  auto &os = llvm::outs();
  os << spec.describe() << " for " << target.name << "\n"
     << "  instruction: " << kernel.instruction << " (" << kernel.mnemonic
     << ")\n  plan: " << kernel.plan << "\n"
     << "  kernel loops: " << kernel.loops << "\n"
     << llvm::formatv("  launch: {0} x {1} blocks of {2} threads, {3} bytes "
                      "of shared memory per block\n",
                      kernel.gridX, kernel.gridY, kernel.blockThreads,
                      kernel.sharedBytes);
  int64_t reads = kernel.ldmatrixReads + kernel.sharedLoads;
  os << llvm::formatv("  fragment reads: {1} from shared memory ({2} "
                      "ldmatrix, {3} ld.shared) for {0} mma.sync in the "
                      "code: {4:F2} mma per read\n",
                      kernel.mmaInstructions, reads, kernel.ldmatrixReads,
                      kernel.sharedLoads,
                      reads ? double(kernel.mmaInstructions) / reads : 0.0);
  if (kernel.cubin.empty())
    os << "  no cubin: " << kernel.noCubinWhy << "\n";
  else
    os << llvm::formatv("  ptxas -v: {0} registers per thread, {1} bytes "
                        "spilled; theoretical occupancy {2}\n",
                        kernel.registers, kernel.spillBytes,
                        kernel.occupancy
                            ? llvm::formatv("{0:P0}", *kernel.occupancy).str()
                            : std::string("unknown (the target gives no "
                                          "sm_threads, sm_registers, "
                                          "sm_blocks or "
                                          "sm_shared_memory_bytes)"));
}

} // namespace

/// `tisa gen gemm|conv2d --target sm_XX`: NAME.ptx, NAME.cubin (with ptxas) and
/// NAME.h, and what ptxas says of the kernel.
int genGpu(const Options &o, const KernelSpec &spec, const Target &target,
           llvm::StringRef dir) {
  auto kernel = generateGpuFor(o, spec, target);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  auto path = [&](llvm::StringRef suffix) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, kernel->name + suffix);
    return std::string(p);
  };
  std::vector<std::pair<std::string, const std::string *>> files = {
      {path(".ptx"), &kernel->ptx}, {path(".h"), &kernel->header}};
  if (!kernel->cubin.empty())
    files.push_back({path(".cubin"), &kernel->cubin});
  if (o.emitIr)
    files.push_back({path(".mlir"), &kernel->ir});
  for (auto &[file, text] : files)
    if (auto e = writeFile(file, *text))
      return fail(llvm::toString(std::move(e)));
  printGpuKernel(spec, target, *kernel);
  auto &os = llvm::outs();
  os << "  not timed: there is no GPU here; `tisa run --target " << target.name
     << "` checks the same kernel through its host lowering\n";
  for (auto &[file, text] : files)
    os << file << "\n";
  return 0;
}

/// `tisa run gemm|conv2d --target sm_XX`: the kernel generated, then run through
/// its host lowering on random and extreme data and checked against the
/// reference. Nothing is timed: no GPU ran it.
int runGpuOnHost(const Options &o, const KernelSpec &spec,
                 const Target &target, int64_t threads) {
  if (threads != 1 || o.values.count("repeat"))
    return usageError("--threads and --repeat do not apply to " +
                      target.name + " kernels: they run once, through "
                      "their host lowering");
  auto kernel = generateGpuFor(o, spec, target);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  printGpuKernel(spec, target, *kernel);
  auto run = loadGpuKernelOnHost(*kernel, spec);
  if (!run)
    return fail(llvm::toString(run.takeError()));
  // The emulation runs every thread of every block (a few 10^7
  // multiply-accumulates per second on one core).
  double macs = spec.ops() / 2;
  if (macs > 1e9)
    llvm::errs() << llvm::formatv(
        "note: the host lowering emulates every thread and mma.sync: "
        "{0:E2} multiply-accumulates, twice, take minutes or more\n",
        macs);
  auto &os = llvm::outs();
  for (Fill fill : {Fill::Random, Fill::Extreme}) {
    KernelData data = makeData(spec, o.seed, fill);
    data.denormalsAreZero = {false, false}; // mma.sync keeps denormals
    std::fill(data.output.begin(), data.output.end(), 0); // C += A * B
    (*run)(data);
    computeReference(spec, data);
    std::string mismatch = compareOutput(spec, data);
    if (!mismatch.empty())
      return fail(std::string(fill == Fill::Random ? "random" : "extreme") +
                  " data: " + mismatch);
  }
  os << "  check: random and extreme data through the host lowering (each "
        "mma.sync on the warp-level reference): "
     << (spec.types.isFloat() ? "within the K-derived bound" : "bit-exact")
     << "\n  not timed: there is no GPU here\n";
  return 0;
}

} // namespace tisa::driver
