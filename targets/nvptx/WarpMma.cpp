//===- WarpMma.cpp - CPU reference of PTX mma.sync fragments --------------===//
//
// Fragment layouts come from the PTX ISA, section "Warp Level Matrix Multiply-
// Accumulate Instructions", subsections "Matrix Fragments for mma.m16n8k16
// with floating point type" and "Matrix Fragments for mma.m16n8k32" (the .s8 /
// .u8 tables). Both use
//   groupID           = %laneid >> 2
//   threadID_in_group = %laneid % 4
//
// This file must be compiled with -ffp-contract=off (set in CMakeLists.txt):
// the model rounds every product and every add separately, and a fused
// multiply-add would skip a rounding.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/WarpMma.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/ErrorHandling.h"

#include <cassert>

using namespace llvm;

namespace tisa {
namespace nvptx {

MmaDims mmaDims(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
  case MmaShape::M16N8K16_BF16_F32:
    return {16, 8, 16};
  case MmaShape::M16N8K32_S8_S32:
    return {16, 8, 32};
  }
  llvm_unreachable("unknown MmaShape");
}

FragmentSizes fragmentSizes(MmaShape shape) {
  switch (shape) {
  // A: four .f16x2 registers (a0..a7); B: two .f16x2 registers (b0..b3);
  // C/D: four .f32 registers (c0..c3).
  case MmaShape::M16N8K16_F16_F32:
  case MmaShape::M16N8K16_BF16_F32:
    return {8, 4, 4};
  // A: four .b32 registers of four .s8 (a0..a15); B: two .b32 registers of
  // four .s8 (b0..b7); C/D: four .s32 registers (c0..c3).
  case MmaShape::M16N8K32_S8_S32:
    return {16, 8, 4};
  }
  llvm_unreachable("unknown MmaShape");
}

unsigned multiplicandBits(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
  case MmaShape::M16N8K16_BF16_F32:
    return 16;
  case MmaShape::M16N8K32_S8_S32:
    return 8;
  }
  llvm_unreachable("unknown MmaShape");
}

StringRef ptxMnemonic(MmaShape shape) {
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
    return "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  case MmaShape::M16N8K16_BF16_F32:
    return "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
  case MmaShape::M16N8K32_S8_S32:
    return "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
  }
  llvm_unreachable("unknown MmaShape");
}

