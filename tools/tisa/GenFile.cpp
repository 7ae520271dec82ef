//===- GenFile.cpp - tisa gen FILE.mlir -----------------------------------===//

#include "GenCommon.h"
#include "tisa/Semantics/Parse.h"
#include "tisa/Targets/Codegen.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

namespace tisa::driver {

namespace {

/// The C type of an element of `t`, or "" when the header cannot name one.
std::string cElementType(Type t) {
  if (t.isIndex())
    return "int64_t";
  if (auto i = dyn_cast<IntegerType>(t))
    return llvm::is_contained({8u, 16u, 32u, 64u}, i.getWidth())
               ? "int" + std::to_string(i.getWidth()) + "_t"
               : "";
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isBF16() || t.isF16())
    return "uint16_t"; // the bits
  return "";
}

/// The C type of a memref descriptor for `t` (its typedef added to `types`),
/// or "" when `t` has no C name here.
std::string cDescriptor(ShapedType t, std::vector<std::string> &types) {
  std::string elt = cElementType(t.getElementType());
  if (elt.empty() || !t.hasRank())
    return "";
  int64_t rank = t.getRank();
  std::string name = "tisa_memref_" + elt.substr(0, elt.find('_')) + "_" +
                     std::to_string(rank) + "d";
  std::string def = "typedef struct { " + elt + " *allocated, *aligned; "
                    "int64_t offset";
  if (rank)
    def += ", sizes[" + std::to_string(rank) + "], strides[" +
           std::to_string(rank) + "]";
  def += "; } " + name + ";";
  if (!llvm::is_contained(types, def))
    types.push_back(def);
  return name;
}

/// C parameters (and the typedefs they need, added to `types`) for the
/// public function `name` of type `f`: a memref descriptor pointer per
/// shaped argument, scalars by value. Results: where the program was
/// bufferized (`outParams`), each is an output the caller provides, after
/// the inputs; in a program on memrefs MLIR's C interface returns them
/// through one pointer before the inputs, to a descriptor (or a struct of
/// descriptors, NAME_results) the function fills. Empty when a type has no
/// C name here.
std::optional<std::string> cParameters(StringRef name, FunctionType f,
                                       bool outParams,
                                       std::vector<std::string> &types) {
  std::vector<std::string> params;
  auto add = [&](Type t) {
    // A vector travels by value in an ABI of its own, not as a descriptor.
    if (isa<VectorType>(t))
      return false;
    if (auto shaped = dyn_cast<ShapedType>(t)) {
      std::string desc = cDescriptor(shaped, types);
      params.push_back(desc + " *");
      return !desc.empty();
    }
    std::string elt = cElementType(t);
    params.push_back(elt);
    return !elt.empty();
  };
  if (!outParams && f.getNumResults()) {
    std::vector<std::string> fields;
    for (Type t : f.getResults()) {
      auto memref = dyn_cast<MemRefType>(t);
      fields.push_back(memref ? cDescriptor(memref, types) : "");
      if (fields.back().empty())
        return std::nullopt;
    }
    std::string result = fields.front();
    if (fields.size() > 1) {
      result = (name + "_results").str();
      std::string def = "typedef struct {";
      for (auto [i, field] : llvm::enumerate(fields))
        def += " " + field + " r" + std::to_string(i) + ";";
      types.push_back(def + " } " + result + ";");
    }
    params.push_back(result + " *");
  }
  for (Type t : f.getInputs())
    if (!add(t))
      return std::nullopt;
  if (outParams)
    for (Type t : f.getResults())
      if (!isa<ShapedType>(t) || !add(t))
        return std::nullopt;
  return params.empty() ? std::string("void") : llvm::join(params, ", ");
}

/// The passes and the lowering compile the functions of the top-level
/// module: a function in a nested module would be planned but never
/// tensorized, and then fail deep in a pass with an unrelated message.
LogicalResult refuseNestedModules(ModuleOp top) {
  LogicalResult result = success();
  top.walk([&](ModuleOp nested) {
    if (nested == top)
      return WalkResult::advance();
    nested.emitError() << "a nested module is not compiled by 'tisa gen "
                          "FILE.mlir'; put its functions in the top-level "
                          "module";
    result = failure();
    return WalkResult::skip();
  });
  return result;
}

} // namespace

