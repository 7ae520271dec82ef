//===- TestUtil.h - helpers for the semantics tests -------------*- C++ -*-===//
#ifndef TISA_TEST_UNIT_SEMANTICS_TESTUTIL_H
#define TISA_TEST_UNIT_SEMANTICS_TESTUTIL_H

#include "tisa/Config.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Semantics/Evaluator.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

namespace tisa::test {

/// Loads one shipped description by its path below isa-descriptions/.
class ShippedDescription {
public:
  explicit ShippedDescription(llvm::StringRef relPath) : set(ctx, errsStream) {
    std::string path = std::string(TISA_SOURCE_ISA_DIR) + "/" + relPath.str();
    loaded = mlir::succeeded(set.loadFile(path));
  }
  const Description &get() const { return *set.descriptions().front(); }
  bool ok() const { return loaded; }
  std::string diagnosticsText() { return errsStream.str(); }

private:
  mlir::MLIRContext ctx;
  std::string diagnostics;
  llvm::raw_string_ostream errsStream{diagnostics};
  DescriptionSet set;
  bool loaded = false;
};

inline TensorValue operand(const Description &d, unsigned i,
                           std::vector<uint64_t> bits, unsigned segments = 1) {
  TensorValue v = zeroOperand(d, i, segments);
  EXPECT_EQ(v.bits.size(), bits.size());
  v.bits = std::move(bits);
  return v;
}

} // namespace tisa::test

#endif
