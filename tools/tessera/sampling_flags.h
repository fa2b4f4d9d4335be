// The sampling options of the commands that generate text (generate, chat).
#pragma once

#include <cstdint>
#include <limits>

#include "core/sampling/sampling_params.h"
#include "tools/tessera/options.h"

namespace tessera::cli {

struct SamplingFlags {
  double temperature = 0.8, top_p = 0.95, min_p = 0.05, repeat_penalty = 1.0;
  double presence_penalty = 0.0, frequency_penalty = 0.0;
  int64_t top_k = 40, repeat_last_n = 64, seed = 0;

  void add_to(OptionTable& t) {
    t.number("--temp", "T", "temperature; 0 = greedy", &temperature, 0, 100)
        .integer("--top-k", "K", "keep the K most likely tokens; 0 = off", &top_k, 0, 1 << 24)
        .number("--top-p", "P", "nucleus sampling threshold; 1 = off", &top_p, 0, 1)
        .number("--min-p", "P", "drop tokens below P x the most likely one; 0 = off", &min_p, 0, 1)
        .number("--repeat-penalty", "X", "repetition penalty; 1 = off", &repeat_penalty, 0, 100)
        .integer("--repeat-last-n", "N", "tokens the penalty looks back over", &repeat_last_n, 0, 1 << 24)
        .number("--presence-penalty", "X", "subtract X from the logit of every token generated so far; 0 = off",
                &presence_penalty, -2, 2)
        .number("--frequency-penalty", "X", "subtract X times its count from the logit of every token generated "
                "so far; 0 = off", &frequency_penalty, -2, 2)
        .integer("-s, --seed", "N", "sampling seed; 0 = random (printed)", &seed, 0,
                 std::numeric_limits<int64_t>::max());
  }

  // Throws tessera::Error for values the sampler refuses.
  SamplingParams params() const {
    SamplingParams s;
    s.temperature = static_cast<float>(temperature);
    s.top_k = static_cast<int32_t>(top_k);
    s.top_p = static_cast<float>(top_p);
    s.min_p = static_cast<float>(min_p);
    s.repetition_penalty = static_cast<float>(repeat_penalty);
    s.repeat_last_n = static_cast<int32_t>(repeat_last_n);
    s.presence_penalty = static_cast<float>(presence_penalty);
    s.frequency_penalty = static_cast<float>(frequency_penalty);
    s.seed = static_cast<uint64_t>(seed);
    s.validate();
    return s;
  }
};

}  // namespace tessera::cli