/// tisa gen FILE.mlir: tensorize every contraction on memrefs, register
/// tile, lower; the functions keep MLIR's C interface for memrefs.
int genFromFile(const Options &o, llvm::StringRef file, llvm::StringRef dir) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerDescriptionDialects(registry);
  MLIRContext ctx(registry);
  // Errors point at the file's line; the op in generic form says no more.
  ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr sm;
  SourceMgrDiagnosticHandler handler(sm, &ctx);
  std::string error;
  auto buffer = openInputFile(file, &error);
  if (!buffer) {
    llvm::WithColor::error(llvm::errs(), "tisa")
        << "cannot read '" << file << "': " << error << "\n";
    return 1;
  }
  sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseModule(sm, ParserConfig(&ctx));
  if (!module)
    return 1;
  if (failed(refuseNestedModules(*module)))
    return 1;
  std::optional<Target> target = concreteTarget(o);
  if (!target)
    return 1;
  std::vector<std::string> publicFuncs;
  std::vector<FunctionType> publicTypes;
  module->walk([&](func::FuncOp f) {
    if (!f.isPublic() || f.isExternal())
      return;
    f->setAttr("llvm.emit_c_interface", UnitAttr::get(&ctx));
    publicFuncs.push_back(f.getSymName().str());
    publicTypes.push_back(f.getFunctionType());
  });
  // The descriptions and the target, loaded once for the passes.
  auto inputs = TensorizeInputs::load(&ctx, "tisa gen", value(o, "isa", "auto"),
                                      o.isaDirs, o.target, o.targetDir);
  if (failed(inputs))
    return 1;
  if (!(*inputs)->target)
    return usageError("--target needs a machine: host, a name in "
                      "targets/data, or a .json file");
  (*inputs)->instructionNamed = value(o, "isa", "auto") != "auto";
  // The passes choose instructions for the target LLVM compiles for (the
  // rates resolved for the loaded target stay).
  if (!o.features.empty()) {
    if (llvm::Error e = restrictFeatures(*(*inputs)->target, o.features))
      return fail(llvm::toString(std::move(e)));
  }
  if ((*inputs)->target && (*inputs)->target->arch == TargetArch::NVPTX)
    return usageError("'gen FILE.mlir' generates CPU code; Tensor Core "
                      "kernels (--target " +
                      (*inputs)->target->name +
                      ") come from 'gen gemm|conv2d'");
  PassManager pm(&ctx);
  // Tensors become buffers; the plan and schedule become attributes (a
  // --schedule applies to every contraction without one), each planned
  // contraction its pack and its computation, which the tensorizer lowers.
  // (-tisa-bufferize leaves a program on memrefs as it is, and never writes
  // a public function's tensor argument: it is the caller's input.)
  bool bufferize = usesTensors(*module);
  addTisaBufferizePasses(pm);
  addTisaTensorizePasses(pm, *inputs, value(o, "schedule", ""),
                         !o.noFuseEpilogue);
  addTisaRegisterLevelPasses(pm, plainTileOptions(*(*inputs)->target));
  if (failed(pm.run(*module)))
    return 1;
  std::string stem = llvm::sys::path::stem(file).str();
  llvm::SmallString<256> ir(dir);
  llvm::sys::path::append(ir, stem + ".mlir");
  if (o.emitIr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (auto e = writeFile(ir, text))
      return fail(llvm::toString(std::move(e)));
  }
  if (failed(lowerToLLVMDialect(*module)))
    return 1;
  auto object = compileToObject(*module, codegenTargetFor(*target));
  if (!object)
    return fail(llvm::toString(object.takeError()));
  llvm::SmallString<256> so(dir), h(dir);
  llvm::sys::path::append(so, "lib" + stem + ".so");
  llvm::sys::path::append(h, stem + ".h");
  if (auto e = linkSharedLibrary(**object, so))
    return fail(llvm::toString(std::move(e)));
  std::string header = "/* " + stem +
                       ".h: generated by tisa from " + file.str() +
                       ". Each function takes MLIR's C interface:\n"
                       " * a pointer to a memref descriptor per memref "
                       "argument (a tensor argument is a memref),\n"
                       " *   struct { T *allocated, *aligned; int64_t offset, "
                       "sizes[rank], strides[rank]; }.\n" +
                       (bufferize
                            ? std::string(" * A returned tensor is an output "
                                          "memref the caller provides, after "
                                          "the inputs.\n */\n")
                            : std::string(
                                  " * A returned memref comes back through "
                                  "the first argument: the function fills "
                                  "the descriptor it points to\n"
                                  " * (a struct of them for several); "
                                  "release the `allocated` of memory the "
                                  "function allocated with free().\n */\n")) +
                       "#include <stdint.h>\n"
                       "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  std::vector<std::string> types, prototypes;
  for (auto [f, type] : llvm::zip(publicFuncs, publicTypes)) {
    std::optional<std::string> params =
        cParameters(f, type, bufferize, types);
    prototypes.push_back(
        params ? "void _mlir_ciface_" + f + "(" + *params + ");"
               : "/* " + f + ": a type C cannot name here; see the comment "
                             "above */ void _mlir_ciface_" + f + "();");
  }
  for (const std::string &t : types)
    header += t + "\n";
  for (const std::string &p : prototypes)
    header += p + "\n";
  header += "#ifdef __cplusplus\n}\n#endif\n";
  if (auto e = writeFile(h, header))
    return fail(llvm::toString(std::move(e)));
  llvm::outs() << so << "\n" << h << "\n";
  if (o.emitIr)
    llvm::outs() << ir << "\n";
  for (const std::string &f : publicFuncs)
    llvm::outs() << "  _mlir_ciface_" << f << "\n";
  return 0;
}

} // namespace tisa::driver
