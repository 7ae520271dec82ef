//===- Codegen.h - from tensorized MLIR to machine code ---------*- C++ -*-===//
//
// The back half of the pipeline, shared by `tisa gen`, `tisa run` and the JIT:
// lower the loops, vectors and memrefs that -tisa-tensorize and
// -tisa-register-tile leave to the LLVM dialect, translate, optimize with
// LLVM's -O3 pipeline for the target machine, and emit an object file. The
// object becomes a shared library (ld.lld) or is loaded in process (ORC).
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_CODEGEN_H
#define TISA_TARGETS_CODEGEN_H

#include "tisa/Targets/Probe.h"
#include "tisa/Targets/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace llvm::orc {
class LLJIT;
}

namespace tisa {

/// The pass pipeline (mlir-opt syntax, inside builtin.module(...)) that
/// lowers tensorized code to the LLVM dialect.
llvm::StringRef llvmLoweringPipeline();

/// A discardable attribute (an LLVM::LoopAnnotationAttr) a pass puts on an
/// scf.for for LLVM's loop metadata: convert-scf-to-cf keeps it on the
/// loop's back edge, and lowerToLLVMDialect moves it onto that llvm.br's own
/// loop_annotation, which the translation to LLVM IR reads.
inline constexpr llvm::StringLiteral kLoopAnnotationAttr =
    "llvm.loop_annotation";

/// Runs llvmLoweringPipeline on `module`; diagnostics go to the context.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module);

/// The triple, CPU and features LLVM compiles for on `target`.
CodegenTarget codegenTargetFor(const Target &target);

/// LLVM-dialect `module` to an optimized object file (or assembly).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compileToObject(mlir::ModuleOp module, const CodegenTarget &target,
                bool assembly = false);

/// Links `object` into the shared library `path` with ld.lld.
llvm::Error linkSharedLibrary(llvm::MemoryBufferRef object,
                              llvm::StringRef path);

/// An object file loaded into this process.
class JitObject {
public:
  ~JitObject();
  /// `symbols` resolve names the object calls to addresses in this process
  /// that the process does not export (a runtime function of a library
  /// linked into it).
  static llvm::Expected<std::unique_ptr<JitObject>>
  load(std::unique_ptr<llvm::MemoryBuffer> object,
       llvm::ArrayRef<std::pair<llvm::StringRef, void *>> symbols = {});
  /// The address of a function the object defines.
  llvm::Expected<void *> lookup(llvm::StringRef symbol);
  /// The object file itself (for disassembly).
  llvm::MemoryBufferRef object() const;

private:
  JitObject() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvm::MemoryBuffer> copy;
};

} // namespace tisa

#endif // TISA_TARGETS_CODEGEN_H
