// Picks the next token from a row of logits: repetition penalty, presence and
// frequency penalties, top-k, softmax with temperature, top-p, min-p, then a seeded
// draw (or argmax at temperature 0).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "core/sampling/candidate_filters.h"
#include "core/sampling/sampling_params.h"

namespace tessera {

// One Sampler per sequence: it owns the random state, so a given seed replays the
// same tokens on every platform (mt19937_64 bits turned into doubles by hand; the
// standard distributions are implementation-defined).
class Sampler {
 public:
  // Validates the params (tessera::Error on absurd values); seed 0 draws a seed
  // from std::random_device, reported by seed().
  explicit Sampler(SamplingParams params);

  // logits: [n_vocab]; previous_tokens: the sequence so far, oldest first (only
  // its tail matters, for the repetition penalty). The presence and frequency
  // penalties count the tokens this sampler returned before. Throws tessera::Error on
  // empty logits, a NaN or +inf logit, all logits -inf, or a previous token outside
  // the vocabulary.
  int32_t sample(std::span<const float> logits, std::span<const int32_t> previous_tokens);

  const SamplingParams& params() const { return params_; }
  // The seed in use: params.seed, or the one drawn when it was 0.
  uint64_t seed() const { return seed_; }

 private:
  // Argmax, or the filters and a draw, over logits already penalised.
  int32_t choose(std::span<const float> logits);
  // The draw: a candidate with probability p (p sums to 1).
  int32_t draw(const std::vector<TokenCandidate>& candidates);

  SamplingParams params_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  std::vector<int32_t> generated_;            // the tokens sample() returned, oldest first
  std::vector<float> penalized_;              // scratch: [n_vocab] logits after the penalties
  std::vector<TokenCandidate> candidates_;  // scratch: the surviving tokens
};

}  // namespace tessera
