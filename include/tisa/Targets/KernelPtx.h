//===- KernelPtx.h - GPU kernel IR to PTX ----------------------*- C++ -*-===//
//
// The GPU half of the back end: the gpu.modules of a module (kernels made of
// gpu, scf, memref, vector and arith ops, instructions already legalized to
// their NVVM intrinsics) lowered to NVVM with upstream MLIR passes
// (convert-scf-to-cf, convert-gpu-to-nvvm with bare-pointer kernel
// arguments), translated to LLVM IR, optimized and emitted as PTX by LLVM's
// NVPTX backend for the target's sm_XX and PTX version.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_KERNELPTX_H
#define TISA_TARGETS_KERNELPTX_H

#include "tisa/Targets/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tisa {
namespace nvptx {

/// PTX of every kernel in `module`'s gpu.modules for `target` (an nvptx64
/// target); `module` is not changed. Errors carry MLIR's diagnostics.
llvm::Expected<std::string> emitKernelPtx(mlir::ModuleOp module,
                                          const Target &target);

} // namespace nvptx
} // namespace tisa

#endif // TISA_TARGETS_KERNELPTX_H
