//===- MatcherTest.cpp - the matcher on indexing maps and near misses -----===//
//
// Every loop order of a GEMM, with and without transposed operands, must give
// the same plan up to loop names; each near miss (signedness, widths,
// accumulator, saturation, float relaxations, K smaller than the
// instruction's group, missing loops, dynamic shapes, non-contractions) must
// give the plan or the reason a person expects.
//
//===----------------------------------------------------------------------===//

#include "tisa/Config.h"
#include "tisa/Matcher/Matcher.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <atomic>
#include <gtest/gtest.h>
#include <thread>

using namespace mlir;
using namespace tisa;

namespace {

std::string descriptionText(StringRef name, StringRef in, StringRef acc,
                            StringRef body);

class MatcherTest : public ::testing::Test {
protected:
  MatcherTest() : set(ctx, errs) {
    DialectRegistry registry;
    registerDescriptionDialects(registry);
    registry.insert<memref::MemRefDialect>();
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    loaded = succeeded(set.loadDirectory(TISA_SOURCE_ISA_DIR));
    for (const auto &d : set.descriptions())
      all.push_back(d.get());
  }

  /// The only linalg operation of `source`, read as a contraction.
  FailureOr<Contraction> contraction(StringRef source, std::string &why) {
    modules.push_back(parseSourceString<ModuleOp>(source, &ctx));
    if (!modules.back()) {
      why = "parse error";
      return failure();
    }
    linalg::LinalgOp found;
    modules.back()->walk([&](linalg::LinalgOp op) { found = op; });
    if (!found) {
      why = "no linalg op";
      return failure();
    }
    return readContraction(found, why);
  }
  Contraction mustRead(StringRef source) {
    std::string why;
    FailureOr<Contraction> c = contraction(source, why);
    EXPECT_TRUE(succeeded(c)) << why << "\n" << source.str();
    return succeeded(c) ? *c : Contraction();
  }
  const Target &target(StringRef name) {
    auto it = targets.find(name);
    if (it != targets.end())
      return it->second;
    llvm::Expected<Target> t = loadTarget(name);
    EXPECT_TRUE(bool(t)) << (t ? "" : llvm::toString(t.takeError()));
    return targets.emplace(name.str(), t ? std::move(*t) : Target())
        .first->second;
  }
  const Description &desc(StringRef name) {
    const Description *d = set.lookup(name);
    EXPECT_NE(d, nullptr) << name.str();
    return *d;
  }
  /// Adds the test description descriptionText(name, in, acc, body).
  void loadTestDescription(StringRef name, StringRef in, StringRef acc,
                           StringRef body) {
    ASSERT_TRUE(succeeded(
        set.loadBuffer(descriptionText(name, in, acc, body), name)))
        << errText;
  }
  /// Plans of one description, or the reason in `why`.
  std::vector<TensorizePlan> plans(const Contraction &c, StringRef name,
                                   std::string &why, StringRef targetName = "",
                                   bool strict = false) {
    MatchOptions o;
    o.target = targetName.empty() ? nullptr : &target(targetName);
    o.strictFloat = strict;
    FailureOr<std::vector<TensorizePlan>> p =
        matchDescription(c, desc(name), o, why);
    return succeeded(p) ? *p : std::vector<TensorizePlan>();
  }
  std::string mapping(const Contraction &c, const TensorizePlan &p) {
    std::string s;
    for (const LoopAssignment &la : p.loops) {
      s += (s.empty() ? "" : " ") + la.instrName + "<-";
      for (unsigned l : la.programLoops)
        s += c.loops[l].name;
      if (la.sharesWith >= 0)
        s += "^";
    }
    return s;
  }

