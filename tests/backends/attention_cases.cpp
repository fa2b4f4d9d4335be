// The shared ATTENTION test inputs (see attention_cases.h).
#include "backends/attention_cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "backends/cpu/ops/attention.h"

namespace tessera::gpu_test {

using cpu::test::random_values;

AttentionInputs make_inputs(const AttentionCase& c) {
  const int32_t n_seqs = static_cast<int32_t>(c.seq_lens.size());
  int32_t max_blocks = 0, used_blocks = 0;
  for (int32_t len : c.seq_lens) {
    const int32_t blocks = (len + c.block_size - 1) / c.block_size;
    max_blocks = std::max(max_blocks, blocks);
    used_blocks += blocks;
  }
  max_blocks += 1;  // one more column than any sequence needs: left at -1
  const int32_t n_blocks = used_blocks + 2;  // and two blocks nobody uses
  std::vector<int32_t> order(static_cast<size_t>(n_blocks));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(71));
  std::vector<int32_t> tables(static_cast<size_t>(n_seqs * max_blocks), -1);
  size_t next = 0;
  std::vector<std::pair<int32_t, int32_t>> tokens;  // (seq, position)
  for (int32_t s = 0; s < n_seqs; ++s) {
    const int32_t len = c.seq_lens[static_cast<size_t>(s)];
    for (int32_t b = 0; b < (len + c.block_size - 1) / c.block_size; ++b) {
      tables[static_cast<size_t>(s * max_blocks + b)] = order[next++];
    }
    for (int32_t p = len - c.new_tokens[static_cast<size_t>(s)]; p < len; ++p) tokens.push_back({s, p});
  }
  if (!c.in_order) std::shuffle(tokens.begin(), tokens.end(), std::mt19937(72));
  std::vector<int32_t> pos, seq;
  for (const auto& [s, p] : tokens) {
    seq.push_back(s);
    pos.push_back(p);
  }
  AttentionInputs in;
  in.n_tokens = static_cast<int64_t>(tokens.size());
  const int64_t q_width = static_cast<int64_t>(c.n_heads) * c.head_dim;
  const int64_t kv_width = static_cast<int64_t>(c.n_kv_heads) * c.head_dim;
  const auto cache_values = static_cast<size_t>(int64_t{n_blocks} * c.block_size * kv_width);
  in.tensors.push_back(HostTensor::f32({in.n_tokens, q_width}, random_values(static_cast<size_t>(in.n_tokens * q_width), 73)));
  in.tensors.push_back(HostTensor::from_f32(c.dtype, {n_blocks, c.block_size, kv_width}, random_values(cache_values, 74)));
  in.tensors.push_back(HostTensor::from_f32(c.dtype, {n_blocks, c.block_size, kv_width}, random_values(cache_values, 75)));
  in.tensors.push_back(HostTensor::i32({in.n_tokens}, pos));
  in.tensors.push_back(HostTensor::i32({in.n_tokens}, seq));
  in.tensors.push_back(HostTensor::i32({n_seqs, max_blocks}, tables));
  in.params = {c.n_heads,  c.n_kv_heads, c.head_dim,       c.block_size, n_seqs,
               max_blocks, 1.0f / std::sqrt(static_cast<float>(c.head_dim)), c.window, c.softcap, c.alibi_max_bias};
  return in;
}


std::vector<const HostTensor*> pointers(const std::vector<HostTensor>& tensors) {
  std::vector<const HostTensor*> out;
  for (const HostTensor& t : tensors) out.push_back(&t);
  return out;
}

HostTensor reference_of(const AttentionInputs& in) {
  HostTensor ref(TSR_DTYPE_F32, {in.n_tokens, int64_t{in.params.n_heads} * in.params.head_dim});
  static cpu::CpuDevice device(1);
  EXPECT_EQ(cpu::test::run_kernel(device, cpu::attention_ref, TSR_OP_ATTENTION, &in.params, pointers(in.tensors), ref),
            TSR_OK)
      << device.last_error();
  return ref;
}

std::vector<AttentionCase> common_attention_cases() {
  return {
      AttentionCase{"first_token_mha", TSR_DTYPE_F32, 4, 4, 8, 16, {1}, {1}},
      AttentionCase{"prefill_gqa_like_stories260k", TSR_DTYPE_F32, 8, 4, 8, 16, {5}, {5}},
      AttentionCase{"decode_three_sequences_f16", TSR_DTYPE_F16, 8, 2, 64, 16, {150, 37, 1}, {1, 1, 1}},
      AttentionCase{"chunked_prefill_odd_block_and_head_dim", TSR_DTYPE_F32, 6, 3, 72, 7, {40, 23}, {9, 23}},
      AttentionCase{"window_and_softcap_mqa", TSR_DTYPE_F32, 4, 1, 16, 4, {70}, {3}, 10, 5.0f},
      AttentionCase{"long_prefill_f16", TSR_DTYPE_F16, 2, 2, 96, 16, {130}, {130}},
      AttentionCase{"head_dim_128_window_softcap_f16", TSR_DTYPE_F16, 4, 1, 128, 16, {200}, {2}, 33, 30.0f},
      AttentionCase{"alibi_prefill_12_heads", TSR_DTYPE_F32, 12, 4, 8, 16, {45, 20}, {17, 20}, 0, 0.0f, 8.0f},
      AttentionCase{"alibi_decode_6_heads_f16", TSR_DTYPE_F16, 6, 2, 40, 7, {150, 3}, {1, 1}, 0, 0.0f, 8.0f},
      AttentionCase{"alibi_window_softcap_5_heads", TSR_DTYPE_F32, 5, 1, 16, 4, {90}, {4}, 30, 5.0f, 4.0f},
      // q8_0: heads of 8 share a block's scale (stories260K); heads of 40 straddle blocks.
      AttentionCase{"prefill_gqa_heads_of_8_q8_0", TSR_DTYPE_Q8_0, 8, 4, 8, 16, {37, 5}, {37, 5}},
      AttentionCase{"decode_three_sequences_q8_0", TSR_DTYPE_Q8_0, 8, 2, 64, 16, {150, 37, 1}, {1, 1, 1}},
      AttentionCase{"chunked_prefill_heads_of_40_block_7_q8_0", TSR_DTYPE_Q8_0, 8, 4, 40, 7, {40, 23}, {9, 23}},
      AttentionCase{"window_and_softcap_mqa_q8_0", TSR_DTYPE_Q8_0, 4, 1, 96, 4, {70}, {3}, 10, 5.0f},
      AttentionCase{"alibi_window_softcap_6_heads_q8_0", TSR_DTYPE_Q8_0, 6, 2, 16, 5, {90, 12}, {4, 12}, 30, 5.0f,
                    4.0f}};
}

}  // namespace tessera::gpu_test
