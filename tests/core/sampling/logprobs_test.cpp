// token_logprobs: log_softmax of the raw logits, the chosen token's value and the
// top alternatives in order, against a reference computed in long double.
#include "core/sampling/logprobs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/util/error.h"

namespace tessera {
namespace {

float reference_logprob(const std::vector<float>& logits, int32_t token) {
  long double sum = 0;
  for (float l : logits) sum += std::exp(static_cast<long double>(l));
  return static_cast<float>(logits[static_cast<size_t>(token)] - std::log(sum));
}

TEST(Logprobs, ChosenTokenIsTheLogSoftmaxOfTheRawLogits) {
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f, -1.0f};
  const TokenLogprobs lp = token_logprobs(logits, 1, 0);
  EXPECT_EQ(lp.chosen.token, 1);
  EXPECT_FLOAT_EQ(lp.chosen.logprob, reference_logprob(logits, 1));
  EXPECT_NEAR(lp.chosen.logprob, -1.4197166463f, 1e-6);
  EXPECT_TRUE(lp.top.empty());
}

TEST(Logprobs, TopAlternativesAreSortedHighestFirstTiesToTheLowerId) {
  const std::vector<float> logits = {0.5f, 2.0f, 0.5f, 3.0f, -INFINITY};
  const TokenLogprobs lp = token_logprobs(logits, 4, 4);
  ASSERT_EQ(lp.top.size(), 4u);
  EXPECT_EQ(lp.top[0].token, 3);
  EXPECT_EQ(lp.top[1].token, 1);
  EXPECT_EQ(lp.top[2].token, 0);
  EXPECT_EQ(lp.top[3].token, 2);
  for (const TokenLogprob& t : lp.top) EXPECT_FLOAT_EQ(t.logprob, reference_logprob(logits, t.token));
  EXPECT_EQ(lp.chosen.logprob, -INFINITY);
}

TEST(Logprobs, LargeLogitsStayFinite) {
  const std::vector<float> logits = {1000.0f, 999.0f};
  const TokenLogprobs lp = token_logprobs(logits, 0, 5);  // top_n clamped to the vocabulary
  EXPECT_NEAR(lp.chosen.logprob, -0.3132617f, 1e-6);
  ASSERT_EQ(lp.top.size(), 2u);
  EXPECT_NEAR(lp.top[1].logprob, -1.3132617f, 1e-6);
}

TEST(Logprobs, ProbabilitiesOfAllTokensSumToOne) {
  std::vector<float> logits(100);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i)) * 5.0f;
  const TokenLogprobs lp = token_logprobs(logits, 0, 100);
  double sum = 0;
  for (const TokenLogprob& t : lp.top) sum += std::exp(static_cast<double>(t.logprob));
  EXPECT_NEAR(sum, 1.0, 1e-5);
}

TEST(Logprobs, TokenOutsideTheVocabularyThrows) {
  const std::vector<float> logits = {1.0f, 2.0f};
  EXPECT_THAT([&] { token_logprobs(logits, 2, 0); },
              ::testing::ThrowsMessage<Error>("logprobs: token 2 is outside the vocabulary of 2"));
}

}  // namespace
}  // namespace tessera
