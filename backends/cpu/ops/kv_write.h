// KV_WRITE: stores x [T, n_kv_heads * head_dim] f32 into the paged cache
// [n_blocks, block_size, n_kv_heads * head_dim] (f32 or f16, the key dtype), row slot[t].
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

// Writes cache row slot[t] (= block * block_size + offset) = x[t], converting to the
// cache dtype (f16: round to nearest even). Fails on a slot outside the cache.
void kv_write_ref(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
