#include "core/sampling/candidate_filters.h"

#include <algorithm>
#include <cmath>

namespace tessera {

namespace {

bool higher_logit(const TokenCandidate& a, const TokenCandidate& b) {
  return a.logit != b.logit ? a.logit > b.logit : a.id < b.id;
}

bool higher_p(const TokenCandidate& a, const TokenCandidate& b) {
  return a.p != b.p ? a.p > b.p : a.id < b.id;
}

}  // namespace

void keep_top_k(std::vector<TokenCandidate>& candidates, int32_t k) {
  if (k <= 0 || static_cast<size_t>(k) >= candidates.size()) return;
  // O(n log k): the vocabulary is large (32000+), k small (40 by default).
  std::partial_sort(candidates.begin(), candidates.begin() + k, candidates.end(), higher_logit);
  candidates.resize(static_cast<size_t>(k));
}

void softmax_with_temperature(std::vector<TokenCandidate>& candidates, float temperature) {
  float max_logit = -INFINITY;
  for (const TokenCandidate& c : candidates) max_logit = std::max(max_logit, c.logit);
  // Shifting by the maximum keeps exp() in range; the largest term is exactly 1.
  double sum = 0.0;
  for (TokenCandidate& c : candidates) {
    c.p = std::exp((c.logit - max_logit) / temperature);
    sum += c.p;
  }
  for (TokenCandidate& c : candidates) c.p = static_cast<float>(c.p / sum);
}

void keep_top_p(std::vector<TokenCandidate>& candidates, float top_p) {
  if (top_p >= 1.0f || candidates.empty()) return;
  // After top-k the candidates are usually sorted already; only then is this O(n).
  if (!std::is_sorted(candidates.begin(), candidates.end(), higher_p)) {
    std::sort(candidates.begin(), candidates.end(), higher_p);
  }
  double cumulative = 0.0;
  size_t keep = candidates.size();
  for (size_t i = 0; i < candidates.size(); ++i) {
    cumulative += candidates[i].p;
    if (cumulative >= top_p) {
      keep = i + 1;
      break;
    }
  }
  candidates.resize(keep);
}

void keep_min_p(std::vector<TokenCandidate>& candidates, float min_p) {
  if (min_p <= 0.0f || candidates.empty()) return;
  float max_p = 0.0f;
  for (const TokenCandidate& c : candidates) max_p = std::max(max_p, c.p);
  float threshold = min_p * max_p;
  std::erase_if(candidates, [threshold](const TokenCandidate& c) { return c.p < threshold; });
}

void renormalize(std::vector<TokenCandidate>& candidates) {
  double sum = 0.0;
  for (const TokenCandidate& c : candidates) sum += c.p;
  for (TokenCandidate& c : candidates) c.p = static_cast<float>(c.p / sum);
}

}  // namespace tessera
