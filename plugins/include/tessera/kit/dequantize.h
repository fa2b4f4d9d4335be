// The reference conversion of every dtype to f32: the value formulas of plugin_abi.h in
// plain loops, equal bit for bit to gguf-py's (numpy's) dequantization: each product
// and sum rounded to f32 in the order the formula states, never fused. Kernels that
// dequantise on the fly are tested against it.
#pragma once

#include <cstdint>

#include <tessera/plugin_abi.h>

namespace tessera::kit {

// Converts `n` elements of dtype `t` at `src` to f32 at `dst`; n must be a whole number
// of blocks. Throws KernelError for I32, an unknown dtype or a partial block.
void dequantize_row(tsr_dtype t, const void* src, float* dst, int64_t n);

// One block of a block format (dtype_traits(t).block_elems values) to `dst`.
void dequantize_block(tsr_dtype t, const void* block, float* dst);

}  // namespace tessera::kit
