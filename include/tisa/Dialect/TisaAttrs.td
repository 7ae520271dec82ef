//===- TisaAttrs.td - the plan and schedule of a contraction -*- tablegen -*-===//
//
// What -tisa-select-plan decides for a linalg contraction, carried as typed
// values (as IREE's lowering_config) instead of text each later pass parses
// and re-derives. They hold plain data, no pointers: the dialect sits below
// the matcher; tisa::planFromAttr (transforms/PlanAttrs.cpp) turns a plan
// back into the matcher's TensorizePlan for a contraction and says why not.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_ATTRS_TD
#define TISA_ATTRS_TD

include "tisa/Dialect/TisaDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Tisa_Attr<string name, string attrMnemonic>
    : AttrDef<Tisa_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Tisa_InstrLoopAttr : Tisa_Attr<"InstrLoop", "loop"> {
  let summary = "which program loops feed one loop of an instruction";
  let description = [{
    One loop of the instruction's body (by its name in the description) and what the program gives
    it: a run of program loops, outer to inner (`[3]`; `[4, 5]` fuses two adjacent loops, the
    im2col view of a convolution), `padding` (a parallel loop the program lacks), or `outer(i)`:
    the more significant digit of the program loop that instruction loop `i` takes (the segment
    loop of an SVE instruction).

    ```mlir
    #tisa.loop<n = [1]>   #tisa.loop<k = [4, 5]>   #tisa.loop<n = padding>   #tisa.loop<seg = outer(0)>
    ```
  }];
  let parameters = (ins StringRefParameter<"the instruction loop's name">:$name,
                        OptionalArrayRefParameter<"int64_t">:$programLoops,
                        DefaultValuedParameter<"int64_t", "-1">:$sharesWith);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isPadding() const { return getProgramLoops().empty() && getSharesWith() < 0; }
    /// Prints the entry without the attribute's name: `n = [1]`.
    void printEntry(::mlir::AsmPrinter &printer) const;
    static InstrLoopAttr parseEntry(::mlir::AsmParser &parser);
  }];
}

def Tisa_PlanAttr : Tisa_Attr<"Plan", "plan"> {
  let summary = "the plan of a contraction: the instruction and its loops";
  let description = [{
    The instruction (a description's name), which program loops each of its loops takes, in the
    description's loop order, whether the program's inputs feed the instruction's in swapped order,
    and the program loops that run in static blocks (`loop : size`, each planned as a loop of
    run-time extent). The operands' accesses (direct, broadcast, packed...) follow from these and
    are not stored: `planFromAttr` derives them and checks the plan against the contraction.

    ```mlir
    #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped, blocks = [1 : 256]>
    ```
  }];
  let parameters = (ins StringRefParameter<"the description's name">:$instruction,
                        ArrayRefParameter<"InstrLoopAttr">:$loops,
                        DefaultValuedParameter<"bool", "false">:$swapped,
                        OptionalArrayRefParameter<"int64_t">:$blocks);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tisa_ScheduleAttr : Tisa_Attr<"Schedule", "schedule"> {
  let summary = "the register tile and loop order a code generator applies";
  let description = [{
    `tisa::Schedule` as data: the unroll factor of every program loop (`unroll`, mandatory) and,
    where they differ from their defaults, the lane loop's cache block (`block`), the lane loop
    outside the other parallel loops (`lanes_outer`), lanes per packed panel (`panel`), the two
    innermost parallel loops fused (`fuse`), rows per tile on border columns (`edge`), instruction
    steps per reduction iteration (`kunroll`), AMX B tiles held (`hold`) and a row loop ending in
    two even tiles (`even_rows`). Entries after `unroll` come in any order, each once.

    ```mlir
    #tisa.schedule<unroll = [1, 5, 1], block = 240, panel = 80, fuse>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$unroll,
                        DefaultValuedParameter<"int64_t", "0">:$block,
                        DefaultValuedParameter<"bool", "false">:$lanesOuter,
                        DefaultValuedParameter<"int64_t", "0">:$panel,
                        DefaultValuedParameter<"bool", "false">:$fuse,
                        DefaultValuedParameter<"int64_t", "0">:$edge,
                        DefaultValuedParameter<"int64_t", "1">:$kunroll,
                        DefaultValuedParameter<"int64_t", "0">:$hold,
                        DefaultValuedParameter<"bool", "false">:$evenRows);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TISA_ATTRS_TD