  MLIRContext ctx;
  std::string errText;
  llvm::raw_string_ostream errs{errText};
  DescriptionSet set;
  bool loaded = false;
  std::vector<const Description *> all;
  std::vector<OwningOpRef<ModuleOp>> modules;
  std::map<std::string, Target, std::less<>> targets;
};

/// A GEMM as linalg.generic with the loops in the order `order` (a
/// permutation of "mnk"), A as [M][K] or [K][M], B as [K][N] or [N][K].
std::string gemm(StringRef order, bool transA, bool transB, int64_t m = 64,
                 int64_t n = 64, int64_t k = 64, StringRef extA = "extui",
                 StringRef extB = "extsi") {
  auto dim = [&](char role) {
    return "d" + std::to_string(order.find(role));
  };
  std::string iters;
  for (char r : order)
    iters += std::string(iters.empty() ? "" : ", ") +
             (r == 'k' ? "\"reduction\"" : "\"parallel\"");
  std::string a = transA ? dim('k') + ", " + dim('m') : dim('m') + ", " + dim('k');
  std::string b = transB ? dim('n') + ", " + dim('k') : dim('k') + ", " + dim('n');
  std::string aType = transA ? llvm::formatv("tensor<{0}x{1}xi8>", k, m)
                             : llvm::formatv("tensor<{0}x{1}xi8>", m, k);
  std::string bType = transB ? llvm::formatv("tensor<{0}x{1}xi8>", n, k)
                             : llvm::formatv("tensor<{0}x{1}xi8>", k, n);
  std::string cType = llvm::formatv("tensor<{0}x{1}xi32>", m, n);
  return llvm::formatv(R"(
func.func @f(%a: {0}, %b: {1}, %c: {2}) -> {2} {
  %r = linalg.generic {indexing_maps = [
      affine_map<(d0, d1, d2) -> ({3})>, affine_map<(d0, d1, d2) -> ({4})>,
      affine_map<(d0, d1, d2) -> ({5}, {6})>],
      iterator_types = [{7}]}
      ins(%a, %b : {0}, {1}) outs(%c : {2}) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.{8} %x : i8 to i32
      %yw = arith.{9} %y : i8 to i32
      %p = arith.muli %xw, %yw : i32
      %t = arith.addi %s, %p : i32
      linalg.yield %t : i32
  } -> {2}
  return %r : {2}
})",
                       aType, bType, cType, a, b, dim('m'), dim('n'), iters,
                       extA, extB)
      .str();
}

std::string matmul(StringRef elem, StringRef acc, int64_t m, int64_t n,
                   int64_t k, StringRef attrs = "") {
  return llvm::formatv(R"(
func.func @f(%a: tensor<{1}x{3}x{0}>, %b: tensor<{3}x{2}x{0}>, %c: tensor<{1}x{2}x{4}>) -> tensor<{1}x{2}x{4}> {
  %r = linalg.matmul {5} ins(%a, %b : tensor<{1}x{3}x{0}>, tensor<{3}x{2}x{0}>) outs(%c : tensor<{1}x{2}x{4}>) -> tensor<{1}x{2}x{4}>
  return %r : tensor<{1}x{2}x{4}>
})",
                       elem, m, n, k, acc, attrs)
      .str();
}

TEST_F(MatcherTest, DescriptionsLoad) {
  ASSERT_TRUE(loaded) << errText;
  EXPECT_GE(all.size(), 22u);
}

// Every loop order x operand transposition: the best VNNI plan maps the
// instruction's lanes to n and its group to k, broadcasts A when its k is
// contiguous, packs B to [K/4][N][4] from either orientation, and loads C
// directly; the number of plans does not depend on the loop order.
TEST_F(MatcherTest, GemmEveryLoopOrderAndTransposition) {
  std::string orders[] = {"mnk", "mkn", "nmk", "nkm", "kmn", "knm"};
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      size_t count = 0;
      for (StringRef order : orders) {
        SCOPED_TRACE(llvm::formatv("order {0} transA {1} transB {2}", order,
                                   transA, transB)
                         .str());
        Contraction c = mustRead(gemm(order, transA, transB));
        ASSERT_EQ(c.arith.text, "u8 x s8 -> s32");
        std::string why;
        std::vector<TensorizePlan> ps = plans(c, "vpdpbusd.zmm", why, "znver4");
        ASSERT_FALSE(ps.empty()) << why;
        if (order == orders[0])
          count = ps.size();
        EXPECT_EQ(ps.size(), count);
        const TensorizePlan &best = ps.front();
        EXPECT_EQ(mapping(c, best), "n<-n k<-k");
        EXPECT_FALSE(best.repair.has_value());
        EXPECT_EQ(best.programInputOf[0], 0u);
        const OperandPlan &a = best.operands[0], &b = best.operands[1],
                          &acc = best.operands[2];
        if (!transA) {
          EXPECT_EQ(a.access, OperandPlan::Access::Broadcast);
          EXPECT_EQ(a.runBytes, 4);
        } else {
          // k is not contiguous in [K][M]: transpose, then broadcast.
          EXPECT_EQ(a.access, OperandPlan::Access::Packed);
          EXPECT_EQ(a.packedShape, "[M][K]");
          EXPECT_EQ(a.bytesPerInstruction, 4);
        }
        EXPECT_EQ(b.access, OperandPlan::Access::Packed);
        EXPECT_EQ(b.packedShape, "[K/4][N][4]");
        EXPECT_EQ(b.innerTiles, SmallVector<int64_t>({4}));
        EXPECT_EQ(b.innerDimsPos,
                  SmallVector<int64_t>({transB ? int64_t(1) : int64_t(0)}));
        EXPECT_EQ(acc.access, OperandPlan::Access::Direct);
        EXPECT_EQ(best.cost.utilization, 1.0);
        EXPECT_EQ(best.cost.instructions, 64 * (64 / 16) * (64 / 4));
      }
    }
}

