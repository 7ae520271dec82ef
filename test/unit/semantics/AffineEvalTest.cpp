//===- AffineEvalTest.cpp - valueAt agrees with MLIR's own folding --------===//
//
// valueAt computes on integers what AffineMap::compose folds through the
// context: both are run on maps of every kind of expression (the shipped
// layouts' floordiv and mod, ceildiv, products, constants) at points with
// negative, zero and positive coordinates.
//
//===----------------------------------------------------------------------===//

#include "tisa/Semantics/AffineEval.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "tisa/Semantics/Layout.h"
#include <gtest/gtest.h>

using namespace mlir;

namespace {

AffineMap parse(MLIRContext &ctx, llvm::StringRef text) {
  Attribute a = parseAttribute(text, &ctx);
  return cast<AffineMapAttr>(a).getValue();
}

TEST(AffineEval, AgreesWithComposeEverywhere) {
  MLIRContext ctx;
  const char *maps[] = {
      "affine_map<(d0, d1) -> (d0 * 4 + d1, d1)>",
      "affine_map<(d0, d1) -> (d0 floordiv 4, d0 mod 4 + d1 * 3)>",
      "affine_map<(d0, d1) -> (d0 ceildiv 3, (d0 + d1) mod 7, -d1)>",
      "affine_map<(d0, d1) -> ((d0 floordiv 2) * 16 + (d1 mod 2) * 8 + 5)>",
      "affine_map<(d0, d1) -> (((d0 * 2 - d1) floordiv 3) mod 5, 42)>",
      "affine_map<(d0, d1) -> ()>",
  };
  int checked = 0;
  for (const char *text : maps) {
    AffineMap map = parse(ctx, text);
    ASSERT_TRUE(map) << text;
    tisa::forEachIndex({15, 15}, [&](llvm::ArrayRef<int64_t> shifted) {
      int64_t point[] = {shifted[0] - 7, shifted[1] - 7};
      EXPECT_EQ(tisa::valueAt(map, point), map.compose(point))
          << text << " at (" << point[0] << ", " << point[1] << ")";
      ++checked;
    });
  }
  EXPECT_EQ(checked, 6 * 15 * 15);
}

} // namespace
