//===- Passes.td - tisa transforms -------------------------*- tablegen -*-===//
//
// The passes that turn a matched contraction into tensorized loops. They are
// usable inside any MLIR pipeline through tisa-opt.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TRANSFORMS_PASSES_TD
#define TISA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TisaBufferizePass : Pass<"tisa-bufferize", "::mlir::ModuleOp"> {
  let summary = "What tisa gen FILE.mlir runs first: linalg on tensors becomes linalg on memrefs";
  let description = [{
    So that linalg on tensors (as torch-mlir, StableHLO-to-linalg or IREE produce it) is
    tensorized, this runs upstream one-shot bufferization of whole functions (identity layouts at
    their boundaries), turns returned buffers into output arguments the caller provides (computed
    in place when statically shaped), and frees the intermediate buffers (upstream's deallocation
    pipeline). The tensor arguments of public functions are the caller's inputs: they are marked
    `bufferization.writable = false` (unless the program says otherwise), so a contraction that
    accumulates into one works on a copy. A module with no tensor passes unchanged (its own
    `memref.dealloc`s included, which the deallocation pipeline would refuse).

    Example:
    ```mlir
    func.func @f(%a: tensor<8x64xi8>, %b: tensor<64x32xi8>) -> tensor<8x32xi32>
    // becomes
    func.func @f(%a: memref<8x64xi8>, %b: memref<64x32xi8>, %out: memref<8x32xi32>)
    ```
  }];
}

