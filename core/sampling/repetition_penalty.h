// The repetition penalty: makes tokens seen in the recent past less likely, the
// first step of the sampling chain.
#pragma once

#include <cstdint>
#include <span>

namespace tessera {

// logits: [n_vocab], changed in place. Every distinct token among the last
// `last_n` entries of `previous` is penalised once, however often it occurs:
// a positive logit is divided by `penalty`, a negative one multiplied by it (so
// penalty > 1 always lowers the token's probability). penalty 1 or last_n 0 = no
// change. Throws tessera::Error for a previous token outside [0, n_vocab).
void apply_repetition_penalty(std::span<float> logits, std::span<const int32_t> previous,
                              float penalty, int32_t last_n);

}  // namespace tessera
