//===- Instruction.h - an instruction as a tisa.apply ------------*- C++ -*-===//
//
// What the code generator's emitters and the verifier's probe share: the
// instruction as a pure tisa.apply on register values, built from the
// description, and its lowering to the description's LLVM intrinsic.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_SEMANTICS_INSTRUCTION_H
#define TISA_SEMANTICS_INSTRUCTION_H

#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/Description.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace tisa {

/// The MLIR signature of `d`'s lowering intrinsic: one parameter per vector
/// register or AMX tile (with its shape parameters), and for a warp fragment
/// (one lane's elements, vector<perLane x T>) the consecutive parameters it
/// fills (mma's A: four vector<2xf16>); an mma returns a struct of D's parts.
/// Reports why not through `emitError`.
mlir::FailureOr<mlir::FunctionType>
loweringSignature(const Description &d, mlir::MLIRContext *ctx,
                  llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// tisa.apply of `d` on `registers` (one per register of `d`, in its
/// semantic order: vectors of the registers' types, or !llvm.x86_amx tiles)
/// with `signature` from loweringSignature; a tile's rows and bytes per row
/// become immediates.
ApplyOp buildApply(mlir::OpBuilder &b, mlir::Location loc,
                   const Description &d, mlir::FunctionType signature,
                   mlir::ValueRange registers);

/// Why `op` cannot become its intrinsic call (a register that does not
/// bitcast to its parameter), or "".
std::string whyNotLowered(ApplyOp op);

/// The intrinsic call `op` stands for, built before it: the registers in the
/// lowering's order, llvm.bitcast where types differ, immediates as
/// constants, the result bitcast back to the accumulator's type. Needs
/// whyNotLowered(op) to be empty.
mlir::Value lowerApply(mlir::OpBuilder &b, ApplyOp op);
/// The register-class interface the code generators and the probe share.
/// Register `r` read from memory at `ptr`: one vector load, or a tile load
/// of its rows, `rowBytes` (an i64; null: the tile's bytes per row) apart.
/// A vector register that holds a matrix segment of `rows` rows (NEON
/// mmla's A: 2 rows of 8 bytes; its C: 2 rows of 2 words) reads each row,
/// rowBytes apart, and joins them (canSegment must hold for its shape).
mlir::Value loadRegister(mlir::OpBuilder &b, mlir::Location loc,
                         const OperandRegister &r, mlir::Value ptr,
                         mlir::Value rowBytes = {}, int64_t rows = 1);
/// Register `r`'s value `v` written to memory at `ptr` (rows as for load).
void storeRegister(mlir::OpBuilder &b, mlir::Location loc,
                   const OperandRegister &r, mlir::Value ptr, mlir::Value v,
                   mlir::Value rowBytes = {}, int64_t rows = 1);
/// Vector registers `vs` of class `r`, each a matrix segment of `rows` rows,
/// side by side (the columns of vs[j + 1] follow those of vs[j] in memory),
/// written at `ptr` one joined row per store: two 2x2 s32 segments of NEON
/// smmla store as two 16-byte rows (zip1/zip2), not four 8-byte halves.
void storeSegments(mlir::OpBuilder &b, mlir::Location loc,
                   const OperandRegister &r, mlir::Value ptr,
                   mlir::ValueRange vs, mlir::Value rowBytes, int64_t rows);
/// `count` such segments side by side read from `ptr`, one load per row.
llvm::SmallVector<mlir::Value> loadSegments(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            const OperandRegister &r,
                                            mlir::Value ptr, int64_t count,
                                            mlir::Value rowBytes, int64_t rows);
/// Whether vector register `r` holds exactly a `rows` x `cols` matrix
/// segment (a fixed-length vector, a power of two of rows).
bool canSegment(const OperandRegister &r, int64_t rows, int64_t cols);
/// Register `r` holding zeros (a vector constant, or tilezero).
mlir::Value zeroRegister(mlir::OpBuilder &b, mlir::Location loc,
                         const OperandRegister &r);

/// An AMX tile register's rows and bytes per row (its shape immediates).
int64_t tileRows(const OperandRegister &r);
int64_t tileBytesPerRow(const OperandRegister &r);

} // namespace tisa

#endif // TISA_SEMANTICS_INSTRUCTION_H
