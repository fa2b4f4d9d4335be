// Engine::migrate on stories260K between two CPU devices (the cross-backend moves
// run in the Vulkan tests): greedy and seeded output token for token the same as a
// run that never moved, with several sequences, back and forth, in the middle of a
// chunked prefill, with an int8 KV cache, into a smaller cache that forces
// preemption and back into a bigger one; the prefix cache kept; a target that
// lacks a kernel refused with the run going on where it was; and the block copy
// under it (transfer_kv_blocks).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/exec/kv_transfer.h"
#include "core/util/error.h"
#include "engine_harness.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

const LoadedModel& stories(DType kv = DType::F32) {
  static const LoadedModel f32(testdata_path("stories260K/stories260K.gguf"), source_path("models/llama.tsr"));
  static const LoadedModel q8(testdata_path("stories260K/stories260K.gguf"), source_path("models/llama.tsr"),
                              DType::Q8_0);
  return kv == DType::Q8_0 ? q8 : f32;
}

EngineOptions small_steps(int32_t max_tokens_per_step) {
  EngineOptions o;
  o.kv_block = 8;
  o.kv_budget = KvBudget::tokens(1024);
  o.max_batch = 4;
  o.max_tokens_per_step = max_tokens_per_step;
  return o;
}

std::vector<Request> requests(const SamplingParams& sampling) {
  const std::vector<Prompt> prompts = {
      {"Once upon a time", 40},
      {"Lily and Ben went to the park to play with a ball. They saw a big", 30},
      {"The cat", 24},
  };
  std::vector<Request> out;
  for (const Prompt& p : prompts) out.push_back(request_of(p, sampling, /*ignore_eos=*/true));
  return out;
}

// A second CPU backend: another device of the same plugin, with its own buffers.
struct OtherCpu {
  PluginHost host{std::vector<std::string>{plugin_dir()}};
  Backend backend = open_backend(host, "cpu", 2);
};

// Moves `engine` between `a` and `b` before the steps listed in `at_steps`.
class MoveAtSteps {
 public:
  MoveAtSteps(Engine& engine, const Backend& a, const Backend& b, std::vector<int64_t> at_steps)
      : engine_(engine), a_(a), b_(b), at_(std::move(at_steps)) {}
  void operator()() {
    if (next_ < at_.size() && engine_.stats().steps == at_[next_]) {
      generated_before.push_back(engine_.stats().tokens_generated);
      reports.push_back(engine_.migrate(next_ % 2 == 0 ? b_ : a_));
      ++next_;
    }
  }
  std::vector<MigrationReport> reports;
  std::vector<int64_t> generated_before;  // tokens generated when each move began

 private:
  Engine& engine_;
  const Backend& a_;
  const Backend& b_;
  std::vector<int64_t> at_;
  size_t next_ = 0;
};

// The requests run on one device from start to end: what a moved run must give.
std::map<RequestId, RequestResult> unmoved(const LoadedModel& m, const SamplingParams& sampling,
                                           int32_t max_tokens_per_step) {
  Engine engine(*m.model, m.backend, small_steps(max_tokens_per_step));
  return run_batch(engine, requests(sampling));
}

void expect_same_tokens(const std::map<RequestId, RequestResult>& moved,
                        const std::map<RequestId, RequestResult>& stayed) {
  ASSERT_EQ(moved.size(), stayed.size());
  for (auto m = moved.begin(), s = stayed.begin(); m != moved.end(); ++m, ++s) {
    EXPECT_EQ(m->second.generated_ids, s->second.generated_ids) << "request " << m->first;
    EXPECT_FALSE(m->second.generated_ids.empty());
  }
}

