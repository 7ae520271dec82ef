//===- Jit.cpp - compile kernels for the host at run time -----------------===//

#include "tisa/Kernels/Jit.h"
#include "tisa/CodegenId.h"
#include "tisa/Config.h"
#include "tisa/Semantics/DescriptionSet.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"


namespace tisa {

std::string JitOptions::defaultCacheDir() {
  if (auto dir = llvm::sys::Process::GetEnv("TISA_CACHE_DIR"))
    return *dir;
  llvm::SmallString<256> path;
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME")) {
    path = *xdg;
  } else if (auto home = llvm::sys::Process::GetEnv("HOME")) {
    path = *home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(path, "tisa");
  return std::string(path);
}

void *CompiledKernel::address(llvm::StringRef suffix) const {
  auto it = addresses_.find(suffix);
  return it == addresses_.end() ? nullptr : it->second;
}

namespace {

/// Metadata stored next to a cached object: key=value lines, then the header.
/// The object's integrity as stored in the metadata: a damaged or
/// truncated object (or one another process replaced) does not match it.
std::string objectDigest(llvm::StringRef object) {
  return llvm::utohexstr(llvm::xxh3_64bits(object)) + ":" +
         std::to_string(object.size());
}

std::string serialize(const CompiledKernel &k, llvm::StringRef key,
                      llvm::StringRef object) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "key=" << key << "\nobject=" << objectDigest(object)
     << "\nname=" << k.name()
     << "\ninstruction=" << k.instruction() << "\nmnemonic=" << k.mnemonic()
     << "\nplan=" << k.plan() << "\npacked_operand=" << k.packedOperand()
     << "\npacked_bytes=" << k.packedBytes() << "\nschedule=" << k.schedule()
     << "\ntiles=" << k.tiles() << "\nspace=" << k.scheduleSpace()
     << "\ndenormals_are_zero=" << k.denormalsAreZero()[0]
     << k.denormalsAreZero()[1] << "\n";
  for (const std::string &w : k.warnings())
    os << "warning=" << w << "\n";
  os << "header:\n" << k.header();
  return s;
}

} // namespace

/// The target of `options`, without its disabled features.
static llvm::Expected<Target> jitTarget(const JitOptions &options) {
  llvm::Expected<Target> target = loadTarget(options.target, options.targetDir);
  if (target)
    target->disableFeatures(options.withoutFeatures);
  return target;
}

llvm::Expected<std::string> kernelKey(const KernelSpec &spec,
                                      const JitOptions &options) {
  llvm::Expected<Target> target = jitTarget(options);
  if (!target)
    return target.takeError();
  // Description files are hashed, not parsed: a cache hit parses nothing.
  std::string keyText = spec.key() + "|isa=" + options.isa;
  for (const std::string &dir : isaSearchPath(options.isaDirs)) {
    std::vector<std::string> files;
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".mlir"))
        files.push_back(it->path());
    llvm::sort(files);
    for (const std::string &f : files) {
      auto file = llvm::MemoryBuffer::getFile(f);
      keyText += "|" + f + "=" +
                 (file ? llvm::utohexstr(
                             llvm::xxh3_64bits((*file)->getBuffer()))
                       : std::string("?"));
    }
  }
  CodegenTarget cg = codegenTargetFor(*target);
  keyText += "|cpu=" + cg.cpu + "|features=" + cg.features +
             "|model=" + target->modelKey() + "|tisa=" + TISA_VERSION +
             "|codegen=" + TISA_CODEGEN_ID;
  return llvm::utohexstr(llvm::xxh3_64bits(keyText));
}

static std::string tunedPath(llvm::StringRef cacheDir, const KernelSpec &spec,
                             llvm::StringRef key) {
  llvm::SmallString<256> path(cacheDir);
  llvm::sys::path::append(path, "tuned",
                          spec.symbol() + "-" + key.str() + ".schedule");
  return path.str().str();
}

std::string lookupTunedSchedule(llvm::StringRef cacheDir,
                                const KernelSpec &spec, llvm::StringRef key) {
  if (cacheDir.empty())
    return "";
  auto file = llvm::MemoryBuffer::getFile(tunedPath(cacheDir, spec, key));
  if (!file)
    return "";
  // "# comment" lines, then the schedule.
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines)
    if (!line.trim().empty() && !line.starts_with("#"))
      return line.trim().str();
  return "";
}

/// Writes `data` to a temporary and renames it, so concurrent processes
/// never read half a file.
static std::error_code writeAtomically(llvm::StringRef path,
                                       llvm::StringRef data) {
  if (std::error_code ec = llvm::sys::fs::create_directories(
          llvm::sys::path::parent_path(path)))
    return ec;
  std::string tmp =
      (path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId()))
          .str();
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec)
      return ec;
    os << data;
  }
  return llvm::sys::fs::rename(tmp, path);
}

