//===- LibraryCompile.cpp - a kernel library's object and header ----------===//
//
// The entries LibraryBuilder made (KernelLibrary.cpp), their epilogues fused,
// lowered by the same passes as `tisa gen FILE.mlir` and compiled; the C
// header that documents them; generateKernel, which runs the builder.
//
//===----------------------------------------------------------------------===//

#include "LibraryBuilder.h"
#include "tisa/Config.h"
#include "tisa/Targets/Codegen.h"
#include "tisa/Targets/Rates.h"
#include "tisa/Transforms/Passes.h"
#include "tisa/Transforms/PlanSelection.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace tisa {
namespace detail {

//===----------------------------------------------------------------------===//
// Object and header
//===----------------------------------------------------------------------===//

llvm::Error LibraryBuilder::fuseEpilogues() {
  if (!kernel || !spec.epilogue.any())
    return llvm::Error::success();
  PassManager pm(&ctx);
  pm.addNestedPass<func::FuncOp>(createTisaFuseEpiloguePass());
  if (failed(pm.run(*module)))
    return llvm::createStringError("fusing the epilogue of " + out.name +
                                   " failed");
  // Run apart, a range entry's epilogue would read accumulators other
  // ranges compute: every computation must have taken it.
  WalkResult unfused = module->walk([](ComputeOp op) {
    return op.getEpilogue().empty() ? WalkResult::interrupt()
                                    : WalkResult::advance();
  });
  if (unfused.wasInterrupted())
    return llvm::createStringError(
        "internal error: the epilogue of " + out.name +
        " was not fused into a computation (its warnings say why)");
  return llvm::Error::success();
}

llvm::Error LibraryBuilder::compile() {
  // The kernel ops' code, register tile, clean up, keep the IR for
  // inspection, lower, compile.
  if (auto e = fuseEpilogues())
    return e;
  PassManager pm(&ctx);
  if (kernel) {
    pm.addNestedPass<func::FuncOp>(createTisaSplitDynamicPass(inputs));
    pm.addPass(createTisaOutlineKernelsPass(inputs));
    pm.addNestedPass<func::FuncOp>(createTisaTensorizePass(inputs));
  }
  addTisaRegisterLevelPasses(pm, plainTileOptions(target));
  if (failed(pm.run(*module)))
    return llvm::createStringError("tensorizing or register tiling failed "
                                   "for " +
                                   out.name);
  {
    llvm::raw_string_ostream os(out.tensorizedIR);
    module->print(os);
  }
  if (failed(lowerToLLVMDialect(*module)))
    return llvm::createStringError("lowering " + out.name +
                                   " to the LLVM dialect failed");
  auto object = compileToObject(*module, codegenTargetFor(target));
  if (!object)
    return object.takeError();
  out.object = std::move(*object);
  out.header = header();
  return llvm::Error::success();
}

std::string LibraryBuilder::operandsText() const {
  std::string rows = spec.runTimeRows ? rowsParam().str()
                                      : std::to_string(spec.rows());
  std::string n = spec.runTimeN ? "n" : std::to_string(spec.n),
              k = spec.runTimeK ? "k" : std::to_string(spec.k);
  std::string h;
  llvm::raw_string_ostream os(h);
  if (gemm) {
    os << " * C = A x B, overwriting C. A is " << rows << " x " << k
       << ", B " << k << " x " << n << ", C " << rows << " x " << n
       << ", all row-major;\n"
       << " * ld* is the distance in elements between consecutive rows.\n";
    return h;
  }
  // A conv2d's input extent, or with `window` its output's: its value, or
  // the formula of the run-time one.
  auto extent = [&](bool runTime, StringRef name,
                    int64_t window = 0) -> std::string {
    int64_t in = name == "h" ? spec.h : spec.w;
    if (!runTime)
      return std::to_string(
          window ? (in + 2 * spec.pad - window) / spec.stride + 1 : in);
    if (!window)
      return name.str();
    return llvm::formatv("({0} + {1} - {2}) / {3} + 1, none when {0} + {1} "
                         "< {2}",
                         name, 2 * spec.pad, window, spec.stride)
        .str();
  };
  os << " * output = conv2d(input, filter), overwriting output. Dense "
        "row-major arrays:\n"
     << " *   input  [n=" << rows << "][h=" << extent(spec.runTimeH, "h")
     << "][w=" << extent(spec.runTimeW, "w") << "][c=" << spec.c
     << "] (NHWC)\n"
     << " *   filter [r=" << spec.r << "][s=" << spec.s << "][c=" << spec.c
     << "][k=" << spec.filters << "] (HWCF)\n"
     << " *   output [n=" << rows << "][" << extent(spec.runTimeH, "h", spec.r)
     << "][" << extent(spec.runTimeW, "w", spec.s) << "][k=" << spec.filters
     << "] (NHWC), stride " << spec.stride << ", zero padding " << spec.pad
     << "\n";
  return h;
}

std::string LibraryBuilder::runTimeText() const {
  std::string packName = name("_pack_" + out.packedOperand);
  auto list = [&](KernelSpec::Extents which) {
    std::string names;
    for (const auto &e : spec.runTimeExtents(which))
      names += (names.empty() ? "" : ", ") + e.first;
    return names;
  };
  std::string all = list(KernelSpec::Extents::All);
  std::string are =
      spec.runTimeExtents(KernelSpec::Extents::All).size() == 1 ? " is" : " are";
  if (spec.runTimeN || spec.runTimeK)
    return " * " + all + are + " given at run time: the first arguments of " +
           "every entry (" + packName + " and\n * " +
           name("_packed_bytes") + " take " +
           list(KernelSpec::Extents::Weights) +
           "); one kernel for any extents (a negative one is taken\n * as 0).\n";
  if (spec.runTimeH || spec.runTimeW)
    return " * " + all + are + " given at run time: the first arguments of " +
           "every entry but " + packName + "\n * (one kernel for any " +
           "extents; an image the filter does not fit has no output).\n";
  if (spec.runTimeRows)
    return " * " + all + " is given at run time: the first argument of " +
           "every entry but " + packName + "\n * (one kernel for any " + all +
           " >= 0).\n";
  return "";
}

std::string LibraryBuilder::header() const {
  std::string guard = llvm::StringRef(out.name).upper() + "_H";
  std::string packName = name("_pack_" + out.packedOperand),
              packedName = name("_packed");
  std::string h;
  llvm::raw_string_ostream os(h);
  os << "/* " << out.name << ".h: generated by tisa " << TISA_VERSION
     << ". Do not edit.\n"
     << " *\n"
     << " * " << spec.describe() << " for " << target.name << " ("
     << target.cpu << ")\n"
     << " * instruction: "
     << (out.instruction.empty() ? "none (plain vector code)"
                                 : out.instruction + " (" + out.mnemonic + ")")
     << "\n"
     << " * plan: " << out.plan << "\n *\n";
  os << operandsText() << runTimeText();
  if (spec.epilogue.any())
    os << " * The result goes through the epilogue " << spec.epilogue.text()
       << " (in registers, before its one store):\n"
       << " * each entry takes a tisa_epilogue with its operands after the "
          "output.\n";
  bool bf16 = spec.types.a == ElementType::BF16 || spec.epilogue.bf16,
       f16 = spec.types.a == ElementType::F16;
  if (bf16 || f16)
    os << " * " << (bf16 && f16 ? "f16 and bf16" : f16 ? "f16" : "bf16")
       << " values are passed as their 16-bit patterns (uint16_t).\n";
  os << " *\n"
     << " * For repeated use of the same " << names[packed] << ": call "
     << packName << " once into a buffer of\n"
     << " * " << name("_packed_bytes") << "("
     << (spec.runTimeN || spec.runTimeK ? "..." : "")
     << ") bytes (any alignment; 64 is best), then " << packedName << ".\n"
     << " * Packed layout"
     << (spec.runTimeN || spec.runTimeK
             ? " (of each block of " + std::to_string(kNominalExtent) +
                   " of n and k, the last zero-padded)"
             : "")
     << ": " << out.packedLayout << "\n"
     << " * " << packedName << "_range computes the tiles [begin, end) of "
     << name("_tiles") << "(" << tilesParams() << ")"
     << (imageRows()         ? " (an output row each)"
         : spec.runTimeRows ? " (" + std::to_string(rowsPerTile()) +
                                   (gemm ? " rows" : " image") + " each)"
                            : "")
     << "\n"
     << " * disjoint parts of the output, [begin, end) clamped to the tiles: "
        "give each thread one range.\n"
     << (out.schedule.empty() ? std::string()
                              : " * schedule: " + out.schedule + "\n")
     << " * Entry points are thread-safe; " << out.name
     << " allocates its packing buffer with malloc.\n */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << (spec.epilogue.any() ? epilogueStructText() + "\n" : "");
  for (const std::string &p : prototypes)
    os << p << "\n";
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return h;
}

} // namespace detail