TEST(EngineMigration, GreedyOutputIsTheSameAfterMovingBackAndForth) {
  const LoadedModel& m = stories();
  OtherCpu other;
  const auto reference = unmoved(m, greedy(), 64);

  Engine engine(*m.model, m.backend, small_steps(64));
  MoveAtSteps move(engine, m.backend, other.backend, {3, 9, 20});
  const auto results = run_batch(engine, requests(greedy()), std::ref(move));
  expect_same_tokens(results, reference);
  ASSERT_EQ(move.reports.size(), 3u);
  EXPECT_EQ(engine.stats().migrations, 3);
  for (const MigrationReport& r : move.reports) {
    EXPECT_EQ(r.running, 3);
    EXPECT_GT(r.kv_blocks, 3);  // three sequences, each past its first block of 8
    EXPECT_GT(r.weight_bytes, 0u);
    EXPECT_GE(r.total_ms, r.copy_ms);
  }
  expect_all_blocks_free(engine);
}

TEST(EngineMigration, ReportCountsTheBlocksInUseAndTheirBytes) {
  const LoadedModel& m = stories();
  OtherCpu other;
  Engine engine(*m.model, m.backend, small_steps(64));
  std::vector<Request> rs = requests(greedy());
  for (Request& r : rs) engine.submit(std::move(r));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(engine.step());
  const std::vector<int32_t> occupied = engine.kv_cache().occupied_blocks();
  uint64_t block_bytes = 0;
  for (int32_t k = 0; k < engine.executor().n_cache_tensors(); ++k) block_bytes += engine.executor().kv_block_bytes(k);
  const MigrationReport r = engine.migrate(other.backend);
  EXPECT_EQ(r.kv_blocks, static_cast<int64_t>(occupied.size()));
  EXPECT_EQ(r.kv_bytes, block_bytes * occupied.size());
  EXPECT_EQ(r.from, "cpu:0");
  EXPECT_EQ(r.to, "cpu:0");
  EXPECT_EQ(&engine.executor().device(), other.backend.device.get());
  engine.run_until_idle();
}

TEST(EngineMigration, SeededSamplingIsTheSameAfterAMove) {
  const LoadedModel& m = stories();
  OtherCpu other;
  SamplingParams sampling;
  sampling.temperature = 0.9f;
  sampling.top_k = 20;
  sampling.repetition_penalty = 1.2f;
  sampling.seed = 1234;
  const auto reference = unmoved(m, sampling, 64);

  Engine engine(*m.model, m.backend, small_steps(64));
  MoveAtSteps move(engine, m.backend, other.backend, {6, 15});
  expect_same_tokens(run_batch(engine, requests(sampling), std::ref(move)), reference);
  EXPECT_EQ(move.reports.size(), 2u);
}

TEST(EngineMigration, MovingInTheMiddleOfAChunkedPrefill) {
  const LoadedModel& m = stories();
  OtherCpu other;
  // Four tokens a step: the 17-token prompt of the second request takes five steps.
  const auto reference = unmoved(m, greedy(), 4);

  Engine engine(*m.model, m.backend, small_steps(4));
  MoveAtSteps move(engine, m.backend, other.backend, {1, 2, 3});
  expect_same_tokens(run_batch(engine, requests(greedy()), std::ref(move)), reference);
  ASSERT_EQ(move.reports.size(), 3u);
  // The first move came before any prompt was fully prefilled.
  EXPECT_EQ(move.generated_before[0], 0);
  EXPECT_GT(move.reports[0].running + move.reports[0].waiting, 1);
}

TEST(EngineMigration, Int8KvCacheMovesAsItIs) {
  const LoadedModel& m = stories(DType::Q8_0);
  OtherCpu other;
  const auto reference = unmoved(m, greedy(), 64);

  Engine engine(*m.model, m.backend, small_steps(64));
  MoveAtSteps move(engine, m.backend, other.backend, {4, 11});
  expect_same_tokens(run_batch(engine, requests(greedy()), std::ref(move)), reference);
  EXPECT_EQ(engine.executor().kv_dtype(0), DType::Q8_0);
}

