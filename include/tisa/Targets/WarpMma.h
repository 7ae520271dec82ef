//===- WarpMma.h - CPU reference of PTX mma.sync fragments ------*- C++ -*-===//
//
// A warp-level CPU reference of NVIDIA `mma.sync.aligned` for the shapes tisa
// describes, written from the PTX ISA fragment tables ("Matrix Fragments for
// mma.m16n8k16 with floating point type" and "Matrix Fragments for
// mma.m16n8k32"). It lets instruction descriptions be checked without a GPU:
// the reference takes the 32 lanes' register fragments, unpacks them to
// matrices with the PTX tables, computes D = A * B + C and packs D back into
// per-lane fragments.
//
// Floating-point model (PTX leaves accumulation order, rounding and subnormal
// handling unspecified; this is the project's documented model, not a claim
// about the hardware): each product is computed in fp32 and rounded to nearest
// even (exact for f16 x f16, and for bf16 x bf16 unless it over- or
// underflows fp32); D[m][n] starts from C[m][n] and adds the products in
// ascending k, each add in fp32 rounded to nearest even; subnormals are kept,
// never flushed. Integer (.s8 x .s8 -> .s32, no .satfinite): exact products,
// sums wrap modulo 2^32.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_WARPMMA_H
#define TISA_TARGETS_WARPMMA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace tisa {
namespace nvptx {

/// Lanes in a warp; every lane holds a fragment of every operand.
constexpr unsigned kWarpSize = 32;

/// The `mma.sync.aligned` forms the reference models (all `.row.col`).
enum class MmaShape {
  /// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
  M16N8K16_F16_F32,
  /// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  M16N8K16_BF16_F32,
  /// mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
  M16N8K32_S8_S32,
};

/// Matrix dimensions: A is m x k, B is k x n, C and D are m x n.
struct MmaDims {
  unsigned m, n, k;
};
MmaDims mmaDims(MmaShape shape);

/// Elements per lane of each fragment, e.g. f16 A: 8 halves (4 x .f16x2 regs),
/// B: 4, C/D: 4 floats; s8 A: 16 bytes (4 x .b32), B: 8, C/D: 4.
struct FragmentSizes {
  unsigned a, b, c;
};
FragmentSizes fragmentSizes(MmaShape shape);

/// Bits of one element of A and B (16 for f16/bf16, 8 for s8); C and D
/// elements are always 32 bits (.f32 or .s32).
unsigned multiplicandBits(MmaShape shape);

/// The full PTX mnemonic, e.g.
/// "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32".
llvm::StringRef ptxMnemonic(MmaShape shape);

/// Computes the warp's D = A * B + C.
///
/// Fragments hold raw element bits zero-extended to uint32_t, lane-major:
/// element i of lane l is at [l * perLane + i], where element i is the PTX
/// table's a_i / b_i / c_i. In registers the elements are packed low to high,
/// so element i of A lives in register i / (32 / multiplicandBits) at bit
/// offset (i % (32 / multiplicandBits)) * multiplicandBits. Bits above the
/// element width are ignored. The result is D's fragment in the layout of C:
/// fp32 bit patterns or two's-complement s32.
///
/// Precondition: a.size() == 32 * fragmentSizes(shape).a, likewise b and c;
/// otherwise asserts (returns an empty vector when assertions are off).
std::vector<uint32_t> warpMma(MmaShape shape, llvm::ArrayRef<uint32_t> a,
                              llvm::ArrayRef<uint32_t> b,
                              llvm::ArrayRef<uint32_t> c);

/// (row, col) in the operand's matrix of element i of lane `lane`, for
/// `which` = 'a' (m x k), 'b' (k x n) or 'c' (m x n, also D), as given by the
/// PTX fragment tables. Exposed so tests can check that each table is a
/// bijection onto its matrix.
std::pair<unsigned, unsigned> fragmentCoord(MmaShape shape, char which,
                                            unsigned lane, unsigned i);

} // namespace nvptx
} // namespace tisa

#endif // TISA_TARGETS_WARPMMA_H
