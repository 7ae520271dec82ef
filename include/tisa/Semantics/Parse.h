//===- Parse.h - parsing user files without crashing -------------*- C++ -*-===//
//
// MLIR 22's parser crashes on some malformed inputs instead of reporting them
// (a named linalg op whose properties are not a dictionary,
// `linalg.matmul <1> ins(...)`, segfaults in linalg's parser; mlir-opt-22 does
// the same). Everything tisa parses from a user goes through parseModule, so
// such a crash becomes an error naming the file.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_SEMANTICS_PARSE_H
#define TISA_SEMANTICS_PARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/SourceMgr.h"

namespace tisa {

/// Runs `fn`; a crash inside it (a signal such as SIGSEGV, or an LLVM fatal
/// error routed to llvm::sys::Process::Exit by the caller's handler) returns
/// false instead of ending the process. One at a time: the crash recovery
/// context's signal handlers are process-wide and enabled only around `fn`.
/// What `fn` allocated before crashing is leaked; state it was changing may be
/// inconsistent, so callers report the failure and stop using that state.
bool runRecoveringCrashes(llvm::function_ref<void()> fn);

/// parseSourceFile<ModuleOp>(sm, config) on the source manager's main buffer,
/// with a crash of MLIR's parser reported as an error at the buffer's name
/// (through the context's diagnostic handler) and a null result. After such
/// a crash MLIR's state may be inconsistent: every later call refuses with an
/// error. The module is verified (when `config` asks) after the recovery
/// context, which covers the calling thread only. The context's signal
/// handlers are switched on and off around each parse, process-wide (a host
/// that keeps LLVM's crash recovery on itself finds it off afterwards).
mlir::OwningOpRef<mlir::ModuleOp> parseModule(llvm::SourceMgr &sm,
                                              const mlir::ParserConfig &config);

/// Whether MLIR's parser has crashed in this process (parseModule refuses
/// since).
bool parserCrashed();
/// Lets parseModule parse again after a crash. Only for a caller that never
/// touches the crashed parse's context again (the fuzzers, which leak it and
/// make a new one); other state MLIR keeps outside a context is assumed sound.
void forgetParserCrash();

} // namespace tisa

#endif // TISA_SEMANTICS_PARSE_H
