// Quantisers of the 256-element super-block formats, one super-block per call.
// Internal to the kit; quantize_row dispatches to them.
#pragma once

#include <tessera/kit/quant_blocks.h>

namespace tessera::kit {

void quantize_q2_k(const float* x, BlockQ2_K& b);
void quantize_q3_k(const float* x, BlockQ3_K& b);
void quantize_q4_k(const float* x, BlockQ4_K& b);
void quantize_q5_k(const float* x, BlockQ5_K& b);
void quantize_q6_k(const float* x, BlockQ6_K& b);
void quantize_iq4_xs(const float* x, BlockIQ4_XS& b);

}  // namespace tessera::kit
