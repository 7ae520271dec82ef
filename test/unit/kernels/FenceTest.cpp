//===- FenceTest.cpp - test buffers against PROT_NONE pages ---------------===//
//
// The checks place every caller buffer so that it ends at a page the process
// may not touch (or starts right after one): a kernel reading one byte
// outside what it was given then faults, and the fault names the buffer.
// These tests hold the placement itself to that: the bytes inside are
// usable, the first byte outside faults with the message, and a buffer keeps
// its placement through the assignments makeData and packWeights make.
//
//===----------------------------------------------------------------------===//

#include "KernelTestSupport.h"

#include "tisa/Kernels/Reference.h"

#include "gtest/gtest.h"

#include <unistd.h>

using namespace tisa;
using namespace tisa::test;

namespace {

uintptr_t address(const uint8_t *p) { return reinterpret_cast<uintptr_t>(p); }

uintptr_t pageBytes() { return uintptr_t(sysconf(_SC_PAGESIZE)); }

uint8_t readAt(const uint8_t *p) { return *static_cast<const volatile uint8_t *>(p); }

TEST(Fence, AfterEndsAtAFaultingPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Bytes b(100, 7, BufferAllocator<uint8_t>(Fence::After));
  ASSERT_EQ(b.capacity(), 100u);
  EXPECT_EQ(address(b.data() + b.size()) % pageBytes(), 0u);
  EXPECT_EQ(readAt(b.data()), 7);
  EXPECT_EQ(readAt(b.data() + 99), 7);
  EXPECT_DEATH(readAt(b.data() + 100),
               "access 0 bytes past the end of a 100-byte buffer");
  EXPECT_DEATH(readAt(b.data() + 115),
               "access 15 bytes past the end of a 100-byte buffer");
}

TEST(Fence, BeforeStartsAfterAFaultingPage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Bytes b(100, 7, BufferAllocator<uint8_t>(Fence::Before));
  EXPECT_EQ(address(b.data()) % pageBytes(), 0u);
  EXPECT_EQ(readAt(b.data()), 7);
  EXPECT_DEATH(readAt(b.data() - 1),
               "access 1 bytes before the start of a 100-byte buffer");
}

TEST(Fence, KeptThroughAssignmentAndCopy) {
  Bytes b;
  b = Bytes(3000, 1, BufferAllocator<uint8_t>(Fence::After));
  EXPECT_EQ(b.get_allocator().fence, Fence::After);
  Bytes copy = b;
  EXPECT_EQ(copy.get_allocator().fence, Fence::After);
  EXPECT_EQ(address(copy.data() + copy.size()) % pageBytes(), 0u);
  Bytes plain;
  EXPECT_EQ(plain.get_allocator().fence, Fence::None);
  plain = Bytes(64, 0);
  EXPECT_EQ(address(plain.data()) % 64, 0u);
}

/// makeData's buffers end at the fence (random data in padded rows: the
/// last row without its gap) or start at it (the output's canaries moved to
/// the other side).
TEST(Fence, MakeDataPlacesEveryBuffer) {
  KernelSpec spec = withEpilogue(gemm(7, 13, 5, "u8,s8,s32"), "bias,residual");
  KernelData after = makeData(spec, kSeed, Fill::Random, Layout::Padded,
                              Fence::After);
  for (const Bytes *b : {&after.input, &after.weights, &after.output,
                         &after.bias, &after.residual}) {
    ASSERT_FALSE(b->empty());
    EXPECT_EQ(address(b->data() + b->size()) % pageBytes(), 0u);
  }
  // Rows of lda = k + 3 bytes, the last one k bytes.
  EXPECT_EQ(after.input.size(), size_t(6 * (5 + 3) + 5));
  // The canaries before the output, none after.
  EXPECT_EQ(after.output.size(), size_t(after.guard + 4 * (6 * (13 + 7) + 13)));
  KernelData before = makeData(spec, kSeed, Fill::Extreme, Layout::Guarded,
                               Fence::Before);
  EXPECT_EQ(before.guard, 0);
  for (const Bytes *b : {&before.input, &before.weights, &before.output})
    EXPECT_EQ(address(b->data()) % pageBytes(), 0u);
  EXPECT_EQ(before.output.size(), size_t(4 * 7 * 13 + 64));
}

} // namespace