TEST(EngineMigration, ThePrefixCacheStillHitsAfterAMove) {
  const LoadedModel& m = stories();
  OtherCpu other;
  const Prompt p{"Lily and Ben went to the park to play with a ball. They saw a big", 12};
  Engine engine(*m.model, m.backend, small_steps(64));
  const auto first = run_batch(engine, {request_of(p, greedy(), true)});
  ASSERT_GT(engine.stats().kv.blocks_cached, 0);
  const MigrationReport r = engine.migrate(other.backend);
  EXPECT_EQ(r.running, 0);
  EXPECT_EQ(r.kv_blocks, engine.stats().kv.blocks_cached);  // only the cached prefix holds rows
  const auto again = run_batch(engine, {request_of(p, greedy(), true)});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_GE(again.begin()->second.cached_prompt_tokens, 8);
  EXPECT_EQ(again.begin()->second.generated_ids, first.begin()->second.generated_ids);
}

TEST(EngineMigration, ATargetWithoutAKernelIsRefusedAndTheRunGoesOn) {
  const LoadedModel& m = stories();
  OtherCpu lacking;
  lacking.backend.registry->hide(OpKind::RmsNorm, DType::F32);
  const auto reference = unmoved(m, greedy(), 64);

  Engine engine(*m.model, m.backend, small_steps(64));
  std::string refusal;
  auto try_move = [&] {
    if (engine.stats().steps != 5) return;
    try {
      engine.migrate(lacking.backend);
    } catch (const Error& e) {
      refusal = e.what();
    }
  };
  expect_same_tokens(run_batch(engine, requests(greedy()), try_move), reference);
  EXPECT_THAT(refusal, HasSubstr("cannot move the run from cpu:0 to cpu:0"));
  EXPECT_THAT(refusal, HasSubstr("has no kernel for rms_norm with f32 data"));
  EXPECT_THAT(refusal, HasSubstr("the run stays on cpu:0"));
  EXPECT_EQ(engine.stats().migrations, 0);
  EXPECT_EQ(&engine.executor().device(), m.backend.device.get());
}

// A cache of 7 blocks of 8 on the target: each request still fits alone (the
// longest needs 52 tokens), but the three together hold more when the move comes.
TEST(EngineMigration, ASmallerCacheOnTheTargetPreemptsAndTheOutputStaysTheSame) {
  const LoadedModel& m = stories();
  OtherCpu other;
  const auto reference = unmoved(m, greedy(), 64);

  Engine engine(*m.model, m.backend, small_steps(64));
  std::vector<MigrationReport> reports;
  auto move = [&] {
    if (engine.stats().steps == 10) reports.push_back(engine.migrate(other.backend, {.kv_budget = KvBudget::tokens(56)}));
    if (engine.stats().steps == 30) reports.push_back(engine.migrate(m.backend, {.kv_budget = KvBudget::tokens(1024)}));
  };
  expect_same_tokens(run_batch(engine, requests(greedy()), move), reference);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].cache_blocks, 7);
  EXPECT_GT(reports[0].preempted, 0);
  EXPECT_LE(reports[0].kv_blocks, 7);
  EXPECT_EQ(reports[1].cache_blocks, 128);
  EXPECT_EQ(reports[1].preempted, 0);
  EXPECT_GE(engine.stats().preemptions, reports[0].preempted);
  EXPECT_EQ(engine.kv_cache().config().n_blocks, 128);
  EXPECT_EQ(engine.executor().kv_shape().n_blocks, 128);
  expect_all_blocks_free(engine);
}

TEST(EngineMigration, ABudgetARequestCouldOutgrowIsRefused) {
  const LoadedModel& m = stories();
  OtherCpu other;
  const auto reference = unmoved(m, greedy(), 64);

  Engine engine(*m.model, m.backend, small_steps(64));
  std::string refusal;
  auto try_move = [&] {
    if (engine.stats().steps != 4) return;
    try {
      engine.migrate(other.backend, {.kv_budget = KvBudget::tokens(16)});
    } catch (const Error& e) {
      refusal = e.what();
    }
  };
  expect_same_tokens(run_batch(engine, requests(greedy()), try_move), reference);
  EXPECT_THAT(refusal, HasSubstr("cannot move the run from cpu:0 to cpu:0: request 0 needs up to 44 tokens"));
  EXPECT_THAT(refusal, HasSubstr("but the whole budget holds 16 tokens (2 blocks of 8"));
  EXPECT_EQ(engine.stats().preemptions, 0);
  EXPECT_EQ(engine.kv_cache().config().n_blocks, 128);
}

