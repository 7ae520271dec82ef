//===- ParseTest.cpp - a crash of MLIR's parser, and after it -------------===//
//
// MLIR 22's parser segfaults on a named linalg op whose properties are not a
// dictionary. parseModule turns that into an error and refuses to parse
// again (MLIR's state may be inconsistent); a caller that drops the crashed
// context, as the fuzzers do, may parse again in a new one. Without that a
// fuzz run that meets the crash once covers nothing after it.
//
//===----------------------------------------------------------------------===//

#include "tisa/Semantics/Description.h"
#include "tisa/Semantics/Parse.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <memory>

using namespace mlir;
using namespace tisa;

namespace {

constexpr const char *kCrashing = R"(
func.func @f(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %o: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %r = linalg.matmul <1> ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%o : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %r : tensor<4x4xi32>
})";

constexpr const char *kSound = R"(
func.func @f(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %o: tensor<4x4xi32>) -> tensor<4x4xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%o : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %r : tensor<4x4xi32>
})";

/// A context that parses kSound and kCrashing, with every diagnostic's
/// message kept in `messages`.
struct Parsing {
  std::unique_ptr<MLIRContext> ctx;
  std::vector<std::string> messages;

  Parsing() {
    DialectRegistry registry;
    registry.insert<func::FuncDialect, linalg::LinalgDialect,
                    tensor::TensorDialect>();
    ctx = std::make_unique<MLIRContext>(registry,
                                        MLIRContext::Threading::DISABLED);
    ctx->getDiagEngine().registerHandler([this](Diagnostic &d) {
      messages.push_back(d.str());
      return success();
    });
  }
  bool parses(const char *text, const char *name) {
    llvm::SourceMgr sm;
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name),
                          llvm::SMLoc());
    return bool(parseModule(sm, ParserConfig(ctx.get())));
  }
};

TEST(Parse, AParserCrashStopsParsingUntilForgotten) {
  auto first = std::make_unique<Parsing>();
  ASSERT_TRUE(first->parses(kSound, "sound.mlir"));
  EXPECT_FALSE(parserCrashed());
  EXPECT_FALSE(first->parses(kCrashing, "crashing.mlir"));
  ASSERT_TRUE(parserCrashed());
  ASSERT_FALSE(first->messages.empty());
  EXPECT_NE(first->messages.back().find("MLIR's parser crashed on this file"),
            std::string::npos)
      << first->messages.back();
  // Refused from then on, whatever the context.
  EXPECT_FALSE(first->parses(kSound, "sound.mlir"));
  EXPECT_NE(first->messages.back().find("crashed on an earlier file"),
            std::string::npos)
      << first->messages.back();
  // The crashed context is dropped without being touched again (leaked, as
  // the fuzzers do); a new one parses.
  (void)first.release();
  forgetParserCrash();
  Parsing second;
  EXPECT_TRUE(second.parses(kSound, "sound.mlir"));
  EXPECT_TRUE(second.messages.empty());
}

} // namespace
