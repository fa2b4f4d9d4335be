// The Vulkan plugin's range allocator (pure bookkeeping; no device needed): alignment,
// first fit, exhaustion, and coalescing of freed neighbours.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "backends/vulkan/range_allocator.h"

namespace tessera::vulkan {
namespace {

TEST(RangeAllocator, HandsOutAlignedNonOverlappingRanges) {
  RangeAllocator a(4096);
  const auto r1 = a.allocate(100, 256);
  const auto r2 = a.allocate(100, 256);
  const auto r3 = a.allocate(1, 64);
  ASSERT_TRUE(r1 && r2 && r3);
  EXPECT_EQ(*r1, 0u);
  EXPECT_EQ(*r2, 256u);  // 100 rounded up to the next 256 boundary
  EXPECT_EQ(*r3, 384u);
  EXPECT_EQ(a.used(), 385u);  // the padding in front of r2 counts as used
}

TEST(RangeAllocator, RefusesWhatDoesNotFit) {
  RangeAllocator a(1000);
  ASSERT_TRUE(a.allocate(600, 1));
  EXPECT_EQ(a.allocate(401, 1), std::nullopt);
  EXPECT_TRUE(a.allocate(400, 1));
  EXPECT_EQ(a.allocate(1, 1), std::nullopt);
}

TEST(RangeAllocator, ZeroBytesStillGetADistinctRange) {
  RangeAllocator a(16);
  const auto r1 = a.allocate(0, 1);
  const auto r2 = a.allocate(0, 1);
  ASSERT_TRUE(r1 && r2);
  EXPECT_NE(*r1, *r2);
}

TEST(RangeAllocator, FreedNeighboursMergeIntoOneRange) {
  RangeAllocator a(3000);
  const auto r1 = a.allocate(1000, 1);
  const auto r2 = a.allocate(1000, 1);
  const auto r3 = a.allocate(1000, 1);
  ASSERT_TRUE(r1 && r2 && r3);
  EXPECT_TRUE(a.free(*r1));
  EXPECT_TRUE(a.free(*r3));
  EXPECT_EQ(a.free_range_count(), 2u);
  EXPECT_TRUE(a.free(*r2));
  EXPECT_EQ(a.free_range_count(), 1u);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.allocate(3000, 1), std::optional<uint64_t>(0));
}

TEST(RangeAllocator, FreeOfAnUnknownOffsetIsRefused) {
  RangeAllocator a(100);
  const auto r = a.allocate(10, 1);
  ASSERT_TRUE(r);
  EXPECT_FALSE(a.free(*r + 1));
  EXPECT_TRUE(a.free(*r));
  EXPECT_FALSE(a.free(*r));  // not twice
}

TEST(RangeAllocator, ReusesTheFirstHoleThatFits) {
  RangeAllocator a(10000);
  std::vector<uint64_t> offsets;
  for (int i = 0; i < 5; ++i) offsets.push_back(*a.allocate(1000, 1));
  a.free(offsets[1]);
  a.free(offsets[3]);
  EXPECT_EQ(a.allocate(900, 1), std::optional<uint64_t>(offsets[1]));
  EXPECT_EQ(a.allocate(1000, 1), std::optional<uint64_t>(offsets[3]));
}

}  // namespace
}  // namespace tessera::vulkan
