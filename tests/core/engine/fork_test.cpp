// Copy-on-write through the executor: a forked sequence shares its parent's blocks;
// the first write into the shared, partly filled block goes to a private copy, so
// parent and child each go on exactly as if they had been computed alone.
#include <gtest/gtest.h>

#include <cmath>

#include "core/exec/graph_executor.h"
#include "core/kv/kv_cache.h"
#include "engine_harness.h"
#include "support/golden.h"

namespace tessera::test {
namespace {

constexpr int32_t kBlock = 4;

class ForkTest : public ::testing::Test {
 protected:
  const LoadedModel m{testdata_path("stories260K/stories260K.gguf"), source_path("models/llama.tsr")};
  KvCacheBook book{{.block_size = kBlock, .n_blocks = 16}};
  GraphExecutor executor{m.model->compiled().graph, m.model->weights(), m.backend.device, *m.backend.registry,
                         KvCacheShape{kBlock, 16}};
  int copies = 0;

  // One step over several sequences, one chunk of tokens each; the logits of each
  // chunk's last token, [seqs.size(), n_vocab].
  std::vector<float> step(const std::vector<SeqId>& seqs, const std::vector<std::vector<int32_t>>& tokens) {
    StepBatch b;
    for (size_t s = 0; s < seqs.size(); ++s) {
      const SlotReservation r = book.reserve(seqs[s], static_cast<int64_t>(tokens[s].size()));
      if (r.copy) {
        executor.copy_kv_block(r.copy->src, r.copy->dst);
        ++copies;
      }
      for (size_t i = 0; i < tokens[s].size(); ++i) {
        b.token_ids.push_back(tokens[s][i]);
        b.positions.push_back(static_cast<int32_t>(r.first_position + static_cast<int64_t>(i)));
        b.kv_slots.push_back(r.slots[i]);
        b.token_seq.push_back(static_cast<int32_t>(s));
      }
      b.output_rows.push_back(b.n_tokens() - 1);
    }
    b.n_seqs = static_cast<int32_t>(seqs.size());
    b.max_blocks_per_seq = book.max_blocks_of(seqs);
    b.block_tables.resize(seqs.size() * static_cast<size_t>(b.max_blocks_per_seq));
    book.fill_block_tables(seqs, b.block_tables.data(), b.max_blocks_per_seq);
    std::vector<float> logits;
    executor.run(b, &logits);
    return logits;
  }

  // Logits of the last token of `tokens` computed from scratch in one sequence.
  std::vector<float> alone(const std::vector<int32_t>& tokens) {
    Session s(*m.model, m.backend, SessionOptions{});
    return s.feed(tokens);
  }
};

float max_difference(const float* a, const std::vector<float>& b) {
  float worst = 0;
  for (size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

TEST_F(ForkTest, ParentAndChildWriteIntoTheirOwnCopyOfTheSharedBlock) {
  const Golden g = load_golden();
  std::vector<int32_t> prefix = g.prompt_ids;           // 5 tokens
  prefix.push_back(g.generated_ids[0]);                 // 6: block 0 full, block 1 holds 2
  const SeqId parent = book.add_sequence();
  step({parent}, {prefix});
  const SeqId child = book.fork_sequence(parent);
  ASSERT_EQ(book.table(child).blocks(), book.table(parent).blocks());

  // Different next tokens, in one step: the child writes first and copies block 1.
  const int32_t x = g.generated_ids[1], y = 7;
  const std::vector<float> both = step({child, parent}, {{y}, {x}});
  EXPECT_EQ(copies, 1);
  EXPECT_NE(book.table(child).blocks()[1], book.table(parent).blocks()[1]);
  EXPECT_EQ(book.table(child).blocks()[0], book.table(parent).blocks()[0]);  // full: still shared

  auto with = [&](std::vector<int32_t> tokens, std::initializer_list<int32_t> more) {
    tokens.insert(tokens.end(), more);
    return tokens;
  };
  const auto n_vocab = static_cast<size_t>(m.model->compiled().n_vocab);
  const std::vector<float> child_alone = alone(with(prefix, {y}));
  const std::vector<float> parent_alone = alone(with(prefix, {x}));
  EXPECT_LT(max_difference(both.data(), child_alone), 1e-4f);
  EXPECT_LT(max_difference(both.data() + n_vocab, parent_alone), 1e-4f);

  // Two more tokens each: every row each of them reads is its own history.
  const std::vector<float> next = step({parent, child}, {{g.generated_ids[2]}, {9}});
  EXPECT_LT(max_difference(next.data(), alone(with(prefix, {x, g.generated_ids[2]}))), 1e-4f);
  EXPECT_LT(max_difference(next.data() + n_vocab, alone(with(prefix, {y, 9}))), 1e-4f);

  book.free_sequence(parent);
  book.free_sequence(child);
  EXPECT_EQ(book.free_blocks(), 16);
}

}  // namespace
}  // namespace tessera::test
