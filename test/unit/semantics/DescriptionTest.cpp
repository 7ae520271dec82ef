//===- DescriptionTest.cpp - loading and layouts --------------------------===//

#include "TestUtil.h"

using namespace tisa;
using namespace tisa::test;

namespace {

TEST(Description, AmxBIsPackedInVnniLayout) {
  ShippedDescription s("intel/amx-int8/tdpbssd.mlir");
  ASSERT_TRUE(s.ok()) << s.diagnosticsText();
  const Description &d = s.get();
  // B[k][n] lives at tile row k/4, byte 4n + k%4: B[5][3] -> row 1, byte 13 ->
  // element 1*64+13.
  EXPECT_EQ(registerElementIndex(d, 1, {5, 3}), 1 * 64 + 13);
  TensorValue b = zeroOperand(d, 1, 1);
  b.bits[5 * 16 + 3] = 0xab;
  std::vector<uint8_t> img = packOperand(d, 1, b);
  ASSERT_EQ(img.size(), 16u * 64u);
  EXPECT_EQ(img[1 * 64 + 13], 0xab);
  TensorValue back = unpackOperand(d, 1, img, 1);
  EXPECT_EQ(back.bits, b.bits);
}

TEST(Description, ScalableSegmentsRepeat) {
  ShippedDescription s("arm/sve/sve.sdot.mlir");
  ASSERT_TRUE(s.ok()) << s.diagnosticsText();
  const Description &d = s.get();
  EXPECT_TRUE(d.isScalable());
  EXPECT_EQ(registerImageBytes(d, 0, 4),
            64u); // 512-bit vectors: 4 segments of 16 bytes
}

} // namespace
