//===- WarpMma.h - CPU reference of PTX mma.sync fragments ------*- C++ -*-===//
//
// A warp-level CPU reference of NVIDIA `mma.sync.aligned ... .row.col`, for
// every form of the PTX ISA whose fragments follow the ISA's regular rules:
// m16n8k{4,8,16,32,64} and m8n8k{16,32} with .f16/.bf16/.tf32 (f32
// accumulators) and .s8/.u8/.s4/.u4 (s32 accumulators, optionally
// .satfinite), and .f64. It is written from the ISA's fragment figures
// ("Matrix Fragments for mma.m16n8k4/k8/k16/k32/k64" and "for mma.m8n8k16/
// k32"), which all follow one rule per operand (groupID g = lane / 4,
// threadID_in_group t = lane % 4, p = elements per 32-bit register, at least
// 1; element i of a lane is element j = i % p of register r = i / p):
//   A (m x k): row g + 8 * (r % 2),   column p * t + j + 4p * (r / 2)
//   B (k x n): row p * t + j + 4p * r, column g
//   C, D (m x n): row g + 8 * (i / 2), column 2t + i % 2
// (an m8 A has one register row, so r % 2 is always 0 there). The m8n8k4 f16
// form of sm_70, whose quad-pair layout is different, and forms with f16
// accumulators are refused.
//
// It lets instruction descriptions be checked without a GPU: `tisa isa verify`
// packs random operands into the 32 lanes' fragments through the
// description's own layout maps, runs this reference on them and compares
// with the description's semantics, so a description whose layout disagrees
// with the ISA fails, for any shape.
//
// Floating-point model (PTX leaves accumulation order, rounding and subnormal
// handling unspecified; this is the project's documented model, not a claim
// about the hardware): .tf32 multiplicands are the top 19 bits of their
// 32-bit register (the low 13 bits are ignored, i.e. truncated toward zero;
// a NaN stays a NaN); each product is computed in
// the accumulator's format and rounded to nearest even (exact for f16, tf32,
// and bf16 unless it over- or underflows fp32); D[m][n] starts from C[m][n]
// and adds the products in ascending k, each add rounded to nearest even;
// subnormals are kept, never flushed. Integers: exact products; sums wrap
// modulo 2^32, or with .satfinite the exact sum is clamped to the s32 range.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_WARPMMA_H
#define TISA_TARGETS_WARPMMA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tisa {
namespace nvptx {

/// Lanes in a warp; every lane holds a fragment of every operand.
constexpr unsigned kWarpSize = 32;

/// Element types of mma operands, as PTX spells them (".s8", ".tf32", ...).
enum class PtxType { S4, U4, S8, U8, S32, F16, BF16, TF32, F32, F64 };

/// Bits of one element in its register: 4, 8, 16, 32 (tf32 too) or 64.
unsigned registerBits(PtxType t);
bool isFloat(PtxType t);
bool isSigned(PtxType t);
llvm::StringRef ptxName(PtxType t); ///< "s8", "tf32", ...

/// One `mma.sync.aligned.mMnNkK.row.col[.satfinite].D.A.B.C` form.
struct MmaForm {
  unsigned m = 0, n = 0, k = 0;
  PtxType d = PtxType::F32, a = PtxType::F16, b = PtxType::F16,
          c = PtxType::F32;
  bool satfinite = false;

  /// The full PTX mnemonic, e.g.
  /// "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32".
  std::string mnemonic() const;
};

/// Parses a PTX mnemonic into a form the reference models; an error names
/// what is not a PTX mma.sync form or not modelled.
llvm::Expected<MmaForm> parseMma(llvm::StringRef mnemonic);

/// Elements per lane of each fragment, e.g. m16n8k16 f16 A: 8 halves (4 x
/// .f16x2 registers), B: 4, C/D: 4 floats; m16n8k32 s8 A: 16 bytes (4 x
/// .b32), B: 8, C/D: 4.
struct FragmentSizes {
  unsigned a, b, c;
};
FragmentSizes fragmentSizes(const MmaForm &form);

/// (row, col) in the operand's matrix of element i of lane `lane`, for
/// `which` = 'a' (m x k), 'b' (k x n) or 'c' (m x n, also D), by the PTX
/// fragment rules above.
std::pair<unsigned, unsigned> fragmentCoord(const MmaForm &form, char which,
                                            unsigned lane, unsigned i);

/// Computes the warp's D = A * B + C.
///
/// Fragments hold raw element bits zero-extended to uint64_t, lane-major:
/// element i of lane l is at [l * perLane + i], where element i is the PTX
/// figure's a_i / b_i / c_i. Bits above the element width are ignored. The
/// result is D's fragment in the layout of C.
///
/// Precondition: a.size() == 32 * fragmentSizes(form).a, likewise b and c;
/// otherwise asserts (returns an empty vector when assertions are off).
std::vector<uint64_t> warpMma(const MmaForm &form, llvm::ArrayRef<uint64_t> a,
                              llvm::ArrayRef<uint64_t> b,
                              llvm::ArrayRef<uint64_t> c);

/// The functions host-lowered GPU kernels call that a JIT must be given
/// (tisa_emulate_mma, and the f32 -> bf16 truncation x86 code generation
/// calls where the CPU has no bf16 conversion).
std::vector<std::pair<llvm::StringRef, void *>> hostRuntimeSymbols();

/// A form as one integer (for generated code that calls the reference) and
/// back.
int64_t encodeMma(const MmaForm &form);
MmaForm decodeMma(int64_t code);

} // namespace nvptx
} // namespace tisa

/// The warp-level reference as generated host code calls it (the host
/// lowering of a GPU kernel, -tisa-gpu-to-host): D = A * B + C for one warp of
/// the form encodeMma gave `form`; each fragment is the 32 lanes' elements
/// packed lane-major at their register width (4 bytes for tf32).
extern "C" void tisa_emulate_mma(int64_t form, const void *a, const void *b,
                                 const void *c, void *d);

#endif // TISA_TARGETS_WARPMMA_H