llvm::Error storeTunedSchedule(llvm::StringRef cacheDir,
                               const KernelSpec &spec, llvm::StringRef key,
                               llvm::StringRef schedule,
                               llvm::StringRef comment) {
  std::string path = tunedPath(cacheDir, spec, key);
  std::string text = "# " + spec.describe() + "\n# " + comment.str() + "\n" +
                     schedule.str() + "\n";
  if (std::error_code ec = writeAtomically(path, text))
    return llvm::createStringError(ec, "cannot write " + path + ": " +
                                           ec.message());
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<CompiledKernel>>
compileKernel(const KernelSpec &spec, const JitOptions &options) {
  if (auto e = spec.validate())
    return std::move(e);
  llvm::Expected<Target> target = jitTarget(options);
  if (!target)
    return target.takeError();
  llvm::Expected<std::string> baseKey = kernelKey(spec, options);
  if (!baseKey)
    return baseKey.takeError();
  std::string schedule = options.schedule;
  bool tuned = false;
  if (schedule.empty() && options.useTuned) {
    schedule = lookupTunedSchedule(options.cacheDir, spec, *baseKey);
    tuned = !schedule.empty();
  }
  std::string key = llvm::utohexstr(
      llvm::xxh3_64bits(*baseKey + "|schedule=" + schedule));
  std::vector<std::string> searchPath = isaSearchPath(options.isaDirs);

  auto kernel = std::unique_ptr<CompiledKernel>(new CompiledKernel);
  kernel->spec_ = spec;
  kernel->tuned_ = tuned;
  std::unique_ptr<llvm::MemoryBuffer> object;
  llvm::SmallString<256> objPath, metaPath;
  if (!options.cacheDir.empty()) {
    objPath = options.cacheDir;
    llvm::sys::path::append(objPath, spec.symbol() + "-" + key + ".o");
    metaPath = objPath;
    llvm::sys::path::replace_extension(metaPath, "meta");
    auto obj = llvm::MemoryBuffer::getFile(objPath);
    auto meta = llvm::MemoryBuffer::getFile(metaPath);
    if (obj && meta) {
      llvm::StringRef text = (*meta)->getBuffer();
      auto [fields, header] = text.split("header:\n");
      bool keyMatches = false, objectMatches = false;
      llvm::SmallVector<llvm::StringRef> lines;
      fields.split(lines, '\n', -1, false);
      for (llvm::StringRef line : lines) {
        auto [k, v] = line.split('=');
        if (k == "key")
          keyMatches = v == key;
        else if (k == "object")
          objectMatches = v == objectDigest((*obj)->getBuffer());
        else if (k == "name")
          kernel->name_ = v.str();
        else if (k == "instruction")
          kernel->instruction_ = v.str();
        else if (k == "mnemonic")
          kernel->mnemonic_ = v.str();
        else if (k == "plan")
          kernel->plan_ = v.str();
        else if (k == "packed_operand")
          kernel->packedOperand_ = v.str();
        else if (k == "packed_bytes")
          v.getAsInteger(10, kernel->packedBytes_);
        else if (k == "schedule")
          kernel->schedule_ = v.str();
        else if (k == "space")
          kernel->scheduleSpace_ = v.str();
        else if (k == "tiles")
          v.getAsInteger(10, kernel->tiles_);
        else if (k == "denormals_are_zero" && v.size() == 2)
          kernel->denormalsAreZero_ = {v[0] == '1', v[1] == '1'};
        else if (k == "warning")
          kernel->warnings_.push_back(v.str());
      }
      if (keyMatches && objectMatches) {
        kernel->header_ = header.str();
        kernel->fromCache_ = true;
        object = std::move(*obj);
      } else if (keyMatches && options.warnings) {
        *options.warnings << "tisa: warning: the cached object " << objPath
                          << " does not match its metadata (damaged or "
                             "truncated); compiling it again\n";
      }
    }
  }
  if (!object) {
    mlir::DialectRegistry registry;
    registerDescriptionDialects(registry);
    mlir::MLIRContext ctx(registry);
    std::string loadErrors;
    llvm::raw_string_ostream errs(loadErrors);
    DescriptionSet set(ctx, errs);
    for (const std::string &dir : searchPath)
      if (failed(set.loadDirectory(dir)))
        return llvm::createStringError("bad instruction descriptions:\n" +
                                       loadErrors);
    std::vector<const Description *> descriptions;
    for (const auto &d : set.descriptions())
      descriptions.push_back(d.get());
    GenerateOptions generate;
    generate.isa = options.isa;
    generate.schedule = schedule;
    auto generated = generateKernel(ctx, spec, descriptions, *target, generate);
    if (!generated)
      return generated.takeError();
    kernel->name_ = generated->name;
    kernel->instruction_ = generated->instruction;
    kernel->mnemonic_ = generated->mnemonic;
    kernel->denormalsAreZero_ = generated->denormalsAreZero;
    kernel->plan_ = generated->plan;
    kernel->header_ = generated->header;
    kernel->packedOperand_ = generated->packedOperand;
    kernel->packedBytes_ = generated->packedBytes;
    kernel->schedule_ = generated->schedule;
    kernel->tiles_ = generated->tiles;
    kernel->scheduleSpace_ = generated->scheduleSpace;
    kernel->warnings_ = generated->warnings;
    object = std::move(generated->object);
    if (!options.cacheDir.empty()) {
      // Best effort: a cache that cannot be written only costs time.
      writeAtomically(objPath, object->getBuffer());
      writeAtomically(metaPath,
                      serialize(*kernel, key, object->getBuffer()));
    }
  }
  if (options.warnings)
    for (const std::string &w : kernel->warnings_)
      *options.warnings << "tisa: warning: " << w << "\n";
  auto jit = JitObject::load(std::move(object));
  if (!jit)
    return jit.takeError();
  kernel->jit_ = std::move(*jit);
  std::string pack = "_pack_" + kernel->packedOperand_;
  for (llvm::StringRef suffix : {llvm::StringRef(""), llvm::StringRef(pack),
                                 llvm::StringRef("_packed"),
                                 llvm::StringRef("_packed_range"),
                                 llvm::StringRef("_packed_bytes"),
                                 llvm::StringRef("_tiles")}) {
    auto address = kernel->jit_->lookup(kernel->name_ + suffix.str());
    if (!address)
      return address.takeError();
    kernel->addresses_[suffix] = *address;
  }
  return kernel;
}

} // namespace tisa