TEST_F(MatcherTest, SignednessRepairs) {
  std::string why;
  // s8 x s8 on u8 x s8: bias A by +128, compensate with the sums of B.
  Contraction ss = mustRead(gemm("mnk", false, false, 64, 64, 64, "extsi", "extsi"));
  auto p = plans(ss, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  ASSERT_TRUE(p.front().repair.has_value());
  EXPECT_EQ(p.front().repair->bias[0], 128);
  EXPECT_EQ(p.front().repair->bias[1], 0);
  EXPECT_NE(p.front().repair->text.find("- 128 * sum_k ins1"), std::string::npos)
      << p.front().repair->text;
  // u8 x u8: bias B by -128, add 128 * the sums of A.
  Contraction uu = mustRead(gemm("mnk", false, false, 64, 64, 64, "extui", "extui"));
  p = plans(uu, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  ASSERT_TRUE(p.front().repair.has_value());
  EXPECT_EQ(p.front().repair->bias[0], 0);
  EXPECT_EQ(p.front().repair->bias[1], -128);
  // s8 x u8: the factors swap; no repair.
  Contraction su = mustRead(gemm("mnk", false, false, 64, 64, 64, "extsi", "extui"));
  p = plans(su, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_FALSE(p.front().repair.has_value());
  EXPECT_EQ(p.front().programInputOf[0], 1u);
  // u8 x u8 on s8 x s8 (smmla): both biased, constant term.
  p = plans(uu, "neon.smmla", why, "neoverse-v1");
  ASSERT_FALSE(p.empty()) << why;
  ASSERT_TRUE(p.front().repair.has_value());
  EXPECT_EQ(p.front().repair->bias[0], -128);
  EXPECT_EQ(p.front().repair->bias[1], -128);
  EXPECT_NE(p.front().repair->text.find("K (reduction length)"),
            std::string::npos);
  // The same program on ummla needs none.
  p = plans(uu, "neon.ummla", why, "neoverse-v1");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_FALSE(p.front().repair.has_value());
}

/// An 8x8x8 i8 x i8 -> i32 GEMM whose factors are widened to i16 by
/// `factorExt`, multiplied there, and the product widened by `productExt`.
std::string productIn16Bits(StringRef factorExt, StringRef productExt) {
  std::string text = R"(
func.func @f(%a: tensor<8x8xi8>, %b: tensor<8x8xi8>, %c: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x8xi8>, tensor<8x8xi8>) outs(%c : tensor<8x8xi32>) {
    ^bb0(%x: i8, %y: i8, %s: i32):
      %xw = arith.FACTOR_EXT %x : i8 to i16
      %yw = arith.FACTOR_EXT %y : i8 to i16
      %p = arith.muli %xw, %yw : i16
      %pw = arith.PRODUCT_EXT %p : i16 to i32
      %t = arith.addi %s, %pw : i32
      linalg.yield %t : i32
  } -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
})";
  for (size_t at; (at = text.find("FACTOR_EXT")) != std::string::npos;)
    text.replace(at, 10, factorExt.str());
  text.replace(text.find("PRODUCT_EXT"), 11, productExt.str());
  return text;
}

TEST_F(MatcherTest, ArithmeticNearMisses) {
  std::string why;
  // The accumulator is narrower.
  Contraction c16 = mustRead(matmul("i8", "i16", 32, 32, 32));
  EXPECT_TRUE(plans(c16, "vpdpbusd.zmm", why).empty());
  EXPECT_EQ(why, "the program accumulates in s16, the instruction in s32");
  // Wider factors.
  Contraction w = mustRead(matmul("i16", "i32", 32, 32, 32));
  EXPECT_TRUE(plans(w, "vpdpbusd.zmm", why).empty());
  EXPECT_NE(why.find("A is s16, the instruction's operand 0 needs u8"),
            std::string::npos)
      << why;
  // Saturation.
  Contraction ok = mustRead(gemm("mnk", false, false));
  EXPECT_TRUE(plans(ok, "vpdpbusds.zmm", why).empty());
  EXPECT_EQ(why, "the instruction saturates its accumulator; the program's "
                 "sum wraps");
  // Integer program, float instruction.
  EXPECT_TRUE(plans(ok, "vdpbf16ps.zmm", why).empty());
  EXPECT_NE(why.find("the program is integer"), std::string::npos);
  // f16 against bf16.
  Contraction h = mustRead(matmul("f16", "f32", 32, 32, 32));
  EXPECT_TRUE(plans(h, "vdpbf16ps.zmm", why).empty());
  EXPECT_EQ(why, "A is f16, the instruction's operand 0 needs bf16");
  // A product that wraps in i16 (u8 x u8 needs 16 unsigned bits).
  Contraction wrap = mustRead(productIn16Bits("extui", "extsi"));
  EXPECT_FALSE(wrap.arith.exactProduct);
  EXPECT_TRUE(plans(wrap, "vpdpbusd.zmm", why).empty());
  EXPECT_NE(why.find("wrapped"), std::string::npos) << why;
}

TEST_F(MatcherTest, FloatRelaxationsAreDeclared) {
  Contraction c = mustRead(matmul("bf16", "f32", 64, 64, 64));
  std::string why;
  auto p = plans(c, "vdpbf16ps.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  const TensorizePlan &best = p.front();
  EXPECT_EQ(best.operands[1].packedShape, "[K/2][N][2]");
  ASSERT_FALSE(best.relaxations.empty());
  EXPECT_NE(best.relaxations.front().find("descending"), std::string::npos);
  EXPECT_TRUE(plans(c, "vdpbf16ps.zmm", why, "znver4", /*strict=*/true).empty());
  EXPECT_NE(why.find("--strict-fp"), std::string::npos);
}

/// A 2x2x2 SVE description whose body is `body` over factors of type `in`
/// (f32, bf16 or i8) and an accumulator of type `acc`: a test instruction
/// (the matcher reads its body and registers; its intrinsic only fits them).
std::string descriptionText(StringRef name, StringRef in, StringRef acc,
                            StringRef body) {
  std::string text = R"(
func.func @d(%a: tensor<2x2xIN>, %b: tensor<2x2xIN>, %acc: tensor<2x2xACC>) -> tensor<2x2xACC>
    attributes {tisa.instruction = {
      name = "NAME", target = "aarch64", features = ["+sve"], extension = "test",
      mnemonic = "fmmla",
      registers = [
        {type = vector<[LANES]xIN>, layout = affine_map<(i, k) -> (i * 2 + k)>},
        {type = vector<[LANES]xIN>, layout = affine_map<(k, j) -> (j * 2 + k)>},
        {type = vector<[4]xACC>, layout = affine_map<(i, j) -> (i * 2 + j)>}],
      ARITHMETIC,
      lowering = {intrinsic = "INTRINSIC", operands = [2, 0, 1]},
      reference = "test"}} {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
      affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x2xIN>, tensor<2x2xIN>) outs(%acc : tensor<2x2xACC>) {
    ^bb0(%x: IN, %y: IN, %s: ACC):
      BODY
  } -> tensor<2x2xACC>
  return %r : tensor<2x2xACC>
})";
  auto replace = [&](StringRef from, StringRef to) {
    for (size_t at; (at = text.find(from.str())) != std::string::npos;)
      text.replace(at, from.size(), to.str());
  };
  replace("NAME", name);
  replace("ARITHMETIC", acc.starts_with("f") ? "fp = {accumulation = \"pairwise\", "
                                               "rounding = \"nearest-even\", "
                                               "input_denormals = \"keep\", "
                                               "output_denormals = \"keep\", "
                                               "nan = \"propagate\"}"
                                             : "saturation = \"none\"");
  replace("BODY", body);
  replace("INTRINSIC", in == "f32"    ? "llvm.aarch64.sve.fmmla.nxv4f32.nxv4f32"
                       : in == "bf16" ? "llvm.aarch64.sve.fmmla.nxv4f32.nxv8bf16"
                                      : "llvm.aarch64.sve.smmla.nxv4i32");
  replace("LANES", in == "f32" ? "4" : in == "bf16" ? "8" : "16");
  replace("ACC", acc);
  replace("IN", in);
  return text;
}

