//===- Kernels.h - generated GEMM and conv2d kernel libraries ---*- C++ -*-===//
//
// A kernel is a GEMM or an NHWC/HWCF convolution with fixed shapes and types.
// Generation builds the contraction as linalg, matches it against the
// instruction descriptions for a target, applies the best plan the code
// generator supports (tensorize, register tile) and lowers it to machine code
// with a C ABI:
//
//   GEMM, C = A x B (overwrite), row-major with leading dimensions:
//     void NAME(const TA *A, int64_t lda, const TB *B, int64_t ldb,
//               TC *C, int64_t ldc);
//     int64_t NAME_packed_bytes(void);
//     void NAME_pack_b(const TB *B, int64_t ldb, void *packed);
//     void NAME_packed(const TA *A, int64_t lda, const void *packed,
//                      TC *C, int64_t ldc);
//     int64_t NAME_tiles(void);
//     void NAME_packed_range(const TA *A, int64_t lda, const void *packed,
//                            TC *C, int64_t ldc, int64_t begin, int64_t end);
//   conv2d, dense NHWC input, HWCF filter, NHWC output (overwrite):
//     void NAME(const TA *input, const TB *filter, TC *output);
//     NAME_packed_bytes, NAME_pack_filter(filter, packed),
//     NAME_packed(input, packed, output), NAME_tiles,
//     NAME_packed_range(input, packed, output, begin, end).
//
// The `_pack_X` entry relays out the operand the plan packs (the weights: B or
// the filter; for a plan that packs the other input, its name) once; `_packed`
// then runs on the packed copy. `_packed_range` computes the tiles [begin,
// end) of NAME_tiles() disjoint parts of the output, so threads can share a
// call (each thread one range; together the whole range). Without an instruction for the target the same
// entries exist and run plain vector code (a warning says so).
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_KERNELS_H
#define TISA_KERNELS_KERNELS_H

#include "tisa/Semantics/Description.h"
#include "tisa/Targets/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tisa {

/// An element type of a kernel's operands, as data: an integer of 8, 16, 32
/// or 64 bits of either signedness, or a float format. Named as in
/// `--types`: u8 s8 u16 s16 u32 s32 u64 s64, f16 bf16 tf32 f32 f64. TF32 is
/// stored as f32; the kernel reads its top 19 bits (the low 13 bits of the
/// significand are ignored: rounded toward zero).
struct ElementType {
  enum class Format : uint8_t { Int, F16, BF16, TF32, F32, F64 };
  Format format = Format::Int;
  uint8_t bits = 8;     ///< storage bits (tf32: 32)
  bool isSigned = true; ///< integers: two's complement; floats are signed

  static const ElementType U8, S8, U16, S16, S32, S64, F16, BF16, TF32, F32,
      F64;
  static constexpr ElementType integer(unsigned bits, bool isSigned) {
    return {Format::Int, uint8_t(bits), isSigned};
  }
  /// A name from `--types` ("u8", "f64"), or none.
  static std::optional<ElementType> parse(llvm::StringRef name);

  bool isFloat() const { return format != Format::Int; }
  unsigned bytes() const { return bits / 8; }
  std::string name() const; ///< "u8", "bf16"
  /// How C passes it: "uint8_t", "double"; f16 and bf16 as their 16-bit
  /// patterns ("uint16_t"), tf32 as "float".
  llvm::StringRef cType() const;
  /// Its type in the kernel's IR: a signless integer, or the float type
  /// (tf32: f32).
  mlir::Type mlirType(mlir::MLIRContext *ctx) const;
  /// Significand bits of a float, counting the implicit one (f32: 24).
  unsigned precision() const;

  bool operator==(const ElementType &o) const {
    return format == o.format && bits == o.bits && isSigned == o.isSigned;
  }
  bool operator!=(const ElementType &o) const { return !(*this == o); }
};
inline constexpr ElementType ElementType::U8 = integer(8, false);
inline constexpr ElementType ElementType::S8 = integer(8, true);
inline constexpr ElementType ElementType::U16 = integer(16, false);
inline constexpr ElementType ElementType::S16 = integer(16, true);
inline constexpr ElementType ElementType::S32 = integer(32, true);
inline constexpr ElementType ElementType::S64 = integer(64, true);
inline constexpr ElementType ElementType::F16 = {Format::F16, 16, true};
inline constexpr ElementType ElementType::BF16 = {Format::BF16, 16, true};
inline constexpr ElementType ElementType::TF32 = {Format::TF32, 32, true};
inline constexpr ElementType ElementType::F32 = {Format::F32, 32, true};
inline constexpr ElementType ElementType::F64 = {Format::F64, 64, true};

