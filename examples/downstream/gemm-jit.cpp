// Uses the installed tisa as a library: JIT-compiles a u8 x s8 GEMM for this
// CPU (the best tensorized instruction it has, or plain vector code with a
// warning), runs it through its plain, pre-packed and range entries on random
// and extreme data, and checks it against tisa's reference (bit-exact).
#include "tisa/Kernels/Jit.h"
#include "tisa/Kernels/Reference.h"

#include "llvm/Support/raw_ostream.h"

int main() {
  tisa::KernelSpec spec = tisa::KernelSpec::makeGemm(33, 47, 29);
  tisa::JitOptions options;
  options.cacheDir = ""; // no disk cache: compile here
  auto kernel = tisa::compileKernel(spec, options);
  if (!kernel) {
    llvm::errs() << "gemm-jit: " << llvm::toString(kernel.takeError()) << "\n";
    return 1;
  }
  int runs = 0;
  std::string diff = tisa::checkKernel(**kernel, /*seed=*/7, runs);
  llvm::outs() << (*kernel)->name() << ": instruction '"
               << (*kernel)->instruction() << "', " << runs << " runs, "
               << (diff.empty() ? "bit-exact" : diff) << "\n";
  return diff.empty() ? 0 : 1;
}