TEST_F(MatcherTest, ProductsAgreeWhenRoundedAlike) {
  // f32 x f32 -> f32 on both sides: each product rounded to f32 first.
  loadTestDescription("test.f32", "f32", "f32",
                      "%p = arith.mulf %x, %y : f32\n"
                      "%t = arith.addf %s, %p : f32\n"
                      "linalg.yield %t : f32");
  ASSERT_FALSE(HasFatalFailure());
  Contraction f32 = mustRead(matmul("f32", "f32", 16, 16, 16));
  EXPECT_FALSE(f32.arith.exactProduct);
  std::string why;
  auto p = plans(f32, "test.f32", why);
  ASSERT_FALSE(p.empty()) << why;
  ASSERT_FALSE(p.front().relaxations.empty());
  EXPECT_NE(p.front().relaxations.front().find("in pairs"), std::string::npos);
  // The product exact in the program (bf16 widened to f32), rounded to bf16
  // by the instruction: the instruction computes something else.
  loadTestDescription("test.bf16", "bf16", "f32",
                      "%p = arith.mulf %x, %y : bf16\n"
                      "%w = arith.extf %p : bf16 to f32\n"
                      "%t = arith.addf %s, %w : f32\n"
                      "linalg.yield %t : f32");
  ASSERT_FALSE(HasFatalFailure());
  Contraction bf16 = mustRead(matmul("bf16", "f32", 16, 16, 16));
  EXPECT_TRUE(bf16.arith.exactProduct);
  EXPECT_TRUE(plans(bf16, "test.bf16", why).empty());
  EXPECT_EQ(why, "the instruction's product is rounded before it is "
                 "accumulated (bf16 x bf16 -> f32 (product rounded in "
                 "bf16)); the program's is exact");
  // Both wrap, in different types.
  loadTestDescription("test.i8", "i8", "i32",
                      "%p = arith.muli %x, %y : i8\n"
                      "%w = arith.extsi %p : i8 to i32\n"
                      "%t = arith.addi %s, %w : i32\n"
                      "linalg.yield %t : i32");
  ASSERT_FALSE(HasFatalFailure());
  Contraction wrap16 = mustRead(productIn16Bits("extsi", "extui"));
  EXPECT_TRUE(plans(wrap16, "test.i8", why).empty());
  EXPECT_EQ(why, "the program's product is wrapped in s16, the instruction's "
                 "in s8");
}

