//===- tisa-opt.cpp - mlir-opt with tisa's dialect and passes -------------===//
//
// Every upstream dialect, extension and pass plus tisa's own, so tisa's passes
// can be used inside any MLIR pipeline and description files can be checked
// with -verify-diagnostics.
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/Passes.h"
#include "tisa/Dialect/TisaDialect.h"
#include "tisa/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  tisa::registerTisaPasses();
  tisa::registerTisaTransformsPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<tisa::TisaDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tisa optimizer driver\n", registry));
}