namespace {

using Coord = std::pair<unsigned, unsigned>;

/// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"
/// (.f16 / .bf16 multiplicands, .f32 accumulators).
Coord coordM16N8K16Float(char which, unsigned groupID, unsigned threadIDInGroup,
                         unsigned i) {
  switch (which) {
  case 'a': {
    // Multiplicand A, a0..a7 (four .f16x2 registers):
    //   row = groupID      for ai where 0 <= i < 2 || 4 <= i < 6
    //         groupID + 8  Otherwise
    //   col = (threadID_in_group * 2) + (i & 0x1)      for ai where i <  4
    //         (threadID_in_group * 2) + (i & 0x1) + 8  for ai where i >= 4
    assert(i < 8 && "f16/bf16 A fragment has 8 elements");
    unsigned row = (i < 2 || (i >= 4 && i < 6)) ? groupID : groupID + 8;
    unsigned col = threadIDInGroup * 2 + (i & 0x1) + (i < 4 ? 0 : 8);
    return {row, col};
  }
  case 'b': {
    // Multiplicand B, b0..b3 (two .f16x2 registers):
    //   row = (threadID_in_group * 2) + (i & 0x1)      for bi where i <  2
    //         (threadID_in_group * 2) + (i & 0x1) + 8  for bi where i >= 2
    //   col = groupID
    assert(i < 4 && "f16/bf16 B fragment has 4 elements");
    unsigned row = threadIDInGroup * 2 + (i & 0x1) + (i < 2 ? 0 : 8);
    return {row, groupID};
  }
  case 'c':
  case 'd': {
    // Accumulators C or D, c0..c3 (four .f32 registers):
    //   row = groupID      for ci where i <  2
    //         groupID + 8  for ci where i >= 2
    //   col = (threadID_in_group * 2) + (i & 0x1)  for ci where i = {0,..,3}
    assert(i < 4 && "f32 C/D fragment has 4 elements");
    unsigned row = i < 2 ? groupID : groupID + 8;
    return {row, threadIDInGroup * 2 + (i & 0x1)};
  }
  }
  llvm_unreachable("fragment must be 'a', 'b', 'c' or 'd'");
}

/// PTX ISA, "Matrix Fragments for mma.m16n8k32", the .s8 / .u8 tables (.s32
/// accumulators).
Coord coordM16N8K32Int8(char which, unsigned groupID, unsigned threadIDInGroup,
                        unsigned i) {
  switch (which) {
  case 'a': {
    // Multiplicand A, a0..a15 (four .b32 registers of four .s8 each):
    //   row = groupID      for ai where 0 <= i < 4 || 8 <= i < 12
    //         groupID + 8  otherwise
    //   col = (threadID_in_group * 4) + (i & 0x3)       for ai where i < 8
    //         (threadID_in_group * 4) + (i & 0x3) + 16  for ai where i >= 8
    assert(i < 16 && "s8 A fragment has 16 elements");
    unsigned row = (i < 4 || (i >= 8 && i < 12)) ? groupID : groupID + 8;
    unsigned col = threadIDInGroup * 4 + (i & 0x3) + (i < 8 ? 0 : 16);
    return {row, col};
  }
  case 'b': {
    // Multiplicand B, b0..b7 (two .b32 registers of four .s8 each):
    //   row = (threadID_in_group * 4) + (i & 0x3)       for bi where i < 4
    //         (threadID_in_group * 4) + (i & 0x3) + 16  for bi where i >= 4
    //   col = groupID
    assert(i < 8 && "s8 B fragment has 8 elements");
    unsigned row = threadIDInGroup * 4 + (i & 0x3) + (i < 4 ? 0 : 16);
    return {row, groupID};
  }
  case 'c':
  case 'd': {
    // Accumulators C or D, c0..c3 (four .s32 registers):
    //   row = groupID      for ci where i <  2
    //         groupID + 8  for ci where i >= 2
    //   col = (threadID_in_group * 2) + (i & 0x1)  for ci where i = {0,..,3}
    assert(i < 4 && "s32 C/D fragment has 4 elements");
    unsigned row = i < 2 ? groupID : groupID + 8;
    return {row, threadIDInGroup * 2 + (i & 0x1)};
  }
  }
  llvm_unreachable("fragment must be 'a', 'b', 'c' or 'd'");
}

/// IEEE binary16 bits to the binary32 bits of the same value (always exact).
/// NaN payloads are kept in the top mantissa bits, so a NaN stays a NaN.
uint32_t f16BitsToF32Bits(uint32_t h) {
  uint32_t sign = (h >> 15) & 0x1;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) // inf or NaN
    return (sign << 31) | (0xffu << 23) | (mantissa << 13);
  if (exponent != 0) // normal: rebias 15 -> 127
    return (sign << 31) | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  if (mantissa == 0) // signed zero
    return sign << 31;
  // Subnormal mantissa * 2^-24: normalise, fp32 has the range to keep it.
  int unbiased = -14;
  while (!(mantissa & 0x400)) {
    mantissa <<= 1;
    --unbiased;
  }
  mantissa &= 0x3ff;
  return (sign << 31) | (uint32_t(unbiased + 127) << 23) | (mantissa << 13);
}

/// bfloat16 is the top half of a binary32.
uint32_t bf16BitsToF32Bits(uint32_t h) { return (h & 0xffff) << 16; }

/// Row-major matrices of raw element bits.
struct Matrices {
  std::vector<uint32_t> a, b, c;
};

/// Scatters one operand's fragments into its row-major matrix.
void unpack(MmaShape shape, char which, ArrayRef<uint32_t> fragment,
            unsigned perLane, unsigned cols, uint32_t elementMask,
            std::vector<uint32_t> &matrix) {
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < perLane; ++i) {
      auto [row, col] = fragmentCoord(shape, which, lane, i);
      matrix[row * cols + col] = fragment[lane * perLane + i] & elementMask;
    }
}