/// Element types of A (input), B (weights) and C (output).
struct KernelTypes {
  ElementType a = ElementType::U8, b = ElementType::S8, c = ElementType::S32;
  /// "u8,s8,s32", "s16,s16,s64", "bf16,bf16,f32", "f32,f32,f32" (also
  /// without commas): two integer inputs into an integer accumulator at
  /// least as wide as each, or two float inputs into an f32 or f64
  /// accumulator at least as precise (tf32 only as tf32,tf32,f32). Which
  /// instruction runs them is up to the descriptions the generator finds;
  /// without one it emits plain vector code and says so.
  static llvm::Expected<KernelTypes> parse(llvm::StringRef text);
  std::string text() const; ///< "u8s8s32"
  bool isFloat() const { return c.isFloat(); }
  /// tf32: f32 arrays whose top 19 bits a Tensor Core reads, a type only
  /// Tensor Core kernels are generated for.
  bool tensorCoreOnly() const;
};

/// Elementwise work on a kernel's result before its one store (`--epilogue
/// bias,relu,requant=u8`), applied in this order to each accumulator x of
/// output element [..., j] (j: the GEMM column or the conv2d filter):
struct EpilogueSpec {
  /// x + bias[j], the bias of the accumulator type (s32 or f32).
  bool bias = false;
  /// x + residual[...], an array of the output's shape and the accumulator
  /// type (a skip connection).
  bool residual = false;
  /// max(x, 0).
  bool relu = false;
  /// s32 kernels, to u8 or s8: q = round_to_nearest_even(f32(x) * scale[j])
  /// + zero_point, saturated to the type (f32 arithmetic, scale per column
  /// or filter, zero point an i32 argument).
  std::optional<ElementType> requant;
  /// f32 kernels: the result rounded to bf16 (nearest even).
  bool bf16 = false;

  /// "bias,residual,relu,requant=u8" in any order, or "bf16" for the last
  /// step; "" or "none" for no epilogue.
  static llvm::Expected<EpilogueSpec> parse(llvm::StringRef list);
  /// The canonical list ("" for none).
  std::string text() const;
  /// "_bias_relu_requant_u8" for symbols and test names ("" for none).
  std::string symbolSuffix() const;
  bool any() const { return bias || residual || relu || requant || bf16; }
  /// The output's element type for an accumulator of type `acc`.
  ElementType outputKind(ElementType acc) const;
};

struct KernelSpec {
  enum class Op { Gemm, Conv2d } op = Op::Gemm;
  // GEMM: C[m][n] = sum_k A[m][k] * B[k][n].
  int64_t m = 0, n = 0, k = 0;
  // conv2d: output[batch][oh][ow][filters] = sum_{r,s,c} input[batch]
  //   [oh*stride+r-pad][ow*stride+s-pad][c] * filter[r][s][c][filters].
  int64_t batch = 1, h = 0, w = 0, c = 0, filters = 0, r = 1, s = 1,
          stride = 1, pad = 0;
  /// GEMM's m or conv2d's batch given at run time (`--m ?`, `--n ?`): every
  /// entry takes it as its first argument (int64_t), and NAME_tiles takes
  /// it too. Generation ignores `m` / `batch` then; they size the data of
  /// one call (withRows) for checks and timing (0: none chosen).
  bool runTimeRows = false;
  /// A GEMM's n or k given at run time (`--n ?`, `--k ?`): every entry
  /// takes the run-time extents first, in the order m, n, k (the pack and
  /// NAME_packed_bytes only n and k). `n` / `k` then size one call's data.
  bool runTimeN = false, runTimeK = false;
  /// A conv2d's height or width given at run time (`--h ?`, `--w ?`): every
  /// entry but the pack takes the run-time extents first, in the order
  /// batch, h, w. `h` / `w` then size one call's data.
  bool runTimeH = false, runTimeW = false;
  KernelTypes types;
  EpilogueSpec epilogue;
  /// Symbol prefix; empty: derived ("tisa_gemm_u8s8s32_512x512x512").
  std::string name;

  /// A GEMM, and a conv2d with a square r x r filter; types left to set.
  static KernelSpec makeGemm(int64_t m, int64_t n, int64_t k) {
    KernelSpec s;
    s.m = m;
    s.n = n;
    s.k = k;
    return s;
  }
  static KernelSpec makeConv2d(int64_t batch, int64_t h, int64_t w, int64_t c,
                               int64_t filters, int64_t r, int64_t stride,
                               int64_t pad) {
    KernelSpec s;
    s.op = Op::Conv2d;
    s.batch = batch;
    s.h = h;
    s.w = w;
    s.c = c;
    s.filters = filters;
    s.r = s.s = r;
    s.stride = stride;
    s.pad = pad;
    return s;
  }

