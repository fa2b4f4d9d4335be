// The CPU path against the golden logits of stories260K: a whole-sequence prefill,
// token-by-token decode through the paged KV cache, and an F16 cache.
#include <gtest/gtest.h>

#include <cmath>

#include "core/engine/backend.h"
#include "core/engine/generator.h"
#include "core/engine/model.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "core/util/error.h"
#include "engine_harness.h"
#include "support/golden.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

constexpr int64_t kVocab = 512;

// stories260K from its GGUF (or another file of testdata) on the CPU backend.
struct Fixture : LoadedModel {
  explicit Fixture(DType kv_dtype = DType::F32, const std::string& weights = "stories260K/stories260K.gguf")
      : LoadedModel(testdata_path(weights), source_path("models/llama.tsr"), kv_dtype) {}
};

std::vector<int32_t> golden_sequence() { return golden_logit_tokens(); }

// Largest |a - b| over row `row` of the golden logits.
float max_row_error(const float* ours, const std::vector<float>& golden, size_t row) {
  float worst = 0;
  for (int64_t v = 0; v < kVocab; ++v) {
    worst = std::max(worst, std::fabs(ours[v] - golden[row * kVocab + static_cast<size_t>(v)]));
  }
  return worst;
}

TEST(Session, PrefillOfTheWholeSequenceMatchesGoldenLogits) {
  Fixture f;
  const auto seq = golden_sequence();
  const auto golden = load_golden_logits();
  ASSERT_EQ(golden.size(), seq.size() * kVocab);
  Session s(*f.model, f.backend, SessionOptions{});
  const auto& logits = s.feed(seq, static_cast<int32_t>(seq.size()));
  ASSERT_EQ(logits.size(), seq.size() * kVocab);
  for (size_t p = 0; p < seq.size(); ++p) {
    // An independent f32 implementation agrees to ~2e-5 (golden.md); allow summation-order noise.
    EXPECT_LT(max_row_error(logits.data() + p * kVocab, golden, p), 1e-4f) << "position " << p;
  }
}

TEST(Session, DecodeTokenByTokenMatchesGoldenLogits) {
  Fixture f;
  const auto seq = golden_sequence();
  const auto golden = load_golden_logits();
  Session s(*f.model, f.backend, SessionOptions{.kv_block = 4});  // many blocks: crosses block edges
  for (size_t p = 0; p < seq.size(); ++p) {
    const auto& logits = s.feed(std::span<const int32_t>(&seq[p], 1));
    ASSERT_EQ(logits.size(), static_cast<size_t>(kVocab));
    EXPECT_LT(max_row_error(logits.data(), golden, p), 1e-4f) << "position " << p;
  }
  EXPECT_EQ(s.n_past(), static_cast<int64_t>(seq.size()));
}

TEST(Session, ChunkedPrefillMatchesGoldenLogits) {
  Fixture f;
  const auto seq = golden_sequence();
  const auto golden = load_golden_logits();
  Session s(*f.model, f.backend, SessionOptions{.kv_block = 16, .n_ctx = 0, .max_step_tokens = 7});
  const auto& logits = s.feed(seq, 3);
  ASSERT_EQ(logits.size(), 3u * kVocab);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_LT(max_row_error(logits.data() + k * kVocab, golden, seq.size() - 3 + k), 1e-4f);
  }
}

TEST(Session, F16KvCacheStaysNearGoldenLogits) {
  Fixture f(DType::F16);
  const auto seq = golden_sequence();
  const auto golden = load_golden_logits();
  Session s(*f.model, f.backend, SessionOptions{});
  const auto& logits = s.feed(seq, static_cast<int32_t>(seq.size()));
  float worst = 0;
  for (size_t p = 0; p < seq.size(); ++p) worst = std::max(worst, max_row_error(logits.data() + p * kVocab, golden, p));
  // golden.md: an F16 KV cache moves the logits by up to ~2.4e-2.
  EXPECT_LT(worst, 5e-2f);
  EXPECT_GT(worst, 0.0f);
}

TEST(Session, ContextOverflowIsRefused) {
  Fixture f;
  Session s(*f.model, f.backend, SessionOptions{.kv_block = 16, .n_ctx = 8});
  const std::vector<int32_t> nine(9, 5);
  try {
    s.feed(nine);
    FAIL() << "expected a context-full error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "context full: 0 tokens so far + 9 new > context of 8 (raise it with --ctx)");
  }
}

TEST(Generate, GreedyContinuationFromLlama2cCheckpointIsTheGolden) {
  const LoadedModel loaded(testdata_path("stories260K/stories260K.bin"), source_path("models/llama.tsr"), DType::F32,
                           testdata_path("stories260K/tok512.bin"));
  const auto& model = loaded.model;
  Session s(*model, loaded.backend, SessionOptions{.kv_block = 16, .n_ctx = 128});
  GenerateOptions opts;
  opts.n_predict = 64;
  opts.sampling.temperature = 0;
  const Golden g = load_golden();
  std::string streamed;
  const GenerateResult r = generate(s, model->tokenizer(), g.prompt, opts, [&](const std::string& piece) {
    streamed += piece;
  });
  EXPECT_EQ(r.prompt_ids, g.prompt_ids);
  EXPECT_EQ(r.generated_ids, g.generated_ids);
  EXPECT_EQ(g.prompt + streamed, g.text);
  EXPECT_EQ(r.text, streamed);
  EXPECT_EQ(r.stop_reason, "length");
}

}  // namespace
}  // namespace tessera::test