TEST_F(MatcherTest, RemaindersAndPadding) {
  // K = 3 leaves one of the four bytes of each group unused.
  Contraction c = mustRead(gemm("mnk", false, false, 8, 32, 3));
  std::string why;
  auto p = plans(c, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_NEAR(p.front().cost.utilization, 0.75, 1e-9);
  EXPECT_TRUE(llvm::is_contained(
      p.front().notes, "k=3 leaves 1 of 4 lanes unused: padding needed"));
  // N = 17: a partial last tile.
  Contraction odd = mustRead(gemm("mnk", false, false, 8, 17, 64));
  p = plans(odd, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_TRUE(llvm::is_contained(
      p.front().notes,
      "n=17: the last tile uses 1 of 16 lanes: pad to 32 or a masked epilogue"));
}

TEST_F(MatcherTest, AMXTilesShrinkAndMatvecPads) {
  std::string why;
  Contraction c = mustRead(gemm("mnk", false, false, 128, 128, 256));
  auto p = plans(c, "tdpbusd", why, "sapphirerapids");
  ASSERT_FALSE(p.empty()) << why;
  const TensorizePlan &best = p.front();
  EXPECT_EQ(mapping(c, best), "m<-m n<-n k<-k");
  EXPECT_EQ(best.operands[0].access, OperandPlan::Access::Strided);
  EXPECT_EQ(best.operands[1].packedShape, "[K/4][N][4]");
  EXPECT_EQ(best.operands[2].access, OperandPlan::Access::Strided);
  // M = 1: the tile shrinks to one row instead of wasting fifteen.
  Contraction m1 = mustRead(gemm("mnk", false, false, 1, 128, 256));
  p = plans(m1, "tdpbusd", why, "sapphirerapids");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_EQ(p.front().loops[0].instrExtent, 1);
  EXPECT_EQ(p.front().cost.utilization, 1.0);
  // Not executable on this Zen 4 target.
  EXPECT_TRUE(plans(c, "tdpbusd", why, "znver4").empty());
  EXPECT_EQ(why, "znver4 lacks amx-tile, amx-int8");
  // linalg.matvec has one parallel loop: AMX's second one is padding.
  Contraction mv = mustRead(R"(
func.func @f(%a: tensor<64x128xi8>, %x: tensor<128xi8>, %y: tensor<64xi32>) -> tensor<64xi32> {
  %r = linalg.matvec ins(%a, %x : tensor<64x128xi8>, tensor<128xi8>) outs(%y : tensor<64xi32>) -> tensor<64xi32>
  return %r : tensor<64xi32>
})");
  p = plans(mv, "tdpbssd", why, "sapphirerapids");
  ASSERT_FALSE(p.empty()) << why;
  bool padded = llvm::any_of(p.front().loops, [](const LoopAssignment &la) {
    return la.programLoops.empty();
  });
  EXPECT_TRUE(padded);
}

TEST_F(MatcherTest, SVESegmentsExtendALoop) {
  std::string why;
  Contraction c = mustRead(gemm("mnk", false, false, 64, 64, 64, "extsi", "extsi"));
  auto p = plans(c, "sve.sdot", why, "neoverse-v1");
  ASSERT_FALSE(p.empty()) << why;
  // 256-bit vectors: two 128-bit segments continue the n lanes.
  EXPECT_EQ(mapping(c, p.front()), "n<-n k<-k seg<-n^");
  EXPECT_EQ(p.front().loops.back().instrExtent, 2);
  EXPECT_EQ(p.front().operands[1].packedShape, "[K/4][N][4]");
  EXPECT_EQ(p.front().operands[2].access, OperandPlan::Access::Direct);
  // Without a target the length is a stated assumption.
  p = plans(c, "sve.sdot", why);
  ASSERT_FALSE(p.empty()) << why;
  bool noted = llvm::any_of(p.front().notes, [](const std::string &n) {
    return StringRef(n).starts_with("scalable vectors");
  });
  EXPECT_TRUE(noted);
}

TEST_F(MatcherTest, MmaFragments) {
  std::string why;
  Contraction c = mustRead(gemm("mnk", false, false, 64, 64, 64, "extsi", "extsi"));
  auto p = plans(c, "mma.m16n8k32.s8s8s32", why, "sm_80");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_EQ(mapping(c, p.front()), "m<-m n<-n k<-k");
  for (const OperandPlan &op : p.front().operands)
    EXPECT_EQ(op.access, OperandPlan::Access::Strided);
  // Row-major A: each lane reads 4 consecutive k.
  EXPECT_EQ(p.front().operands[0].runBytes, 4);
  EXPECT_TRUE(plans(c, "mma.m16n8k32.s8s8s32", why, "znver4").empty());
}

TEST_F(MatcherTest, Convolutions) {
  std::string why;
  Contraction c = mustRead(R"(
func.func @f(%i: tensor<1x16x16x32xi8>, %f: tensor<3x3x32x64xi8>, %o: tensor<1x7x7x64xi32>) -> tensor<1x7x7x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : tensor<1x16x16x32xi8>, tensor<3x3x32x64xi8>) outs(%o : tensor<1x7x7x64xi32>) -> tensor<1x7x7x64xi32>
  return %r : tensor<1x7x7x64xi32>
})");
  auto p = plans(c, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_EQ(mapping(c, p.front()), "n<-f k<-c");
  // Output channels on the lanes, input channels in the groups: the filter
  // packs to [KH][KW][C/4][F][4], the input is broadcast, whichever of the
  // two takes the u8 slot (a repair either way: both are s8).
  auto byProgramOperand = [&](const TensorizePlan &plan, unsigned p) {
    for (const OperandPlan &op : plan.operands)
      if (op.programOperand == p)
        return op;
    return OperandPlan();
  };
  EXPECT_EQ(byProgramOperand(p.front(), 0).access,
            OperandPlan::Access::Broadcast);
  EXPECT_EQ(byProgramOperand(p.front(), 1).packedShape, "[KH][KW][C/4][F][4]");
  EXPECT_EQ(byProgramOperand(p.front(), 2).access, OperandPlan::Access::Direct);
  ASSERT_TRUE(p.front().repair.has_value());
  // ResNet-50's first layer: three input channels. Fusing c with the window
  // loops (im2col's view) fills the groups of four.
  Contraction first = mustRead(R"(
func.func @f(%i: tensor<1x230x230x3xi8>, %f: tensor<7x7x3x64xi8>, %o: tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : tensor<1x230x230x3xi8>, tensor<7x7x3x64xi8>) outs(%o : tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32>
  return %r : tensor<1x112x112x64xi32>
})");
  p = plans(first, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  EXPECT_TRUE(StringRef(mapping(first, p.front())).ends_with("kwc"))
      << mapping(first, p.front());
  EXPECT_GT(p.front().cost.utilization, 0.85);
  // (kw, c) fuse linearly in NHWC/HWCF: the filter packs, no gather.
  const TensorizePlan *kwc = nullptr;
  for (const TensorizePlan &plan : p)
    if (mapping(first, plan) == "n<-f k<-kwc" && !kwc)
      kwc = &plan;
  ASSERT_NE(kwc, nullptr);
  EXPECT_NEAR(kwc->cost.utilization, 21.0 / 24.0, 1e-9);
  // Without fusion c alone feeds k on that mapping: three of four bytes.
  MatchOptions noFuse;
  noFuse.target = &target("znver4");
  noFuse.fuseLoops = false;
  FailureOr<std::vector<TensorizePlan>> q =
      matchDescription(first, desc("vpdpbusd.zmm"), noFuse, why);
  ASSERT_TRUE(succeeded(q)) << why;
  for (const TensorizePlan &plan : *q) {
    EXPECT_EQ(mapping(first, plan).find('.'), std::string::npos);
    if (mapping(first, plan) == "n<-f k<-c")
      EXPECT_NEAR(plan.cost.utilization, 0.75, 1e-9);
  }
  EXPECT_LE(q->front().cost.utilization, p.front().cost.utilization);
}

TEST_F(MatcherTest, DynamicShapesArePlannedWithRunTimeRemainders) {
  Contraction c = mustRead(R"(
func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<?x?xi8>, tensor<?x?xi8>) outs(%c : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
})");
  std::string why;
  auto p = plans(c, "vpdpbusd.zmm", why, "znver4");
  ASSERT_FALSE(p.empty()) << why;
  bool noted = llvm::any_of(p.front().notes, [](const std::string &n) {
    return StringRef(n).contains("is dynamic");
  });
  EXPECT_TRUE(noted);
}

TEST_F(MatcherTest, NotContractions) {
  std::string why;
  EXPECT_TRUE(failed(contraction(R"(
func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%c : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
})",
                                 why)));
  EXPECT_NE(why.find("linalg.add is not a contraction"), std::string::npos)
      << why;
  EXPECT_TRUE(failed(contraction(R"(
func.func @f(%a: tensor<8x8xi2>, %b: tensor<8x8xi2>, %c: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xi2>, tensor<8x8xi2>) outs(%c : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
})",
                                 why)));
  EXPECT_NE(why.find("unsupported element type i2"), std::string::npos) << why;
  EXPECT_TRUE(failed(contraction(R"(
func.func @f(%a: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.fill ins(%a : tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
})",
                                 why)));
}