  /// The extent runTimeRows leaves to run time: m, or the batch.
  int64_t rows() const { return op == Op::Gemm ? m : batch; }
  /// Its option and parameter name: "m", or "n" (the batch).
  llvm::StringRef rowsName() const { return op == Op::Gemm ? "m" : "n"; }
  /// This spec with `rows()` = `v` (a call's extent of a run-time one).
  KernelSpec withRows(int64_t v) const {
    KernelSpec s = *this;
    (op == Op::Gemm ? s.m : s.batch) = v;
    return s;
  }
  /// Whether any extent is given at run time.
  bool runTimeShape() const {
    return runTimeRows || runTimeN || runTimeK || runTimeH || runTimeW;
  }
  /// This spec with the call's extents of its run-time ones (GEMM: m, n, k;
  /// conv2d: the batch, h, w); 0 for none chosen.
  KernelSpec withCall(int64_t rows, int64_t second, int64_t third) const {
    KernelSpec s = withRows(runTimeRows ? rows : this->rows());
    if (runTimeN)
      s.n = second;
    if (runTimeK)
      s.k = third;
    if (runTimeH)
      s.h = second;
    if (runTimeW)
      s.w = third;
    return s;
  }
  /// The extents withCall takes after the rows: GEMM n and k, conv2d h and
  /// w.
  std::pair<int64_t, int64_t> callExtents() const {
    return op == Op::Gemm ? std::pair(n, k) : std::pair(h, w);
  }
  /// Which run-time extents an entry takes: all (the computing entries),
  /// the weights' (the pack and NAME_packed_bytes: n, k), or the rows
  /// (NAME_tiles: m or the batch, and a conv2d's h).
  enum class Extents { All, Weights, Rows };
  /// The run-time extents' names and this spec's values of them, in the
  /// order the entries take them (m or the batch, n, k; the batch, h, w).
  std::vector<std::pair<std::string, int64_t>>
  runTimeExtents(Extents which = Extents::All) const;
  int64_t outH() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t outW() const { return (w + 2 * pad - s) / stride + 1; }
  /// Checks extents and types; the error names the bad value.
  /// How validate names the extents: as `tisa gen`'s options (--m, a
  /// conv2d's --n and --k) or as the C API's fields (spec.m, spec.batch,
  /// spec.filters).
  enum class Names { Options, CFields };
  llvm::Error validate(Names names = Names::Options) const;
  std::string symbol() const;
  /// Canonical text of everything that determines the code.
  std::string key() const;
  /// Multiply-accumulates x 2, without a convolution's taps on padding.
  double ops() const;
  /// Elements of the input, weights and output.
  int64_t inputElements() const;
  int64_t weightElements() const;
  int64_t outputElements() const;
  /// The element type the kernel stores: the accumulator's, or the
  /// epilogue's conversion.
  ElementType outputKind() const { return epilogue.outputKind(types.c); }
  /// Elements of a bias or scale vector: n, or the filters.
  int64_t channels() const { return op == Op::Gemm ? n : filters; }
  std::string describe() const; ///< "gemm 512x512x512 u8s8s32"
};

struct GenerateOptions {
  /// A description name, or "auto" for the best the target executes.
  std::string isa = "auto";
  /// Without an instruction for the target, emit plain vector code (with a
  /// warning) instead of failing.
  bool allowFallback = true;
  /// A loop schedule (Schedule::text(), e.g. from `tisa tune`); empty: the
  /// default for the plan and target.
  std::string schedule;
  /// Where `schedule` was read when the caller did not give it (a file
  /// `tisa tune` stored): one that does not fit the kernel, or is not a
  /// schedule at all (a damaged file), is then ignored with a warning that
  /// names it, instead of failing every build of the kernel.
  std::string scheduleSource;
};

