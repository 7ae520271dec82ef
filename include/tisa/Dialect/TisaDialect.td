//===- TisaDialect.td - the tisa dialect -------------------*- tablegen -*-===//
#ifndef TISA_DIALECT_TD
#define TISA_DIALECT_TD

include "mlir/IR/DialectBase.td"

def Tisa_Dialect : Dialect {
  let name = "tisa";
  let cppNamespace = "::tisa";
  let summary = "Tensorized-instruction descriptions and the passes that use them";
  let description = [{
    The `tisa` dialect owns the `tisa.instruction` attribute: the metadata block of an instruction
    description. A description is a `func.func` whose body is one `linalg.generic` stating what the
    instruction computes; the attribute on that function says which registers hold each operand
    (register type and an affine layout map from the semantic index to the register index), the
    LLVM target features, saturation and floating-point behaviour, and how to emit it (an LLVM
    intrinsic with its operand order). The dialect verifies the block whenever IR carrying it is
    parsed or verified, so `tisa-opt` and `mlir-opt`-style pipelines reject a bad description with a
    located error.

    Example:
    ```mlir
    func.func @vpdpbusd_zmm(%a: tensor<16x4xi8>, %b: tensor<16x4xi8>, %c: tensor<16xi32>)
        -> tensor<16xi32> attributes {tisa.instruction = {name = "vpdpbusd.zmm", ...}} {...}
    ```
    See docs/description-format.md for every key.
  }];
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// #tisa.plan, #tisa.loop, #tisa.schedule (TisaAttrs.cpp).
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

#endif // TISA_DIALECT_TD