// Passes read programs on several threads at once. Reading a body that is
// not a multiply-accumulate once captured its reason with a context-wide
// diagnostic handler, which took the diagnostics other threads emitted
// meanwhile: tisa gen lost a function's warning about one run in 30.
TEST_F(MatcherTest, ReadingABodyLeavesOtherThreadsDiagnostics) {
  modules.push_back(parseSourceString<ModuleOp>(R"(
func.func @f(%a: memref<16x64xi1>, %b: memref<64x32xi1>, %c: memref<16x32xi1>) {
  linalg.matmul ins(%a, %b : memref<16x64xi1>, memref<64x32xi1>) outs(%c : memref<16x32xi1>)
  return
})",
                                                &ctx));
  ASSERT_TRUE(modules.back());
  linalg::LinalgOp op;
  modules.back()->walk([&](linalg::LinalgOp found) { op = found; });
  ASSERT_TRUE(op);
  std::string why;
  ASSERT_TRUE(failed(readContraction(op, why)));
  EXPECT_NE(why.find("the body is not a multiply-accumulate"),
            std::string::npos)
      << why;

  std::atomic<int> seen{0};
  ScopedDiagnosticHandler count(&ctx, [&](Diagnostic &) {
    ++seen;
    return success();
  });
  constexpr int kRounds = 20000;
  std::thread reader([&] {
    for (int i = 0; i < kRounds; ++i) {
      std::string ignored;
      (void)readContraction(op, ignored);
    }
  });
  for (int i = 0; i < kRounds; ++i)
    emitWarning(op.getLoc()) << "from another thread";
  reader.join();
  EXPECT_EQ(seen.load(), kRounds);
}