/// D = A * B + C under the project's floating-point model (see WarpMma.h):
/// PTX says "the accumulation order, rounding and handling of subnormal inputs
/// is unspecified"; tisa models it as fp32 products, then fp32 adds in
/// ascending k starting from C, each rounded to nearest even, no flushing.
/// Products of two f16 values (11-bit significands, exponents >= -24) are
/// exact in fp32; bf16 products are exact unless they leave fp32's range.
std::vector<uint32_t> matmulFloat(const Matrices &mats, MmaDims dims,
                                  uint32_t (*toF32Bits)(uint32_t)) {
  std::vector<uint32_t> d(dims.m * dims.n);
  for (unsigned m = 0; m < dims.m; ++m)
    for (unsigned n = 0; n < dims.n; ++n) {
      float acc = bit_cast<float>(mats.c[m * dims.n + n]);
      for (unsigned k = 0; k < dims.k; ++k) {
        float x = bit_cast<float>(toF32Bits(mats.a[m * dims.k + k]));
        float y = bit_cast<float>(toF32Bits(mats.b[k * dims.n + n]));
        // Separate statements and -ffp-contract=off: two roundings, no FMA.
        float product = x * y;
        acc = acc + product;
      }
      d[m * dims.n + n] = bit_cast<uint32_t>(acc);
    }
  return d;
}

/// D = A * B + C for .s8 x .s8 -> .s32 without .satfinite: each product is
/// exact (|p| <= 2^14) and the sum wraps modulo 2^32, done in uint32_t to stay
/// clear of signed overflow.
std::vector<uint32_t> matmulS8(const Matrices &mats, MmaDims dims) {
  std::vector<uint32_t> d(dims.m * dims.n);
  for (unsigned m = 0; m < dims.m; ++m)
    for (unsigned n = 0; n < dims.n; ++n) {
      uint32_t acc = mats.c[m * dims.n + n];
      for (unsigned k = 0; k < dims.k; ++k) {
        int32_t x = static_cast<int8_t>(mats.a[m * dims.k + k]);
        int32_t y = static_cast<int8_t>(mats.b[k * dims.n + n]);
        acc += static_cast<uint32_t>(x * y);
      }
      d[m * dims.n + n] = acc;
    }
  return d;
}

} // namespace

std::pair<unsigned, unsigned> fragmentCoord(MmaShape shape, char which,
                                            unsigned lane, unsigned i) {
  assert(lane < kWarpSize && "lane out of range");
  unsigned groupID = lane >> 2;
  unsigned threadIDInGroup = lane % 4;
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
  case MmaShape::M16N8K16_BF16_F32:
    return coordM16N8K16Float(which, groupID, threadIDInGroup, i);
  case MmaShape::M16N8K32_S8_S32:
    return coordM16N8K32Int8(which, groupID, threadIDInGroup, i);
  }
  llvm_unreachable("unknown MmaShape");
}

std::vector<uint32_t> warpMma(MmaShape shape, ArrayRef<uint32_t> a,
                              ArrayRef<uint32_t> b, ArrayRef<uint32_t> c) {
  FragmentSizes sizes = fragmentSizes(shape);
  if (a.size() != kWarpSize * sizes.a || b.size() != kWarpSize * sizes.b ||
      c.size() != kWarpSize * sizes.c) {
    assert(false && "fragment sizes do not match the mma shape");
    return {};
  }
  MmaDims dims = mmaDims(shape);
  uint32_t elementMask = (uint32_t(1) << multiplicandBits(shape)) - 1;

  Matrices mats;
  mats.a.resize(dims.m * dims.k);
  mats.b.resize(dims.k * dims.n);
  mats.c.resize(dims.m * dims.n);
  unpack(shape, 'a', a, sizes.a, dims.k, elementMask, mats.a);
  unpack(shape, 'b', b, sizes.b, dims.n, elementMask, mats.b);
  unpack(shape, 'c', c, sizes.c, dims.n, ~uint32_t(0), mats.c);

  std::vector<uint32_t> d;
  switch (shape) {
  case MmaShape::M16N8K16_F16_F32:
    d = matmulFloat(mats, dims, f16BitsToF32Bits);
    break;
  case MmaShape::M16N8K16_BF16_F32:
    d = matmulFloat(mats, dims, bf16BitsToF32Bits);
    break;
  case MmaShape::M16N8K32_S8_S32:
    d = matmulS8(mats, dims);
    break;
  }

  // D has C's fragment layout.
  std::vector<uint32_t> result(kWarpSize * sizes.c);
  for (unsigned lane = 0; lane < kWarpSize; ++lane)
    for (unsigned i = 0; i < sizes.c; ++i) {
      auto [row, col] = fragmentCoord(shape, 'c', lane, i);
      result[lane * sizes.c + i] = d[row * dims.n + col];
    }
  return result;
}

} // namespace nvptx
} // namespace tisa
