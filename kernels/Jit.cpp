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
     << k.denormalsAreZero()[1] << "\ntap_rows=" << k.tapRows() << "\n";
  for (const std::string &w : k.warnings())
    os << "warning=" << w << "\n";
  os << "header:\n" << k.header();
  // Its own integrity first: a damaged or truncated file does not match it.
  return "meta=" + objectDigest(s) + "\n" + s;
}

} // namespace

/// The target of `options`: restricted to its feature list, without its
/// disabled features.
llvm::Expected<Target> jitTarget(const JitOptions &options) {
  llvm::Expected<Target> target = loadTarget(options.target, options.targetDir);
  if (!target)
    return target;
  if (!options.features.empty())
    if (llvm::Error e = restrictFeatures(*target, options.features))
      return std::move(e);
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

std::string tunedSchedulePath(llvm::StringRef cacheDir, const KernelSpec &spec,
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
  auto file = llvm::MemoryBuffer::getFile(tunedSchedulePath(cacheDir, spec, key));
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
    os.close();
    ec = os.error();
    os.clear_error();
  }
  if (!ec)
    ec = llvm::sys::fs::rename(tmp, path);
  if (ec) // no temporary left behind (a directory where the entry goes)
    llvm::sys::fs::remove(tmp);
  return ec;
}

llvm::Error storeTunedSchedule(llvm::StringRef cacheDir,
                               const KernelSpec &spec, llvm::StringRef key,
                               llvm::StringRef schedule,
                               llvm::StringRef comment) {
  std::string path = tunedSchedulePath(cacheDir, spec, key);
  std::string text = "# " + spec.describe() + "\n# " + comment.str() + "\n" +
                     schedule.str() + "\n";
  if (std::error_code ec = writeAtomically(path, text))
    return llvm::createStringError(ec, "cannot write " + path + ": " +
                                           ec.message());
  return llvm::Error::success();
}

std::pair<std::string, std::string>
CompiledKernel::readMetadata(llvm::StringRef fields) {
  std::string key, object;
  llvm::SmallVector<llvm::StringRef> lines;
  fields.split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    auto [k, v] = line.split('=');
    if (k == "key")
      key = v.str();
    else if (k == "object")
      object = v.str();
    else if (k == "name")
      name_ = v.str();
    else if (k == "instruction")
      instruction_ = v.str();
    else if (k == "mnemonic")
      mnemonic_ = v.str();
    else if (k == "plan")
      plan_ = v.str();
    else if (k == "packed_operand")
      packedOperand_ = v.str();
    else if (k == "packed_bytes")
      v.getAsInteger(10, packedBytes_);
    else if (k == "schedule")
      schedule_ = v.str();
    else if (k == "space")
      scheduleSpace_ = v.str();
    else if (k == "tiles")
      v.getAsInteger(10, tiles_);
    else if (k == "tap_rows")
      tapRows_ = v == "1";
    else if (k == "denormals_are_zero" && v.size() == 2)
      denormalsAreZero_ = {v[0] == '1', v[1] == '1'};
    else if (k == "warning")
      warnings_.push_back(v.str());
  }
  return {key, object};
}

void CompiledKernel::adopt(GeneratedKernel &generated) {
  name_ = generated.name;
  instruction_ = generated.instruction;
  mnemonic_ = generated.mnemonic;
  denormalsAreZero_ = generated.denormalsAreZero;
  plan_ = generated.plan;
  tapRows_ = generated.tapRows;
  header_ = generated.header;
  packedOperand_ = generated.packedOperand;
  packedBytes_ = generated.packedBytes;
  schedule_ = generated.schedule;
  tiles_ = generated.tiles;
  scheduleSpace_ = generated.scheduleSpace;
  warnings_ = generated.warnings;
}

llvm::Error CompiledKernel::load(std::unique_ptr<llvm::MemoryBuffer> object) {
  auto jit = JitObject::load(std::move(object));
  if (!jit)
    return jit.takeError();
  jit_ = std::move(*jit);
  std::string pack = "_pack_" + packedOperand_;
  for (llvm::StringRef suffix : {llvm::StringRef(""), llvm::StringRef(pack),
                                 llvm::StringRef("_packed"),
                                 llvm::StringRef("_packed_range"),
                                 llvm::StringRef("_packed_bytes"),
                                 llvm::StringRef("_tiles")}) {
    auto address = jit_->lookup(name_ + suffix.str());
    if (!address)
      return address.takeError();
    addresses_[suffix] = *address;
  }
  return llvm::Error::success();
}

