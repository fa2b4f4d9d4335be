// What every ATTENTION kernel checks and derives: the call's dtypes and shapes, the
// first key a token attends to (a sliding window's start), the ALiBi slope of a query
// head, and every block-table entry a call's tokens will read (on host copies of pos,
// seq and block_tables), with the messages every backend reports.
#pragma once

#include <cmath>
#include <cstdint>

#include <tessera/plugin_abi.h>

#include <tessera/kit/host_device.h>
#include <tessera/kit/tensor_info.h>

namespace tessera::kit {

struct AttentionShape {
  int64_t n_tokens = 0;
  int64_t q_width = 0;   // n_heads * head_dim
  int64_t kv_width = 0;  // n_kv_heads * head_dim
  int group = 1;         // query heads per KV head: query head h reads KV head h / group
};

// Throws KernelError (fail("attention", ...)) unless the params pass
// check_attention_params and the tensors are q [T, q_width] f32, k_cache and v_cache
// caches of one dtype and block count ([n_blocks, block_size, kv_width]), pos and seq
// i32 [T], block_tables i32 [n_seqs, max_blocks_per_seq], out [T, q_width] f32.
AttentionShape check_attention_shapes(const tsr_attention_params& p, const TensorInfo& q, const TensorInfo& k_cache,
                                      const TensorInfo& v_cache, const TensorInfo& pos, const TensorInfo& seq,
                                      const TensorInfo& block_tables, const TensorInfo& out);

// The first key position a token at `position` attends to: 0, or position - window + 1
// with a window.
TSR_HD inline int64_t attention_first_key(int32_t window, int64_t position) {
  const int64_t first = window > 0 ? position - window + 1 : 0;
  return first > 0 ? first : 0;
}

// The ALiBi slope of query head `head` (0 without ALiBi): with n2 the largest power of
// two <= n_heads and b = max_bias, 2^(-b (head + 1) / n2) for head < n2, else
// 2^(-b (2 (head - n2) + 1) / (2 n2)). In double: a kernel evaluates it once per head.
TSR_HD inline double alibi_slope(float max_bias, int32_t n_heads, int32_t head) {
  if (max_bias == 0.0f) return 0.0;
  int n2 = 1;
  while (2 * n2 <= n_heads) n2 *= 2;
  const double b = max_bias;
  if (head < n2) return exp2(-b * (head + 1) / n2);
  return exp2(-b * (2 * (head - n2) + 1) / (2.0 * n2));
}

// Throws KernelError (fail("attention", ...)) unless each of the n_tokens tokens has a
// sequence index below p.n_seqs, a position >= 0 whose block index fits the tables, and
// table entries naming one of the cache's n_cache_blocks blocks for every key it reads.
// pos, seq: [n_tokens]; block_tables: [p.n_seqs, p.max_blocks_per_seq].
void check_attention_tokens(const tsr_attention_params& p, const int32_t* pos, const int32_t* seq,
                            const int32_t* block_tables, int64_t n_tokens, int64_t n_cache_blocks);

}  // namespace tessera::kit
