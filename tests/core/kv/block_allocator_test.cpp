// BlockAllocator: ids handed out, reference counts, and misuse reported as errors.
#include "core/kv/block_allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::ThrowsMessage;
using ::testing::HasSubstr;

TEST(BlockAllocator, FreshBlocksComeOutInAscendingOrder) {
  BlockAllocator allocator(4);
  EXPECT_EQ(allocator.allocate(), 0);
  EXPECT_EQ(allocator.allocate(), 1);
  EXPECT_EQ(allocator.allocate(), 2);
  EXPECT_EQ(allocator.n_used(), 3);
  EXPECT_EQ(allocator.n_free(), 1);
}

TEST(BlockAllocator, ReturnsNulloptWhenExhausted) {
  BlockAllocator allocator(2);
  ASSERT_TRUE(allocator.allocate());
  ASSERT_TRUE(allocator.allocate());
  EXPECT_EQ(allocator.allocate(), std::nullopt);
  EXPECT_EQ(allocator.n_free(), 0);
  EXPECT_EQ(allocator.n_used(), 2);
}

TEST(BlockAllocator, CountsReferencesThroughRetainAndRelease) {
  BlockAllocator allocator(3);
  int32_t id = *allocator.allocate();
  EXPECT_EQ(allocator.ref_count(id), 1);
  allocator.retain(id);
  allocator.retain(id);
  EXPECT_EQ(allocator.ref_count(id), 3);
  allocator.release(id);
  allocator.release(id);
  EXPECT_EQ(allocator.ref_count(id), 1);
  EXPECT_EQ(allocator.n_used(), 1);
  allocator.release(id);
  EXPECT_EQ(allocator.ref_count(id), 0);
  EXPECT_EQ(allocator.n_used(), 0);
  EXPECT_EQ(allocator.n_free(), 3);
}

TEST(BlockAllocator, ReusesTheMostRecentlyFreedBlockFirst) {
  BlockAllocator allocator(4);
  for (int i = 0; i < 4; ++i) allocator.allocate();
  allocator.release(1);
  allocator.release(3);
  EXPECT_EQ(allocator.allocate(), 3);
  EXPECT_EQ(allocator.allocate(), 1);
  EXPECT_EQ(allocator.allocate(), std::nullopt);
}

TEST(BlockAllocator, ReleaseOfAFreeBlockThrows) {
  BlockAllocator allocator(4);
  int32_t id = *allocator.allocate();
  allocator.release(id);
  EXPECT_THAT([&] { allocator.release(id); },
              ThrowsMessage<Error>("BlockAllocator: release of block 0, which is already free"));
  EXPECT_EQ(allocator.n_free(), 4);
}

TEST(BlockAllocator, RetainOfAFreeBlockThrows) {
  BlockAllocator allocator(4);
  EXPECT_THAT([&] { allocator.retain(2); },
              ThrowsMessage<Error>(
                  "BlockAllocator: retain of block 2, which is free (allocate it first)"));
}

TEST(BlockAllocator, IdOutOfRangeThrows) {
  BlockAllocator allocator(4);
  EXPECT_THAT([&] { allocator.release(4); },
              ThrowsMessage<Error>("BlockAllocator: release of block 4, out of range [0, 4)"));
  EXPECT_THAT([&] { allocator.retain(-1); },
              ThrowsMessage<Error>("BlockAllocator: retain of block -1, out of range [0, 4)"));
  EXPECT_THAT([&] { (void)allocator.ref_count(9); },
              ThrowsMessage<Error>(HasSubstr("ref_count of block 9, out of range")));
}

TEST(BlockAllocator, NegativeBlockCountThrows) {
  EXPECT_THAT([] { BlockAllocator allocator(-1); },
              ThrowsMessage<Error>(HasSubstr("n_blocks -1 out of range")));
}

TEST(BlockAllocator, CachedBlockWaitsInsteadOfBecomingPlainlyFree) {
  BlockAllocator allocator(3);
  int32_t id = *allocator.allocate();
  allocator.mark_cached(id);
  allocator.release(id);
  EXPECT_EQ(allocator.ref_count(id), 0);
  EXPECT_TRUE(allocator.is_cached(id));
  EXPECT_EQ(allocator.n_cached_free(), 1);
  EXPECT_EQ(allocator.n_free(), 3);  // cached free blocks can still be taken
  EXPECT_EQ(allocator.n_used(), 0);
}

TEST(BlockAllocator, PlainFreeBlocksAreHandedOutBeforeCachedOnes) {
  BlockAllocator allocator(2);
  int32_t cached = *allocator.allocate();
  allocator.mark_cached(cached);
  allocator.release(cached);
  EXPECT_EQ(allocator.allocate(), 1);
  EXPECT_TRUE(allocator.is_cached(cached));
}

TEST(BlockAllocator, EvictsTheLeastRecentlyFreedCachedBlockAndReportsIt) {
  BlockAllocator allocator(3);
  std::vector<int32_t> evicted;
  allocator.set_eviction_handler([&](int32_t id) { evicted.push_back(id); });
  for (int i = 0; i < 3; ++i) allocator.mark_cached(*allocator.allocate());
  allocator.release(2);
  allocator.release(0);
  allocator.release(1);
  EXPECT_EQ(allocator.allocate(), 2);
  EXPECT_EQ(allocator.allocate(), 0);
  EXPECT_THAT(evicted, ElementsAre(2, 0));
  EXPECT_FALSE(allocator.is_cached(2));
  EXPECT_TRUE(allocator.is_cached(1));
  EXPECT_EQ(allocator.n_cached_free(), 1);
}

TEST(BlockAllocator, ReviveTakesACachedFreeBlockBackOutOfTheQueue) {
  BlockAllocator allocator(2);
  std::vector<int32_t> evicted;
  allocator.set_eviction_handler([&](int32_t id) { evicted.push_back(id); });
  allocator.mark_cached(*allocator.allocate());
  allocator.mark_cached(*allocator.allocate());
  allocator.release(0);
  allocator.release(1);
  allocator.revive(0);
  EXPECT_EQ(allocator.ref_count(0), 1);
  EXPECT_EQ(allocator.n_cached_free(), 1);
  EXPECT_EQ(allocator.allocate(), 1);  // 0 is in use again, so 1 is the one evicted
  EXPECT_THAT(evicted, ElementsAre(1));
  EXPECT_EQ(allocator.allocate(), std::nullopt);
  allocator.release(0);  // still cached: it waits again
  EXPECT_EQ(allocator.n_cached_free(), 1);
}

TEST(BlockAllocator, ReviveOfABlockInUseOrNotCachedThrows) {
  BlockAllocator allocator(2);
  int32_t id = *allocator.allocate();
  allocator.mark_cached(id);
  EXPECT_THAT([&] { allocator.revive(id); },
              ThrowsMessage<Error>("BlockAllocator: revive of block 0, which is in use (retain it instead)"));
  EXPECT_THAT([&] { allocator.revive(1); },
              ThrowsMessage<Error>("BlockAllocator: revive of block 1, which is not cached"));
}

TEST(BlockAllocator, MarkCachedOfAFreeBlockThrows) {
  BlockAllocator allocator(2);
  EXPECT_THAT([&] { allocator.mark_cached(1); },
              ThrowsMessage<Error>(
                  "BlockAllocator: mark_cached of block 1, which is free (only a block in use holds contents)"));
}

}  // namespace
}  // namespace tessera
