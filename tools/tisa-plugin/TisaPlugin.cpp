//===- TisaPlugin.cpp - tisa's dialect and passes as mlir-opt plugins -----===//
//
// One shared library that Debian's own mlir-opt-22 (or any MLIR 22 tool built
// on MlirOptMain and libMLIR.so) loads twice:
//   mlir-opt --load-dialect-plugin=lib/TisaPlugin.so \
//            --load-pass-plugin=lib/TisaPlugin.so -tisa-select-plan ...
// The dialect half registers the tisa dialect and the dialects description
// files are written in; the pass half registers every tisa pass (the same
// ones tisa-opt has).
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/Passes.h"
#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "tisa", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<tisa::TisaDialect>();
            tisa::registerDescriptionDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "tisa", LLVM_VERSION_STRING, []() {
            tisa::registerTisaPasses();
            tisa::registerTisaTransformsPasses();
                    }};
}