// The whole set against one op: every description is either planned or
// rejected with a reason, never both, never silently dropped.
TEST_F(MatcherTest, EveryDescriptionAccountedFor) {
  Contraction c = mustRead(gemm("mnk", false, false));
  MatchOptions o;
  MatchResult r = match(c, all, o);
  std::set<const Description *> seen;
  for (const TensorizePlan &p : r.plans)
    seen.insert(p.desc);
  for (const Rejection &x : r.rejected) {
    EXPECT_FALSE(seen.count(x.desc)) << x.desc->name;
    EXPECT_FALSE(x.reason.empty()) << x.desc->name;
    seen.insert(x.desc);
  }
  EXPECT_EQ(seen.size(), all.size());
  for (size_t i = 1; i < r.plans.size(); ++i)
    EXPECT_LE(r.plans[i - 1].cost.cycles, r.plans[i].cost.cycles);
}

/// The attribute of every plan the matcher returns reads back, through its
/// text, as that plan: same key, accesses, packs and cost.
TEST_F(MatcherTest, EveryPlanReadsBackFromItsAttribute) {
  std::string conv = R"(
func.func @f(%i: tensor<1x230x230x3xi8>, %f: tensor<7x7x3x64xi8>, %o: tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : tensor<1x230x230x3xi8>, tensor<7x7x3x64xi8>) outs(%o : tensor<1x112x112x64xi32>) -> tensor<1x112x112x64xi32>
  return %r : tensor<1x112x112x64xi32>
})";
  std::string dynamic = R"(
