#include "core/sampling/repetition_penalty.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace tessera {

void apply_repetition_penalty(std::span<float> logits, std::span<const int32_t> previous,
                              float penalty, int32_t last_n) {
  if (penalty == 1.0f || last_n <= 0 || previous.empty()) return;
  size_t window = std::min(previous.size(), static_cast<size_t>(last_n));
  std::span<const int32_t> recent = previous.last(window);

  // The window is short (64 by default): sorting a copy beats a vocab-sized mask.
  std::vector<int32_t> distinct(recent.begin(), recent.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());

  // Checked before any change, so that a bad token leaves the logits untouched.
  for (int32_t token : {distinct.front(), distinct.back()}) {
    if (token < 0 || static_cast<size_t>(token) >= logits.size()) {
      throw Error("repetition penalty: previous token " + std::to_string(token) +
                  " is outside the vocabulary of " + std::to_string(logits.size()) +
                  " tokens");
    }
  }
  for (int32_t token : distinct) {
    float& logit = logits[static_cast<size_t>(token)];
    logit = logit > 0.0f ? logit / penalty : logit * penalty;
  }
}

}  // namespace tessera
