// The Engine on stories260K: the golden continuation, batches of mixed lengths and
// shared prefixes that must give exactly what each prompt gives alone, preemption
// under a budget of a few blocks, refusals, cancellation, stop conditions,
// streaming, and submission from several threads. No block stays in use after a test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/engine/event_queue.h"
#include "core/util/error.h"
#include "engine_harness.h"
#include "support/golden.h"

namespace tessera::test {
namespace {

using ::testing::ThrowsMessage;

const LoadedModel& stories() {
  static const LoadedModel m(testdata_path("stories260K/stories260K.gguf"), source_path("models/llama.tsr"));
  return m;
}

// Mixed lengths: one token to ~40, and continuations that end at EOS or at max_tokens.
const std::vector<Prompt>& mixed_prompts() {
  static const std::vector<Prompt> prompts = {
      {"Once upon a time", 40},
      {"Tom", 25},
      {"One day, a little bird named Tim wanted to fly high in the sky. He asked his mom if he could go to the "
       "big tree",
       50},
      {"Lily and Ben went to the park to play with a ball.", 30},
      {"The cat", 60},
  };
  return prompts;
}

EngineOptions options(int32_t kv_block, KvBudget budget, int32_t max_batch = 8, int32_t max_tokens_per_step = 16) {
  EngineOptions o;
  o.kv_block = kv_block;
  o.kv_budget = budget;
  o.max_batch = max_batch;
  o.max_tokens_per_step = max_tokens_per_step;
  return o;
}

// Runs `prompts` together and checks each against its run alone.
void expect_batch_matches_alone(Engine& engine, const std::vector<Prompt>& prompts, const SamplingParams& sampling) {
  std::vector<Request> requests;
  for (const Prompt& p : prompts) requests.push_back(request_of(p, sampling));
  const auto results = run_batch(engine, requests);
  ASSERT_EQ(results.size(), prompts.size());
  RequestId id = results.begin()->first;
  for (const Prompt& p : prompts) {
    const GenerateResult alone = run_alone(stories(), p, sampling);
    const RequestResult& batched = results.at(id++);
    EXPECT_EQ(batched.prompt_ids, alone.prompt_ids) << p.text;
    EXPECT_EQ(batched.generated_ids, alone.generated_ids) << p.text;
    EXPECT_EQ(batched.text, alone.text) << p.text;
    EXPECT_EQ(finish_reason_name(batched.finish), alone.stop_reason) << p.text;
  }
}

TEST(Engine, GreedyContinuationIsTheGolden) {
  const Golden g = load_golden();
  Engine engine(*stories().model, stories().backend, options(16, KvBudget::tokens(256)));
  const auto results = run_batch(engine, {request_of({g.prompt, 64}, greedy())});
  const RequestResult& r = results.at(0);
  EXPECT_EQ(r.prompt_ids, g.prompt_ids);
  EXPECT_EQ(r.generated_ids, g.generated_ids);
  EXPECT_EQ(g.prompt + r.text, g.text);
  EXPECT_EQ(r.finish, FinishReason::Length);
  expect_all_blocks_free(engine);
}

TEST(Engine, MixedLengthBatchGivesWhatEachPromptGivesAlone) {
  // Blocks of 4 and 16 tokens a step: block edges everywhere, and the long prompt
  // prefilled in chunks beside the others' decode tokens.
  Engine engine(*stories().model, stories().backend, options(4, KvBudget::tokens(2048)));
  expect_batch_matches_alone(engine, mixed_prompts(), greedy());
  const EngineStats s = engine.stats();
  EXPECT_GT(s.mean_batch_sequences, 2.0);
  EXPECT_EQ(s.preemptions, 0);
  expect_all_blocks_free(engine);
}

TEST(Engine, SampledBatchGivesWhatEachPromptGivesAloneWithTheSameSeed) {
  SamplingParams sampling;
  sampling.temperature = 0.9f;
  sampling.seed = 1234;
  Engine engine(*stories().model, stories().backend, options(8, KvBudget::tokens(2048)));
  expect_batch_matches_alone(engine, mixed_prompts(), sampling);
  expect_all_blocks_free(engine);
}

class EngineUnderATightBudget : public ::testing::TestWithParam<bool> {};

TEST_P(EngineUnderATightBudget, EveryRequestFinishesUnchangedWithPreemptions) {
  // 24 blocks of 4 tokens: each request fits alone, all of them together do not.
  EngineOptions o = options(4, KvBudget::tokens(96), 8, 32);
  o.prefix_caching = GetParam();
  Engine engine(*stories().model, stories().backend, o);
  expect_batch_matches_alone(engine, mixed_prompts(), greedy());
  const EngineStats s = engine.stats();
  EXPECT_GT(s.preemptions, 0);
  EXPECT_EQ(s.kv.blocks_total, 24);
  expect_all_blocks_free(engine);
}

INSTANTIATE_TEST_SUITE_P(PrefixCache, EngineUnderATightBudget, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "On" : "Off"; });

TEST(Engine, SharedPrefixBlocksAreReusedAndOutputsUnchanged) {
  const std::string head =
      "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day,";
  const std::vector<Prompt> prompts = {{head + " she saw a dog", 20}, {head + " the sun was hot", 20}, {head, 20}};
  Engine engine(*stories().model, stories().backend, options(4, KvBudget::tokens(1024)));
  const auto first = run_batch(engine, {request_of(prompts[0], greedy())});  // fills the cache
  EXPECT_EQ(first.at(0).cached_prompt_tokens, 0);
  const int64_t hits_before = engine.stats().kv.prefix_hit_tokens;

  std::vector<Request> rest;
  for (size_t i = 1; i < prompts.size(); ++i) rest.push_back(request_of(prompts[i], greedy()));
  const auto results = run_batch(engine, rest);
  const std::vector<int32_t> first_ids = first.at(0).prompt_ids;
  int64_t expected_hits = 0;
  for (const auto& [id, r] : results) {
    // Whole blocks of the common token prefix, never the last prompt token.
    const auto common = std::mismatch(r.prompt_ids.begin(), r.prompt_ids.end(), first_ids.begin(), first_ids.end());
    const int64_t same = std::min<int64_t>(common.first - r.prompt_ids.begin(),
                                           static_cast<int64_t>(r.prompt_ids.size()) - 1);
    EXPECT_EQ(r.cached_prompt_tokens, same / 4 * 4) << "request " << id;
    EXPECT_GE(r.cached_prompt_tokens, 20) << "request " << id;
    expected_hits += r.cached_prompt_tokens;
    const GenerateResult alone = run_alone(stories(), prompts[static_cast<size_t>(id)], greedy());
    EXPECT_EQ(r.generated_ids, alone.generated_ids) << "request " << id;
  }
  const KvCacheStats kv = engine.stats().kv;
  EXPECT_EQ(kv.prefix_hit_tokens - hits_before, expected_hits);
  EXPECT_GT(kv.blocks_cached, 0);
  expect_all_blocks_free(engine);
}

TEST(Engine, ARequestLargerThanTheWholeBudgetIsRefused) {
  Engine engine(*stories().model, stories().backend, options(4, KvBudget::tokens(64)));
  Request r = request_of({"Once upon a time", 100}, greedy());
  EXPECT_THAT([&] { engine.submit(r); },
              ThrowsMessage<Error>("request 0 needs up to 104 tokens of KV cache (prompt 5 + up to 100 new) but "
                                   "the whole budget holds 64 tokens (16 blocks of 4, 80.0 KiB); raise --kv-mem or "
                                   "ask for fewer tokens"));
  EXPECT_FALSE(engine.has_work());
}

TEST(Engine, APromptLongerThanTheContextIsRefused) {
  EngineOptions o = options(4, KvBudget::tokens(256));
  o.n_ctx = 8;
  Engine engine(*stories().model, stories().backend, o);
  Request r;
  r.prompt_ids.assign(9, 5);
  EXPECT_THAT([&] { engine.submit(r); },
              ThrowsMessage<Error>("request 0: the prompt has 9 tokens, more than the context of 8 (raise it with "
                                   "--ctx)"));
}

TEST(Engine, ATokenOutsideTheVocabularyIsRefused) {
  Engine engine(*stories().model, stories().backend, options(4, KvBudget::tokens(256)));
  Request r;
  r.prompt_ids = {1, 512};
  EXPECT_THAT([&] { engine.submit(r); },
              ThrowsMessage<Error>("prompt token id 512 is outside the vocabulary of 512"));
}

TEST(Engine, GenerationStopsAtTheEndOfTheContext) {
  EngineOptions o = options(4, KvBudget::tokens(256));
  o.n_ctx = 12;
  Engine engine(*stories().model, stories().backend, o);
  const auto results = run_batch(engine, {request_of({"Once upon a time", 50}, greedy())});
  EXPECT_EQ(results.at(0).finish, FinishReason::Context);
  EXPECT_EQ(results.at(0).generated_ids.size(), 12u - 5u + 1u);  // the last one is never fed back
}

TEST(Engine, CancelEndsTheRequestAtTheNextStep) {
  Engine engine(*stories().model, stories().backend, options(4, KvBudget::tokens(512)));
  std::vector<RequestEvent> events;
  Request a = request_of({"Once upon a time", 40}, greedy());
  a.stop.ignore_eos = true;
  a.on_event = [&](const RequestEvent& e) {
    events.push_back(e);
    if (events.size() == 3) engine.cancel(e.id);
  };
  const RequestId id = engine.submit(std::move(a));
  const auto other = run_batch(engine, {request_of(mixed_prompts()[3], greedy())});
  ASSERT_EQ(events.size(), 4u);
  ASSERT_TRUE(events.back().finished());
  EXPECT_EQ(events.back().result->id, id);
  EXPECT_EQ(events.back().result->finish, FinishReason::Cancelled);
  EXPECT_EQ(events.back().result->generated_ids.size(), 3u);
  EXPECT_EQ(other.begin()->second.generated_ids, run_alone(stories(), mixed_prompts()[3], greedy()).generated_ids);
  expect_all_blocks_free(engine);
}

TEST(Engine, CancelOfAWaitingRequestFinishesItWithoutRunningIt) {
  Engine engine(*stories().model, stories().backend, options(4, KvBudget::tokens(512)));
  auto queue = std::make_shared<EventQueue>();
  Request r = request_of({"Tom", 10}, greedy());
  r.on_event = EventQueue::sink(queue);
  const RequestId id = engine.submit(std::move(r));
  engine.cancel(id);
  engine.run_until_idle();
  ASSERT_EQ(queue->size(), 1u);
  const RequestEvent e = queue->pop();
  EXPECT_EQ(e.result->finish, FinishReason::Cancelled);
  EXPECT_TRUE(e.result->generated_ids.empty());
  EXPECT_EQ(engine.stats().steps, 0);
}

TEST(Engine, EventsStreamEveryTokenThenTheResult) {
  const Golden g = load_golden();
  Engine engine(*stories().model, stories().backend, options(16, KvBudget::tokens(256)));
  auto queue = std::make_shared<EventQueue>();
  Request r = request_of({g.prompt, 64}, greedy());
  r.on_event = EventQueue::sink(queue);
  engine.submit(std::move(r));
  engine.run_until_idle();
  std::vector<int32_t> tokens;
  std::string text;
  for (;;) {
    const RequestEvent e = queue->pop();
    text += e.text;
    if (e.finished()) {
      EXPECT_EQ(e.token, -1);
      EXPECT_EQ(e.result->generated_ids, tokens);
      EXPECT_EQ(e.result->text, text);
      EXPECT_GT(e.result->ttft_ms, 0.0);
      EXPECT_GE(e.result->total_ms, e.result->ttft_ms);
      break;
    }
    tokens.push_back(e.token);
  }
  EXPECT_EQ(tokens, g.generated_ids);
  EXPECT_EQ(queue->size(), 0u);
}

TEST(Engine, StopTextEndsTheTextBeforeIt) {
  const Golden g = load_golden();
  Engine engine(*stories().model, stories().backend, options(16, KvBudget::tokens(256)));
  Request r = request_of({g.prompt, 64}, greedy());
  r.stop.stop_texts = {"Lily"};
  const RequestResult res = run_batch(engine, {r}).at(0);
  EXPECT_EQ(res.finish, FinishReason::StopText);
  EXPECT_EQ(res.text, ", there was a little girl named ");
}

TEST(Engine, StopTokenEndsTheGenerationWithoutIt) {
  const Golden g = load_golden();
  Engine engine(*stories().model, stories().backend, options(16, KvBudget::tokens(256)));
  Request r = request_of({g.prompt, 64}, greedy());
  r.stop.stop_token_ids = {g.generated_ids[3]};
  const RequestResult res = run_batch(engine, {r}).at(0);
  EXPECT_EQ(res.finish, FinishReason::StopToken);
  EXPECT_EQ(res.generated_ids, std::vector<int32_t>(g.generated_ids.begin(), g.generated_ids.begin() + 3));
}

TEST(Engine, ZeroNewTokensOnlyPrefills) {
  Engine engine(*stories().model, stories().backend, options(16, KvBudget::tokens(256)));
  const RequestResult res = run_batch(engine, {request_of({"Once upon a time", 0}, greedy())}).at(0);
  EXPECT_EQ(res.finish, FinishReason::Length);
  EXPECT_TRUE(res.generated_ids.empty());
  EXPECT_EQ(engine.stats().tokens_computed, 5);
  expect_all_blocks_free(engine);
}

TEST(Engine, RequestsSubmittedFromSeveralThreadsAllFinishUnchanged) {
  Engine engine(*stories().model, stories().backend, options(8, KvBudget::tokens(1024), 6, 24));
  const std::vector<Prompt>& prompts = mixed_prompts();
  std::vector<std::vector<int32_t>> alone;
  for (const Prompt& p : prompts) alone.push_back(run_alone(stories(), p, greedy()).generated_ids);

  constexpr int kThreads = 4, kPerThread = 5;
  std::atomic<int> finished{0};
  std::mutex mutex;
  std::map<RequestId, std::pair<size_t, std::vector<int32_t>>> results;  // id -> (prompt, output)
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kPerThread; ++k) {
        const size_t which = static_cast<size_t>(t + k) % prompts.size();
        Request r = request_of(prompts[which], greedy());
        r.on_event = [&, which](const RequestEvent& e) {
          if (!e.finished()) return;
          std::lock_guard lock(mutex);
          results[e.id] = {which, e.result->generated_ids};
          ++finished;
        };
        engine.submit(std::move(r));
      }
    });
  }
  while (finished < kThreads * kPerThread) engine.step();  // steps run while threads submit
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(results.size(), static_cast<size_t>(kThreads * kPerThread));
  for (const auto& [id, r] : results) EXPECT_EQ(r.second, alone[r.first]) << "request " << id;
  EXPECT_FALSE(engine.has_work());
  expect_all_blocks_free(engine);
}

}  // namespace
}  // namespace tessera::test
