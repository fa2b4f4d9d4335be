// KvCacheBook: sequences by id, reservations, the full-cache error, block tables
// for the kernels, positions, counters, and the budget helper.
#include "core/kv/kv_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(KvBlocksForBudget, RoundsDownToWholeBlocks) {
  // 5 layers, kv_dim 64, f32: 2 * 5 * 64 * 4 = 2560 bytes a token; a block of 16
  // tokens takes 40960 bytes, so 1 MiB holds 25.6 blocks.
  EXPECT_EQ(kv_blocks_for_budget(1 << 20, 16, 2560), 25);
  EXPECT_EQ(kv_blocks_for_budget(40960, 16, 2560), 1);
  EXPECT_EQ(kv_blocks_for_budget(40959, 16, 2560), 0);
}

TEST(KvBlocksForBudget, IsCappedAtTheInt32SlotRange) {
  EXPECT_EQ(kv_blocks_for_budget(UINT64_MAX, 16, 1), (int64_t{1} << 31) / 16);
}

TEST(KvBlocksForBudget, RejectsZeroBytesPerToken) {
  EXPECT_THAT([] { kv_blocks_for_budget(1024, 16, 0); },
              ThrowsMessage<Error>("kv_blocks_for_budget: bytes_per_token must be > 0"));
}

TEST(KvCacheBook, RejectsAConfigWithoutBlocks) {
  EXPECT_THAT([] { KvCacheBook book({.block_size = 16, .n_blocks = 0}); },
              ThrowsMessage<Error>("KV cache: n_blocks must be > 0, got 0 (is the KV budget "
                                   "smaller than one block?)"));
}

TEST(KvCacheBook, RejectsMoreRowsThanInt32SlotsAddress) {
  EXPECT_THAT([] { KvCacheBook book({.block_size = 16, .n_blocks = int64_t{1} << 28}); },
              ThrowsMessage<Error>(HasSubstr("exceed the 2147483648 rows")));
}

TEST(KvCacheBook, SequenceIdsStartAtZeroAndAreNotReused) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  EXPECT_EQ(book.add_sequence(), 0);
  EXPECT_EQ(book.add_sequence(), 1);
  book.free_sequence(1);
  EXPECT_EQ(book.add_sequence(), 2);
  EXPECT_THAT(book.sequences(), ElementsAre(0, 2));
  EXPECT_FALSE(book.has_sequence(1));
}

TEST(KvCacheBook, ReserveReturnsSlotsAndAdvancesThePosition) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  SeqId seq = book.add_sequence();
  EXPECT_EQ(book.next_position(seq), 0);
  SlotReservation prompt = book.reserve(seq, 5);
  EXPECT_THAT(prompt.slots, ElementsAre(0, 1, 2, 3, 4));
  EXPECT_EQ(prompt.first_position, 0);
  EXPECT_EQ(book.next_position(seq), 5);
  SlotReservation next = book.reserve(seq, 1);
  EXPECT_THAT(next.slots, ElementsAre(5));
  EXPECT_EQ(next.first_position, 5);
  EXPECT_EQ(book.n_tokens(seq), 6);
}

TEST(KvCacheBook, FullCacheErrorStatesNeedFreeAndBudget) {
  // 64 blocks of 16 tokens at 1024 bytes a token: a 1 MiB budget.
  KvCacheBook book({.block_size = 16, .n_blocks = 64, .bytes_per_token = 1024});
  for (int i = 0; i < 3; ++i) book.add_sequence();
  SeqId seq = book.add_sequence();
  ASSERT_EQ(seq, 3);
  book.reserve(0, 16 * 30);
  book.reserve(1, 16 * 30);
  book.reserve(2, 16 * 4);
  ASSERT_EQ(book.free_blocks(), 0);
  EXPECT_THAT([&] { book.reserve(seq, 20); },
              ThrowsMessage<Error>("KV cache full: sequence 3 needs 2 more blocks of 16 "
                                   "tokens but 0 of 64 are free (budget 1.0 MiB)"));
  EXPECT_EQ(book.n_tokens(seq), 0);
}

TEST(KvCacheBook, FullCacheErrorWithoutByteSizeOmitsTheBudget) {
  KvCacheBook book({.block_size = 4, .n_blocks = 2});
  SeqId seq = book.add_sequence();
  book.reserve(seq, 6);
  EXPECT_THAT([&] { book.reserve(seq, 3); },
              ThrowsMessage<Error>(
                  "KV cache full: sequence 0 needs 1 more block of 4 tokens but 0 of 2 are free"));
}

