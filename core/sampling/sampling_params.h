// How the next token is chosen from the logits: the knobs of the sampling chain,
// with their defaults and the values that turn each step off.
#pragma once

#include <cstdint>

namespace tessera {

// The command-line flag of each field is given in brackets; validate()'s messages
// name both.
struct SamplingParams {
  float temperature = 0.8f;         // [--temp] 0 = greedy: argmax, ties to the lowest id
  int32_t top_k = 40;               // [--top-k] keep the k most likely tokens; 0 = off
  float top_p = 0.95f;              // [--top-p] nucleus, in (0, 1]; 1 = off
  float min_p = 0.05f;              // [--min-p] drop p < min_p * p_max, in [0, 1]; 0 = off
  float repetition_penalty = 1.0f;  // [--repeat-penalty] > 0; 1 = off
  int32_t repeat_last_n = 64;       // [--repeat-last-n] window of previous tokens; 0 = off
  // OpenAI's penalties, over the tokens generated so far (not the prompt), in [-2, 2]:
  // logit -= count * frequency_penalty + (count > 0) * presence_penalty.
  float presence_penalty = 0.0f;    // [--presence-penalty] 0 = off
  float frequency_penalty = 0.0f;   // [--frequency-penalty] 0 = off
  uint64_t seed = 0;                // [--seed] 0 = a random seed from std::random_device

  // Throws tessera::Error for values that are not meaningful (negative
  // temperature, top_p outside (0, 1], NaN, ...) naming the field and its flag.
  void validate() const;
};

}  // namespace tessera
