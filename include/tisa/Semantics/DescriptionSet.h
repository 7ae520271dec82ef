//===- DescriptionSet.h - load descriptions from disk -----------*- C++ -*-===//
//
// Descriptions are loaded at run time (no rebuild): from every `--isa-dir`, the
// directories in TISA_ISA_PATH, and the installed directory. Each file holds
// exactly one instruction; names are unique across the whole set.
//
//===----------------------------------------------------------------------===//
#ifndef TISA_SEMANTICS_DESCRIPTIONSET_H
#define TISA_SEMANTICS_DESCRIPTIONSET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "tisa/Semantics/Description.h"
#include "llvm/Support/SourceMgr.h"
#include <memory>
#include <vector>

namespace mlir {
class SourceMgrDiagnosticHandler;
}

namespace tisa {

/// Registers what a description file may contain (func, linalg, arith, tensor
/// and tisa).
void registerDescriptionDialects(mlir::DialectRegistry &registry);

class DescriptionSet {
public:
  /// Diagnostics go to `errs` as file:line:col: error: ... with the source
  /// line.
  DescriptionSet(mlir::MLIRContext &ctx, llvm::raw_ostream &errs);
  ~DescriptionSet();

  /// Loads one file: fails (after reporting) on a syntax error, a schema error,
  /// a file holding no or several descriptions, or a name already loaded.
  mlir::LogicalResult loadFile(llvm::StringRef path);
  /// Loads a description from `text`, named `name` in diagnostics (the
  /// fuzzer's entry; files go through loadFile).
  mlir::LogicalResult loadBuffer(llvm::StringRef text, llvm::StringRef name);
  /// Loads every *.mlir below `dir` in sorted order; keeps going after a bad
  /// file and fails if any file failed.
  mlir::LogicalResult loadDirectory(llvm::StringRef dir);

  llvm::ArrayRef<std::unique_ptr<Description>> descriptions() const {
    return loaded;
  }
  const Description *lookup(llvm::StringRef name) const;
  /// Stops reporting the context's diagnostics to `errs` (the set installs a
  /// handler for loading). A pass calls this once its descriptions are
  /// loaded, so that its own diagnostics reach the pipeline's handler
  /// (-verify-diagnostics, the driver's).
  void releaseDiagnostics() { handler.reset(); }

private:
  /// Checks a parsed module's one description and keeps both.
  mlir::LogicalResult adopt(mlir::OwningOpRef<mlir::ModuleOp> module,
                            llvm::StringRef path);

  mlir::MLIRContext &ctx;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  std::vector<std::unique_ptr<Description>> loaded;
};

/// `relative` under the prefix of the binary that holds tisa's code
/// (PREFIX/lib/libtisa.so or PREFIX/bin/PROGRAM -> PREFIX/relative), whether
/// or not it exists; "" when that binary is unknown.
std::string installedPath(llvm::StringRef relative);

/// Where tisa's shipped data directory `sub` of share/tisa is
/// ("isa-descriptions", "targets"): beside the binary that holds tisa's code
/// (PREFIX/lib/libtisa.so, PREFIX/lib/TisaPlugin.so or PREFIX/bin/PROGRAM ->
/// PREFIX/share/tisa/SUB, so an install to any prefix finds its own data),
/// else in the prefix tisa was configured with, else in the source tree
/// (`source`); "" when none exists.
std::string shippedDataDir(llvm::StringRef sub, llvm::StringRef configured,
                           llvm::StringRef source);

/// Directories searched for descriptions, in order: `extraDirs`, then
/// TISA_ISA_PATH (':'-separated), then the shipped ones (shippedDataDir).
std::vector<std::string> isaSearchPath(llvm::ArrayRef<std::string> extraDirs);

/// The error for a search that found no description at all: where it
/// looked, and how to point it at an installed tree.
std::string noDescriptionsFound(llvm::ArrayRef<std::string> extraDirs);

/// Every description of isaSearchPath(extraDirs), loaded into a context of
/// their own: what a program that generates kernels outside a pass (a
/// benchmark, a test) needs.
struct LoadedDescriptions {
  explicit LoadedDescriptions(llvm::ArrayRef<std::string> extraDirs = {});
  mlir::MLIRContext ctx;
  /// The diagnostics of the files that failed to load.
  std::string errors;
  std::vector<const Description *> all;
  /// False when a file failed to load (`errors` says which and why).
  bool ok = true;

private:
  llvm::raw_string_ostream errorStream{errors};
  DescriptionSet set{ctx, errorStream};
};

} // namespace tisa

#endif // TISA_SEMANTICS_DESCRIPTIONSET_H
