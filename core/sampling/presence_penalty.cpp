#include "core/sampling/presence_penalty.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace tessera {

void apply_presence_frequency_penalty(std::span<float> logits, std::span<const int32_t> generated, float presence,
                                      float frequency) {
  if ((presence == 0.0f && frequency == 0.0f) || generated.empty()) return;
  // Sorted, equal tokens are neighbours: each run is one token and its count.
  std::vector<int32_t> sorted(generated.begin(), generated.end());
  std::sort(sorted.begin(), sorted.end());
  for (int32_t token : {sorted.front(), sorted.back()}) {
    if (token < 0 || static_cast<size_t>(token) >= logits.size()) {
      throw Error("presence/frequency penalty: generated token " + std::to_string(token) +
                  " is outside the vocabulary of " + std::to_string(logits.size()) + " tokens");
    }
  }
  for (size_t begin = 0; begin < sorted.size();) {
    size_t end = begin;
    while (end < sorted.size() && sorted[end] == sorted[begin]) ++end;
    const auto count = static_cast<float>(end - begin);
    float& logit = logits[static_cast<size_t>(sorted[begin])];
    logit = logit - count * frequency - presence;  // in the formula's order: the same rounding
    begin = end;
  }
}

}  // namespace tessera
