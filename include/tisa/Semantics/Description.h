//===- Description.h - an instruction description, checked -----*- C++ -*-===//
//
// A description file holds one `func.func` whose body is a single
// `linalg.generic` (the semantics) and whose `tisa.instruction` attribute is
// the metadata block. `parseDescription` turns that pair into a `Description`,
// emitting a located diagnostic for every problem. The same function backs the
// dialect's attribute verifier, so there is exactly one schema.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_SEMANTICS_DESCRIPTION_H
#define TISA_SEMANTICS_DESCRIPTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/FloatingPointMode.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <array>
#include <optional>
#include <string>

namespace tisa {

/// Name of the metadata attribute on a description function.
inline constexpr llvm::StringLiteral kInstructionAttrName = "tisa.instruction";

/// Which machine a description targets; decides how its probe is compiled and
/// checked.
enum class TargetArch { X86_64, AArch64, NVPTX };
llvm::StringRef stringifyTargetArch(TargetArch arch);

/// How an operand sits in machine state.
enum class RegisterClass {
  /// A (possibly scalable) SIMD register: the register type is a 1-D vector.
  Vector,
  /// An AMX tile: the register type is rows x bytes-per-row, row-major.
  AMXTile,
  /// A warp-distributed fragment: the register type is lanes x
  /// elements-per-lane.
  WarpFragment,
};
llvm::StringRef stringifyRegisterClass(RegisterClass cls);

/// The register that holds one semantic operand.
struct OperandRegister {
  RegisterClass cls = RegisterClass::Vector;
  mlir::VectorType type;
  /// Semantic tensor index -> register index (one result per register
  /// dimension).
  mlir::AffineMap layout;
};

enum class Saturation { None, Signed, Unsigned };
enum class Rounding { NearestEven, Odd };
/// The order in which the products of one output element are combined with the
/// accumulator.
enum class Accumulation {
  /// acc = acc + p0, acc = acc + p1, ... in ascending reduction order.
  Sequential,
  /// The same, in descending reduction order (x86 VDPBF16PS: odd element
  /// first).
  Reverse,
  /// acc = acc + (p0 + p1), acc = acc + (p2 + p3), ... (Arm BFDOT/BFMMLA).
  Pairwise,
  /// The vendor leaves the order unspecified (PTX mma); evaluated as
  /// Sequential, and a relaxation
  /// for
  /// the matcher.
  Unordered,
  /// Two partial sums, over the even and over the odd elements of the innermost
  /// reduction
  /// dimension, each starting at +0 and updated by fused multiply-adds in
  /// ascending order; then
  /// acc + (even + odd) (Intel AMX TDPBF16PS/TDPFP16PS pseudocode).
  EvenOddFused,
};

struct FloatBehaviour {
  Accumulation accumulation = Accumulation::Sequential;
  Rounding rounding = Rounding::NearestEven;
  /// Per operand of the body (ins 0, ins 1, the accumulator): denormal values
  /// are read as zero (x86 DAZ, Arm FPCR.FZ). AMX TDPFP16PS keeps fp16 input
  /// denormals but reads a denormal fp32 accumulator as zero.
  std::array<bool, 3> denormalsAreZero = {false, false, false};
  bool anyDenormalsAreZero() const {
    return llvm::is_contained(denormalsAreZero, true);
  }
  /// Denormal results of every operation are flushed to zero.
  bool flushOutputDenormals = false;
  /// Every NaN result is the default NaN (Arm FPCR.DN); otherwise NaNs
  /// propagate.
  bool defaultNaN = false;
};

/// Which operands read denormals as zero, as text: "accumulator", "ins 0 and
/// ins 1", "ins 0, ins 1 and accumulator"; empty when none does.
std::string denormalsAreZeroText(const FloatBehaviour &fp);

/// One argument of the lowering intrinsic: a semantic operand's register, or a
/// shape immediate taken from an operand's register geometry (AMX tile rows and
/// bytes per row, as i16).
struct LoweringArg {
  enum Kind { Operand, Rows, ColsBytes } kind = Operand;
  unsigned operand = 0;
};

struct Lowering {
  std::string intrinsic;
  llvm::SmallVector<LoweringArg> args;
  /// The input register the instruction can take as one group of another
  /// register (its by-element form, `sdot v0.4s, v1.16b, v2.4b[3]`): a
  /// broadcast into it is then loaded once per register of groups instead
  /// of once per group. A performance hint: the values are the same.
  std::optional<unsigned> byElement;
};

/// Hardware shape limits (AMX: at most 16 rows of 64 bytes per tile).
struct ShapeBounds {
  unsigned rows = 0;
  unsigned bytesPerRow = 0;
};

/// The arithmetic of the body, as the matcher and evaluator read it:
///   acc' = acc + ext3(mul(ext1(a), ext2(b)))   (or the saturating/float
///   variants)
struct MulAcc {
  enum class Ext { None, Sign, Zero, Float };
  /// A float factor read in a narrower format than its register holds, before
  /// it is widened for the multiplication: `arith.truncf %x toward_zero : f32
  /// to tf32` then `arith.extf` (tf32 values held in f32 registers).
  struct Narrowing {
    mlir::FloatType type;
    llvm::RoundingMode rounding = llvm::RoundingMode::NearestTiesToEven;
    bool operator==(const Narrowing &o) const {
      return type == o.type && rounding == o.rounding;
    }
    bool operator!=(const Narrowing &o) const { return !(*this == o); }
  };
  /// Index of the `ins` operands that feed the multiplication's left and right
  /// sides.
  unsigned lhsInput = 0, rhsInput = 1;
  Ext lhsExt = Ext::None, rhsExt = Ext::None, productExt = Ext::None;
  mlir::Type lhsType, rhsType; ///< element types of the inputs
  std::optional<Narrowing> lhsNarrowing, rhsNarrowing;
  mlir::Type mulType;          ///< type of the multiplication
  mlir::Type accType;          ///< type of the accumulator / result
  bool isFloat = false;
};

/// A verified instruction description.
struct Description {
  std::string name;
  std::string path; ///< file it was loaded from ("" when built in memory)
  TargetArch target = TargetArch::X86_64;
  llvm::SmallVector<std::string> features;
  std::string extension; ///< human-readable feature family, e.g. "AVX512_VNNI"
  std::string mnemonic; ///< what the emitted code must contain (asm mnemonic or
                        ///< PTX opcode)
  std::string reference; ///< vendor manual section
  llvm::SmallVector<OperandRegister>
      registers; ///< one per semantic operand (function argument)
  Saturation saturation = Saturation::None;
  std::optional<FloatBehaviour> fp;
  Lowering lowering;
  std::optional<ShapeBounds> bounds;
  std::string config; ///< configuration state the instruction needs ("" or
                      ///< "amx-palette1")
  MulAcc mulAcc;

