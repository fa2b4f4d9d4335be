// ATTENTION over the paged KV cache: q [T, n_heads * head_dim] f32; k_cache, v_cache
// [n_blocks, block_size, n_kv_heads * head_dim] (f32, f16 or q8_0: the key dtype; a q8_0
// row is kv_width / 32 blocks, dequantised while scoring); pos, seq
// i32 [T]; block_tables i32 [n_seqs, max_blocks_per_seq]; out [T, n_heads * head_dim].
#pragma once

#include <cstdint>

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

struct AttentionArgs {
  TensorView q, k_cache, v_cache, pos, seq, block_tables, out;
  tsr_attention_params p{};
  int64_t n_tokens = 0;
  int64_t q_width = 0;   // n_heads * head_dim
  int64_t kv_width = 0;  // n_kv_heads * head_dim
  int group = 1;         // query heads per KV head: query head h reads KV head h / group

  // The first position token t attends to: 0, or pos - window + 1 with a window.
  int64_t first_key(int64_t t) const;
  // The cache row holding position `position` of token t's sequence:
  // block_tables[seq][position / block_size] * block_size + position % block_size.
  int64_t cache_row(int64_t t, int64_t position) const;
};

// Validates shapes, dtypes and params, and every block-table entry a token will read.
AttentionArgs check_attention(const tsr_op_call& call);

// The ALiBi slope of query head `head` (0 without ALiBi): with n2 the largest power of
// two <= n_heads and b = alibi_max_bias, 2^(-b (head + 1) / n2) for head < n2, else
// 2^(-b (2 (head - n2) + 1) / (2 n2)).
double alibi_slope(const tsr_attention_params& p, int head);

// Reference: for each token and head, scores s_p = scale * q.k_p, softcapped
// (c * tanh(s / c)), plus the ALiBi bias slope(head) * (p - pos), over positions
// first_key..pos; a two-pass softmax in double, and out = sum_p softmax_p * v_p.
// The oracle.
void attention_ref(CpuDevice& device, const tsr_op_call& call);

// Optimised, multithreaded over (token, KV head): every query head of a GQA group reads
// each K/V row once; keys in chunks with an online softmax. The same scores as the
// reference (softcap, then ALiBi), in f32. out may be q.
void attention_fast(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
