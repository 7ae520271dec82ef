//===- EvaluatorTest.cpp - the evaluator on hand-computed values ----------===//
//
// Each expectation is worked out by hand from the vendor manual, independently
// of the evaluator.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace tisa;
using namespace tisa::test;

namespace {

TEST(Evaluator, VpdpbusdWrapsAndIsUnsignedTimesSigned) {
  ShippedDescription s("intel/avx512-vnni/vpdpbusd.zmm.mlir");
  ASSERT_TRUE(s.ok()) << s.diagnosticsText();
  const Description &d = s.get();
  // a = 0xff (255 unsigned), b = 0x80 (-128 signed): each lane adds 4 * -32640
  // = -130560.
  TensorValue a = operand(d, 0, std::vector<uint64_t>(64, 0xff));
  TensorValue b = operand(d, 1, std::vector<uint64_t>(64, 0x80));
  TensorValue acc =
      operand(d, 2, std::vector<uint64_t>(16, 0x80000000u)); // INT32_MIN
  TensorValue r = evaluate(d, {a, b, acc});
  // INT32_MIN - 130560 wraps to 0x7ffe0200.
  for (uint64_t v : r.bits)
    EXPECT_EQ(v, 0x7ffe0200u);
}

TEST(Evaluator, VpdpbusdsSaturates) {
  ShippedDescription s("intel/avx512-vnni/vpdpbusds.zmm.mlir");
  ASSERT_TRUE(s.ok()) << s.diagnosticsText();
  const Description &d = s.get();
  TensorValue a = operand(d, 0, std::vector<uint64_t>(64, 0xff));
  TensorValue b = operand(d, 1, std::vector<uint64_t>(64, 0x80));
  TensorValue acc = operand(d, 2, std::vector<uint64_t>(16, 0x80000000u));
  for (uint64_t v : evaluate(d, {a, b, acc}).bits)
    EXPECT_EQ(v, 0x80000000u); // clamped at INT32_MIN
  // 0xff * 0x7f = 255 * 127 = 32385 per byte, 129540 per lane, from INT32_MAX -
  // 5: clamps high.
  TensorValue b2 = operand(d, 1, std::vector<uint64_t>(64, 0x7f));
  TensorValue acc2 = operand(d, 2, std::vector<uint64_t>(16, 0x7ffffffau));
  for (uint64_t v : evaluate(d, {a, b2, acc2}).bits)
    EXPECT_EQ(v, 0x7fffffffu);
}

TEST(Evaluator, Vdpbf16psAddsOddProductFirst) {
  ShippedDescription s("intel/avx512-bf16/vdpbf16ps.zmm.mlir");
  ASSERT_TRUE(s.ok()) << s.diagnosticsText();
  const Description &d = s.get();
  // Lane 0: acc = 2^-24, odd product 1 * 1, even product -1 * 1. Odd first (the
  // manual): 2^-24 + 1 rounds to 1, then 1 - 1 = 0. Even first would keep
  // 2^-24.
  const uint64_t one = 0x3f80, minusOne = 0xbf80;
  std::vector<uint64_t> abits(32, 0), bbits(32, 0), accbits(16, 0);
  abits[0] = minusOne; // (n=0, k=0): even element
  abits[1] = one;      // (n=0, k=1): odd element
  bbits[0] = one;
  bbits[1] = one;
  accbits[0] = 0x33800000; // 2^-24
  TensorValue r = evaluate(
      d, {operand(d, 0, abits), operand(d, 1, bbits), operand(d, 2, accbits)});
  EXPECT_EQ(r.bits[0], 0u);
}

TEST(Evaluator, ArmBfmmlaOverflowThenInvalid) {
  ShippedDescription s("arm/neon-bf16/neon.bfmmla.mlir");
  ASSERT_TRUE(s.ok()) << s.diagnosticsText();
  const Description &d = s.get();
  // Row 0 of A times column 0 of B: (-9.3e32 * -3.3e16) overflows to +inf,
  // (-2^85 * 2^79) overflows to -inf; their sum with anything is the default
  // NaN.
  std::vector<uint64_t> a(8, 0), b(8, 0);
  a[0] = 0xf637, a[1] = 0x995f, a[2] = 0xea5b, a[3] = 0x14f8;
  b[0] = 0xdae8, b[1] = 0x2feb, b[2] = 0x6744,
  b[3] = 0x4cba; // column 0 is held at bytes 0..3
  TensorValue bt = zeroOperand(d, 1, 1);
  for (unsigned k = 0; k < 4; ++k)
    bt.bits[k * 2 + 0] = b[k]; // B is 4x2 (k, j): element (k, 0)
  std::vector<uint64_t> acc = {0x608be14c, 0, 0, 0};
  TensorValue r = evaluate(d, {operand(d, 0, a), bt, operand(d, 2, acc)});
  EXPECT_EQ(r.bits[0], 0x7fc00000u);
}

} // namespace
