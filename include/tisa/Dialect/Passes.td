//===- Passes.td - tisa passes -----------------------------*- tablegen -*-===//
#ifndef TISA_PASSES_TD
#define TISA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TisaLowerDescriptionsPass : Pass<"tisa-lower-descriptions", "::mlir::ModuleOp"> {
  let summary = "Replace each instruction description by its probe: an LLVM-dialect function that "
                "loads the operands' registers, applies the described lowering and stores the result";
  let description = [{
    The probe is what the differential checks compile and run: it proves that the lowering written
    in a description (an LLVM intrinsic and its operand order, AMX tiles, warp fragments) computes
    what the description's semantics say. For each `func.func` carrying `tisa.instruction`, the pass
    adds `llvm.func @tisa_probe_<symbol>(ptr, ptr, ...)` with one pointer per semantic operand, in
    register layout, and erases the description.

    Example: `vpdpbusd.zmm` becomes three `llvm.load`s of `vector<64xi8>`/`vector<16xi32>`, one
    `llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"` and an `llvm.store` of the accumulator.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TISA_PASSES_TD
