// Reference quantisers: f32 to every dtype but I32, producing the block layouts of
// <tessera/kit/quant_blocks.h>. The 32-element linear formats (q4_0, q4_1, q5_0, q5_1,
// q8_0) round as ggml's reference does; the K formats and the IQ4 ones search each
// sub-block's scale (and min) for the least squared error, quantise the sub-block
// scales, then quantise the values again with the scales as stored. No importance
// matrix: every element weighs the same.
#pragma once

#include <cstdint>

#include <tessera/plugin_abi.h>

namespace tessera::kit {

// Converts `n` f32 values at `src` to dtype `t` at `dst` (n a whole number of blocks).
// Throws KernelError for I32, an unknown dtype or a partial block.
void quantize_row(tsr_dtype t, const float* src, void* dst, int64_t n);

}  // namespace tessera::kit
