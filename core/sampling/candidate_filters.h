// The steps of the sampling chain that narrow the candidate tokens: top-k,
// softmax with temperature, top-p (nucleus), min-p, and renormalisation.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera {

struct TokenCandidate {
  int32_t id = 0;
  float logit = 0.0f;
  float p = 0.0f;  // filled by softmax_with_temperature
};

// Keeps the k candidates with the highest logits (ties: lower id first), sorted
// by logit, highest first. k <= 0 or k >= size: no change, order kept.
void keep_top_k(std::vector<TokenCandidate>& candidates, int32_t k);

// p = softmax(logit / temperature) over the candidates; temperature > 0, at least
// one finite logit. Order kept.
void softmax_with_temperature(std::vector<TokenCandidate>& candidates, float temperature);

// Keeps the smallest set of most likely candidates whose probabilities sum to at
// least top_p (at least one), sorted by p, highest first (ties: lower id first).
// Needs p; does not renormalise. top_p >= 1: no change.
void keep_top_p(std::vector<TokenCandidate>& candidates, float top_p);

// Drops candidates with p < min_p * (largest p). Needs p; order kept; does not
// renormalise. min_p <= 0: no change.
void keep_min_p(std::vector<TokenCandidate>& candidates, float min_p);

// Rescales p so that it sums to 1.
void renormalize(std::vector<TokenCandidate>& candidates);

}  // namespace tessera
