// MATMUL for the block formats (q8_0, q4_0 ... q6_k, iq4_nl, iq4_xs), optimised:
// decode quantises each row of x once to int8 blocks of 32 and sums int8 products of
// whole blocks, scaling per block (or per 16-element sub-block); prefill turns weight
// rows into f32 panels for the f32 tiles of matmul_fast. Portable builds fall back to
// the reference dequantisation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/thread_pool.h"

namespace tessera::cpu {

// Whether matmul_quant_decode handles w's dtype.
bool is_block_format(tsr_dtype dtype);

// out = x w^T for a block-format w and few rows of x (a.n <= 4), rows of w split across
// the pool's threads.
void matmul_quant_decode(ThreadPool& pool, const MatmulArgs& a);

// One weight row of a block format (K elements) to f32.
void block_row_to_f32(tsr_dtype dtype, const std::byte* row, int64_t K, float* dst);

}  // namespace tessera::cpu
