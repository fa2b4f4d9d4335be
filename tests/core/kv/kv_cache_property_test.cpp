// Random add / fork / append / free sequences against KvCacheBook, with a model
// of the device cache: after every operation the reference counts, the block
// ownership and the token rows each sequence reads back must all be consistent.
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
constexpr int64_t kBlocks = 48;
constexpr int kOperations = 6000;
constexpr size_t kMaxSequences = 12;

// The device side: one value per cache row, and what each sequence wrote.
struct CacheModel {
  std::vector<uint64_t> rows = std::vector<uint64_t>(kBlocks * kBlockSize, 0);
  std::map<SeqId, std::vector<uint64_t>> tokens;  // expected row values, per sequence
  uint64_t next_value = 1;
};

class KvCacheProperty : public ::testing::Test {
 protected:
  KvCacheBook book{{.block_size = kBlockSize, .n_blocks = kBlocks}};
  CacheModel model;
  std::mt19937_64 rng{20240601};
  int failed_appends = 0;
  int copies = 0;

  uint64_t pick(uint64_t n) { return rng() % n; }
  SeqId random_sequence() {
    std::vector<SeqId> ids = book.sequences();
    return ids[pick(ids.size())];
  }

  void add_op() { model.tokens[book.add_sequence()] = {}; }

  void fork_op() {
    SeqId parent = random_sequence();
    SeqId child = book.fork_sequence(parent);
    model.tokens[child] = model.tokens[parent];
  }

  void free_op() {
    SeqId seq = random_sequence();
    book.free_sequence(seq);
    model.tokens.erase(seq);
  }

  void append_op() {
    SeqId seq = random_sequence();
    int64_t n = 1 + static_cast<int64_t>(pick(pick(4) == 0 ? 24 : 3));
    std::vector<int32_t> blocks_before = book.table(seq).blocks();
    int64_t needed = book.blocks_needed(seq, n);
    int64_t free_before = book.free_blocks();

    std::optional<SlotReservation> r = book.try_reserve(seq, n);
    if (!r) {
      ++failed_appends;
      ASSERT_GT(needed, free_before);
      ASSERT_EQ(book.table(seq).blocks(), blocks_before);
      ASSERT_EQ(book.free_blocks(), free_before);
      return;
    }
    ASSERT_LE(needed, free_before);
    ASSERT_EQ(book.free_blocks(), free_before - needed);
    ASSERT_EQ(static_cast<int64_t>(r->slots.size()), n);
    if (r->copy) {
      ++copies;
      for (int32_t row = 0; row < kBlockSize; ++row) {
        model.rows[r->copy->dst * kBlockSize + row] = model.rows[r->copy->src * kBlockSize + row];
      }
    }
    for (int32_t slot : r->slots) {
      // A row written must belong to this sequence alone.
      ASSERT_EQ(book.allocator().ref_count(slot / kBlockSize), 1) << "slot " << slot;
      model.rows[static_cast<size_t>(slot)] = model.next_value;
      model.tokens[seq].push_back(model.next_value++);
    }
  }

  void random_operation() {
    uint64_t dice = pick(100);
    size_t live = book.sequences().size();
    if (live == 0 || (dice < 12 && live < kMaxSequences)) {
      add_op();
    } else if (dice < 24 && live < kMaxSequences) {
      fork_op();
    } else if (dice < 36) {
      free_op();
    } else {
      append_op();
    }
  }

  void check_invariants() {
    std::vector<int32_t> references(kBlocks, 0);
    for (SeqId seq : book.sequences()) {
      const BlockTable& table = book.table(seq);
      const std::vector<uint64_t>& expected = model.tokens.at(seq);
      ASSERT_EQ(table.n_tokens(), static_cast<int64_t>(expected.size()));
      ASSERT_EQ(static_cast<int64_t>(table.blocks().size()),
                (table.n_tokens() + kBlockSize - 1) / kBlockSize);
      std::vector<int32_t> sorted = table.blocks();
      std::sort(sorted.begin(), sorted.end());
      ASSERT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
          << "a block twice in sequence " << seq;
      for (int32_t block : table.blocks()) ++references[block];
      for (int64_t pos = 0; pos < table.n_tokens(); ++pos) {
        ASSERT_EQ(model.rows[static_cast<size_t>(table.slot_of(pos))], expected[pos])
            << "sequence " << seq << " position " << pos;
      }
    }
    int64_t in_tables = 0;
    for (int32_t block = 0; block < kBlocks; ++block) {
      // Sum of ref counts = references in tables, block by block; so a block is in
      // two tables only when its count says it is shared.
      ASSERT_EQ(book.allocator().ref_count(block), references[block]) << "block " << block;
      in_tables += references[block] > 0;
    }
    ASSERT_EQ(book.allocator().n_used(), in_tables);
    ASSERT_EQ(book.allocator().n_free() + book.allocator().n_used(), kBlocks);
  }
};

TEST_F(KvCacheProperty, RandomOperationsKeepTheInvariants) {
  for (int op = 0; op < kOperations; ++op) {
    ASSERT_NO_FATAL_FAILURE(random_operation()) << "operation " << op;
    ASSERT_NO_FATAL_FAILURE(check_invariants()) << "after operation " << op;
  }
  RecordProperty("failed_appends", failed_appends);
  RecordProperty("copies", copies);
  // The run must have exercised the interesting paths, not just the easy ones.
  EXPECT_GT(failed_appends, 100);
  EXPECT_GT(copies, 100);

  for (SeqId seq : book.sequences()) book.free_sequence(seq);
  EXPECT_EQ(book.free_blocks(), kBlocks);
  for (int32_t block = 0; block < kBlocks; ++block) EXPECT_EQ(book.allocator().ref_count(block), 0);
}

}  // namespace
}  // namespace tessera
