//===- LowerDescriptions.cpp - -tisa-lower-descriptions -------------------===//

#include "tisa/Dialect/Passes.h"
#include "tisa/Targets/Probe.h"

namespace tisa {
#define GEN_PASS_DEF_TISALOWERDESCRIPTIONSPASS
#include "tisa/Dialect/Passes.h.inc"
} // namespace tisa

using namespace mlir;

namespace {
struct LowerDescriptions
    : public tisa::impl::TisaLowerDescriptionsPassBase<LowerDescriptions> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> descriptions;
    module.walk([&](func::FuncOp f) {
      if (f->hasAttr(tisa::kInstructionAttrName))
        descriptions.push_back(f);
    });
    for (func::FuncOp f : descriptions) {
      FailureOr<tisa::Description> d = tisa::parseDescription(f);
      if (failed(d) || failed(tisa::buildProbe(*d, module)))
        return signalPassFailure();
      f.erase();
    }
  }
};
} // namespace
