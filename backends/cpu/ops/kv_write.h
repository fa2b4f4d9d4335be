// KV_WRITE: stores x [T, n_kv_heads * head_dim] f32 into the paged cache
// [n_blocks, block_size, n_kv_heads * head_dim] (f32, f16 or q8_0: the key dtype), row slot[t].
#pragma once

#include <cstdint>

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

// Writes cache row slot[t] (= block * block_size + offset) = x[t], converting to the
// cache dtype (f16: round to nearest even; q8_0: see quantize_kv_row_q8_0). Fails on a
// slot outside the cache, and on a q8_0 cache whose rows are not whole blocks of 32.
void kv_write_ref(CpuDevice& device, const tsr_op_call& call);

// One cache row of n f32 values (n a multiple of 32) to q8_0 blocks of 34 bytes: per
// block the scale d = max|x| / 127 is stored as f16, and q = round(x / d') with d' the
// stored scale, so every element dequantises to within d' / 2 of x.
void quantize_kv_row_q8_0(const float* x, std::byte* dst, int64_t n);

}  // namespace tessera::cpu
