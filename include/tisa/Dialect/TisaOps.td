//===- TisaOps.td - tisa operations ------------------------*- tablegen -*-===//
#ifndef TISA_OPS_TD
#define TISA_OPS_TD

include "tisa/Dialect/TisaDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Tisa_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tisa_Dialect, mnemonic, traits>;

def Tisa_ApplyOp : Tisa_Op<"apply", [Pure]> {
  let summary = "one tensorized instruction on register values, by its description";
  let description = [{
    Applies the instruction a description names to values held in its registers: one operand per
    register of the description, in the description's semantic order, each of the register's type;
    the result is the new value of the accumulator register (operand `accumulator`). The op has no
    side effects, so common-subexpression elimination and load merging see through it, and it
    stays in the IR until `-tisa-legalize-instructions` replaces it by the description's lowering:
    each intrinsic parameter `k` takes operand `order[k]`, bitcast to `signature`'s parameter type
    where the types differ, or where `order[k]` is -1 the constant `immediates[k]` (an AMX tile's
    rows or bytes per row); the intrinsic's result is bitcast back. Registers are vectors, or
    `!llvm.x86_amx` tiles.

    It is what the code generator's register-class emitters produce for the innermost tile; the
    instruction's facts (intrinsic, operand order, signature) come from the description, copied
    onto the op so legalization needs no description files.

    Example (VPDPBUSD zmm, lowered as `llvm.x86.avx512.vpdpbusd.512(acc, a, b)`):
    ```mlir
    %r = tisa.apply "vpdpbusd.zmm"(%a, %b, %acc) {accumulator = 2 : i64,
           intrinsic = "llvm.x86.avx512.vpdpbusd.512", order = array<i64: 2, 0, 1>,
           signature = (vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>}
         : (vector<64xi8>, vector<64xi8>, vector<16xi32>) -> vector<16xi32>
    ```
    Reference: the description file of the named instruction (`tisa isa show NAME`).
  }];
  let arguments = (ins StrAttr:$instruction, StrAttr:$intrinsic, DenseI64ArrayAttr:$order,
                       TypeAttrOf<FunctionType>:$signature, I64Attr:$accumulator,
                       OptionalAttr<DenseI64ArrayAttr>:$immediates,
                       Variadic<AnyType>:$registers);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $instruction `(` $registers `)` attr-dict `:` functional-type($registers, $result)
  }];
  let hasVerifier = 1;
}

#endif // TISA_OPS_TD
