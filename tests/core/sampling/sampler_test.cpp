// Sampler: greedy choice, top-k of 1, the penalty's effect on the choice, seeds
// and their reproducibility, and bad logits.
#include "core/sampling/sampler.h"

#include <cmath>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::Each;
using ::testing::ThrowsMessage;

// Every filter off: the draw follows softmax(logits) exactly.
SamplingParams plain(uint64_t seed) {
  return {.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .min_p = 0.0f,
          .repetition_penalty = 1.0f, .seed = seed};
}

std::vector<int32_t> draws(Sampler& sampler, const std::vector<float>& logits, int n) {
  std::vector<int32_t> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back(sampler.sample(logits, {}));
  return tokens;
}

TEST(Sampler, GreedyPicksTheArgmax) {
  Sampler sampler({.temperature = 0.0f});
  std::vector<float> logits = {0.5f, -1.0f, 2.5f, 2.0f};
  EXPECT_EQ(sampler.sample(logits, {}), 2);
}

TEST(Sampler, GreedyBreaksTiesTowardsTheLowestId) {
  Sampler sampler({.temperature = 0.0f});
  std::vector<float> logits = {1.0f, 3.0f, 0.0f, 3.0f};
  EXPECT_EQ(sampler.sample(logits, {}), 1);
}

TEST(Sampler, TopKOfOneIsGreedyAtAnyTemperature) {
  std::vector<float> logits = {0.1f, 0.3f, 0.2f, 0.3f};
  for (float temperature : {0.5f, 1.0f, 5.0f, 100.0f}) {
    Sampler sampler({.temperature = temperature, .top_k = 1, .seed = 7});
    EXPECT_THAT(draws(sampler, logits, 500), Each(1)) << "temperature " << temperature;
  }
}

TEST(Sampler, RepetitionPenaltyCanChangeTheGreedyChoice) {
  std::vector<float> logits = {2.0f, 1.9f, 0.5f};
  std::vector<int32_t> previous = {2, 0};
  Sampler without({.temperature = 0.0f});
  Sampler with({.temperature = 0.0f, .repetition_penalty = 1.2f});  // 2.0 / 1.2 < 1.9
  EXPECT_EQ(without.sample(logits, previous), 0);
  EXPECT_EQ(with.sample(logits, previous), 1);
}

TEST(Sampler, KnownSeedGivesKnownTokens) {
  // Uniform over 10 tokens, so token = floor(10 u), u the top 53 bits of
  // mt19937_64(42) outputs: fixed by the standard, the same on every platform.
  Sampler sampler(plain(42));
  std::vector<float> logits(10, 0.0f);
  EXPECT_THAT(draws(sampler, logits, 12), ElementsAre(7, 6, 7, 1, 9, 0, 5, 3, 2, 3, 0, 5));
}

TEST(Sampler, SameSeedGivesTheSameSequence) {
  std::vector<float> logits(100, 0.0f);
  Sampler a(plain(1234)), b(plain(1234));
  EXPECT_EQ(draws(a, logits, 1000), draws(b, logits, 1000));
}

TEST(Sampler, DifferentSeedsGiveDifferentSequences) {
  std::vector<float> logits(100, 0.0f);
  Sampler a(plain(1234)), b(plain(1235));
  std::vector<int32_t> x = draws(a, logits, 1000), y = draws(b, logits, 1000);
  int same = 0;
  for (size_t i = 0; i < x.size(); ++i) same += x[i] == y[i];
  // Independent uniform draws over 100 tokens agree about 10 times in 1000.
  EXPECT_LT(same, 40);
}

TEST(Sampler, SeedZeroDrawsARandomSeedThatReplays) {
  std::vector<float> logits(100, 0.0f);
  Sampler random(plain(0));
  ASSERT_NE(random.seed(), 0u);
  Sampler replay(plain(random.seed()));
  EXPECT_EQ(draws(random, logits, 200), draws(replay, logits, 200));
}

TEST(Sampler, LargeVocabularyDrawsOnlyFromTheTopK) {
  // 32000 logits in a scrambled order: token i gets (i * 7919) % 32000 / 1000.
  std::vector<float> logits(32000);
  for (size_t i = 0; i < logits.size(); ++i) {
    logits[i] = static_cast<float>((i * 7919) % 32000) / 1000.0f;
  }
  Sampler sampler({.temperature = 1.0f, .top_k = 40, .top_p = 1.0f, .min_p = 0.0f, .seed = 3});
  for (int32_t token : draws(sampler, logits, 500)) {
    ASSERT_GE((static_cast<int64_t>(token) * 7919) % 32000, 32000 - 40) << "token " << token;
  }
}

TEST(Sampler, NegativeInfinityLogitsAreNeverDrawn) {
  std::vector<float> logits = {-INFINITY, 0.0f, -INFINITY, 0.0f};
  Sampler sampler(plain(9));
  for (int32_t token : draws(sampler, logits, 1000)) ASSERT_TRUE(token == 1 || token == 3);
}

TEST(Sampler, RejectsANanLogit) {
  Sampler sampler(plain(1));
  std::vector<float> logits = {0.0f, 1.0f, std::nanf("")};
  EXPECT_THAT([&] { sampler.sample(logits, {}); },
              ThrowsMessage<Error>("sampler: logit of token 2 is NaN (verify mode names the op where a "
                                   "non-finite value first appears, a check of the weights the tensor "
                                   "holding one)"));
}

TEST(Sampler, RejectsAllLogitsNegativeInfinity) {
  Sampler sampler(plain(1));
  std::vector<float> logits(3, -INFINITY);
  EXPECT_THAT([&] { sampler.sample(logits, {}); },
              ThrowsMessage<Error>("sampler: all 3 logits are -inf, no token can be chosen"));
}

TEST(Sampler, RejectsEmptyLogits) {
  Sampler sampler(plain(1));
  EXPECT_THAT([&] { sampler.sample({}, {}); },
              ThrowsMessage<Error>("sampler: empty logits (vocabulary of 0 tokens)"));
}

TEST(Sampler, ConstructorValidatesTheParams) {
  EXPECT_THAT([] { Sampler sampler({.top_p = 0.0f}); },
              ThrowsMessage<Error>("invalid sampling parameter top_p (--top-p): must be in "
                                   "(0, 1] (1 = off), got 0"));
}

}  // namespace
}  // namespace tessera