std::unique_ptr<llvm::MemoryBuffer>
CompiledKernel::readCache(llvm::StringRef objectPath, llvm::StringRef metaPath,
                          llvm::StringRef key, llvm::raw_ostream *warnings) {
  auto obj = llvm::MemoryBuffer::getFile(objectPath);
  auto meta = llvm::MemoryBuffer::getFile(metaPath);
  if (!obj || !meta)
    return nullptr;
  // A file without the "meta=" line predates it: a miss, written again.
  auto [first, text] = (*meta)->getBuffer().split('\n');
  if (!first.consume_front("meta="))
    return nullptr;
  if (first != objectDigest(text)) {
    if (warnings)
      *warnings << "tisa: warning: the cached metadata " << metaPath
                << " is damaged or truncated; compiling again\n";
    return nullptr;
  }
  auto [fields, header] = text.split("header:\n");
  auto [storedKey, digest] = readMetadata(fields);
  if (storedKey != key)
    return nullptr;
  if (digest != objectDigest((*obj)->getBuffer())) {
    if (warnings)
      *warnings << "tisa: warning: the cached object " << objectPath
                << " does not match its metadata (damaged or truncated); "
                   "compiling it again\n";
    return nullptr;
  }
  header_ = header.str();
  fromCache_ = true;
  return std::move(*obj);
}

namespace {

/// Generates `spec`'s object with the descriptions of `options` for
/// `target`.
llvm::Expected<GeneratedKernel> generate(const KernelSpec &spec,
                                         const JitOptions &options,
                                         const Target &target,
                                         const std::string &schedule,
                                         const std::string &scheduleSource) {
  mlir::DialectRegistry registry;
  registerDescriptionDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::string loadErrors;
  llvm::raw_string_ostream errs(loadErrors);
  DescriptionSet set(ctx, errs);
  std::vector<std::string> dirs = isaSearchPath(options.isaDirs);
  for (const std::string &dir : dirs)
    if (failed(set.loadDirectory(dir))) {
      // A directory's own error has no file location to show.
      std::string text = loadErrors;
      for (size_t at; (at = text.find("<unknown>:0: ")) != std::string::npos;)
        text.erase(at, strlen("<unknown>:0: "));
      return llvm::createStringError(
          "bad instruction descriptions (searched: " + llvm::join(dirs, ", ") +
          "; TISA_ISA_PATH adds directories before the shipped ones):\n" +
          text);
    }
  std::vector<const Description *> descriptions;
  for (const auto &d : set.descriptions())
    descriptions.push_back(d.get());
  if (descriptions.empty())
    return llvm::createStringError(noDescriptionsFound(options.isaDirs));
  GenerateOptions generate;
  generate.isa = options.isa;
  generate.schedule = schedule;
  generate.scheduleSource = scheduleSource;
  return generateKernel(ctx, spec, descriptions, target, generate);
}

} // namespace

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
  std::string scheduleSource;
  if (schedule.empty() && options.useTuned) {
    schedule = lookupTunedSchedule(options.cacheDir, spec, *baseKey);
    tuned = !schedule.empty();
    if (tuned)
      scheduleSource = tunedSchedulePath(options.cacheDir, spec, *baseKey);
  }
  std::string key = llvm::utohexstr(
      llvm::xxh3_64bits(*baseKey + "|schedule=" + schedule));

  auto makeKernel = [&] {
    auto kernel = std::unique_ptr<CompiledKernel>(new CompiledKernel);
    kernel->spec_ = spec;
    kernel->tuned_ = tuned;
    return kernel;
  };
  std::unique_ptr<CompiledKernel> kernel = makeKernel();
  std::unique_ptr<llvm::MemoryBuffer> object;
  llvm::SmallString<256> objPath, metaPath;
  if (!options.cacheDir.empty()) {
    objPath = options.cacheDir;
    llvm::sys::path::append(objPath, spec.symbol() + "-" + key + ".o");
    metaPath = objPath;
    llvm::sys::path::replace_extension(metaPath, "meta");
    object = kernel->readCache(objPath, metaPath, key, options.warnings);
  }
  if (!object) {
    kernel = makeKernel(); // without what stale metadata set
    auto generated = generate(spec, options, *target, schedule, scheduleSource);
    if (!generated)
      return generated.takeError();
    // A tuned schedule that did not fit was ignored (with a warning).
    kernel->tuned_ = tuned && generated->schedule == schedule;
    kernel->adopt(*generated);
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
  if (llvm::Error e = kernel->load(std::move(object)))
    return std::move(e);
  return kernel;
}

} // namespace tisa
