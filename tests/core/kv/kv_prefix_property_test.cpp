// Random add-with-prefix / fork / append / preempt / free sequences against a
// KvCacheBook with prefix caching (and, in one variant, a sliding window), with a
// model of the device cache whose rows record the whole prefix they were computed
// for: a reused block holding the wrong prefix, a write into a shared or cached
// block, or a leaked reference fails the test at the operation that caused it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "core/kv/kv_cache.h"

namespace tessera {
namespace {

constexpr int32_t kBlockSize = 4;
constexpr int kOperations = 5000;
constexpr size_t kMaxSequences = 10;

// The value a computed row holds: a hash of every token up to and including it.
uint64_t row_value(uint64_t before, int32_t token) {
  uint64_t x = (before ^ static_cast<uint64_t>(token + 1)) * 0x9E3779B97F4A7C15ull;
  return x ^ (x >> 29);
}

struct Expected {
  std::vector<int32_t> tokens;
  std::vector<uint64_t> values;  // [tokens] row_value chain
};

class KvPrefixProperty : public ::testing::TestWithParam<int32_t> {
 protected:
  const int32_t window = GetParam();
  // A window keeps sequences short, so fewer blocks make them run out just as often.
  const int64_t kBlocks = window > 0 ? 16 : 40;
  KvCacheBook book{{.block_size = kBlockSize, .n_blocks = kBlocks, .bytes_per_token = 0,
                    .prefix_caching = true, .window = window}};
  std::vector<uint64_t> rows = std::vector<uint64_t>(static_cast<size_t>(kBlocks * kBlockSize), 0);
  std::map<SeqId, Expected> expected;
  std::mt19937_64 rng{20240917};
  std::vector<std::vector<int32_t>> system_prompts;
  int hits = 0, copies = 0, failed = 0, preempted = 0, evictions = 0;

  void SetUp() override {
    for (int i = 0; i < 3; ++i) system_prompts.push_back(random_tokens(5 + pick(10), 10));
  }

  uint64_t pick(uint64_t n) { return rng() % n; }
  std::vector<int32_t> random_tokens(uint64_t n, uint64_t alphabet) {
    std::vector<int32_t> t(n);
    for (auto& v : t) v = static_cast<int32_t>(pick(alphabet));
    return t;
  }
  SeqId random_sequence() {
    std::vector<SeqId> ids = book.sequences();
    return ids[pick(ids.size())];
  }

  // Reserves `tokens` for `seq`; then either runs the step (writes the rows, commits)
  // or drops the sequence as a preemption would. Returns false when blocks ran out.
  bool reserve_and_run(SeqId seq, const std::vector<int32_t>& tokens, bool may_preempt) {
    const int64_t cached_before = book.stats().blocks_cached;
    std::optional<SlotReservation> r = book.try_reserve_tokens(seq, tokens);
    if (!r) {
      ++failed;
      return false;
    }
    if (book.stats().blocks_cached < cached_before) ++evictions;
    if (r->copy) {
      ++copies;
      for (int32_t i = 0; i < kBlockSize; ++i) {
        const auto dst = static_cast<size_t>(r->copy->dst * kBlockSize + i);
        rows[dst] = rows[static_cast<size_t>(r->copy->src * kBlockSize + i)];
      }
    }
    if (may_preempt && pick(10) == 0) {
      ++preempted;
      book.free_sequence(seq);
      expected.erase(seq);
      return true;
    }
    Expected& e = expected[seq];
    for (size_t i = 0; i < tokens.size(); ++i) {
      const int32_t slot = r->slots[i];
      const int32_t block = slot / kBlockSize;
      EXPECT_EQ(book.allocator().ref_count(block), 1) << "write into shared block " << block;
      EXPECT_FALSE(book.allocator().is_cached(block)) << "write into cached block " << block;
      const uint64_t before = e.values.empty() ? 0 : e.values.back();
      e.tokens.push_back(tokens[i]);
      e.values.push_back(row_value(before, tokens[i]));
      rows[static_cast<size_t>(slot)] = e.values.back();
    }
    book.commit(seq);
    return true;
  }

  void add_op() {
    std::vector<int32_t> prompt = system_prompts[pick(system_prompts.size())];
    for (int32_t t : random_tokens(pick(7), 4)) prompt.push_back(t);
    PrefixHit hit = book.add_sequence_with_prefix(prompt);
    ASSERT_EQ(hit.cached_tokens % kBlockSize, 0);
    ASSERT_LT(hit.cached_tokens, static_cast<int64_t>(prompt.size()));
    Expected& e = expected[hit.seq];
    for (int64_t p = 0; p < hit.cached_tokens; ++p) {
      const uint64_t before = e.values.empty() ? 0 : e.values.back();
      e.tokens.push_back(prompt[static_cast<size_t>(p)]);
      e.values.push_back(row_value(before, e.tokens.back()));
    }
    if (hit.cached_tokens > 0) ++hits;
    ASSERT_NO_FATAL_FAILURE(check_rows(hit.seq));  // the reused blocks hold this very prefix
    std::vector<int32_t> rest(prompt.begin() + hit.cached_tokens, prompt.end());
    if (!reserve_and_run(hit.seq, rest, false)) {
      book.free_sequence(hit.seq);  // the engine's undo of an admission that does not fit
      expected.erase(hit.seq);
    }
  }

