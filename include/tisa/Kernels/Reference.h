//===- Reference.h - data, reference results and calls for kernels -*- C++ -*-===//
//
// What `tisa run` and the end-to-end tests share: operands filled from a
// seed, a straightforward reference (exact integers that wrap like the
// kernel's s32; bf16 products summed in double), the comparison (bit-exact for
// integers; for bf16 a bound derived from K), and calls through each entry.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_REFERENCE_H
#define TISA_KERNELS_REFERENCE_H

#include "tisa/Kernels/Jit.h"
#include "tisa/Kernels/ThreadPool.h"

#include "llvm/ADT/ArrayRef.h"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <type_traits>
#include <string>
#include <vector>

namespace tisa {

/// How operands are filled.
enum class Fill {
  /// Uniformly random (bf16: multiples of 2^-10 in [-1, 1)).
  Random,
  /// Extremes mixed with random values: integers 0, +-1, 127, -128, 255 (as
  /// the type holds them); bf16 0, +-1, large magnitudes of both signs,
  /// denormals (flushed by every bf16 dot instruction tisa generates), and a
  /// few infinities and NaNs that poison only their own rows or columns.
  Extreme,
  /// The largest products the types allow, the same everywhere (u8 255, s8
  /// -128; bf16 1.5 * 2^40): with a long enough K the s32 accumulator wraps.
  Saturating,
};

/// Where a test buffer sits against memory the process may not touch.
enum class Fence : uint8_t {
  /// On a 64-byte boundary inside the heap, as a deployment allocates.
  None,
  /// Its last byte is the last before a PROT_NONE page: a read or write past
  /// the end faults.
  After,
  /// Its first byte is the first after a PROT_NONE page: a read or write
  /// before the start faults.
  Before,
};

/// `bytes` of fresh memory placed as `fence` says (After or Before), in pages
/// of their own; a fault on the fence page reports the buffer's size and the
/// offset of the access before the process dies (see Fence.cpp).
void *allocateFenced(size_t bytes, Fence fence);
void freeFenced(void *p, size_t bytes, Fence fence);

/// Allocates on 64-byte (cache line) boundaries, as a deployment would:
/// vector loads of packed panels and stores to the output then never split
/// a line, so timings do not depend on where malloc put a buffer. Or, for
/// the checks, against a fence page (Fence::After or Before): a vector of
/// them holds exactly its size (assign or construct it at that size), so
/// its data ends or starts at the fence.
template <typename T> struct BufferAllocator {
  using value_type = T;
  // A buffer keeps its placement through assignments: `v = Bytes(n, x,
  // BufferAllocator<uint8_t>(Fence::After))` fences `v`.
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  Fence fence = Fence::None;
  BufferAllocator() = default;
  explicit BufferAllocator(Fence f) : fence(f) {}
  template <typename U>
  BufferAllocator(const BufferAllocator<U> &o) : fence(o.fence) {}
  T *allocate(size_t n) {
    if (fence != Fence::None)
      return static_cast<T *>(allocateFenced(n * sizeof(T), fence));
    return static_cast<T *>(
        ::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T *p, size_t n) {
    if (fence != Fence::None)
      return freeFenced(p, n * sizeof(T), fence);
    ::operator delete(p, std::align_val_t(64));
  }
  template <typename U> bool operator==(const BufferAllocator<U> &o) const {
    return fence == o.fence;
  }
  template <typename U> bool operator!=(const BufferAllocator<U> &o) const {
    return fence != o.fence;
  }
};
using Bytes = std::vector<uint8_t, BufferAllocator<uint8_t>>;

/// Where a GEMM's operands sit in memory. conv2d operands are dense, so only
/// the guard bytes apply to them.
enum class Layout {
  /// lda = k, ldb = ldc = n, nothing around the output.
  Tight,
  /// Tight rows, with guard bytes of poison before and after the output.
  Guarded,
  /// Each row followed by a gap of canaries (the inputs' hold values that
  /// change the result if read; the output's must keep the poison), and the
  /// guard bytes.
  Padded,
};

/// The C struct a kernel with an epilogue takes (tisa_epilogue in its
/// header).
struct EpilogueArgs {
  const void *bias = nullptr, *residual = nullptr;
  int64_t ldresidual = 0;
  const float *scale = nullptr;
  int32_t zeroPoint = 0;
};
// The layout the entries read (LLVM {ptr, ptr, i64, ptr, i32}).
static_assert(offsetof(EpilogueArgs, ldresidual) == 16 &&
                  offsetof(EpilogueArgs, scale) == 24 &&
                  offsetof(EpilogueArgs, zeroPoint) == 32 &&
                  sizeof(EpilogueArgs) == 40,
              "EpilogueArgs must match tisa_epilogue");

/// One output of the reference, as the output's type holds it: an integer
/// (sign- or zero-extended from its width), or a float value with the bound
/// on the kernel's error (floats compare within it; an infinity or NaN must
/// be met in kind).
struct ReferenceValue {
  int64_t integer = 0;
  double real = 0, bound = 0;
};

struct KernelData {
  /// Operands in the Layout's memory.
  Bytes input, weights, output;
  /// The reference, dense (m x n, or the NHWC output): the result, or what
  /// the epilogue makes of it.
  std::vector<ReferenceValue> expected;
  /// The epilogue's operands (KernelSpec::epilogue): bias and scale per
  /// channel, the residual in rows `ldr` elements apart (GEMM), dense.
  Bytes bias, residual, scale;
  int32_t zeroPoint = 0;
  int64_t ldr = 0;
  /// The struct to pass, pointing into this data.
  EpilogueArgs epilogueArgs() const {
    return {bias.data(), residual.data(), ldr,
            reinterpret_cast<const float *>(scale.data()), zeroPoint};
  }
  /// GEMM leading dimensions in elements (0 for conv2d).
  int64_t lda = 0, ldb = 0, ldc = 0;
  /// The spec's rows() (GEMM m, conv2d batch): what a kernel of run-time
  /// rows (KernelSpec::runTimeRows) is called with.
  int64_t rows = 0;
  /// GEMM n and k, conv2d h and w (KernelSpec::callExtents): what a kernel
  /// of those extents at run time is called with.
  std::pair<int64_t, int64_t> callExtents;
  /// The spec `s` of a kernel at this data's extents.
  KernelSpec callOf(const KernelSpec &s) const {
    return s.withCall(rows, callExtents.first, callExtents.second);
  }
  /// Canary bytes in `output` before its first element (those after its
  /// last are the rest of `output`).
  int64_t guard = 0;
  /// Where every buffer here (and the packed one packWeights fills for it)
  /// sits: with Fence::After, `output` has no canaries after its last
  /// element, with Before none before its first (the fence page takes
  /// their place).
  Fence fence = Fence::None;
  /// How the reference reads bf16 denormals of the input and of the
  /// weights: as zero of their sign (vdpbf16ps, tdpbf16ps and Arm's
  /// bfdot/bfmmla without FEAT_EBF16 flush them), or as their values (plain
  /// vector code). Set it from the kernel (CompiledKernel::denormalsAreZero)
  /// before computeReference.
  std::array<bool, 2> denormalsAreZero = {true, true};
  /// Where the kernel writes its first output element.
  uint8_t *out() { return output.data() + guard; }
};

/// The byte every output buffer holds before a call: a kernel overwrites its
/// elements and nothing else.
constexpr uint8_t kOutputPoison = 0xa5;

/// Element `i` of a buffer of type `k` (a buffer index, not a logical one)
/// as a double (integers of up to 53 bits exactly); bf16 and f16 denormals
/// as zero of their sign when `denormalsAreZero`.
double loadElement(ElementType k, const uint8_t *v, int64_t i,
                   bool denormalsAreZero = false);
/// Integer element `i` of a buffer of type `k`, sign- or zero-extended.
int64_t loadInteger(ElementType k, const uint8_t *v, int64_t i);

/// With Layout::Padded, each row but the last is followed by its gap: a
/// caller's buffer holds (rows - 1) * ld + row elements.
KernelData makeData(const KernelSpec &spec, uint64_t seed, Fill fill,
                    Layout layout = Layout::Tight, Fence fence = Fence::None);
/// Sets every byte of `data.output` (elements, gaps, guards) to the poison.
void poisonOutput(KernelData &data);
/// data.expected = reference(input, weights).
void computeReference(const KernelSpec &spec, KernelData &data);
/// Output `o` (a logical index) of the reference computed on its own, as
/// `expected` holds it: what compareSampled checks against, and a second
/// reading of computeReference's loops.
ReferenceValue referenceAt(const KernelSpec &spec, const KernelData &data,
                           int64_t o);
/// Empty when `data.output` agrees with `data.expected` (integers bit for bit;
/// f32 within the K-derived bound, an infinity or NaN exactly in kind) and
/// its gaps and guards still hold the poison; otherwise the first mismatch
/// (index, values) and the number of mismatches, or the first byte written
/// outside the output.
std::string compareOutput(const KernelSpec &spec, const KernelData &data);
/// compareOutput against the reference computed at `samples` outputs drawn
/// from `seed` (every output when there are fewer), without `data.expected`:
/// for kernels whose whole reference would take far longer than their run.
std::string compareSampled(const KernelSpec &spec, const KernelData &data,
                           int64_t samples, uint64_t seed);

/// Calls the kernel on `data` through its plain entry, or through
/// pack + packed entries (with `packed` as the buffer) when `prepacked`.
/// How runKernel calls a kernel.
struct RunMode {
  /// Through the pre-packed entries (packing once into `packed` if it is
  /// empty) instead of the plain entry.
  bool prepacked = false;
  /// With prepacked: through `_packed_range` in this many consecutive ranges
  /// of the tiles, on `pool` when given (one range per part), else one after
  /// another. 0: the `_packed` entry.
  int64_t ranges = 0;
  ThreadPool *pool = nullptr;
  /// With a pool: all `ranges` parts however little work each holds (a
  /// check of concurrent ranges), instead of usefulParts().
  bool everyPart = false;
};

/// Multiply-accumulates below which another thread costs more than it saves.
/// A spinning pool thread starts a part in well under a microsecond; 2^17
/// MACs take about 0.6 us at one Zen 4 core's int8 peak. Measured on Zen 4:
/// 2 threads run 97x131x67 u8s8s32 in 2.9 us instead of 5.4, and the
/// 1x1024x1024 matvec in 5.7 us instead of 11.
constexpr int64_t kMinMacsPerThread = int64_t(1) << 17;
/// How many of `threads` parts are worth running `k` in: no more than its
/// tiles, and at least kMinMacsPerThread multiply-accumulates each.
/// `data` gives the rows of a kernel of run-time rows.
int64_t usefulParts(const CompiledKernel &k, const KernelData &data,
                    int64_t threads);
/// The tiles of `k`'s range entry for a call on `data`: NAME_tiles(), or
/// NAME_tiles(rows) with run-time rows.
int64_t rangeTiles(const CompiledKernel &k, const KernelData &data);

/// With mode.pool, the ranges are cut to usefulParts(); one part runs the
/// `_packed` entry on the calling thread.
void runKernel(const CompiledKernel &k, KernelData &data, const RunMode &mode,
               Bytes *packed = nullptr);
/// runKernel's call with the entries, operands and parts resolved once, for
/// callers that repeat it (timing): a 1x1x1 GEMM takes tens of nanoseconds,
/// as long as looking the entries up by name. `data`, `packed` and the pool
/// must outlive it; with mode.prepacked it packs into `packed` now when that
/// is empty.
std::function<void()> bindKernel(const CompiledKernel &k, KernelData &data,
                                 const RunMode &mode, Bytes &packed);
/// The data sets a kernel is checked on: random data in padded rows, and
/// extreme data in tight rows between guard bytes.
struct CheckInputs {
  Fill fill;
  Layout layout;
  Fence fence;
  const char *name;
};
llvm::ArrayRef<CheckInputs> checkInputs();

/// Runs the kernel on random data with padded leading dimensions and on
/// extreme data with tight ones (both from `seed`, outputs between guard
/// bytes) through its range, pre-packed and plain entries and compares each
/// result with the reference. Empty if all agree; otherwise which run differed
/// and how.
/// `runs` counts the runs that agreed. A kernel of run-time rows runs with
/// `rows` of them (its spec's rows() otherwise).
std::string checkKernel(const CompiledKernel &k, uint64_t seed, int &runs,
                        int64_t rows = 0);
/// The same for a kernel of run-time extents called as `call` (its spec
/// with the call's extents: KernelSpec::withCall).
std::string checkKernel(const CompiledKernel &k, uint64_t seed, int &runs,
                        const KernelSpec &call);
/// The values of `k`'s run-time extents `which` in a call on `data`, in the
/// order its entries take them.
std::vector<int64_t> runTimeArgs(const CompiledKernel &k,
                                 const KernelData &data,
                                 KernelSpec::Extents which =
                                     KernelSpec::Extents::All);

/// What a packed buffer holds before the pack: a pack must write every
/// byte the kernel reads (its padding too), since a caller's buffer holds
/// anything. 0xff is -1 or 255 as an integer and NaN as bf16, f16 or f32.
constexpr uint8_t kPackPoison = 0xff;
/// Guard bytes (kOutputPoison) after a packed buffer's NAME_packed_bytes.
constexpr int64_t kPackGuardBytes = 64;

/// The bytes `k`'s pack entry writes for a call on `data`
/// (NAME_packed_bytes, with the run-time extents it takes).
int64_t packedBytes(const CompiledKernel &k, const KernelData &data);
/// `k`'s pack entry called on `data`'s weights (or input, when the kernel
/// packs that) into `packed`, which must hold packedBytes(k, data); `data`
/// must outlive it.
std::function<void()> bindPack(const CompiledKernel &k, const KernelData &data,
                               void *packed);

/// Packs the weights once into `packed` (for the pre-packed entries):
/// its NAME_packed_bytes poisoned with kPackPoison first, followed by
/// kPackGuardBytes of guard (with data.fence After: by the fence page). Empty, or how the pack wrote past its bytes.
std::string packWeights(const CompiledKernel &k, const KernelData &data,
                        Bytes &packed);

} // namespace tisa

#endif // TISA_KERNELS_REFERENCE_H