TEST(KvCacheBook, TryReserveReportsFullWithoutThrowing) {
  KvCacheBook book({.block_size = 4, .n_blocks = 2});
  SeqId seq = book.add_sequence();
  EXPECT_EQ(book.blocks_needed(seq, 9), 3);
  EXPECT_EQ(book.try_reserve(seq, 9), std::nullopt);
  EXPECT_EQ(book.n_tokens(seq), 0);
  EXPECT_EQ(book.free_blocks(), 2);
}

TEST(KvCacheBook, ForkedSequenceCopiesOnFirstWrite) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  SeqId parent = book.add_sequence();
  book.reserve(parent, 6);
  SeqId child = book.fork_sequence(parent);
  EXPECT_EQ(book.next_position(child), 6);
  SlotReservation r = book.reserve(child, 1);
  EXPECT_EQ(r.copy, (BlockCopy{1, 2}));
  EXPECT_THAT(r.slots, ElementsAre(10));
  EXPECT_THAT(book.table(child).blocks(), ElementsAre(0, 2));
  EXPECT_EQ(book.allocator().ref_count(0), 2);
}

TEST(KvCacheBook, FreeSequenceReturnsItsBlocks) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  SeqId a = book.add_sequence();
  book.reserve(a, 9);
  EXPECT_EQ(book.free_blocks(), 5);
  book.free_sequence(a);
  EXPECT_EQ(book.free_blocks(), 8);
  EXPECT_FALSE(book.has_sequence(a));
}

TEST(KvCacheBook, UnknownSequenceThrows) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  EXPECT_THAT([&] { book.free_sequence(7); },
              ThrowsMessage<Error>("KV cache: unknown sequence 7"));
  EXPECT_THAT([&] { book.reserve(7, 1); }, ThrowsMessage<Error>("KV cache: unknown sequence 7"));
}

TEST(KvCacheBook, FillBlockTablesPadsRowsWithBlockZero) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  SeqId a = book.add_sequence();
  SeqId b = book.add_sequence();
  SeqId c = book.add_sequence();
  book.reserve(a, 2);   // block 0
  book.reserve(b, 9);   // blocks 1, 2, 3
  book.reserve(a, 3);   // block 0 full, then 4
  book.reserve(c, 1);   // block 5
  std::vector<SeqId> step = {b, a, c};
  ASSERT_EQ(book.max_blocks_of(step), 3);
  std::vector<int32_t> tables(3 * 4, -1);
  book.fill_block_tables(step, tables.data(), 4);
  EXPECT_THAT(tables, ElementsAre(1, 2, 3, 0,   //
                                  0, 4, 0, 0,   //
                                  5, 0, 0, 0));
}

TEST(KvCacheBook, FillBlockTablesRejectsANarrowTable) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  SeqId a = book.add_sequence();
  book.reserve(a, 9);
  std::vector<SeqId> step = {a};
  std::vector<int32_t> tables(2);
  EXPECT_THAT([&] { book.fill_block_tables(step, tables.data(), 2); },
              ThrowsMessage<Error>(
                  "KV cache: sequence 0 has 3 blocks, more than the block table's 2 columns"));
}

TEST(KvCacheBook, StatsCountBlocksTokensAndWaste) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  SeqId a = book.add_sequence();
  book.reserve(a, 5);  // 2 blocks, 8 slots, 5 filled
  KvCacheStats s = book.stats();
  EXPECT_EQ(s.blocks_total, 8);
  EXPECT_EQ(s.blocks_used, 2);
  EXPECT_EQ(s.blocks_shared, 0);
  EXPECT_EQ(s.n_sequences, 1);
  EXPECT_EQ(s.tokens_stored, 5);
  EXPECT_EQ(s.tokens_logical, 5);
  EXPECT_EQ(s.slots_reserved, 8);
  EXPECT_THAT(s.waste_fraction, DoubleEq(3.0 / 8.0));
}

TEST(KvCacheBook, StatsCountSharedRowsOnce) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  SeqId a = book.add_sequence();
  book.reserve(a, 6);             // blocks 0 (full), 1 (2 rows)
  SeqId b = book.fork_sequence(a);
  book.reserve(b, 1);             // b copies block 1 into 2: 3 rows
  KvCacheStats s = book.stats();
  EXPECT_EQ(s.blocks_used, 3);
  EXPECT_EQ(s.blocks_shared, 1);
  EXPECT_EQ(s.tokens_stored, 4 + 2 + 3);
  EXPECT_EQ(s.tokens_logical, 6 + 7);
  EXPECT_EQ(s.slots_reserved, 12);
  EXPECT_THAT(s.waste_fraction, DoubleEq(3.0 / 12.0));
}

TEST(KvCacheBook, StatsOfAnEmptyCacheHaveNoWaste) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  book.add_sequence();
  KvCacheStats s = book.stats();
  EXPECT_EQ(s.blocks_used, 0);
  EXPECT_EQ(s.waste_fraction, 0.0);
}

}  // namespace
}  // namespace tessera
