// KvCacheBook with prefix caching and a sliding window: which blocks a new prompt
// reuses, when freed blocks stay reusable, eviction, the counters, and the blocks
// given back behind the window.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/kv/kv_cache.h"
#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;

std::vector<int32_t> iota_tokens(int n, int32_t first = 100) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), first);
  return v;
}

// A sequence of `tokens`, prefilled and committed as the engine does after a step.
SeqId computed_sequence(KvCacheBook& book, const std::vector<int32_t>& tokens) {
  PrefixHit hit = book.add_sequence_with_prefix(tokens);
  book.reserve_tokens(hit.seq, std::span<const int32_t>(tokens).subspan(static_cast<size_t>(hit.cached_tokens)));
  book.commit(hit.seq);
  return hit.seq;
}

KvCacheConfig caching(int64_t n_blocks) {
  return {.block_size = 4, .n_blocks = n_blocks, .bytes_per_token = 0, .prefix_caching = true};
}

TEST(KvPrefixCache, ASecondPromptReusesTheFullBlocksOfTheFirst) {
  KvCacheBook book(caching(8));
  const auto prompt = iota_tokens(10);  // blocks 0, 1 full, 2 holds 2 tokens
  SeqId a = computed_sequence(book, prompt);
  PrefixHit b = book.add_sequence_with_prefix(prompt);
  EXPECT_EQ(b.cached_tokens, 8);
  EXPECT_THAT(book.table(b.seq).blocks(), ElementsAre(0, 1));
  EXPECT_EQ(book.allocator().ref_count(0), 2);
  SlotReservation rest = book.reserve_tokens(b.seq, std::span<const int32_t>(prompt).subspan(8));
  EXPECT_THAT(rest.slots, ElementsAre(12, 13));  // a fresh third block
  EXPECT_EQ(rest.first_position, 8);
  EXPECT_NE(a, b.seq);
}

TEST(KvPrefixCache, AtLeastTheLastTokenIsLeftToCompute) {
  KvCacheBook book(caching(8));
  const auto prompt = iota_tokens(8);  // exactly two full blocks
  computed_sequence(book, prompt);
  EXPECT_EQ(book.add_sequence_with_prefix(prompt).cached_tokens, 4);
}

TEST(KvPrefixCache, ADifferentTokenEndsTheMatchAtItsBlock) {
  KvCacheBook book(caching(8));
  computed_sequence(book, iota_tokens(12));
  auto other = iota_tokens(12);
  other[5] = 7;  // inside the second block
  EXPECT_EQ(book.add_sequence_with_prefix(other).cached_tokens, 4);
}

TEST(KvPrefixCache, UncommittedBlocksAreNotReused) {
  KvCacheBook book(caching(8));
  const auto prompt = iota_tokens(9);
  SeqId a = book.add_sequence();
  book.reserve_tokens(a, prompt);  // reserved, but the step never ran
  EXPECT_EQ(book.add_sequence_with_prefix(prompt).cached_tokens, 0);
}

TEST(KvPrefixCache, FreedBlocksStayReusableUntilEvicted) {
  KvCacheBook book(caching(4));
  const auto prompt = iota_tokens(9);
  SeqId a = computed_sequence(book, prompt);  // blocks 0, 1 cached; 2 partial
  book.free_sequence(a);
  KvCacheStats s = book.stats();
  EXPECT_EQ(s.blocks_used, 0);
  EXPECT_EQ(s.blocks_cached, 2);
  EXPECT_EQ(book.free_blocks(), 4);

  PrefixProbe probe = book.probe_prefix(prompt);
  EXPECT_EQ(probe.cached_tokens, 8);
  EXPECT_EQ(probe.blocks_to_revive, 2);
  PrefixHit b = book.add_sequence_with_prefix(prompt);
  EXPECT_EQ(b.cached_tokens, 8);
  EXPECT_EQ(book.stats().blocks_cached, 0);
  EXPECT_EQ(book.stats().blocks_used, 2);
}

TEST(KvPrefixCache, EvictionMakesTheTailOfAPromptAMissFirst) {
  KvCacheBook book(caching(4));
  const auto prompt = iota_tokens(13);  // blocks 0..2 full, 3 partial
  book.free_sequence(computed_sequence(book, prompt));
  SeqId other = book.add_sequence();
  book.reserve(other, 5);  // takes the plain free block 3, then evicts the prompt's last full block
  EXPECT_EQ(book.stats().blocks_cached, 2);
  EXPECT_EQ(book.probe_prefix(prompt).cached_tokens, 8);
}