def TisaSelectPlanPass : Pass<"tisa-select-plan", "::mlir::func::FuncOp"> {
  let summary = "Attach the chosen tensorization plan and schedule to each linalg contraction";
  let description = [{
    The plan and the schedule live in the IR, as IREE's `lowering_config`: for each linalg
    contraction on memrefs, the matcher's best plan the code generator supports becomes
    `tisa.plan` (a `#tisa.plan`: the instruction, the program loops of each instruction loop,
    which operand is the instruction's first, the loops run in blocks) and the schedule
    `tisa.schedule` (a `#tisa.schedule`: the `schedule` option, e.g. from `tisa tune`, or the
    target's default). Attributes already on an op are kept: a plan or schedule given by hand
    overrides the default. The later passes (`-tisa-split-pack`, `-tisa-split-dynamic`,
    `-tisa-tensorize`) apply them without a target and without running the matcher's search.

    Example:
    ```mlir
    linalg.matmul {tisa.plan = #tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]], swapped>,
                   tisa.schedule = #tisa.schedule<unroll = [4, 2, 1]>} ins(...) outs(...)
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"host\"",
           "machine to plan for: host, a name in targets/data, or a .json file">,
    Option<"isa", "isa", "std::string", "\"auto\"",
           "instruction to use (a description name), or auto for the best the target runs">,
    ListOption<"isaDirs", "isa-dir", "std::string",
               "extra directories of instruction descriptions">,
    Option<"targetDir", "target-dir", "std::string", "\"\"",
           "directory of target data files (default: the installed or source one)">,
    Option<"schedule", "schedule", "std::string", "\"\"",
           "schedule for every contraction without tisa.schedule (Schedule text); empty: "
           "the target's default">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TisaRelayoutPass : Pass<"tisa-relayout", "::mlir::func::FuncOp"> {
  let summary = "Copy operands no instruction can read in place into a layout it can";
  let description = [{
    Two layouts leave a contraction without a plan that can be generated, and this pass (on
    memrefs) gives each a copy in a layout that has one, around a `linalg.generic` with the op's
    own body; the tensorizing passes then generate it:
    - `linalg.conv_2d_nchw_fchw` reads its input's channels (the reduction a dot-product
      instruction groups) at a stride of a whole image and writes its output's channels at the
      same stride: the input and the output are transposed to NHWC buffers (`linalg.transpose`),
      the generic reads them through the op's maps with their results permuted, and the output is
      transposed back. The filter keeps its FCHW layout: the plan's packing reads it as any
      layout.
    - A contraction neither of whose inputs runs along a reduction loop in memory (a GEMM with
      a transposed A: A[k][m], B[k][n]) can broadcast groups of neither: its first input is copied
      with its reduction dimensions innermost (A to [m][k]).
    Only where a kernel can read the copies: static shapes and inputs of at most 16 bits (the
    CPU instructions' operands). `tisa gen FILE.mlir` runs it after bufferization and
    `-tisa-decompose-quantized` (whose NCHW convolutions it then takes).

    Example: `linalg.conv_2d_nchw_fchw ins(%i, %f : memref<1x64x16x16xi8>,
    memref<32x64x3x3xi8>) outs(%o : memref<1x32x14x14xi32>)` becomes a transpose of `%i` into a
    `memref<1x16x16x64xi8>` and of `%o` into a `memref<1x14x14x32xi32>`, a `linalg.generic` over
    (n, f, oh, ow, c, kh, kw) reading `(n, oh + kh, ow + kw, c)`, `(f, c, kh, kw)` and writing
    `(n, oh, ow, f)`, and a transpose back into `%o`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect"];
}

def TisaTapRowsPass : Pass<"tisa-tap-rows", "::mlir::func::FuncOp"> {
  let summary = "Reduce a convolution over each filter row's taps as one loop, where cheaper";
  let description = [{
    In a dense NHWC image the taps of one filter row, kw and c, are `s * c` contiguous elements,
    `stride * c` elements apart from one output column to the next. For a convolution on memrefs
    (a `linalg.conv_2d_nhwc_hwcf` or a generic of its form: the input's last two indices
    `stride * ow + kw` and `c`, the filter's `kw` and `c` adjacent and dense) this pass plans it
    also as a `linalg.generic` over one reduction loop `t` of `s * c` taps in place of kw and c,
    and keeps that form when its plan counts fewer cycles on the target (beyond the cost model's
    tie window): the input read through a `memref.reinterpret_cast` whose rows overlap
    (`[..][ow][s*c]`, strides `[.., stride*c, 1]`), the filter through a `memref.collapse_shape`
    of (kw, c). With few channels the instruction's groups then run along the row: ResNet-50's
    first layer (3 channels, 7x7) takes 6 groups of 4 per filter row for 21 taps instead of 7
    pixels of 3 channels in a group each. Ops with a `tisa.plan` or `tisa.schedule` (of the
    pixel form's loops) are left as they are. `tisa gen FILE.mlir` runs it after
    `-tisa-relayout`.

    Example: `linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>} ins(%i, %f :
    memref<1x230x230x3xi8>, memref<7x7x3x64xi8>) outs(%o : memref<1x112x112x64xi32>)` becomes a
    `linalg.generic` over (n, oh, ow, f, kh, t) reading `(n, oh * 2 + kh, ow, t)` of
    `memref<1x230x112x21xi8, strided<[158700, 690, 6, 1]>>` and `(kh, t, f)` of
    `memref<7x21x64xi8>`.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"host\"",
           "machine to plan for: host, a name in targets/data, or a .json file">,
    Option<"isa", "isa", "std::string", "\"auto\"",
           "instruction to use (a description name), or auto for the best the target runs">,
    ListOption<"isaDirs", "isa-dir", "std::string",
               "extra directories of instruction descriptions">,
    Option<"targetDir", "target-dir", "std::string", "\"\"",
           "directory of target data files (default: the installed or source one)">,
    Option<"schedule", "schedule", "std::string", "\"\"",
           "the schedule -tisa-select-plan gives contractions without one: given, a "
           "convolution takes the form whose loops it has (rows of taps have one less)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect"];
}

def TisaFuseEpiloguePass : Pass<"tisa-fuse-epilogue", "::mlir::func::FuncOp"> {
  let summary = "Fuse an elementwise consumer of a tisa.compute's output into it";
  let description = [{
    Every int8 model follows its GEMMs and convolutions with a bias, an activation and a
    requantization; run separately, each is one more pass over the output in memory. This pass
    (after `-tisa-split-pack`, on memrefs) moves the first elementwise `linalg.generic` (or named
    elementwise op, generalized) that reads a `tisa.compute`'s output into the compute's
    `epilogue` region, so `-tisa-tensorize` applies it to the accumulators in registers and
    stores the result once. Only a fresh result has an epilogue: the accumulators start at zero
    (a `linalg.fill` of 0, erased, or `overwrite`); a contraction accumulating into the caller's
    buffer is left alone. The accumulators' buffer is then never written, so the pass fuses only
    when that buffer is a local allocation that nothing else reads (or the consumer overwrites
    it in place without reading its output's old value), the consumer writes each element where
    it reads its accumulator (the same permutation) into a buffer the computation does not
    read, its body is scalar `arith`/`math` ops without integer division, and the ops between
    the two touch no memory (allocations and pure ops among them are moved above the compute). An elementwise
    consumer of a fresh result that fails one of these stays, with a warning that says which.

    Example: `tisa.compute %a, %buf -> %c` (after `linalg.fill` of 0 into `%c`) and
    `linalg.generic ins(%c, %bias) outs(%d) {addi, maxsi}` become
    `tisa.compute %a, %buf -> %d epilogue(%bias : ...) {overwrite} {...} epilogue {...}`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect"];
}

def TisaDecomposeQuantizedPass
    : Pass<"tisa-decompose-quantized", "::mlir::func::FuncOp"> {
  let summary = "Split a quantized contraction into a plain one and its zero-point terms";
  let description = [{
    Linalg's quantized contractions (`quantized_matmul`, `quantized_batch_matmul`, the `*_q`
    convolutions) compute C += (A - za)(B - zb) on sign-extended inputs with run-time zero
    points; no tensor instruction has zero points, so the matcher does not read them as
    contractions. By the repair algebra the matcher uses for signedness,
      sum (A - za)(B - zb) = sum A B - zb * sum_red A - za * sum_red B + R za zb
    exactly in 32-bit integers (every term wraps as the original does), the sums running over the
    reduction loops and R being their trip count. On memrefs, this pass replaces the op by
    - the contraction without zero points, as a `linalg.generic` with the op's indexing maps,
      which the tensorizing passes then generate on the target's instruction;
    - the sums of A (when zb may be nonzero) and of B (when za may be nonzero) over the reduction
      loops, per parallel loop each reads, as reductions into temporary buffers (a convolution's
      window sums get a window operand of the filter's shape, as linalg's pooling ops do);
    - one elementwise update of C with the compensation.
    A zero point that is the constant 0 drops its term; an NCHW convolution's plain part is the
    named `linalg.conv_2d_nchw_fchw`, for `-tisa-relayout`. `tisa gen FILE.mlir` runs it after
    bufferization. On tensors, or with non-integer operands or zero points that are not scalars,
    it leaves the op and says why.

    Example:
    ```mlir
    linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<4x8xi8>, memref<8x16xi8>, i32, i32)
                            outs(%c : memref<4x16xi32>)
    ```
    becomes a `linalg.generic` adding `extsi(a) * extsi(b)` into `%c`, one summing each row of
    `%a` into a `memref<4xi32>`, one summing each column of `%b` into a `memref<16xi32>`, and one
    adding `8 * za * zb - zb * rows[m] - za * columns[n]` to `%c`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TisaSplitPackPass : Pass<"tisa-split-pack", "::mlir::func::FuncOp"> {
  let summary = "Split each planned contraction into the pack of its planned operand and the computation";
  let description = [{
    The packing step of code generation, as its own op: each linalg contraction on memrefs with
    a plan (its `tisa.plan`/`tisa.schedule` from `-tisa-select-plan` or by hand; without them,
    when the pass is given a target, the best supported plan and the target's default schedule,
    which are then recorded) becomes
    - a buffer of the bytes the plan's packed layout needs (`memref.alloc`, 64-byte aligned),
    - `tisa.pack` of the operand the plan relays out into it,
    - `tisa.compute` of the contraction on the other input and the packed buffer, accumulating
      into the output as the linalg op did,
    - the buffer's `memref.dealloc`.
    Both ops hold a copy of the planned contraction, so each can be lowered alone:
    `-tisa-tensorize` lowers them. A kernel library builds the same two ops for its entries
    (`NAME_pack_X` is a `tisa.pack`, `NAME_packed` and `NAME_packed_range` a `tisa.compute`), so
    every path runs the same passes from here on. Contractions without a plan are left in place
    with a warning that says why.

    Example: `linalg.matmul` u8 x s8 -> s32 (32x64 by 64x48) on znver4 becomes
    ```mlir
    %buf = memref.alloc() {alignment = 64 : i64} : memref<3072xi8>
    tisa.pack %b into %buf : memref<64x48xi8>, memref<3072xi8> { ... the matmul ... }
    tisa.compute %a, %buf -> %c : memref<32x64xi8>, memref<3072xi8>, memref<32x48xi32> { ... }
    memref.dealloc %buf : memref<3072xi8>
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "machine to plan for, for a contraction without tisa.plan and tisa.schedule: host, a "
           "name in targets/data, or a .json file; empty (the default): none, each contraction's "
           "plan and schedule are taken as stated (by -tisa-select-plan or by hand)">,
    Option<"isa", "isa", "std::string", "\"auto\"",
           "instruction to use (a description name), or auto for the best the target runs">,
    ListOption<"isaDirs", "isa-dir", "std::string",
               "extra directories of instruction descriptions">,
    Option<"targetDir", "target-dir", "std::string", "\"\"",
           "directory of target data files (default: the installed or source one)">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TisaSplitDynamicPass : Pass<"tisa-split-dynamic", "::mlir::func::FuncOp"> {
  let summary = "Run each tisa.compute with run-time extents as static blocks";
  let description = [{
    A code generator compiles one static shape; a contraction whose parallel loop only run time
    knows (a GEMM's M, a convolution's batch) was planned with that loop at the size of the
    blocks it runs in (`runTimeBlock`: 256 for a register tile's rows, 1 for an outer loop such
    as the batch) and its weights packed once, as for a static shape. This pass replaces
    each `tisa.compute` with such a loop by static computations on views of its input, output
    and epilogue operands along it, all reading the same packed buffer with the same plan and
    schedule:
    - a loop over the full blocks of 256 iterations (of 1 for an outer loop);
    - the remainder r < 256 by its binary digits: for each of 128, 64, ..., 1 present in r, one
      computation of that many iterations, after the larger ones.
    So every computation is the generator's static kernel, eight remainder shapes at most per
    loop. Several such loops are split one after the other (the outermost first). A loop that
    cannot run in blocks (a reduction, one the packed input depends on, a window's output rows)
    never gets a plan (`getKernelGenerator` says why), and a `range` on such a computation is an
    error.

    Example: `tisa.compute %a, %buf -> %c : memref<?x64xi8>, memref<3072xi8>, memref<?x48xi32>`
    becomes an `scf.for` over blocks of 256 rows of `%a` and `%c` with
    `tisa.compute ... : memref<256x64xi8, strided<[64, 1], offset: ?>>, ...` inside, then
    `scf.if`s for 128, 64, ..., 1 rows.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "machine to plan for, for a contraction without tisa.plan and tisa.schedule: host, a "
           "name in targets/data, or a .json file; empty (the default): none, each contraction's "
           "plan and schedule are taken as stated (by -tisa-select-plan or by hand)">,
    Option<"isa", "isa", "std::string", "\"auto\"",
           "instruction to use (a description name), or auto for the best the target runs">,
    ListOption<"isaDirs", "isa-dir", "std::string",
               "extra directories of instruction descriptions">,
    Option<"targetDir", "target-dir", "std::string", "\"\"",
           "directory of target data files (default: the installed or source one)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TisaOutlineKernelsPass : Pass<"tisa-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Give each of a function's several tisa.compute (or tisa.pack, or edge copy) ops a function of its own";
  let description = [{
    `-tisa-split-dynamic` turns one computation with run-time extents into up to a few dozen static
    ones (full blocks, then each binary digit of the remainder, per loop), and a kernel library
    has them once per entry. Each becomes a register-tiled nest of thousands of instructions, and
    LLVM's loop passes (strength reduction, induction variables, full unrolling) cost more than
    linearly in the size of the function that holds them: a run-time convolution took 12 s to
    compile with its nests in one function. This pass moves each `tisa.compute` of a function
    that holds more than one (and likewise each `tisa.pack`) into a private function of its own,
    `noinline`, called in its place with the op's operands and the values its regions use from
    above (constants are cloned, so the generators see them as before); outlined functions with
    equivalent bodies are made once (`_packed` and `_packed_range` of a kernel with run-time rows
    hold the same blocks). A function with one such op keeps it: nothing to gain there, and its
    code stays as it was. Only ops whose enclosing ops up to the function are `scf` loops and
    branches move, and none whose instruction needs a configuration state (its description's
    `config`, AMX's tile palette): LLVM loads that once per function, so a call of the entry
    keeps loading it once. The `linalg.copy` and `linalg.fill` ops of a function that holds
    several (the zero-padded copies of the blocks' partial edges: one per block) move the same
    way; a program of run-time m, n and k whose blocks are digits of both had 82 of each.

    Example: a `func.func @k` holding an `scf.for` around one `tisa.compute` and two `scf.if`s
    around others becomes `@k` with `func.call @k_compute`, `@k_compute_1` and `@k_compute_2`
    in their places.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "machine the plans were made for: host, a name in targets/data, or a .json file; "
           "empty (the default): none, the plans are read as stated">,
    Option<"isa", "isa", "std::string", "\"auto\"",
           "instruction to use (a description name), or auto for the best the target runs">,
    ListOption<"isaDirs", "isa-dir", "std::string",
               "extra directories of instruction descriptions">,
    Option<"targetDir", "target-dir", "std::string", "\"\"",
           "directory of target data files (default: the installed or source one)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect"];
}

def TisaRollCopiesPass : Pass<"tisa-roll-copies", "::mlir::func::FuncOp"> {
  let summary = "Lower large linalg.copy and linalg.fill ops to loops LLVM keeps rolled";
  let description = [{
    The generators stage zero-padded copies (a tile block's A padded to whole tiles, a
    convolution's input with its border): a `linalg.fill` and a `linalg.copy` on static shapes.
    Lowered by convert-linalg-to-loops, each is a loop nest of constant trip counts that LLVM
    unrolls completely: an AMX block of 4 rows of 1024 bf16 became 1,536 vector moves, and a
    kernel with run-time rows has one such block per binary digit of the remainder, in each entry
    (6 s of compile time for one GEMM, most of it in the machine scheduler, whose cost grows with
    the square of a block's length). This pass lowers each copy or fill that writes a static
    memref of rank 2 or more and at least `min-bytes` to its `scf.for` loops itself and marks
    every loop but the innermost `llvm.loop_annotation = #llvm.loop_annotation<unroll =
    <disable = true>>`, which convert-scf-to-cf puts on the loop's back edge and the LLVM
    lowering (lowerToLLVMDialect) on the branch's `!llvm.loop` metadata. The innermost loop is
    left to LLVM (vectorized as before). The copy stays in its function: in an AMX kernel a call
    would reload the tile configuration.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", "8192",
           "the smallest output, in bytes, of a copy or fill lowered here">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def TisaTensorizePass : Pass<"tisa-tensorize", "::mlir::func::FuncOp"> {
  let summary = "Lower tisa.pack and tisa.compute to loops around a tensorized instruction";
  let description = [{
    Each `tisa.pack` and `tisa.compute` (from `-tisa-split-pack`, or a kernel library's entries)
    is replaced by the code of its contraction's plan and schedule, through the plan's
    register-class generator (vector lanes: vpdpbusd, vdpbf16ps, NEON dot; AMX tiles):

    - `tisa.pack` copies the operand the plan packs into the plan's layout (for `vpdpbusd` on a
      GEMM, B becomes [N/P][K/4][P][4] with N padded to the lane count and P the register tile's
      lanes), padded with values that contribute zero, with a signedness bias applied on the way
      when the plan repairs signedness;
    - `tisa.compute` copies the broadcast operand with its reduction dimension padded when that
      extent is not a multiple of the instruction's group, and orders the loops so that the
      instruction's lanes and group are innermost: the other parallel loops, then a loop over
      the lanes in steps of one register, then the reduction loops in the packed operand's order
      with the group loop last, carrying the accumulator; the innermost step is the instruction
      as a pure `tisa.apply` on its registers (lowered by `-tisa-legalize-instructions` to the
      description's intrinsic), the accumulator is stored with a lane mask (never past the end
      of the output), and signedness repairs subtract their compensation terms.

    Loops are tagged `tisa.loop = "parallel" | "lanes" | "reduction"` and the parallel ones carry
    the plan's register tile as `tisa.unroll`, which `-tisa-register-tile` applies. The
    contraction inside each op must carry `tisa.plan` and `tisa.schedule` (the pack and the
    computation must agree on the layout); a missing one, a plan the matcher does not have, a
    buffer of the wrong size or an input of the wrong type is an error on the op.

    Example: the `tisa.pack` and `tisa.compute` of a `linalg.matmul` u8 x s8 -> s32 on znver4
    become a pack of B and a nest whose innermost loop calls `llvm.x86.avx512.vpdpbusd.512` on a
    broadcast of 4 bytes of A.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "machine to plan for, for a contraction without tisa.plan and tisa.schedule: host, a "
           "name in targets/data, or a .json file; empty (the default): none, each contraction's "
           "plan and schedule are taken as stated (by -tisa-select-plan or by hand)">,
    Option<"isa", "isa", "std::string", "\"auto\"",
           "instruction to use (a description name), or auto for the best the target runs">,
    ListOption<"isaDirs", "isa-dir", "std::string",
               "extra directories of instruction descriptions">,
    Option<"targetDir", "target-dir", "std::string", "\"\"",
           "directory of target data files (default: the installed or source one)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
                           "::mlir::linalg::LinalgDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::arm_sve::ArmSVEDialect", "::mlir::ub::UBDialect"];
}

def TisaRegisterTilePass : Pass<"tisa-register-tile", "::mlir::func::FuncOp"> {
  let summary = "Unroll-and-jam the loops around a tensorized instruction into a register tile";
  let description = [{
    Register-level loop reorganization, the micro-kernel shape vendor libraries write by hand.
    Every `scf.for` tagged `tisa.unroll = U` (set by `-tisa-tensorize` from the plan's register
    tile, which is sized from the target's register file and the instruction's latency and issue
    rate) is split into a main loop whose trip count is a multiple of U and a remainder loop, and
    the main loop is unrolled by U and jammed: the loops inside it that do not depend on it are
    merged, so a reduction loop carries U times as many accumulators. The accumulators stay in
    registers across the whole reduction (loaded before it, stored after it), and inside a
    reduction body that writes no memory, identical loads are merged: the broadcast of A is loaded
    once per row and reused by every lane block, each packed B vector once and reused by every row.

    Example: with `tisa.unroll = 5` on the row loop and `5` on the lane loop (the plan for a
    512x512x512 int8 GEMM on Zen 4), a vpdpbusd GEMM nest becomes a 5 x 5 tile of 25 accumulators
    with 5 broadcasts and 5 vector loads per step.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TisaByElementPass : Pass<"tisa-by-element", "::mlir::func::FuncOp"> {
  let summary = "Load a register of broadcast groups at once where the instruction takes one by element";
  let description = [{
    For an instruction whose description gives `lowering.by_element` (NEON `sdot`/`udot`:
    `sdot v0.4s, v1.16b, v2.4b[3]`), `-tisa-tensorize` tags the load of each broadcast group
    (`tisa.by_element = U`, the groups in one register). In a loop whose trip count is a multiple
    of U, this pass unrolls the loop by U and replaces the U group loads of each broadcast row by
    one load of a whole register and an extract of group u in step u, which LLVM folds into the
    instruction's by-element form: one load per U steps instead of one `ld1r` per step. Loops it
    cannot rewrite (a trip count that is not a multiple of U, bounds known at run time only, a
    group index other than `iv * G`) keep the group loads, with a remark.

    Example: a 6 x 2 register tile of `sdot` on neoverse-n1 loads 6 broadcast groups and 2 B
    vectors per step; after this pass, per 4 steps 6 rows of 16 bytes and 8 B vectors.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TisaHoistScratchPass
    : Pass<"tisa-hoist-scratch", "::mlir::func::FuncOp"> {
  let summary = "Move the generators' scratch buffers of static size out of loops and branches";
  let description = [{
    The generators allocate a scratch buffer where they use it (a zero-padded copy of an input,
    a register tile's block of C that leaves C), which inside the loops and branches of a kernel
    with run-time extents (`-tisa-split-dynamic`) or of a range entry is an allocation per
    iteration or block. Only sequential regions are crossed (`scf.for`, `scf.while`, `scf.if`,
    `scf.index_switch`); a buffer under any other op (`scf.forall`) leaves only the loops and
    branches inside one of its iterations.
    - Each `memref.alloc` of static shape whose one `memref.dealloc` is in its own block (dead at
      the end of that block) becomes a `memref.view` of one pool of bytes allocated at the start
      of the function and freed before it returns: one malloc and free per call instead of one
      per iteration and block (and on AMX one tile configuration, which LLVM reloads after every
      call that tile instructions follow). Below a non-sequential op, the buffer moves before the
      outermost loop or branch under it and its dealloc after it.
    - A `memref.alloca` of static shape under such regions, whose address (through views, casts
      and the pointer as an integer) reaches no terminator, call, store or unregistered op, moves
      to the function's entry block: LLVM gives it a fixed place in the frame instead of growing
      the stack every iteration.

    Example: a 3x3 conv2d with run-time height and width on sapphirerapids configured its tiles
    196 times in a 14x14 call (a padded copy allocated per run of output rows); after this pass
    (and with the image padded by one call), once.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def TisaTilePlainPass : Pass<"tisa-tile-plain", "::mlir::func::FuncOp"> {
  let summary = "Hold a plain contraction's outputs in a register tile of vectors";
  let description = [{
    A contraction no instruction took (plain code: a `linalg.generic`, or a named op such as
    `linalg.matmul` on f32 or a depthwise convolution, taken as the generic it stands for, on
    memrefs with reduction loops and one output) becomes loops around a register tile, as the
    instruction kernels are: a few rows of the output by a few vectors of its last dimension,
    each vector an accumulator loaded once, carried through every reduction loop and stored
    once. The tile is the one with the fewest operand reads (and widenings) per accumulator
    update, (rows + vectors) / (rows x vectors), whose accumulators and one step's vectors leave
    `spare-registers` of `vector-registers` free, within `max-rows` and `max-vectors` and the
    output's extents. The body is
    applied to vectors: an operand that varies along the output's last dimension is loaded as a
    vector (it must be that operand's last dimension, contiguous), the others as scalars,
    broadcast where they meet a vector (A's element, widened once). The last vectors of a row
    are masked, the last rows a smaller tile (of extents known at run time: single rows, single
    vectors and one vector masked at run time). Each output sums its products in the reduction's
    order; a float multiply and add become one fused multiply-add only where the product is
    exact in the accumulator's type (f16 x f16 into f32), so results do not change.

    Left to `-tisa-order-plain-loops`: a contraction whose output's last dimension is not
    contiguous in every operand that varies along it (a transposed B), whose body has memory
    effects, regions, a division or `linalg.index`, whose output an input is a view of, or with
    a parallel loop the output does not vary along. With `vector-bits` 0 (the
    default) the pass does nothing: the pipeline passes the target's vector width and registers.

    Example: a 128^3 GEMM of f16 into f32 on one Zen 4 core (no instruction for it) ran at 39
    GFLOPS with its loops ordered for LLVM's vectorizer and at 79.7 in a tile of 6 rows of 4 zmm
    accumulators.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "0",
           "the width of a vector register in bits (0: leave plain code as it is)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "16",
           "the vector registers of the target">,
    Option<"spareRegisters", "spare-registers", "int64_t", "4",
           "registers left beside the accumulators and one step's vectors">,
    Option<"maxRows", "max-rows", "int64_t", "8",
           "the most rows of the output in one register tile">,
    Option<"maxVectors", "max-vectors", "int64_t", "8",
           "the most vectors of a row in one register tile">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect"];
}

def TisaOrderPlainLoopsPass
    : Pass<"tisa-order-plain-loops", "::mlir::func::FuncOp"> {
  let summary = "Nest a plain contraction's loops so that LLVM vectorizes its contiguous dimension";
  let description = [{
    A contraction no instruction took (a `linalg.generic` on memrefs with reduction loops and one
    output: plain code) is lowered to loops in its iterator order, which for a GEMM written
    (m, n, k) puts the reduction innermost, where B is read at a stride of N. This pass moves the
    loop that indexes the output's last dimension, when that dimension is contiguous (stride 1)
    in the output and in every input that the loop indexes (as that input's last dimension,
    alone), to the innermost place, the other loops keeping their order: (m, n, k) becomes
    (m, k, n) and a conv2d's (n, oh, ow, f, kh, kw, c) becomes (n, oh, ow, kh, kw, c, f). LLVM then
    vectorizes the innermost loop over contiguous weights and outputs. Each output still sums
    its products in the reduction's order, so floating-point results do not change.

    Example: a 128^3 u16 x s16 GEMM with no instruction on Zen 4 ran at 5.5 GOPS with the
    reduction innermost and at 47.5 GOPS after this pass.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TisaSingleLaneStoresPass
    : Pass<"tisa-single-lane-stores", "::mlir::func::FuncOp"> {
  let summary = "Write a masked store with one constant lane set as a scalar store";
  let description = [{
    A `vector.maskedstore` whose mask is a constant with exactly one lane set (the last, partial
    register of a row whose length leaves one lane) becomes `vector.extract` of that lane and a
    `memref.store` at its index. Besides being what the store means, this avoids a
    miscompilation of LLVM 22's X86 backend, which turns a masked store of a truncated vector
    with one constant lane (a fused epilogue storing s32 lanes as u8) into a store of the
    untruncated element: 4 bytes written where 1 was meant (llvm/llvm-project#179489, fixed
    after LLVM 22). Runs after register tiling and canonicalization, which make the masks
    constant.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def TisaLegalizeInstructionsPass
    : Pass<"tisa-legalize-instructions", "::mlir::ModuleOp"> {
  let summary = "Replace each tisa.apply by its description's lowering intrinsic";
  let description = [{
    The last tisa pass before LLVM lowering: `tisa.apply` (pure, so register tiling, CSE and load
    merging see through it) becomes `llvm.call_intrinsic` with the operands in the description's
    order, `llvm.bitcast` to the intrinsic's parameter types where they differ, and a bitcast of
    the result back to the accumulator register's type. Everything it needs is on the op.

    Example: `tisa.apply "vpdpbusd.zmm"(%a, %b, %acc)` with order `[2, 0, 1]` and signature
    `(vector<16xi32>, vector<16xi32>, vector<16xi32>) -> vector<16xi32>` becomes two
    `llvm.bitcast`s of `%a` and `%b` to `vector<16xi32>` and
    `llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%acc, %a32, %b32)`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TisaGpuToHostPass : Pass<"tisa-gpu-to-host", "::mlir::ModuleOp"> {
  let summary = "Lower GPU kernels for the host: blocks and threads as loops, mma by the warp reference";
  let description = [{
    The second lowering of a GPU kernel (the first is to PTX): each `gpu.func` kernel of a
    `gpu.module` becomes `func.func @NAME_host(args..., %grid_x: index, %grid_y: index)` that runs
    every block in turn. Within a block the threads run phase by phase: the kernel body is cut at
    each `gpu.barrier`, at each warp-level `tisa.apply` (an mma: all 32 lanes' fragments at once)
    and at each `scf.for` that contains either; the ops between two cuts run for thread 0, 1, ...
    in a loop, so every thread finishes a phase before any starts the next, as a barrier demands.
    A value one phase computes and a later one uses lives in a per-thread buffer; loop-carried
    values of a cut loop too. Ops that do not depend on the thread (block ids, constants, the
    grid) run once per block. Workgroup memory is one buffer per block. Each mma runs once per
    warp as a call of `tisa_emulate_mma(form, a, b, c, d)` (the warp-level reference of
    targets/nvptx/WarpMma.h on the 32 lanes' fragments; `form` from the op's `tisa.ptx`
    mnemonic), so the host run checks the kernel's fragment addressing and data movement against
    the PTX ISA's fragment rules.

    `nvgpu.ldmatrix` (without .trans) is warp-collective too: each lane's registers are gathered
    from the rows its warp's lanes supplied (the PTX ISA's ldmatrix fragment rule).

    Supported: kernels whose barriers, mma ops, ldmatrix and cut loops stand at the top level of the body or
    of a cut loop's body, with one-dimensional thread blocks of a known size; anything else is an
    error on the op.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // TISA_TRANSFORMS_PASSES_TD
