// apply_presence_frequency_penalty against a reference computation of OpenAI's
// formula, and the Sampler applying it to the tokens it generated (not the prompt).
#include "core/sampling/presence_penalty.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/sampling/sampler.h"
#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatEq;

// OpenAI's formula, written as documented: mu[j] - c[j] * frequency - (c[j] > 0) * presence,
// with c[j] counted by a scan of the generated tokens for each vocabulary entry.
std::vector<float> reference(std::vector<float> logits, const std::vector<int32_t>& generated, float presence,
                             float frequency) {
  for (size_t j = 0; j < logits.size(); ++j) {
    int count = 0;
    for (int32_t t : generated) count += t == static_cast<int32_t>(j) ? 1 : 0;
    logits[j] = logits[j] - static_cast<float>(count) * frequency - (count > 0 ? presence : 0.0f);
  }
  return logits;
}

TEST(PresencePenalty, SubtractsPresenceOnceAndFrequencyPerOccurrence) {
  std::vector<float> logits = {3.0f, -2.0f, 1.0f, 0.5f};
  const std::vector<int32_t> generated = {0, 2, 0, 0};
  apply_presence_frequency_penalty(logits, generated, 0.5f, 0.25f);
  // token 0: 3 - 3 * 0.25 - 0.5; token 2: 1 - 0.25 - 0.5; the others untouched.
  EXPECT_THAT(logits, ElementsAre(FloatEq(1.75f), FloatEq(-2.0f), FloatEq(0.25f), FloatEq(0.5f)));
}

TEST(PresencePenalty, NegativeValuesRaiseTheTokens) {
  std::vector<float> logits = {1.0f, 1.0f};
  const std::vector<int32_t> generated = {1, 1};
  apply_presence_frequency_penalty(logits, generated, -1.0f, -2.0f);
  EXPECT_THAT(logits, ElementsAre(FloatEq(1.0f), FloatEq(6.0f)));
}

TEST(PresencePenalty, MatchesTheReferenceOnRandomInputs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> logit(-8.0f, 8.0f), penalty(-2.0f, 2.0f);
  std::uniform_int_distribution<int32_t> token(0, 49);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> logits(50);
    for (float& l : logits) l = logit(rng);
    std::vector<int32_t> generated(static_cast<size_t>(trial * 3));
    for (int32_t& t : generated) t = token(rng);
    const float presence = penalty(rng), frequency = penalty(rng);
    const std::vector<float> expected = reference(logits, generated, presence, frequency);
    apply_presence_frequency_penalty(logits, generated, presence, frequency);
    EXPECT_EQ(logits, expected) << "trial " << trial;
  }
}

TEST(PresencePenalty, ZeroPenaltiesChangeNothing) {
  std::vector<float> logits = {3.0f, -2.0f};
  apply_presence_frequency_penalty(logits, std::vector<int32_t>{0, 1, 1}, 0.0f, 0.0f);
  EXPECT_THAT(logits, ElementsAre(3.0f, -2.0f));
}

TEST(PresencePenalty, TokenOutsideTheVocabularyThrowsWithoutChangingAnything) {
  std::vector<float> logits = {3.0f, -2.0f};
  EXPECT_THAT(
      [&] {
        apply_presence_frequency_penalty(logits, std::vector<int32_t>{0, 2}, 1.0f, 0.0f);
      },
      ::testing::ThrowsMessage<Error>(
          "presence/frequency penalty: generated token 2 is outside the vocabulary of 2 tokens"));
  EXPECT_THAT(logits, ElementsAre(3.0f, -2.0f));
}

TEST(PresencePenalty, SamplerPenalisesWhatItGeneratedNotThePrompt) {
  SamplingParams params;
  params.temperature = 0.0f;
  params.presence_penalty = 2.0f;
  Sampler sampler(params);
  const std::vector<float> logits = {5.0f, 4.0f, 3.5f, 0.0f};
  const std::vector<int32_t> prompt = {0, 0, 0};  // token 0 in the prompt is not penalised
  // 0 first (5); then 0 has 5 - 2 = 3 < 4: 1; then 1 has 2 and 0 has 3 < 3.5: 2; then 0 (3 > 1.5, 2).
  EXPECT_EQ(sampler.sample(logits, prompt), 0);
  EXPECT_EQ(sampler.sample(logits, prompt), 1);
  EXPECT_EQ(sampler.sample(logits, prompt), 2);
  EXPECT_EQ(sampler.sample(logits, prompt), 0);
}

TEST(PresencePenalty, SamplerFrequencyPenaltyGrowsWithEachRepeat) {
  SamplingParams params;
  params.temperature = 0.0f;
  params.frequency_penalty = 1.0f;
  Sampler sampler(params);
  const std::vector<float> logits = {5.0f, 2.5f};
  // 0 until its count reaches 3 (5 - 3 = 2 < 2.5), then 1.
  EXPECT_EQ(sampler.sample(logits, {}), 0);
  EXPECT_EQ(sampler.sample(logits, {}), 0);
  EXPECT_EQ(sampler.sample(logits, {}), 0);
  EXPECT_EQ(sampler.sample(logits, {}), 1);
}

TEST(PresencePenalty, OutOfRangeValuesAreRefused) {
  SamplingParams params;
  params.presence_penalty = 2.5f;
  EXPECT_THAT([&] { params.validate(); },
              ::testing::ThrowsMessage<Error>("invalid sampling parameter presence_penalty (--presence-penalty): "
                                              "must be in [-2, 2] (0 = off), got 2.5"));
  params.presence_penalty = 0.0f;
  params.frequency_penalty = -3.0f;
  EXPECT_THAT([&] { params.validate(); },
              ::testing::ThrowsMessage<Error>("invalid sampling parameter frequency_penalty (--frequency-penalty): "
                                              "must be in [-2, 2] (0 = off), got -3"));
}

}  // namespace
}  // namespace tessera