TEST(KvPrefixCache, CountsQueriedAndHitTokens) {
  KvCacheBook book(caching(8));
  const auto prompt = iota_tokens(10);
  computed_sequence(book, prompt);   // 10 queried, 0 hit
  book.add_sequence_with_prefix(prompt);  // 10 queried, 8 hit
  KvCacheStats s = book.stats();
  EXPECT_EQ(s.prefix_query_tokens, 20);
  EXPECT_EQ(s.prefix_hit_tokens, 8);
  EXPECT_DOUBLE_EQ(s.prefix_hit_rate, 0.4);
}

TEST(KvPrefixCache, DecodedTokensAreCachedToo) {
  KvCacheBook book(caching(8));
  auto tokens = iota_tokens(3);
  SeqId a = computed_sequence(book, tokens);
  for (int32_t t : {7, 8, 9, 10, 11}) {  // decode one token a step
    tokens.push_back(t);
    book.reserve_tokens(a, std::span<const int32_t>(&tokens.back(), 1));
    book.commit(a);
  }
  tokens.push_back(12);
  EXPECT_EQ(book.add_sequence_with_prefix(tokens).cached_tokens, 8);
}

TEST(KvPrefixCache, EqualPromptsComputedTogetherKeepOneCachedCopy) {
  KvCacheBook book(caching(8));
  const auto prompt = iota_tokens(5);
  SeqId a = book.add_sequence_with_prefix(prompt).seq;
  SeqId b = book.add_sequence_with_prefix(prompt).seq;
  book.reserve_tokens(a, prompt);
  book.reserve_tokens(b, prompt);
  book.commit(a);
  book.commit(b);
  book.free_sequence(a);
  book.free_sequence(b);
  EXPECT_EQ(book.stats().blocks_cached, 1);  // b's copy of the first block is plainly free
  EXPECT_EQ(book.free_blocks(), 8);
}

TEST(KvPrefixCache, ASequenceReservedWithoutIdsIsNeverCached) {
  KvCacheBook book(caching(8));
  SeqId a = book.add_sequence();
  book.reserve(a, 8);
  book.commit(a);
  book.free_sequence(a);
  EXPECT_EQ(book.stats().blocks_cached, 0);
}

TEST(KvPrefixCache, OffByDefault) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  const auto prompt = iota_tokens(9);
  computed_sequence(book, prompt);
  EXPECT_EQ(book.add_sequence_with_prefix(prompt).cached_tokens, 0);
  EXPECT_EQ(book.stats().prefix_query_tokens, 0);
}

TEST(KvSlidingWindow, BlocksBehindTheWindowAreGivenBack) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8, .bytes_per_token = 0, .window = 6});
  SeqId a = book.add_sequence();
  book.reserve(a, 9);  // positions 0..8 in blocks 0, 1, 2
  // The next token, at 9, attends to 4..9: block 0 (positions 0..3) is not read again.
  SlotReservation r = book.reserve(a, 1);
  EXPECT_THAT(r.slots, ElementsAre(9));
  EXPECT_THAT(book.table(a).blocks(), ElementsAre(BlockTable::kReleasedBlock, 1, 2));
  KvCacheStats s = book.stats();
  EXPECT_EQ(s.blocks_used, 2);
  EXPECT_EQ(s.blocks_released_by_window, 1);
  EXPECT_EQ(s.tokens_stored, 6);
  std::vector<int32_t> tables(3);
  const SeqId seqs[] = {a};
  book.fill_block_tables(seqs, tables.data(), 3);
  EXPECT_THAT(tables, ElementsAre(0, 1, 2));
}

TEST(KvSlidingWindow, ALongSequenceHoldsAboutTheWindowOnly) {
  KvCacheBook book({.block_size = 4, .n_blocks = 4, .bytes_per_token = 0, .window = 8});
  SeqId a = book.add_sequence();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(book.try_reserve(a, 1)) << "token " << i;
  EXPECT_LE(book.stats().blocks_used, 3);
  book.free_sequence(a);
  EXPECT_EQ(book.free_blocks(), 4);
}

TEST(KvSlidingWindow, NegativeWindowIsRefused) {
  EXPECT_THROW(KvCacheBook book({.block_size = 4, .n_blocks = 4, .bytes_per_token = 0, .window = -1}), Error);
}

