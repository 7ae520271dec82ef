//===- Probe.h - a description's lowering as runnable code ------*- C++ -*-===//
//
// A probe is the smallest program that executes one instruction the way its
// description says to emit it: one pointer argument per semantic operand, each
// pointing at that operand's register image (see Layout.h); the probe loads the
// registers, calls the lowering intrinsic with the described operand order and
// stores the accumulator back. Differential checks run it on the real CPU,
// under QEMU, under the AMX emulator, or compile it to PTX.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_TARGETS_PROBE_H
#define TISA_TARGETS_PROBE_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "tisa/Semantics/Description.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Support/MemoryBuffer.h"

namespace tisa {

/// Symbol of the probe for `d`: "tisa_probe_" + the name with '.' replaced by
/// '_'.
std::string probeSymbol(const Description &d);

/// Appends the probe of `d` to `module` (LLVM dialect). A `scaffold` is the
/// same function without the instruction (its loads and store alone),
/// probeSymbol(d) + "_scaffold": what the probe's code holds besides it.
mlir::FailureOr<mlir::LLVM::LLVMFuncOp>
buildProbe(const Description &d, mlir::ModuleOp module, bool scaffold = false);

/// Appends `<probe>_batch(ptr, ...)`, which runs `probe` on `count` consecutive
/// register images per operand (one call per test case, so a whole test runs in
/// one process start).
mlir::FailureOr<mlir::LLVM::LLVMFuncOp>
buildBatchProbe(const Description &d, mlir::ModuleOp module,
                mlir::LLVM::LLVMFuncOp probe, unsigned count);

/// Where to compile: triple, CPU and feature string.
struct CodegenTarget {
  std::string triple;
  std::string cpu;
  std::string features;
};

/// The target a description's probe compiles for on this machine (x86: generic
/// x86-64 plus the description's features; aarch64: generic plus its features;
/// nvptx: `cpu` must be given).
CodegenTarget codegenTargetFor(const Description &d, llvm::StringRef cpu = "");

/// Translates an LLVM-dialect module to LLVM IR.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx);

/// Compiles `module` for `target` to an ELF relocatable object, or to assembly
/// text (PTX for NVPTX) when `assembly` is set.
/// A target machine, PIC, for `target`; optimizing (-O3) by default. At
/// CodeGenOptLevel::None x86 folds no load into an instruction, so a probe
/// keeps the register form (what a scheduling model is read for).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CodegenTarget &target,
                    llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive);

/// Object code (or assembly) for `module` from a given target machine.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitMachineCode(llvm::Module &module, llvm::TargetMachine &tm, bool assembly);

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitMachineCode(llvm::Module &module, const CodegenTarget &target,
                bool assembly);

} // namespace tisa

#endif // TISA_TARGETS_PROBE_H
