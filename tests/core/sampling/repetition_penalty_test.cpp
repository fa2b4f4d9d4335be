// apply_repetition_penalty: exactly which logits change, and by how much.
#include "core/sampling/repetition_penalty.h"

#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatEq;
using ::testing::ThrowsMessage;

TEST(RepetitionPenalty, DividesPositiveAndMultipliesNegativeLogits) {
  std::vector<float> logits = {3.0f, -2.0f, 1.0f, 0.0f, -0.5f, 4.0f};
  std::vector<int32_t> previous = {0, 1, 3};
  apply_repetition_penalty(logits, previous, 2.0f, 64);
  EXPECT_THAT(logits, ElementsAre(FloatEq(1.5f), FloatEq(-4.0f), FloatEq(1.0f), FloatEq(0.0f),
                                  FloatEq(-0.5f), FloatEq(4.0f)));
}

TEST(RepetitionPenalty, PenalisesARepeatedTokenOnce) {
  std::vector<float> logits = {3.0f, -2.0f, 1.0f};
  std::vector<int32_t> previous = {0, 0, 1, 0, 1};
  apply_repetition_penalty(logits, previous, 2.0f, 64);
  EXPECT_THAT(logits, ElementsAre(FloatEq(1.5f), FloatEq(-4.0f), FloatEq(1.0f)));
}

TEST(RepetitionPenalty, OnlyTheLastNTokensCount) {
  std::vector<float> logits = {3.0f, 3.0f, 3.0f, 3.0f};
  std::vector<int32_t> previous = {0, 1, 2, 3, 2};  // window of 3: {2, 3, 2}
  apply_repetition_penalty(logits, previous, 1.5f, 3);
  EXPECT_THAT(logits, ElementsAre(FloatEq(3.0f), FloatEq(3.0f), FloatEq(2.0f), FloatEq(2.0f)));
}

TEST(RepetitionPenalty, PenaltyOfOneChangesNothing) {
  std::vector<float> logits = {3.0f, -2.0f};
  std::vector<int32_t> previous = {0, 1};
  apply_repetition_penalty(logits, previous, 1.0f, 64);
  EXPECT_THAT(logits, ElementsAre(3.0f, -2.0f));
}

TEST(RepetitionPenalty, WindowOfZeroChangesNothing) {
  std::vector<float> logits = {3.0f, -2.0f};
  std::vector<int32_t> previous = {0, 1};
  apply_repetition_penalty(logits, previous, 2.0f, 0);
  EXPECT_THAT(logits, ElementsAre(3.0f, -2.0f));
}

TEST(RepetitionPenalty, TokenOutsideTheVocabularyThrowsAndChangesNothing) {
  std::vector<float> logits = {3.0f, -2.0f};
  std::vector<int32_t> previous = {0, 5};
  EXPECT_THAT([&] { apply_repetition_penalty(logits, previous, 2.0f, 64); },
              ThrowsMessage<Error>(
                  "repetition penalty: previous token 5 is outside the vocabulary of 2 tokens"));
  EXPECT_THAT(logits, ElementsAre(3.0f, -2.0f));
}

}  // namespace
}  // namespace tessera
