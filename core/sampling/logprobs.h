// Log-probabilities of tokens, for callers that report them (OpenAI's logprobs): the
// model's own distribution, log_softmax of the raw logits, before any penalty,
// temperature or top-k/top-p/min-p filter of the sampler.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tessera {

struct TokenLogprob {
  int32_t token = -1;
  float logprob = 0.0f;  // natural log; <= 0
};

struct TokenLogprobs {
  TokenLogprob chosen;            // the token asked about
  std::vector<TokenLogprob> top;  // the most likely tokens, highest first (ties: lower id first)
};

// logits: [n_vocab], finite or -inf, at least one finite. `token` in [0, n_vocab);
// `top_n` >= 0 (clamped to n_vocab). Throws tessera::Error otherwise.
TokenLogprobs token_logprobs(std::span<const float> logits, int32_t token, int32_t top_n);

}  // namespace tessera