// Resizing (a cache moving to a device where it has another size): blocks in use
// keep their rows under new ids in old-id order, cached free blocks fill what room
// is left, newest first, and lookups, tables and later allocations follow.
TEST(KvCacheResize, BlocksInUseAreRenumberedInOrderAndTheTablesFollow) {
  KvCacheBook book({.block_size = 4, .n_blocks = 16, .prefix_caching = true});
  const SeqId a = computed_sequence(book, iota_tokens(10));      // blocks 0, 1, 2
  const SeqId b = computed_sequence(book, iota_tokens(6, 500));  // blocks 3 (full), 4
  const SeqId c = computed_sequence(book, iota_tokens(7, 900));  // blocks 5 (full), 6
  book.free_sequence(b);  // 3 waits cached, 4 is plainly free
  const std::vector<int32_t> new_id = book.plan_resize(6);
  // Five in use keep their order; room for one cached block: 3.
  EXPECT_THAT(new_id, ElementsAre(0, 1, 2, 3, -1, 4, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  book.resize(6, new_id);
  EXPECT_EQ(book.config().n_blocks, 6);
  EXPECT_THAT(book.table(a).blocks(), ElementsAre(0, 1, 2));
  EXPECT_THAT(book.table(c).blocks(), ElementsAre(4, 5));
  EXPECT_EQ(book.stats().blocks_used, 5);
  EXPECT_EQ(book.stats().blocks_cached, 1);
  // b's full block is still found, under its new id, and so are c's and a's in use.
  const PrefixHit hit = book.add_sequence_with_prefix(iota_tokens(6, 500));
  EXPECT_EQ(hit.cached_tokens, 4);
  EXPECT_THAT(book.table(hit.seq).blocks(), ElementsAre(3));
  EXPECT_EQ(book.probe_prefix(iota_tokens(9, 900)).cached_tokens, 4);
  EXPECT_EQ(book.probe_prefix(iota_tokens(12)).cached_tokens, 8);
  EXPECT_EQ(book.free_blocks(), 0);
}

TEST(KvCacheResize, CachedBlocksBeyondTheRoomAreForgottenOldestFirst) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8, .prefix_caching = true});
  const SeqId old_one = computed_sequence(book, iota_tokens(4, 100));  // block 0
  book.free_sequence(old_one);
  const SeqId new_one = computed_sequence(book, iota_tokens(4, 200));  // block 1
  book.free_sequence(new_one);
  const SeqId running = computed_sequence(book, iota_tokens(3, 300));  // block 2, partly filled
  const std::vector<int32_t> new_id = book.plan_resize(2);
  EXPECT_EQ(new_id[0], -1);  // freed first: dropped
  EXPECT_EQ(new_id[1], 0);
  EXPECT_EQ(new_id[2], 1);
  book.resize(2, new_id);
  EXPECT_EQ(book.probe_prefix(iota_tokens(5, 100)).cached_tokens, 0);
  EXPECT_EQ(book.probe_prefix(iota_tokens(5, 200)).cached_tokens, 4);
  EXPECT_THAT(book.table(running).blocks(), ElementsAre(1));
  // The one block left to allocate is the cached one: taking it evicts its prefix.
  const SeqId next = book.add_sequence();
  book.reserve(next, 4);
  EXPECT_THAT(book.table(next).blocks(), ElementsAre(0));
  EXPECT_EQ(book.probe_prefix(iota_tokens(5, 200)).cached_tokens, 0);
  EXPECT_FALSE(book.try_reserve(next, 1).has_value());
}

TEST(KvCacheResize, GrowingKeepsEveryBlockAndAddsFreeOnes) {
  KvCacheBook book({.block_size = 4, .n_blocks = 4, .prefix_caching = true});
  const SeqId s = computed_sequence(book, iota_tokens(9));  // blocks 0, 1, 2
  book.resize(32, book.plan_resize(32));
  EXPECT_THAT(book.table(s).blocks(), ElementsAre(0, 1, 2));
  EXPECT_EQ(book.free_blocks(), 29);
  book.reserve(s, 12);  // fills block 2, then three new blocks in ascending order
  EXPECT_THAT(book.table(s).blocks(), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(KvCacheResize, RefusesFewerBlocksThanAreInUse) {
  KvCacheBook book({.block_size = 4, .n_blocks = 8});
  const SeqId s = book.add_sequence();
  book.reserve(s, 12);
  EXPECT_THAT([&] { book.plan_resize(2); },
              ::testing::ThrowsMessage<Error>(
                  ::testing::HasSubstr("3 blocks are in use, more than the 2 of the resized cache")));
  EXPECT_THROW(book.plan_resize(0), Error);
  EXPECT_EQ(book.config().n_blocks, 8);
  EXPECT_THAT(book.table(s).blocks(), ElementsAre(0, 1, 2));
}

}  // namespace
}  // namespace tessera