// The cache converted to f16 and to int8 (q8_0) on the way: the tokens before the move
// are those of the f32 run (after it the rounded cache may change a near tie, so no
// more is promised), every request runs to its length, and the engine reports the
// new dtype and budget. The conversion itself is checked by KvTransfer below.
TEST(EngineMigration, TheCacheChangesDtypeOnTheWay) {
  const LoadedModel& m = stories();
  OtherCpu other;
  const auto reference = unmoved(m, greedy(), 64);
  const uint64_t f32_bytes = m.model->compiled().graph.kv_bytes_per_token();
  for (DType dtype : {DType::F16, DType::Q8_0}) {
    Engine engine(*m.model, m.backend, small_steps(64));
    std::vector<MigrationReport> reports;
    auto move = [&] {
      if (engine.stats().steps == 8) reports.push_back(engine.migrate(other.backend, {.kv_dtype = dtype}));
      if (engine.stats().steps == 20) reports.push_back(engine.migrate(m.backend));  // stays in the new dtype
    };
    const auto results = run_batch(engine, requests(greedy()), move);
    ASSERT_EQ(results.size(), reference.size());
    for (auto r = results.begin(), s = reference.begin(); r != results.end(); ++r, ++s) {
      ASSERT_EQ(r->second.generated_ids.size(), s->second.generated_ids.size());
      // Every request has generated at least 5 tokens by step 8 (all prefill in one step).
      EXPECT_TRUE(std::equal(s->second.generated_ids.begin(), s->second.generated_ids.begin() + 5,
                             r->second.generated_ids.begin()))
          << "request " << r->first;
    }
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_EQ(reports[0].kv_dtype, dtype);
    EXPECT_EQ(reports[1].kv_dtype, dtype);
    EXPECT_EQ(engine.executor().kv_dtype(0), dtype);
    EXPECT_LT(engine.kv_cache().config().bytes_per_token, f32_bytes);
  }
}

TEST(EngineMigration, AKvDtypeNoCacheHoldsIsRefused) {
  const LoadedModel& m = stories();
  OtherCpu other;
  Engine engine(*m.model, m.backend, small_steps(64));
  EXPECT_THAT([&] { engine.migrate(other.backend, {.kv_dtype = DType::Q4_0}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("cannot move the run from cpu:0 to cpu:0: a KV cache holds f32, "
                                                        "f16 or q8_0, not q4_0 (the run stays on cpu:0)")));
  EXPECT_EQ(engine.executor().kv_dtype(0), DType::F32);
}

TEST(KvDtypeCheck, RefusesRowsThatAreNotWholeBlocks) {
  Graph g;
  GraphTensor cache;
  cache.name = "kv.0.k";
  cache.role = TensorRole::Cache;
  cache.shape = {sym(SymDim::CacheBlocks), sym(SymDim::BlockSize), 48};
  g.add_tensor(cache);
  EXPECT_NO_THROW(check_kv_dtype(g, DType::F16));
  EXPECT_THAT([&] { with_kv_dtype(g, DType::Q8_0); },
              ::testing::ThrowsMessage<Error>("a q8_0 KV cache needs rows (n_kv_heads * head_dim) of whole blocks of "
                                              "32, and 'kv.0.k' has rows of 48"));
}

GraphExecutor executor_on(const LoadedModel& m, const Backend& b, int64_t n_blocks) {
  return GraphExecutor(m.model->compiled().graph, m.model->weights(), b.device, *b.registry,
                       KvCacheShape{8, n_blocks});
}

TEST(KvTransfer, CopiesTheListedBlocksOfEveryCacheTensorAndNoOthers) {
  const LoadedModel& m = stories();
  OtherCpu other;
  GraphExecutor from = executor_on(m, m.backend, 16);
  GraphExecutor to = executor_on(m, other.backend, 16);
  ASSERT_GT(from.n_cache_tensors(), 1);
  const uint64_t bytes = from.kv_block_bytes(0);
  std::vector<uint8_t> zeros(bytes * 16, 0), pattern(bytes * 16);
  for (int32_t k = 0; k < from.n_cache_tensors(); ++k) {
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + k);
    from.write_kv_blocks(k, 0, 16, pattern.data());
    to.write_kv_blocks(k, 0, 16, zeros.data());
  }
  const std::vector<int32_t> blocks = {9, 2, 3, 4, 15};  // runs [2, 5), [9], [15]
  const KvTransfer t = transfer_kv_blocks(from, to, blocks);
  EXPECT_EQ(t.blocks, 5);
  EXPECT_EQ(t.bytes, 5 * bytes * static_cast<uint64_t>(from.n_cache_tensors()));
  std::vector<uint8_t> got(bytes);
  for (int32_t k = 0; k < from.n_cache_tensors(); ++k) {
    for (int32_t b = 0; b < 16; ++b) {
      to.read_kv_blocks(k, b, 1, got.data());
      const bool listed = std::find(blocks.begin(), blocks.end(), b) != blocks.end();
      const uint8_t first = listed ? static_cast<uint8_t>(static_cast<size_t>(b) * bytes * 7 + k) : 0;
      EXPECT_EQ(got[0], first) << "tensor " << k << " block " << b;
      EXPECT_EQ(got[bytes - 1], listed ? static_cast<uint8_t>((static_cast<size_t>(b + 1) * bytes - 1) * 7 + k) : 0);
    }
  }
}

