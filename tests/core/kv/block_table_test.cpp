// BlockTable: slots across block boundaries, all-or-nothing appends, fork and
// copy-on-write of a shared last block.
#include "core/kv/block_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::ThrowsMessage;

std::vector<int32_t> append(BlockTable& table, int64_t n, BlockAllocator& allocator) {
  std::optional<SlotReservation> r = table.append_tokens(n, allocator);
  EXPECT_TRUE(r.has_value());
  return r ? r->slots : std::vector<int32_t>{};
}

TEST(BlockTable, SlotsFillOneBlockThenTheNext) {
  BlockAllocator allocator(8);
  BlockTable table(4);
  std::optional<SlotReservation> r = table.append_tokens(6, allocator);
  ASSERT_TRUE(r);
  EXPECT_THAT(r->slots, ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_EQ(r->first_position, 0);
  EXPECT_EQ(r->copy, std::nullopt);
  EXPECT_THAT(table.blocks(), ElementsAre(0, 1));
  EXPECT_EQ(table.n_tokens(), 6);
  EXPECT_EQ(allocator.n_used(), 2);
}

TEST(BlockTable, SlotsFollowNonContiguousBlocksWhenSequencesInterleave) {
  BlockAllocator allocator(8);
  BlockTable a(4), b(4);
  std::vector<int32_t> slots = append(a, 3, allocator);  // a: block 0
  append(b, 5, allocator);                               // b: blocks 1, 2
  for (int32_t s : append(a, 3, allocator)) slots.push_back(s);  // a: rest of 0, then 3
  b.release(allocator);  // frees 1 then 2: block 2 is reused first
  for (int32_t s : append(a, 4, allocator)) slots.push_back(s);  // a: rest of 3, then 2

  EXPECT_THAT(a.blocks(), ElementsAre(0, 3, 2));
  EXPECT_THAT(slots, ElementsAre(0, 1, 2, 3, 12, 13, 14, 15, 8, 9));
  for (int64_t pos = 0; pos < 10; ++pos) EXPECT_EQ(a.slot_of(pos), slots[pos]) << pos;
  EXPECT_EQ(allocator.n_used(), 3);
}

TEST(BlockTable, AppendOfZeroTokensChangesNothing) {
  BlockAllocator allocator(2);
  BlockTable table(4);
  std::optional<SlotReservation> r = table.append_tokens(0, allocator);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->slots.empty());
  EXPECT_EQ(table.n_tokens(), 0);
  EXPECT_EQ(allocator.n_used(), 0);
}

TEST(BlockTable, AppendIsAllOrNothingWhenBlocksRunOut) {
  BlockAllocator allocator(3);
  BlockTable table(4), other(4);
  append(other, 4, allocator);  // other takes block 0
  append(table, 2, allocator);  // table: block 1, 2 tokens
  // 2 tokens fit in block 1, 8 more need 2 blocks, only 1 is free.
  EXPECT_EQ(table.blocks_needed(10, allocator), 2);
  EXPECT_EQ(table.append_tokens(10, allocator), std::nullopt);
  EXPECT_THAT(table.blocks(), ElementsAre(1));
  EXPECT_EQ(table.n_tokens(), 2);
  EXPECT_EQ(allocator.n_free(), 1);
  // What does fit still succeeds afterwards.
  EXPECT_THAT(append(table, 6, allocator), ElementsAre(6, 7, 8, 9, 10, 11));
}

TEST(BlockTable, ForkSharesEveryBlock) {
  BlockAllocator allocator(8);
  BlockTable parent(4);
  append(parent, 6, allocator);
  BlockTable child = parent.fork(allocator);
  EXPECT_THAT(child.blocks(), ElementsAre(0, 1));
  EXPECT_EQ(child.n_tokens(), 6);
  EXPECT_EQ(allocator.ref_count(0), 2);
  EXPECT_EQ(allocator.ref_count(1), 2);
  EXPECT_EQ(allocator.n_used(), 2);
}

TEST(BlockTable, AppendAfterForkCopiesTheSharedLastBlock) {
  BlockAllocator allocator(8);
  BlockTable parent(4);
  append(parent, 6, allocator);  // blocks 0, 1 (block 1 half full)
  BlockTable child = parent.fork(allocator);

  std::optional<SlotReservation> r = child.append_tokens(1, allocator);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->copy, (BlockCopy{1, 2}));
  EXPECT_THAT(r->slots, ElementsAre(2 * 4 + 2));
  EXPECT_EQ(r->first_position, 6);
  EXPECT_THAT(child.blocks(), ElementsAre(0, 2));
  EXPECT_EQ(allocator.ref_count(0), 2);  // the full block stays shared
  EXPECT_EQ(allocator.ref_count(1), 1);  // now the parent's alone
  EXPECT_EQ(allocator.ref_count(2), 1);

  // The parent's block is no longer shared: it writes in place, no copy.
  std::optional<SlotReservation> p = parent.append_tokens(1, allocator);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->copy, std::nullopt);
  EXPECT_THAT(p->slots, ElementsAre(1 * 4 + 2));
}

TEST(BlockTable, AppendAfterForkOnAFullBlockNeedsNoCopy) {
  BlockAllocator allocator(8);
  BlockTable parent(4);
  append(parent, 8, allocator);
  BlockTable child = parent.fork(allocator);
  std::optional<SlotReservation> r = child.append_tokens(1, allocator);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->copy, std::nullopt);
  EXPECT_THAT(r->slots, ElementsAre(2 * 4));
  EXPECT_THAT(child.blocks(), ElementsAre(0, 1, 2));
}

