//===- TisaDialect.h - the tisa dialect -------------------------*- C++ -*-===//
#ifndef TISA_DIALECT_TISADIALECT_H
#define TISA_DIALECT_TISADIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tisa/Dialect/TisaDialect.h.inc"

#define GET_OP_CLASSES
#include "tisa/Dialect/TisaOps.h.inc"

namespace tisa {
/// Loop tags set by -tisa-tensorize and read by -tisa-register-tile, on
/// scf.for: the role of the loop ("parallel", "lanes" or "reduction") and the
/// register tile's unroll factor.
inline constexpr llvm::StringLiteral kLoopAttr = "tisa.loop";
inline constexpr llvm::StringLiteral kUnrollAttr = "tisa.unroll";
/// Set by -tisa-tensorize on the vector.load of one broadcast group whose
/// register the instruction takes by element, read by -tisa-by-element: the
/// number of groups in one register.
inline constexpr llvm::StringLiteral kByElementAttr = "tisa.by_element";
/// On a warp-level tisa.apply: the instruction's PTX mnemonic, from which the
/// host lowering of a GPU kernel (-tisa-gpu-to-host) runs it on the
/// warp-level reference.
inline constexpr llvm::StringLiteral kPtxAttr = "tisa.ptx";
/// Set by -tisa-select-plan (or by hand) on a linalg contraction and read by
/// -tisa-tensorize: the plan to apply (tisa::planKey: the instruction, its
/// loop mapping and operand accesses) and the schedule (Schedule::text()).
inline constexpr llvm::StringLiteral kPlanAttr = "tisa.plan";
inline constexpr llvm::StringLiteral kScheduleAttr = "tisa.schedule";
/// Set by -tisa-split-dynamic on the contraction of each static block it
/// makes: the loops whose extents only run time knew in the program. The
/// block is planned as that program was (its plan is looked up with those
/// extents dynamic), and generated with its own static extents.
inline constexpr llvm::StringLiteral kRunTimeLoopsAttr = "tisa.run_time_loops";
/// On a linalg contraction: pairs of a loop number and a block size. Each
/// such loop runs in static blocks of that many iterations, planned as a
/// loop of run-time extent (planKernel sets it: a convolution of run-time
/// image extents blocks its filters to fit the target's L2).
inline constexpr llvm::StringLiteral kLoopBlocksAttr = "tisa.loop_blocks";
} // namespace tisa

#endif // TISA_DIALECT_TISADIALECT_H