llvm::Expected<GeneratedKernel>
generateKernel(MLIRContext &ctx, const KernelSpec &spec,
               ArrayRef<const Description *> descriptions,
               const Target &target, const GenerateOptions &options) {
  if (auto e = spec.validate())
    return std::move(e);
  if (spec.types.tensorCoreOnly())
    return llvm::createStringError(
        spec.types.text() + " kernels are generated for Tensor Cores only "
        "(--target sm_80|sm_86|sm_90)");
  if (target.arch == TargetArch::NVPTX)
    return llvm::createStringError(
        "kernels for " + target.name +
        " are GPU code, which this CPU library builder does not make: `tisa "
        "gen gemm --target " +
        target.name +
        "` writes PTX, a cubin and a launch header (generateGpuKernel), and "
        "`tisa run --target " +
        target.name + "` checks them through their host lowering");
  // The descriptions the plan may use: the one --isa names, or all.
  std::vector<const Description *> candidates;
  for (const Description *d : descriptions)
    if (options.isa == "auto" || d->name == options.isa)
      candidates.push_back(d);
  if (candidates.empty())
    return llvm::createStringError("no instruction description named '" +
                                   options.isa + "' (tisa isa list)");
  // Their rates where the target file does not name them, from LLVM's model
  // (a sibling looked for among all).
  Target withRates = target;
  std::vector<std::string> rateWarnings =
      resolveRates(withRates, candidates, descriptions);
  detail::LibraryBuilder builder(ctx, spec, withRates, options);
  if (auto e = builder.plan(candidates, rateWarnings))
    return std::move(e);
  builder.emitEntries();
  if (auto e = builder.compile())
    return std::move(e);
  return builder.take();
}

} // namespace tisa
