//===- CApiTest.cpp - the C API's refusals (include/tisa/tisa.h) ----------===//
//
// Every message tisa_compile gives starts with "tisa_compile: " and says what
// is wrong in the C API's terms; the C examples (examples/c-api) check the
// kernels it gives, and the entries of two here read and write only the
// bytes the caller gives them (each buffer against a fence page).
//
//===----------------------------------------------------------------------===//

#include "tisa/tisa.h"
#include "tisa/Kernels/Reference.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

/// tisa_compile's message for `spec` on `target`, or "" when it compiled.
std::string refusal(const tisa_kernel_spec &spec, const char *target = nullptr) {
  char *error = nullptr;
  tisa_kernel *k = tisa_compile(&spec, target, &error);
  tisa_kernel_free(k);
  std::string text = error ? error : "";
  tisa_free(error);
  return text;
}

TEST(CApi, EveryRefusalSaysItIsTisaCompiles) {
  // The compiler's own messages (plan, target, extents) as well as the C
  // API's checks.
  EXPECT_EQ(refusal(tisa_gemm_spec(8, 8, TISA_RUN_TIME, "f16,f16,f32"))
                .rfind("tisa_compile: no instruction host executes applies to "
                       "gemm 8x8x? f16f16f32, and plain code does not take n "
                       "or k at run time",
                       0),
            0u);
  EXPECT_EQ(refusal(tisa_gemm_spec(8, 8, 8, "u8,s8,s32"), "foo")
                .rfind("tisa_compile: unknown target 'foo'", 0),
            0u);
  EXPECT_EQ(refusal(tisa_gemm_spec(0, 8, 8, "u8,s8,s32")),
            "tisa_compile: spec.m is 0; it must be a positive integer or "
            "TISA_RUN_TIME");
}

TEST(CApi, TooLargeNamesTheZeroPaddedInput) {
  // One input element, padded by 2^20 - 1 on each side: the padded input is
  // what would not fit (the message said "the input").
  int64_t big = int64_t(1) << 20;
  EXPECT_EQ(refusal(tisa_conv2d_spec(1, 1, 1, 1, 1, big, big, big, big - 1,
                                     "u8,s8,s32")),
            "tisa_compile: the zero-padded input would have 4.4E+12 elements, "
            "more than 2^40");
}

TEST(CApi, AnUnreadableDescriptionDirectorySaysWhereItLooked) {
  const char *before = std::getenv("TISA_ISA_PATH");
  std::string saved = before ? before : "";
  setenv("TISA_ISA_PATH", "/nonexistent/tisa-descriptions", 1);
  std::string text = refusal(tisa_gemm_spec(8, 8, 8, "u8,s8,s32"));
  if (before)
    setenv("TISA_ISA_PATH", saved.c_str(), 1);
  else
    unsetenv("TISA_ISA_PATH");
  EXPECT_EQ(text.rfind("tisa_compile: bad instruction descriptions "
                       "(searched: /nonexistent/tisa-descriptions, ",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("TISA_ISA_PATH adds directories"), std::string::npos);
  EXPECT_NE(text.find("error: cannot read description directory "
                      "'/nonexistent/tisa-descriptions'"),
            std::string::npos);
  EXPECT_EQ(text.find("<unknown>"), std::string::npos) << text;
}

} // namespace

namespace {

using tisa::BufferAllocator;
using tisa::Bytes;
using tisa::Fence;

/// `bytes` of `fill`, placed against a fence page as `fence` says.
Bytes fenced(size_t bytes, uint8_t fill, Fence fence) {
  return Bytes(bytes, fill, BufferAllocator<uint8_t>(fence));
}

/// The 1x1 convolution of one pixel of `c` u8 channels into `k` s32
/// filters (HWCF filter): out[f] = sum_c in[c] * filter[c][f].
std::vector<int32_t> pixelReference(const Bytes &in, const Bytes &filter,
                                    int64_t c, int64_t k) {
  std::vector<int32_t> out(k, 0);
  for (int64_t f = 0; f < k; ++f)
    for (int64_t i = 0; i < c; ++i)
      out[f] += int32_t(in[i]) * int32_t(int8_t(filter[i * k + f]));
  return out;
}

/// The smallest layer whose pack read 16 bytes past the filter's end
/// (issue 57): 6 channels into 144 filters, each buffer exactly its size,
/// ending at a fence page, then starting right after one. A read outside
/// faults, with the buffer named on stderr.
TEST(CApi, ConvEntriesReadOnlyTheCallersBytes) {
  const int64_t c = 6, k = 144;
  tisa_kernel_spec spec = tisa_conv2d_spec(1, 1, 1, c, k, 1, 1, 1, 0,
                                           "u8,s8,s32");
  char *error = nullptr;
  tisa_kernel *kernel = tisa_compile(&spec, nullptr, &error);
  ASSERT_TRUE(kernel) << error;
  using Plain = void(const uint8_t *, const int8_t *, int32_t *);
  using Pack = void(const int8_t *, void *);
  using Packed = void(const uint8_t *, const void *, int32_t *);
  auto plain = reinterpret_cast<Plain *>(tisa_kernel_entry(kernel, ""));
  auto pack =
      reinterpret_cast<Pack *>(tisa_kernel_entry(kernel, "_pack_filter"));
  auto packed = reinterpret_cast<Packed *>(tisa_kernel_entry(kernel, "_packed"));
  ASSERT_TRUE(plain && pack && packed);
  for (Fence fence : {Fence::After, Fence::Before}) {
    Bytes in = fenced(c, 0, fence), filter = fenced(c * k, 0, fence);
    for (int64_t i = 0; i < c; ++i)
      in[i] = uint8_t(37 * i + 200);
    for (int64_t i = 0; i < c * k; ++i)
      filter[i] = uint8_t(11 * i + 3);
    std::vector<int32_t> want = pixelReference(in, filter, c, k);
    Bytes out = fenced(4 * k, 0xa5, fence);
    plain(in.data(), reinterpret_cast<const int8_t *>(filter.data()),
          reinterpret_cast<int32_t *>(out.data()));
    EXPECT_EQ(std::memcmp(out.data(), want.data(), 4 * k), 0)
        << "plain entry, fence " << int(fence);
    Bytes buffer =
        fenced(size_t(tisa_kernel_packed_bytes(kernel)), 0xff, fence);
    pack(reinterpret_cast<const int8_t *>(filter.data()), buffer.data());
    out = fenced(4 * k, 0xa5, fence);
    packed(in.data(), buffer.data(), reinterpret_cast<int32_t *>(out.data()));
    EXPECT_EQ(std::memcmp(out.data(), want.data(), 4 * k), 0)
        << "pre-packed entry, fence " << int(fence);
  }
  tisa_kernel_free(kernel);
}

} // namespace
