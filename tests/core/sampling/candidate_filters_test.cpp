// The candidate filters one by one: which tokens survive, in which order, with
// which probabilities.
#include "core/sampling/candidate_filters.h"

#include <cmath>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::DoubleNear;

std::vector<TokenCandidate> from_logits(const std::vector<float>& logits) {
  std::vector<TokenCandidate> c;
  for (size_t id = 0; id < logits.size(); ++id) c.push_back({static_cast<int32_t>(id), logits[id]});
  return c;
}

std::vector<TokenCandidate> from_probs(const std::vector<float>& probs) {
  std::vector<TokenCandidate> c;
  for (size_t id = 0; id < probs.size(); ++id) {
    c.push_back({static_cast<int32_t>(id), std::log(probs[id]), probs[id]});
  }
  return c;
}

std::vector<int32_t> ids(const std::vector<TokenCandidate>& c) {
  std::vector<int32_t> out;
  for (const TokenCandidate& t : c) out.push_back(t.id);
  return out;
}

std::vector<double> probs(const std::vector<TokenCandidate>& c) {
  std::vector<double> out;
  for (const TokenCandidate& t : c) out.push_back(t.p);
  return out;
}

TEST(TopK, KeepsTheKHighestLogitsSorted) {
  std::vector<TokenCandidate> c = from_logits({0.5f, 2.0f, -1.0f, 3.0f, 1.0f});
  keep_top_k(c, 3);
  EXPECT_THAT(ids(c), ElementsAre(3, 1, 4));
}

TEST(TopK, BreaksTiesTowardsTheLowerId) {
  std::vector<TokenCandidate> c = from_logits({1.0f, 2.0f, 2.0f, 2.0f});
  keep_top_k(c, 2);
  EXPECT_THAT(ids(c), ElementsAre(1, 2));
}

TEST(TopK, ZeroOrAtLeastTheSizeKeepsEverythingInOrder) {
  std::vector<TokenCandidate> c = from_logits({0.5f, 2.0f, -1.0f});
  keep_top_k(c, 0);
  EXPECT_THAT(ids(c), ElementsAre(0, 1, 2));
  keep_top_k(c, 3);
  EXPECT_THAT(ids(c), ElementsAre(0, 1, 2));
}

TEST(SoftmaxWithTemperature, MatchesTheClosedForm) {
  std::vector<TokenCandidate> c = from_logits({1.0f, 2.0f, 0.0f});
  softmax_with_temperature(c, 0.5f);
  // exp(logit / 0.5) normalised: e^2, e^4, e^0.
  double sum = std::exp(2.0) + std::exp(4.0) + 1.0;
  EXPECT_THAT(probs(c), ElementsAre(DoubleNear(std::exp(2.0) / sum, 1e-6),
                                    DoubleNear(std::exp(4.0) / sum, 1e-6),
                                    DoubleNear(1.0 / sum, 1e-6)));
}

TEST(SoftmaxWithTemperature, NegativeInfinityGetsZero) {
  std::vector<TokenCandidate> c = from_logits({1.0f, -INFINITY});
  softmax_with_temperature(c, 1.0f);
  EXPECT_THAT(probs(c), ElementsAre(1.0, 0.0));
}

TEST(TopP, KeepsTheSmallestPrefixReachingP) {
  // Sorted: 0.4 (id 2), 0.3 (id 0), 0.15 (id 4), 0.1, 0.05: 0.4 + 0.3 + 0.15 >= 0.8.
  std::vector<TokenCandidate> c = from_probs({0.3f, 0.1f, 0.4f, 0.05f, 0.15f});
  keep_top_p(c, 0.8f);
  EXPECT_THAT(ids(c), ElementsAre(2, 0, 4));
}

TEST(TopP, KeepsAtLeastOneToken) {
  std::vector<TokenCandidate> c = from_probs({0.3f, 0.7f});
  keep_top_p(c, 0.01f);
  EXPECT_THAT(ids(c), ElementsAre(1));
}

TEST(TopP, OneKeepsEverything) {
  std::vector<TokenCandidate> c = from_probs({0.3f, 0.1f, 0.6f});
  keep_top_p(c, 1.0f);
  EXPECT_THAT(ids(c), ElementsAre(0, 1, 2));
}

TEST(MinP, DropsTokensBelowTheFractionOfTheMaximum) {
  // Threshold 0.25 * 0.4 = 0.1: 0.1 stays (not below), 0.05 goes.
  std::vector<TokenCandidate> c = from_probs({0.3f, 0.1f, 0.4f, 0.05f, 0.15f});
  keep_min_p(c, 0.25f);
  EXPECT_THAT(ids(c), ElementsAre(0, 1, 2, 4));
}

TEST(Renormalize, ScalesToSumOne) {
  std::vector<TokenCandidate> c = from_probs({0.3f, 0.1f});
  renormalize(c);
  EXPECT_THAT(probs(c), ElementsAre(DoubleNear(0.75, 1e-7), DoubleNear(0.25, 1e-7)));
}

}  // namespace
}  // namespace tessera
