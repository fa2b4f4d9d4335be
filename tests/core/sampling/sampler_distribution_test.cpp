// Sampler frequencies over 200000 seeded draws from a known 5-token distribution,
// after each filter: which tokens can appear, and in which proportions.
#include <cmath>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/sampling/sampler.h"

namespace tessera {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

constexpr int kDraws = 200000;
// One standard deviation of a frequency is sqrt(p (1 - p) / kDraws) <= 0.0011:
// 0.005 is over 4 of them.
constexpr double kTolerance = 0.005;

// Scrambled so that no filter can rely on ids being in probability order.
const std::vector<double> kProbs = {0.3, 0.1, 0.4, 0.05, 0.15};

std::vector<float> log_probs() {
  std::vector<float> logits;
  for (double p : kProbs) logits.push_back(static_cast<float>(std::log(p)));
  return logits;
}

SamplingParams unfiltered() {
  return {.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .min_p = 0.0f,
          .repetition_penalty = 1.0f, .seed = 20240601};
}

std::vector<double> frequencies(const SamplingParams& params) {
  Sampler sampler(params);
  std::vector<float> logits = log_probs();
  std::vector<double> counts(logits.size(), 0.0);
  for (int i = 0; i < kDraws; ++i) counts[static_cast<size_t>(sampler.sample(logits, {}))] += 1;
  for (double& c : counts) c /= kDraws;
  return counts;
}

// probs restricted to `keep` (the others 0), raised to 1 / temperature, renormalised.
std::vector<double> expected(std::vector<bool> keep, double temperature = 1.0) {
  std::vector<double> out(kProbs.size(), 0.0);
  double sum = 0.0;
  for (size_t i = 0; i < kProbs.size(); ++i) {
    if (keep[i]) sum += out[i] = std::pow(kProbs[i], 1.0 / temperature);
  }
  for (double& p : out) p /= sum;
  return out;
}

TEST(SamplerDistribution, UnfilteredFollowsTheSoftmax) {
  EXPECT_THAT(frequencies(unfiltered()),
              Pointwise(DoubleNear(kTolerance), expected({true, true, true, true, true})));
}

TEST(SamplerDistribution, LowTemperatureSharpens) {
  SamplingParams params = unfiltered();
  params.temperature = 0.5f;  // p^2 renormalised: 0.4 -> 0.561
  EXPECT_THAT(frequencies(params),
              Pointwise(DoubleNear(kTolerance), expected({true, true, true, true, true}, 0.5)));
}

TEST(SamplerDistribution, HighTemperatureFlattens) {
  SamplingParams params = unfiltered();
  params.temperature = 2.0f;  // sqrt(p) renormalised: 0.05 -> 0.116
  EXPECT_THAT(frequencies(params),
              Pointwise(DoubleNear(kTolerance), expected({true, true, true, true, true}, 2.0)));
}

TEST(SamplerDistribution, TopKKeepsOnlyTheKMostLikely) {
  SamplingParams params = unfiltered();
  params.top_k = 2;  // tokens 2 (0.4) and 0 (0.3)
  std::vector<double> f = frequencies(params);
  EXPECT_THAT(f, Pointwise(DoubleNear(kTolerance), expected({true, false, true, false, false})));
  EXPECT_EQ(f[1] + f[3] + f[4], 0.0);
}

TEST(SamplerDistribution, TopPKeepsTheSmallestSufficientPrefix) {
  SamplingParams params = unfiltered();
  params.top_p = 0.8f;  // 0.4 + 0.3 + 0.15 = 0.85 >= 0.8: tokens 2, 0, 4
  std::vector<double> f = frequencies(params);
  EXPECT_THAT(f, Pointwise(DoubleNear(kTolerance), expected({true, false, true, false, true})));
  EXPECT_EQ(f[1] + f[3], 0.0);
}

TEST(SamplerDistribution, MinPDropsTokensBelowTheFractionOfTheBest) {
  SamplingParams params = unfiltered();
  params.min_p = 0.2f;  // threshold 0.2 * 0.4 = 0.08: only token 3 (0.05) goes
  std::vector<double> f = frequencies(params);
  EXPECT_THAT(f, Pointwise(DoubleNear(kTolerance), expected({true, true, true, false, true})));
  EXPECT_EQ(f[3], 0.0);
}

TEST(SamplerDistribution, FiltersApplyInChainOrder) {
  // top-k 3 keeps 2, 0, 4; temperature 2 gives them sqrt(p) / 1.5675 =
  // 0.4035, 0.3494, 0.2471; top-p 0.7 stops after 0.4035 + 0.3494; min-p 0.8
  // (threshold 0.3228) keeps both. Had min-p seen the probabilities before the
  // temperature (0.3 / 0.4 = 0.75 < 0.8), token 0 would be gone.
  SamplingParams params = unfiltered();
  params.top_k = 3;
  params.temperature = 2.0f;
  params.top_p = 0.7f;
  params.min_p = 0.8f;
  std::vector<double> f = frequencies(params);
  EXPECT_THAT(f,
              Pointwise(DoubleNear(kTolerance), expected({true, false, true, false, false}, 2.0)));
  EXPECT_EQ(f[1] + f[3] + f[4], 0.0);
}

TEST(SamplerDistribution, RepetitionPenaltyLowersARecentToken) {
  // Penalty 2 on token 2: its logit log(0.4) < 0 is doubled, so p ~ 0.4^2 = 0.16.
  Sampler sampler([] {
    SamplingParams p = unfiltered();
    p.repetition_penalty = 2.0f;
    return p;
  }());
  std::vector<float> logits = log_probs();
  std::vector<int32_t> previous = {2, 2};
  std::vector<double> f(kProbs.size(), 0.0);
  for (int i = 0; i < kDraws; ++i) f[static_cast<size_t>(sampler.sample(logits, previous))] += 1;
  for (double& c : f) c /= kDraws;
  std::vector<double> want = {0.3, 0.1, 0.16, 0.05, 0.15};
  for (double& p : want) p /= 0.76;
  EXPECT_THAT(f, Pointwise(DoubleNear(kTolerance), want));
}

}  // namespace
}  // namespace tessera