  void append_op() { reserve_and_run(random_sequence(), random_tokens(1 + pick(pick(4) == 0 ? 9 : 2), 4), true); }

  void fork_op() {
    SeqId parent = random_sequence();
    expected[book.fork_sequence(parent)] = expected[parent];
  }

  void free_op() {
    SeqId seq = random_sequence();
    book.free_sequence(seq);
    expected.erase(seq);
  }

  void random_operation() {
    const uint64_t dice = pick(100);
    const size_t live = book.sequences().size();
    if (live == 0 || (dice < 20 && live < kMaxSequences)) {
      add_op();
    } else if (dice < 28 && live < kMaxSequences) {
      fork_op();
    } else if (dice < 42) {
      free_op();
    } else {
      append_op();
    }
  }

  void check_rows(SeqId seq) {
    const BlockTable& table = book.table(seq);
    const Expected& e = expected.at(seq);
    ASSERT_EQ(table.n_tokens(), static_cast<int64_t>(e.values.size()));
    for (int64_t pos = 0; pos < table.n_tokens(); ++pos) {
      const bool released = table.blocks()[static_cast<size_t>(pos / kBlockSize)] == BlockTable::kReleasedBlock;
      if (released) {
        // Only positions no later token attends to may be gone.
        ASSERT_GT(window, 0);
        ASSERT_LT(pos, table.n_tokens() - window + 1) << "sequence " << seq;
        continue;
      }
      ASSERT_EQ(rows[static_cast<size_t>(table.slot_of(pos))], e.values[static_cast<size_t>(pos)])
          << "sequence " << seq << " position " << pos;
    }
  }

  void check_invariants() {
    std::vector<int32_t> references(static_cast<size_t>(kBlocks), 0);
    for (SeqId seq : book.sequences()) {
      ASSERT_NO_FATAL_FAILURE(check_rows(seq));
      for (int32_t block : book.table(seq).blocks()) {
        if (block != BlockTable::kReleasedBlock) ++references[static_cast<size_t>(block)];
      }
    }
    int64_t cached_free = 0, used = 0;
    for (int32_t block = 0; block < kBlocks; ++block) {
      ASSERT_EQ(book.allocator().ref_count(block), references[static_cast<size_t>(block)]) << "block " << block;
      used += references[static_cast<size_t>(block)] > 0;
      cached_free += references[static_cast<size_t>(block)] == 0 && book.allocator().is_cached(block);
    }
    const KvCacheStats s = book.stats();
    ASSERT_EQ(s.blocks_used, used);
    ASSERT_EQ(s.blocks_cached, cached_free);
    ASSERT_EQ(book.free_blocks() + s.blocks_used, kBlocks);
  }
};

TEST_P(KvPrefixProperty, RandomOperationsKeepTheInvariants) {
  for (int op = 0; op < kOperations; ++op) {
    ASSERT_NO_FATAL_FAILURE(random_operation()) << "operation " << op;
    ASSERT_NO_FATAL_FAILURE(check_invariants()) << "after operation " << op;
  }
  // The run must have exercised the interesting paths.
  EXPECT_GT(hits, 200);
  EXPECT_GT(copies, 50);
  EXPECT_GT(failed, 50);
  EXPECT_GT(preempted, 50);
  EXPECT_GT(evictions, 50);
  const KvCacheStats s = book.stats();
  EXPECT_GT(s.prefix_hit_rate, 0.1);
  if (window > 0) {
    EXPECT_GT(s.blocks_released_by_window, 100);
  }

  for (SeqId seq : book.sequences()) book.free_sequence(seq);
  EXPECT_EQ(book.free_blocks(), kBlocks);
  EXPECT_EQ(book.stats().blocks_used, 0);
  for (int32_t block = 0; block < kBlocks; ++block) EXPECT_EQ(book.allocator().ref_count(block), 0);
}

INSTANTIATE_TEST_SUITE_P(Window, KvPrefixProperty, ::testing::Values(0, 7),
                         [](const ::testing::TestParamInfo<int32_t>& info) {
                           return info.param == 0 ? std::string("FullAttention")
                                                  : "Window" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace tessera
