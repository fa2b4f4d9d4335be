// The presence and frequency penalties (OpenAI's): make the tokens already generated
// less likely, once for being there and again for each time they were.
#pragma once

#include <cstdint>
#include <span>

namespace tessera {

// logits: [n_vocab], changed in place. For each distinct token j among `generated`
// (the tokens sampled so far, not the prompt), seen c_j times:
//   logit_j -= c_j * frequency + presence
// Both 0: no change. Throws tessera::Error for a generated token outside [0, n_vocab)
// (before changing anything).
void apply_presence_frequency_penalty(std::span<float> logits, std::span<const int32_t> generated, float presence,
                                      float frequency);

}  // namespace tessera