TEST(BlockTable, CopyOnWriteCountsTowardsAllOrNothing) {
  BlockAllocator allocator(3);
  BlockTable parent(4);
  append(parent, 6, allocator);  // blocks 0, 1
  BlockTable child = parent.fork(allocator);
  // 5 tokens: a copy of block 1 (2 rows left) + 1 new block; only 1 block is free.
  EXPECT_EQ(child.blocks_needed(5, allocator), 2);
  EXPECT_EQ(child.append_tokens(5, allocator), std::nullopt);
  EXPECT_THAT(child.blocks(), ElementsAre(0, 1));
  EXPECT_EQ(allocator.ref_count(1), 2);
  EXPECT_EQ(allocator.n_free(), 1);
}

TEST(BlockTable, ReleaseDropsEveryReference) {
  BlockAllocator allocator(4);
  BlockTable parent(4);
  append(parent, 5, allocator);
  BlockTable child = parent.fork(allocator);
  parent.release(allocator);
  EXPECT_TRUE(parent.blocks().empty());
  EXPECT_EQ(parent.n_tokens(), 0);
  EXPECT_EQ(allocator.n_used(), 2);  // the child still holds both
  child.release(allocator);
  EXPECT_EQ(allocator.n_free(), 4);
}

TEST(BlockTable, SlotOfAPositionPastTheEndThrows) {
  BlockAllocator allocator(4);
  BlockTable table(4);
  append(table, 3, allocator);
  EXPECT_THAT([&] { (void)table.slot_of(3); },
              ThrowsMessage<Error>("BlockTable: position 3 is outside the sequence's 3 tokens"));
}

TEST(BlockTable, NegativeTokenCountThrows) {
  BlockAllocator allocator(4);
  BlockTable table(4);
  EXPECT_THAT([&] { (void)table.append_tokens(-2, allocator); },
              ThrowsMessage<Error>(
                  "BlockTable: cannot reserve a negative number of tokens (-2)"));
}

TEST(BlockTable, HugeAppendFailsWithoutChange) {
  BlockAllocator allocator(4);
  BlockTable table(4);
  append(table, 1, allocator);
  EXPECT_EQ(table.append_tokens(std::numeric_limits<int64_t>::max(), allocator), std::nullopt);
  EXPECT_EQ(table.n_tokens(), 1);
  EXPECT_EQ(allocator.n_used(), 1);
}

TEST(BlockTable, AppendFullBlockAdoptsABlockOfComputedTokens) {
  BlockAllocator allocator(4);
  int32_t shared = *allocator.allocate();
  BlockTable table(4);
  allocator.retain(shared);
  table.append_full_block(shared);
  EXPECT_EQ(table.n_tokens(), 4);
  std::vector<int32_t> slots = append(table, 1, allocator);
  EXPECT_THAT(table.blocks(), ElementsAre(0, 1));
  EXPECT_THAT(slots, ElementsAre(4));
  EXPECT_EQ(allocator.ref_count(shared), 2);
  table.release(allocator);
  allocator.release(shared);
  EXPECT_EQ(allocator.n_free(), 4);
}

TEST(BlockTable, AppendFullBlockInsideABlockThrows) {
  BlockAllocator allocator(4);
  BlockTable table(4);
  append(table, 3, allocator);
  EXPECT_THAT([&] { table.append_full_block(1); },
              ThrowsMessage<Error>("BlockTable: cannot append a full block after 3 tokens, which end "
                                   "inside a block of 4"));
}

TEST(BlockTable, ReleaseBeforeGivesBackWholeBlocksOnly) {
  BlockAllocator allocator(4);
  BlockTable table(4);
  append(table, 11, allocator);  // blocks 0, 1, 2
  EXPECT_EQ(table.release_before(7, allocator), 1);  // block 0 ends at 4 <= 7; block 1 holds 7
  EXPECT_THAT(table.blocks(), ElementsAre(BlockTable::kReleasedBlock, 1, 2));
  EXPECT_EQ(table.release_before(8, allocator), 1);
  EXPECT_EQ(table.release_before(8, allocator), 0);  // already released
  EXPECT_THAT(table.blocks(), ElementsAre(BlockTable::kReleasedBlock, BlockTable::kReleasedBlock, 2));
  EXPECT_EQ(allocator.n_used(), 1);
  EXPECT_EQ(table.n_tokens(), 11);
  EXPECT_EQ(table.slot_of(8), 8);
  EXPECT_THAT([&] { table.slot_of(3); },
              ThrowsMessage<Error>("BlockTable: position 3 lies in a block released behind the sliding window"));
  table.release(allocator);
  EXPECT_EQ(allocator.n_free(), 4);
}

TEST(BlockTable, ForkSkipsReleasedBlocks) {
  BlockAllocator allocator(4);
  BlockTable parent(4);
  append(parent, 6, allocator);
  parent.release_before(4, allocator);
  BlockTable child = parent.fork(allocator);
  EXPECT_THAT(child.blocks(), ElementsAre(BlockTable::kReleasedBlock, 1));
  EXPECT_EQ(allocator.ref_count(1), 2);
  parent.release(allocator);
  child.release(allocator);
  EXPECT_EQ(allocator.n_free(), 4);
}

TEST(BlockTable, ReleaseNewestFirstQueuesCachedBlocksTailFirst) {
  BlockAllocator allocator(3);
  std::vector<int32_t> evicted;
  allocator.set_eviction_handler([&](int32_t id) { evicted.push_back(id); });
  BlockTable table(2);
  append(table, 6, allocator);  // blocks 0, 1, 2
  for (int32_t id : table.blocks()) allocator.mark_cached(id);
  table.release_newest_first(allocator);
  for (int i = 0; i < 3; ++i) allocator.allocate();
  EXPECT_THAT(evicted, ElementsAre(2, 1, 0));  // the prompt's head survives longest
}

}  // namespace
}  // namespace tessera