struct GeneratedKernel {
  std::string name;
  /// The description used, or empty for the plain vector fallback.
  std::string instruction;
  std::string mnemonic; ///< what the hot loop must contain ("" for fallback)
  /// Whether the kernel reads floating-point denormals of the input and of
  /// the weights as zero (the instruction's `input_denormals`); plain vector
  /// code keeps them.
  std::array<bool, 2> denormalsAreZero = {false, false};
  /// Multiply-accumulates of one instruction (per 128-bit segment for
  /// scalable registers); 0 for the fallback.
  int64_t macsPerInstruction = 0;
  /// The instruction's registers are scalable (SVE): one instruction does
  /// macsPerInstruction per 128 bits of the vector length it runs at.
  bool scalable = false;
  std::string plan;     ///< the matcher's one-line summary of the plan
  /// A conv2d that reduces over each filter row's kw and c as one loop of
  /// s * c taps (rows of taps), not pixel by pixel.
  bool tapRows = false;
  std::string packedOperand;  ///< "b", "filter", ...
  std::string packedLayout;   ///< "[k/4=128][n=512][4]"
  /// NAME_packed_bytes(); 0 with n or k at run time (NAME_packed_bytes(n, k)).
  int64_t packedBytes = 0;
  std::string schedule; ///< Schedule::text() used ("" for the fallback)
  std::string scheduleSpace; ///< ScheduleSpace::text() ("" for the fallback)
  /// Tiles NAME_packed_range counts (1 for the fallback).
  int64_t tiles = 1;
  std::vector<std::string> warnings;
  std::string header; ///< the C header
  std::vector<std::string> symbols;
  /// The module after tensorization and register tiling (before lowering).
  std::string tensorizedIR;
  /// Object code for the target.
  std::unique_ptr<llvm::MemoryBuffer> object;
};

/// A Tensor Core kernel: PTX, the cubin when ptxas is there, what ptxas -v
/// says of it, and a C header that launches it through the CUDA driver API.
struct GeneratedGpuKernel {
  std::string name, instruction, mnemonic, plan;
  /// The kernel's implicit GEMM (WarpMmaLaunch::loops).
  std::string loops;
  std::string ptx;
  /// The kernel's gpu.module as generated (before lowering to NVVM).
  std::string ir;
  std::string cubin;     ///< empty without ptxas
  std::string noCubinWhy; ///< why there is no cubin
  int64_t blockThreads = 0, gridX = 0, gridY = 0, sharedBytes = 0;
  /// The alignment in bytes each input's address must have.
  int64_t inputAlignment[2] = {1, 1};
  int64_t registers = 0, spillBytes = 0; ///< ptxas -v (0: not assembled)
  /// In the PTX (static counts; their ratio is the kernel's mma per
  /// shared-memory read): mma.sync instructions, and the fragment reads
  /// from shared memory (ldmatrix and plain ld.shared).
  int64_t mmaInstructions = 0, ldmatrixReads = 0, sharedLoads = 0;
  /// Theoretical occupancy: resident warps per SM over the SM's maximum
  /// (none when ptxas did not run or the target gives no SM limits).
  std::optional<double> occupancy;
  std::string header;
  /// The host lowering of the same kernel (-tisa-gpu-to-host) as an object
  /// for the host: NAME_host(A, B, C, grid_x, grid_y) with MLIR's C
  /// interface (_mlir_ciface_NAME_host); load it with
  /// nvptx::hostRuntimeSymbols().
  std::unique_ptr<llvm::MemoryBuffer> hostObject;
  std::string noHostWhy; ///< why there is no hostObject
};

/// Which lowerings of a Tensor Core kernel generateGpuKernel makes: both (what
/// `tisa gen` writes), or one (a test of the other need not compile it).
enum class GpuLowerings { Both, Device, Host };

/// Generates a GEMM `spec` for an nvptx `target` on the best mma description
/// (or `options.isa`); `host` is the machine the host lowering is compiled
/// for. With `lowerings` of one, the other's fields stay empty (no PTX, cubin
/// or resources; no hostObject) and noCubinWhy or noHostWhy says so.
llvm::Expected<GeneratedGpuKernel>
generateGpuKernel(mlir::MLIRContext &ctx, const KernelSpec &spec,
                  llvm::ArrayRef<const Description *> descriptions,
                  const Target &target, const Target &host,
                  const GenerateOptions &options,
                  GpuLowerings lowerings = GpuLowerings::Both);

struct KernelData;

/// The host lowering of `kernel` (generated for `spec`) loaded into this
/// process: a function that runs the kernel, grid and all, on `data`'s
/// operands (dense, as makeData lays them out with Layout::Tight),
/// accumulating into the output. Takes kernel.hostObject.
llvm::Expected<std::function<void(KernelData &)>>
loadGpuKernelOnHost(GeneratedGpuKernel &kernel, const KernelSpec &spec);

/// Generates `spec` for `target` with `descriptions` (the whole set; the
/// target filters). `ctx` needs the description dialects loaded.
llvm::Expected<GeneratedKernel>
generateKernel(mlir::MLIRContext &ctx, const KernelSpec &spec,
               llvm::ArrayRef<const Description *> descriptions,
               const Target &target, const GenerateOptions &options);

} // namespace tisa

#endif // TISA_KERNELS_KERNELS_H
