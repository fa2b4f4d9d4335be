// SamplingParams::validate: defaults and off values pass, absurd values are
// rejected with the field, its flag, the rule and the value.
#include "core/sampling/sampling_params.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::ThrowsMessage;

TEST(SamplingParams, DefaultsAreValid) { EXPECT_NO_THROW(SamplingParams{}.validate()); }

TEST(SamplingParams, OffValuesAreValid) {
  SamplingParams p{.temperature = 0.0f, .top_k = 0, .top_p = 1.0f, .min_p = 0.0f,
                   .repetition_penalty = 1.0f, .repeat_last_n = 0};
  EXPECT_NO_THROW(p.validate());
}

TEST(SamplingParams, RejectsNegativeTemperature) {
  SamplingParams p{.temperature = -0.5f};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter temperature (--temp): must be "
                                   "a finite number >= 0, got -0.5"));
}

TEST(SamplingParams, RejectsNanTemperature) {
  SamplingParams p{.temperature = std::nanf("")};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter temperature (--temp): must be "
                                   "a finite number >= 0, got nan"));
}

TEST(SamplingParams, RejectsInfiniteTemperature) {
  SamplingParams p{.temperature = INFINITY};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter temperature (--temp): must be "
                                   "a finite number >= 0, got inf"));
}

TEST(SamplingParams, RejectsNegativeTopK) {
  SamplingParams p{.top_k = -1};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>(
                  "invalid sampling parameter top_k (--top-k): must be >= 0 (0 = off), got -1"));
}

TEST(SamplingParams, RejectsTopPOfZero) {
  SamplingParams p{.top_p = 0.0f};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter top_p (--top-p): must be in "
                                   "(0, 1] (1 = off), got 0"));
}

TEST(SamplingParams, RejectsTopPAboveOne) {
  SamplingParams p{.top_p = 1.5f};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter top_p (--top-p): must be in "
                                   "(0, 1] (1 = off), got 1.5"));
}

TEST(SamplingParams, RejectsNanTopP) {
  SamplingParams p{.top_p = std::nanf("")};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter top_p (--top-p): must be in "
                                   "(0, 1] (1 = off), got nan"));
}

TEST(SamplingParams, RejectsMinPOutsideZeroOne) {
  SamplingParams p{.min_p = -0.1f};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter min_p (--min-p): must be in "
                                   "[0, 1] (0 = off), got -0.1"));
}

TEST(SamplingParams, RejectsZeroRepetitionPenalty) {
  SamplingParams p{.repetition_penalty = 0.0f};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter repetition_penalty "
                                   "(--repeat-penalty): must be a finite number > 0 (1 = off), "
                                   "got 0"));
}

TEST(SamplingParams, RejectsNegativeRepeatLastN) {
  SamplingParams p{.repeat_last_n = -64};
  EXPECT_THAT([&] { p.validate(); },
              ThrowsMessage<Error>("invalid sampling parameter repeat_last_n (--repeat-last-n): "
                                   "must be >= 0 (0 = off), got -64"));
}

}  // namespace
}  // namespace tessera