func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<?x?xi8>, tensor<?x?xi8>) outs(%c : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
})";
  struct Case {
    std::string source;
    const char *target;
  };
  std::vector<Case> cases = {
      {gemm("mnk", false, false), "znver4"},
      {gemm("knm", true, true, 48, 40, 36), "znver4"},
      {gemm("mnk", false, false, 64, 64, 64, "extsi", "extsi"), "neoverse-v1"},
      {gemm("mnk", false, false, 64, 64, 64, "extsi", "extsi"), "sm_80"},
      {gemm("mnk", false, false, 1, 64, 64), "sapphirerapids"},
      {matmul("bf16", "f32", 32, 64, 64), "sapphirerapids"},
      {conv, "znver4"},
      {dynamic, "znver4"},
      {gemm("mnk", false, false), ""}};
  size_t checked = 0;
  for (const Case &k : cases) {
    Contraction c = mustRead(k.source);
    MatchOptions o;
    o.target = *k.target ? &target(k.target) : nullptr;
    MatchResult r = match(c, all, o);
    EXPECT_FALSE(r.plans.empty()) << k.source;
    for (const TensorizePlan &p : r.plans) {
      PlanAttr attr = planAttr(&ctx, c, p);
      std::string text;
      llvm::raw_string_ostream os(text);
      Attribute(attr).print(os);
      EXPECT_EQ(parseAttribute(text, &ctx), attr) << text;
      std::string why;
      FailureOr<TensorizePlan> back = planFromAttr(c, attr, all, o, why);
      ASSERT_TRUE(succeeded(back)) << text << ": " << why;
      EXPECT_EQ(planKey(c, *back), planKey(c, p)) << text;
      EXPECT_EQ(back->cost.cycles, p.cost.cycles) << text;
      EXPECT_EQ(back->cost.instructions, p.cost.instructions) << text;
      EXPECT_EQ(back->cost.packBytes, p.cost.packBytes) << text;
      EXPECT_EQ(back->repair.has_value(), p.repair.has_value()) << text;
      EXPECT_EQ(back->relaxations, p.relaxations) << text;
      for (auto [x, y] : llvm::zip_equal(back->operands, p.operands)) {
        EXPECT_EQ(x.access, y.access) << text;
        EXPECT_EQ(x.packedShape, y.packedShape) << text;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 50u);
}

/// A plan attribute that does not fit the contraction or the target says
/// why, naming the loop.
TEST_F(MatcherTest, PlanAttributesThatDoNotFit) {
  Contraction c = mustRead(gemm("mnk", false, false));
  MatchOptions o;
  o.target = &target("znver4");
  auto why = [&](StringRef text) {
    auto attr = dyn_cast_or_null<PlanAttr>(parseAttribute(text, &ctx));
    EXPECT_TRUE(attr) << text.str();
    std::string reason;
    if (attr && succeeded(planFromAttr(c, attr, all, o, reason)))
      return std::string("fits");
    return reason;
  };
  EXPECT_EQ(why(R"(#tisa.plan<"vpdpbusd.zmm", [n = [1], k = [2]]>)"), "fits");
  EXPECT_EQ(why(R"(#tisa.plan<"nosuch", [n = [1], k = [2]]>)"),
            "no instruction description named 'nosuch'");
  EXPECT_EQ(why(R"(#tisa.plan<"tdpbusd", [m = [0], n = [1], k = [2]]>)"),
            "znver4 lacks amx-tile, amx-int8");
  EXPECT_EQ(why(R"(#tisa.plan<"vpdpbusd.zmm", [k = [2], n = [1]]>)"),
            "loop 0 of vpdpbusd.zmm is 'n', not 'k'");
  EXPECT_EQ(why(R"(#tisa.plan<"vpdpbusd.zmm", [n = [2], k = [1]]>)"),
            "'n' is a parallel loop; program loop 2 ('k') is not");
  EXPECT_EQ(why(R"(#tisa.plan<"vpdpbusd.zmm", [n = [1], k = [5]]>)"),
            "'k' takes program loop 5; the contraction has 3");
  EXPECT_EQ(why(R"(#tisa.plan<"vpdpbusd.zmm", [n = [1]]>)"),
            "vpdpbusd.zmm has 2 loops (n, k); the plan names 1");
  // Lanes along m fit (A packed, B broadcast); AMX's m and n swapped do not.
  EXPECT_EQ(why(R"(#tisa.plan<"vpdpbusd.zmm", [n = [0], k = [2]]>)"), "fits");
  o.target = &target("sapphirerapids");
  EXPECT_EQ(why(R"(#tisa.plan<"tdpbusd", [m = [0], n = [1], k = [2]]>)"),
            "fits");
  EXPECT_EQ(why(R"(#tisa.plan<"tdpbusd", [m = [1], n = [0], k = [2]]>)"),
            "ins0 varies with m (instruction loop n), which the instruction's "
            "operand 0 does not index");
}

} // namespace
