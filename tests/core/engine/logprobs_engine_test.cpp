// Request::logprobs on stories260K: each token event carries the token's
// log-probability and the top alternatives of the step's raw logits (no events carry
// them when not asked), consistent with the token sampled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine_harness.h"

namespace tessera::test {
namespace {

std::vector<RequestEvent> token_events(Engine& engine, Request request) {
  auto events = std::make_shared<std::vector<RequestEvent>>();
  request.on_event = [events](const RequestEvent& e) {
    if (!e.finished()) events->push_back(e);
  };
  engine.submit(std::move(request));
  engine.run_until_idle();
  return *events;
}

struct LogprobsTest : ::testing::Test {
  LoadedModel m{testdata_path("stories260K/stories260K.gguf"), source_path("models/llama.tsr")};
  Engine engine{*m.model, m.backend, EngineOptions{}};
};

TEST_F(LogprobsTest, GreedyTokensAreTheMostLikelyAndCarryTheirAlternatives) {
  Request r = request_of(Prompt{"Once upon a time", 12}, greedy(), true);
  r.logprobs = 3;
  const std::vector<RequestEvent> events = token_events(engine, std::move(r));
  ASSERT_EQ(events.size(), 12u);
  for (const RequestEvent& e : events) {
    ASSERT_TRUE(e.logprobs);
    EXPECT_EQ(e.logprobs->chosen.token, e.token);
    ASSERT_EQ(e.logprobs->top.size(), 3u);
    EXPECT_EQ(e.logprobs->top[0].token, e.token);
    EXPECT_EQ(e.logprobs->top[0].logprob, e.logprobs->chosen.logprob);
    EXPECT_GE(e.logprobs->top[0].logprob, e.logprobs->top[1].logprob);
    EXPECT_GE(e.logprobs->top[1].logprob, e.logprobs->top[2].logprob);
    EXPECT_LE(e.logprobs->chosen.logprob, 0.0f);
  }
}

TEST_F(LogprobsTest, TheWholeVocabularySumsToOne) {
  Request r = request_of(Prompt{"Once upon a time", 4}, greedy(), true);
  r.logprobs = 512;  // stories260K's whole vocabulary
  for (const RequestEvent& e : token_events(engine, std::move(r))) {
    ASSERT_TRUE(e.logprobs);
    ASSERT_EQ(e.logprobs->top.size(), 512u);
    double sum = 0;
    for (const TokenLogprob& t : e.logprobs->top) sum += std::exp(static_cast<double>(t.logprob));
    EXPECT_NEAR(sum, 1.0, 1e-4);
  }
}

TEST_F(LogprobsTest, ASampledTokenHasItsOwnLogprobAmongTheAlternatives) {
  SamplingParams sampling;
  sampling.temperature = 1.5f;
  sampling.top_k = 0;
  sampling.top_p = 1.0f;
  sampling.min_p = 0.0f;
  sampling.seed = 11;
  Request r = request_of(Prompt{"Once upon a time", 24}, sampling, true);
  r.logprobs = 512;
  int not_the_most_likely = 0;
  for (const RequestEvent& e : token_events(engine, std::move(r))) {
    ASSERT_TRUE(e.logprobs);
    EXPECT_EQ(e.logprobs->chosen.token, e.token);
    const TokenLogprob& same = *std::find_if(e.logprobs->top.begin(), e.logprobs->top.end(),
                                             [&](const TokenLogprob& t) { return t.token == e.token; });
    EXPECT_EQ(same.logprob, e.logprobs->chosen.logprob);
    not_the_most_likely += e.logprobs->top[0].token != e.token ? 1 : 0;
  }
  EXPECT_GT(not_the_most_likely, 0);  // the logprobs are the model's, not the sampler's filtered ones
}

TEST_F(LogprobsTest, NoLogprobsUnlessAsked) {
  for (const RequestEvent& e : token_events(engine, request_of(Prompt{"Once upon a time", 4}, greedy(), true))) {
    EXPECT_FALSE(e.logprobs);
  }
}

}  // namespace
}  // namespace tessera::test
