//===- DescriptionSet.cpp - load descriptions from disk -------------------===//

#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Config.h"
#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/Parse.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <algorithm>
#include <dlfcn.h>

using namespace mlir;

namespace tisa {

void registerDescriptionDialects(DialectRegistry &registry) {
  // LLVM: a lowering's signature is in LLVM types (loweringSignature), and
  // planning resolves it inside passes, where loading a dialect while other
  // threads print types would race.
  registry.insert<TisaDialect, func::FuncDialect, linalg::LinalgDialect,
                  arith::ArithDialect, tensor::TensorDialect,
                  LLVM::LLVMDialect>();
}

DescriptionSet::DescriptionSet(MLIRContext &ctx, llvm::raw_ostream &errs)
    : ctx(ctx), handler(std::make_unique<SourceMgrDiagnosticHandler>(
                    sourceMgr, &ctx, errs)) {
  DialectRegistry registry;
  registerDescriptionDialects(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadDialect<TisaDialect>();
  // The located message says what is wrong; a dump of the whole function in
  // generic form does not help the author of a description.
  ctx.printOpOnDiagnostic(false);
}

DescriptionSet::~DescriptionSet() = default;

LogicalResult DescriptionSet::loadFile(StringRef path) {
  ParserConfig config(&ctx);
  // The parser reads only a source manager's main buffer, so each file gets its
  // own; diagnostics are rendered by the set's handler, which finds each file's
  // text by its name.
  llvm::SourceMgr fileMgr;
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!file)
    return emitError(UnknownLoc::get(&ctx))
           << "cannot open description file '" << path
           << "': " << file.getError().message();
  // Not text: the lexer's "unexpected character" would echo the bytes.
  StringRef bytes = (*file)->getBuffer();
  auto fileLoc = FileLineColLoc::get(&ctx, path, 0, 0); // no line to echo
  if (size_t nul = bytes.find('\0'); nul != StringRef::npos)
    return emitError(fileLoc)
           << "not a description file: it holds binary data (a NUL byte at "
              "offset "
           << nul << ")";
  if (bytes.starts_with("\xEF\xBB\xBF"))
    return emitError(fileLoc) << "the file starts with a UTF-8 byte-order "
                                 "mark, which MLIR does not read; save it "
                                 "without one";
  fileMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseModule(fileMgr, config);
  if (!module)
    return failure(); // the parser or the verifier has reported it with its
                      // location
  return adopt(std::move(module), path);
}

LogicalResult DescriptionSet::loadBuffer(StringRef text, StringRef name) {
  ParserConfig config(&ctx);
  // MLIR's lexer reads up to a terminating NUL: parse a copy that has one
  // (parseSourceString would read past the end of `text`).
  llvm::SourceMgr bufferMgr;
  bufferMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name),
                               llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseModule(bufferMgr, config);
  if (!module)
    return failure(); // reported with its location
  return adopt(std::move(module), name);
}

LogicalResult DescriptionSet::adopt(OwningOpRef<ModuleOp> module,
                                    StringRef path) {
  SmallVector<func::FuncOp> funcs;
  module->walk([&](func::FuncOp f) {
    if (f->hasAttr(kInstructionAttrName))
      funcs.push_back(f);
  });
  if (funcs.empty())
    return emitError(module->getLoc())
           << "no instruction description in this file (a func.func with a '"
           << kInstructionAttrName << "' attribute)";
  if (funcs.size() > 1)
    return emitError(funcs[1].getLoc())
           << "a description file holds one instruction; this is the second";
  FailureOr<Description> d = parseDescription(funcs.front());
  if (failed(d))
    return failure();
  if (const Description *prev = lookup(d->name)) {
    InFlightDiagnostic diag =
        emitError(d->loc)
        << "duplicate instruction name '" << d->name << "': '" << prev->path
        << "' defines it too (descriptions load from --isa-dir, then "
           "TISA_ISA_PATH, then the shipped set; rename one)";
    diag.attachNote(prev->loc) << "first defined here";
    return failure();
  }
  d->path = path.str();
  loaded.push_back(std::make_unique<Description>(std::move(*d)));
  modules.push_back(std::move(module));
  return success();
}

LogicalResult DescriptionSet::loadDirectory(StringRef dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end;
       it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) == ".mlir" &&
        it->type() != llvm::sys::fs::file_type::directory_file)
      files.push_back(it->path());
  }
  if (ec) // at the directory, line 0: there is no line to show
    return emitError(FileLineColLoc::get(&ctx, dir, 0, 0))
           << "cannot read description directory '" << dir
           << "': " << ec.message();
  std::sort(files.begin(), files.end());
  bool ok = true;
  for (const std::string &f : files)
    ok &= succeeded(loadFile(f));
  return success(ok);
}

const Description *DescriptionSet::lookup(StringRef name) const {
  for (const auto &d : loaded)
    if (d->name == name)
      return d.get();
  return nullptr;
}

std::vector<std::string> isaSearchPath(ArrayRef<std::string> extraDirs) {
  std::vector<std::string> dirs(extraDirs.begin(), extraDirs.end());
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("TISA_ISA_PATH")) {
    SmallVector<StringRef> parts;
    StringRef(*env).split(parts, ':', -1, false);
    for (StringRef p : parts)
      dirs.push_back(p.str());
  }
  std::string shipped = shippedDataDir(
      "isa-descriptions", TISA_INSTALLED_ISA_DIR, TISA_SOURCE_ISA_DIR);
  if (!shipped.empty())
    dirs.push_back(shipped);
  return dirs;
}

std::string noDescriptionsFound(ArrayRef<std::string> extraDirs) {
  std::vector<std::string> dirs = isaSearchPath(extraDirs);
  return "no instruction descriptions found (searched: " +
         (dirs.empty() ? std::string("no directory exists")
                       : llvm::join(dirs, ", ")) +
         "); set TISA_ISA_PATH to an installed tree's "
         "PREFIX/share/tisa/isa-descriptions";
}

/// The file of the binary that holds this code: libtisa.so or the mlir-opt
/// plugin when tisa is loaded as one, else the program tisa is linked into.
static std::string codeModulePath() {
  void *self = reinterpret_cast<void *>(&codeModulePath);
  Dl_info info;
  if (dladdr(self, &info) && info.dli_fname &&
      llvm::sys::path::is_absolute(info.dli_fname))
    return info.dli_fname;
  // The main program: dladdr names it as it was started (maybe relative).
  return llvm::sys::fs::getMainExecutable(nullptr, self);
}

std::string installedPath(StringRef relative) {
  std::string module = codeModulePath();
  if (module.empty())
    return "";
  SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(module)));
  llvm::sys::path::append(path, relative);
  return path.str().str();
}

std::string shippedDataDir(StringRef sub, StringRef configured,
                           StringRef source) {
  SmallVector<std::string, 3> dirs;
  std::string beside = installedPath(("share/tisa/" + sub).str());
  if (!beside.empty())
    dirs.push_back(beside);
  dirs.push_back(configured.str());
  dirs.push_back(source.str());
  for (const std::string &dir : dirs)
    if (llvm::sys::fs::is_directory(dir))
      return dir;
  return "";
}

LoadedDescriptions::LoadedDescriptions(llvm::ArrayRef<std::string> extraDirs) {
  mlir::DialectRegistry registry;
  registerDescriptionDialects(registry);
  ctx.appendDialectRegistry(registry);
  for (const std::string &dir : isaSearchPath(extraDirs))
    ok &= mlir::succeeded(set.loadDirectory(dir));
  set.releaseDiagnostics();
  for (const auto &d : set.descriptions())
    all.push_back(d.get());
}

} // namespace tisa
