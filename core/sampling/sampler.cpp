#include "core/sampling/sampler.h"

#include <cmath>
#include <string>

#include "core/sampling/presence_penalty.h"
#include "core/sampling/repetition_penalty.h"
#include "core/util/error.h"

namespace tessera {

namespace {

uint64_t seed_or_random(uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

// Uniform in [0, 1) from the top 53 bits: the same on every platform.
double uniform_01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

void check_logits(std::span<const float> logits) {
  if (logits.empty()) throw Error("sampler: empty logits (vocabulary of 0 tokens)");
  bool any_finite = false;
  for (size_t id = 0; id < logits.size(); ++id) {
    float logit = logits[id];
    if (std::isnan(logit) || logit == INFINITY) {
      throw Error("sampler: logit of token " + std::to_string(id) + " is " +
                  (std::isnan(logit) ? "NaN" : "+inf") +
                  " (verify mode names the op where a non-finite value first appears, a check of the weights "
                  "the tensor holding one)");
    }
    any_finite = any_finite || logit != -INFINITY;
  }
  if (!any_finite) {
    throw Error("sampler: all " + std::to_string(logits.size()) +
                " logits are -inf, no token can be chosen");
  }
}

// Highest logit, ties to the lowest id.
int32_t argmax(std::span<const float> logits) {
  size_t best = 0;
  for (size_t id = 1; id < logits.size(); ++id) {
    if (logits[id] > logits[best]) best = id;
  }
  return static_cast<int32_t>(best);
}

}  // namespace

Sampler::Sampler(SamplingParams params)
    : params_(params), seed_(seed_or_random(params.seed)), rng_(seed_) {
  params_.validate();
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> previous_tokens) {
  check_logits(logits);
  const bool repetition = params_.repetition_penalty != 1.0f && params_.repeat_last_n > 0;
  const bool occurrence = params_.presence_penalty != 0.0f || params_.frequency_penalty != 0.0f;
  if (repetition || occurrence) {
    penalized_.assign(logits.begin(), logits.end());
    if (repetition) {
      apply_repetition_penalty(penalized_, previous_tokens, params_.repetition_penalty, params_.repeat_last_n);
    }
    apply_presence_frequency_penalty(penalized_, generated_, params_.presence_penalty, params_.frequency_penalty);
    logits = penalized_;
  }
  const int32_t token = choose(logits);
  if (occurrence) generated_.push_back(token);
  return token;
}

int32_t Sampler::choose(std::span<const float> logits) {
  if (params_.temperature == 0.0f) return argmax(logits);

  candidates_.resize(logits.size());
  for (size_t id = 0; id < logits.size(); ++id) {
    candidates_[id] = TokenCandidate{static_cast<int32_t>(id), logits[id], 0.0f};
  }
  keep_top_k(candidates_, params_.top_k);
  softmax_with_temperature(candidates_, params_.temperature);
  keep_top_p(candidates_, params_.top_p);
  keep_min_p(candidates_, params_.min_p);
  renormalize(candidates_);
  return draw(candidates_);
}

int32_t Sampler::draw(const std::vector<TokenCandidate>& candidates) {
  double u = uniform_01(rng_);
  double cumulative = 0.0;
  int32_t last_possible = candidates.front().id;
  for (const TokenCandidate& c : candidates) {
    if (c.p <= 0.0f) continue;
    cumulative += c.p;
    last_possible = c.id;
    if (u < cumulative) return c.id;
  }
  // Rounding can leave the sum a hair below 1: the last possible token takes the rest.
  return last_possible;
}

}  // namespace tessera
