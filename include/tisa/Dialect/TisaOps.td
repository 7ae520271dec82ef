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

//===----------------------------------------------------------------------===//
// The planned kernel's two halves: what the named-kernel ABI's entries are
// made of, and what -tisa-split-pack makes of a planned contraction.
//===----------------------------------------------------------------------===//

class Tisa_KernelOp<string mnemonic, list<Trait> traits = []>
    : Tisa_Op<mnemonic, !listconcat(traits, [SingleBlock, NoTerminator])> {
  code contractionAccessor = [{
    /// The planned linalg contraction in the region (the verifier checks
    /// there is exactly one).
    ::mlir::linalg::LinalgOp getContraction() {
      return ::mlir::cast<::mlir::linalg::LinalgOp>(getBody()->front());
    }
  }];
  let hasVerifier = 1;
}

def Tisa_PackOp : Tisa_KernelOp<"pack"> {
  let summary = "pack the planned operand of a contraction into its plan's layout";
  let description = [{
    The first half of a planned contraction: the program input that the contraction's plan
    relays out (`tisa.plan`: for `vpdpbusd` on a GEMM, B into [N/P][K/4][P][4]) is copied from
    `source` into `buffer`, in the layout the plan and the schedule (`tisa.schedule`) give, padded
    with values that contribute zero, with a signedness repair's bias and compensation sums where
    the plan repairs. `buffer` holds exactly the bytes the plan's packed layout needs.

    The region holds the contraction itself, on block arguments of the program's operand types
    (inputs, then the output); it is never executed, only read: it names the plan, the schedule
    and the shapes both halves of the kernel must agree on. `-tisa-tensorize` replaces the op by
    the register class's pack. A kernel library's `NAME_pack_X` entry is this op alone.

    Example:
    ```mlir
    tisa.pack %b into %buf : memref<64x48xi8>, memref<3072xi8> {
    ^bb0(%x: memref<32x64xi8>, %y: memref<64x48xi8>, %z: memref<32x48xi32>):
      linalg.matmul {tisa.plan = "...", tisa.schedule = "..."}
        ins(%x, %y : memref<32x64xi8>, memref<64x48xi8>) outs(%z : memref<32x48xi32>)
    }
    ```
  }];
  let arguments = (ins AnyMemRef:$source, MemRefRankOf<[I8], [1]>:$buffer);
  let regions = (region SizedRegion<1>:$program);
  let assemblyFormat = [{
    $source `into` $buffer attr-dict `:` type($source) `,` type($buffer) $program
  }];
  let extraClassDeclaration = contractionAccessor;
}

def Tisa_ComputeOp : Tisa_KernelOp<"compute", [AttrSizedOperandSegments]> {
  let summary = "the planned contraction on an operand already packed by tisa.pack";
  let description = [{
    The second half of a planned contraction: `output` (+)= `input` x the packed operand in
    `buffer` (filled by a `tisa.pack` of the same contraction, plan and schedule). `input` is the
    program input the plan does not pack. With `overwrite`, the output is overwritten, else
    accumulated into (linalg's semantics). With `range` (begin, end: index values), only the
    partition tiles [begin, end) of the schedule are computed, so threads can share the work
    (a kernel library's `_packed_range` entry). With `input_padding` (one entry per dimension
    of `input`), `input` is the program's input without a zero border: dimension d of the
    program operand is input_padding[d] zeros, `input`'s elements, then zeros up to the
    operand's extent (conv2d's padding), which the kernel never reads from memory.
    With `active` (one index per entry of `active_loops`, which names loops of the
    contraction by number), only the first active[i] iterations of loop active_loops[i] matter:
    past them the inputs and the packed operand hold values that contribute nothing, and the
    output is not read afterwards (a padded last block of `-tisa-split-dynamic`). A generator may
    skip that work; computing it is correct too.

    The region holds the contraction, as in `tisa.pack`. `-tisa-tensorize` replaces the op by the
    register class's loops around the instruction.

    With an `epilogue` region (a fused epilogue, made by `-tisa-fuse-epilogue`), `output` is not the
    contraction's output but the result of an elementwise `linalg.generic` applied to it: the
    region's block takes the contraction's output type (the accumulators), then the types of the
    `epilogue` operands, then `output`'s type, and holds that generic, reading the accumulators
    (argument 0) and the operands in order and writing `output`. The accumulators are never
    stored: the generator applies the generic to them in registers and stores its result once
    (bias, ReLU, requantization, a narrower output type). Only with `overwrite`: the
    accumulators start at zero.

    Example:
    ```mlir
    tisa.compute %a, %buf -> %c range(%begin, %end) {overwrite}
        : memref<32x64xi8>, memref<3072xi8>, memref<32x48xi32> {
    ^bb0(%x: memref<32x64xi8>, %y: memref<64x48xi8>, %z: memref<32x48xi32>):
      linalg.matmul {tisa.plan = "...", tisa.schedule = "..."}
        ins(%x, %y : memref<32x64xi8>, memref<64x48xi8>) outs(%z : memref<32x48xi32>)
    }
    ```
    and with a bias per column, fused:
    ```mlir
    tisa.compute %a, %buf -> %d epilogue(%bias : memref<48xi32>) {overwrite}
        : memref<32x64xi8>, memref<3072xi8>, memref<32x48xi32> {
      ...
    } epilogue {
    ^bb0(%acc: memref<32x48xi32>, %b: memref<48xi32>, %out: memref<32x48xi32>):
      linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>,
                                       affine_map<(m, n) -> (m, n)>],
                      iterator_types = ["parallel", "parallel"]}
          ins(%acc, %b : memref<32x48xi32>, memref<48xi32>) outs(%out : memref<32x48xi32>) {
      ^bb0(%x: i32, %y: i32, %o: i32):
        %s = arith.addi %x, %y : i32
        linalg.yield %s : i32
      }
    }
    ```
  }];
  let arguments = (ins AnyMemRef:$input, MemRefRankOf<[I8], [1]>:$buffer,
                       AnyMemRef:$output, Variadic<Index>:$range,
                       Variadic<AnyType>:$epilogue_operands, Variadic<Index>:$active,
                       UnitAttr:$overwrite,
                       OptionalAttr<DenseI64ArrayAttr>:$input_padding,
                       OptionalAttr<DenseI64ArrayAttr>:$active_loops);
  let regions = (region SizedRegion<1>:$program, MaxSizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $input `,` $buffer `->` $output (`range` `(` $range^ `)`)?
    (`epilogue` `(` $epilogue_operands^ `:` type($epilogue_operands) `)`)?
    (`active` `(` $active^ `)`)? attr-dict `:`
    type($input) `,` type($buffer) `,` type($output) $program (`epilogue` $epilogue^)?
  }];
  let extraClassDeclaration = contractionAccessor # [{
    /// The fused epilogue's elementwise op, or null without one.
    ::mlir::linalg::GenericOp getEpilogueOp() {
      if (getEpilogue().empty())
        return nullptr;
      return ::mlir::dyn_cast_or_null<::mlir::linalg::GenericOp>(
          getEpilogue().front().empty() ? nullptr : &getEpilogue().front().front());
    }
  }];
}

#endif // TISA_OPS_TD
