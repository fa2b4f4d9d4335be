// MATMUL for the block formats (q8_0, q4_0 ... q6_k, iq4_nl, iq4_xs), optimised: every
// row of x is quantised once to int8 blocks (quant_activations.h) and each weight block
// is dotted with it in integers, scaled once per block (32-element formats) or per
// super-block (K formats). Weight rows are split across the pool's threads; each thread
// runs its rows against every row of x, four at a time. Portable builds fall back to the
// reference dequantisation and f32 dots.
#pragma once

#include <cstdint>

#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/thread_pool.h"

namespace tessera::cpu {

// Whether matmul_quant handles w's dtype (every block format).
bool is_block_format(tsr_dtype dtype);

// out = x w^T for a block-format w and any number of rows of x.
void matmul_quant(ThreadPool& pool, const MatmulArgs& a);

}  // namespace tessera::cpu
