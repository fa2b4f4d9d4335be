#include "core/sampling/logprobs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/error.h"

namespace tessera {
namespace {

// log(sum(exp(logits))), shifted by the maximum so that exp() stays in range.
double log_sum_exp(std::span<const float> logits) {
  float max_logit = -INFINITY;
  for (float l : logits) max_logit = std::max(max_logit, l);
  if (!std::isfinite(max_logit)) throw Error("logprobs: no finite logit among " + std::to_string(logits.size()));
  double sum = 0.0;
  for (float l : logits) sum += std::exp(static_cast<double>(l) - max_logit);
  return max_logit + std::log(sum);
}

}  // namespace

TokenLogprobs token_logprobs(std::span<const float> logits, int32_t token, int32_t top_n) {
  const auto n_vocab = static_cast<int64_t>(logits.size());
  if (token < 0 || token >= n_vocab) {
    throw Error("logprobs: token " + std::to_string(token) + " is outside the vocabulary of " +
                std::to_string(n_vocab));
  }
  if (top_n < 0) throw Error("logprobs: the number of top tokens must be >= 0, got " + std::to_string(top_n));
  const double log_z = log_sum_exp(logits);
  auto logprob_of = [&](int32_t id) {
    return TokenLogprob{id, static_cast<float>(logits[static_cast<size_t>(id)] - log_z)};
  };
  TokenLogprobs out;
  out.chosen = logprob_of(token);
  const auto n = static_cast<size_t>(std::min<int64_t>(top_n, n_vocab));
  if (n == 0) return out;
  std::vector<int32_t> ids(logits.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  // O(V log n): the vocabulary is large, n small (OpenAI allows up to 20).
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n), ids.end(), [&](int32_t a, int32_t b) {
    const float la = logits[static_cast<size_t>(a)], lb = logits[static_cast<size_t>(b)];
    return la != lb ? la > lb : a < b;
  });
  out.top.reserve(n);
  for (size_t i = 0; i < n; ++i) out.top.push_back(logprob_of(ids[i]));
  return out;
}

}  // namespace tessera