  mutable mlir::func::FuncOp
      func; // op handles are value types with non-const accessors
  mutable mlir::linalg::GenericOp body;
  mlir::Location loc;

  explicit Description(mlir::Location loc) : loc(loc) {}

  /// Operand index of the accumulator (the generic's single `outs` operand).
  unsigned accumulatorOperand() const { return registers.size() - 1; }
  /// Semantic shape of operand `i` (one segment for scalable registers).
  llvm::ArrayRef<int64_t> operandShape(unsigned i) const;
  mlir::Type operandElementType(unsigned i) const;
  /// True when the registers are scalable: the semantics describe one 128-bit
  /// segment and the instruction applies them to every segment of the vector.
  bool isScalable() const;
  /// Comma-separated LLVM feature string ("+avx512f,+avx512vnni").
  std::string featureString() const;
};

/// Checks the metadata block and semantics of `func`, emitting located
/// diagnostics; returns the description or failure.
mlir::FailureOr<Description> parseDescription(mlir::func::FuncOp func);

/// Why a body is not a multiply-accumulate: the operation to blame and what
/// is wrong with it.
struct NotMulAcc {
  mlir::Operation *at = nullptr;
  std::string why;
};

/// The arithmetic of a linalg operation's body (generic or named), or, in
/// `reason`, why it is not a multiply-accumulate (shared with the matcher, so
/// descriptions and programs are read the same way). Emits no diagnostic, so
/// passes may read bodies on several threads.
mlir::FailureOr<MulAcc> readMulAcc(mlir::linalg::LinalgOp op,
                                   NotMulAcc &reason);

/// Refuses overflow flags (nsw, nuw) and fast-math flags in a description's
/// semantics, at the op that carries them (semantics/ArithmeticFlags.cpp).
mlir::LogicalResult refuseUndefinedArithmetic(mlir::linalg::GenericOp generic);

} // namespace tisa

#endif // TISA_SEMANTICS_DESCRIPTION_H