TEST(KvTransfer, ConvertsRowsToTheTargetsDtype) {
  const LoadedModel& m = stories();
  OtherCpu other;
  GraphExecutor from = executor_on(m, m.backend, 4);
  const Graph f16 = with_kv_dtype(m.model->compiled().graph, DType::F16);
  GraphExecutor to(f16, m.model->weights(), other.backend.device, *other.backend.registry, KvCacheShape{8, 4});
  const int64_t width = from.kv_row_elems(0);
  std::vector<float> rows(static_cast<size_t>(width * 8 * 4));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = std::sin(0.1f * static_cast<float>(i)) * 3.0f;
  from.write_kv_blocks(0, 0, 4, rows.data());
  const std::vector<int32_t> blocks = {1, 2};
  const KvTransfer t = transfer_kv_blocks(from, to, blocks);
  EXPECT_EQ(t.blocks, 2);
  ASSERT_EQ(to.kv_dtype(0), DType::F16);
  std::vector<uint16_t> half(static_cast<size_t>(width * 8));
  for (int32_t b : blocks) {
    to.read_kv_blocks(0, b, 1, half.data());
    for (size_t i = 0; i < half.size(); ++i) {
      const float want = rows[static_cast<size_t>(b) * half.size() + i];
      EXPECT_NEAR(f16_to_f32(half[i]), want, 2e-3f) << "block " << b << " element " << i;
    }
  }
}

TEST(KvTransfer, RefusesCachesOfAnotherLayoutAndRepeatedBlocks) {
  const LoadedModel& m = stories();
  OtherCpu other;
  GraphExecutor from = executor_on(m, m.backend, 16);
  GraphExecutor smaller = executor_on(m, other.backend, 8);
  const std::vector<int32_t> one = {1};
  EXPECT_THROW(
      {
        try {
          transfer_kv_blocks(from, smaller, one);
        } catch (const Error& e) {
          EXPECT_THAT(e.what(), HasSubstr("block for block: it has 16 blocks there and 8 here"));
          throw;
        }
      },
      Error);
  GraphExecutor to = executor_on(m, other.backend, 16);
  const std::vector<int32_t> twice = {3, 1, 3};
  EXPECT_THROW(transfer_kv_blocks(from, to, twice), Error);
  const std::vector<int32_t> outside = {16};
  EXPECT_THROW(transfer_kv_blocks(from, to, outside), Error);
}

}  // namespace
}  // namespace tessera::test
