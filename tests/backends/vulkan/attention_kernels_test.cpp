// The Vulkan KV_WRITE and paged ATTENTION kernels against the CPU reference: caches in
// f32 and f16 (and q8_0 for ATTENTION; q8_0 KV_WRITE is in q8_0_kv_cache_test.cpp),
// block tables in shuffled order with unused entries set to -1, several
// sequences, prefill and decode tokens, GQA / MQA, windows and softcaps, ALiBi with head
// counts that are not powers of two, and head dimensions that do not divide the workgroup.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/kv_write.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_values;
using cpu::test::relative_error;

// ---- KV_WRITE: f32 exact; f16 within one half-precision step -------------------------

struct KvWriteCase {
  tsr_dtype dtype;
  int32_t n_blocks, block_size, n_kv_heads, head_dim, n_tokens;
};

class KvWrite : public VulkanParamTest<KvWriteCase> {};

TEST_P(KvWrite, WritesTheSlotsAndKeepsTheOtherRows) {
  const KvWriteCase c = GetParam();
  const int64_t width = static_cast<int64_t>(c.n_kv_heads) * c.head_dim;
  const int64_t rows = static_cast<int64_t>(c.n_blocks) * c.block_size;
  const HostTensor x = HostTensor::f32({c.n_tokens, width}, random_values(static_cast<size_t>(c.n_tokens * width), 61));
  std::vector<int32_t> slots(static_cast<size_t>(rows));
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), std::mt19937(62));
  slots.resize(static_cast<size_t>(c.n_tokens));
  const HostTensor slot = HostTensor::i32({c.n_tokens}, slots);
  const std::vector<float> initial = random_values(static_cast<size_t>(rows * width), 63);
  HostTensor ref = HostTensor::from_f32(c.dtype, {c.n_blocks, c.block_size, width}, initial);
  const HostTensor cache = HostTensor::from_f32(c.dtype, {c.n_blocks, c.block_size, width}, initial);
  const tsr_kv_write_params p{c.n_kv_heads, c.head_dim, c.block_size};
  run_reference(cpu::kv_write_ref, TSR_OP_KV_WRITE, &p, {&x, &slot}, ref);
  const auto got = run_on_vulkan(TSR_OP_KV_WRITE, c.dtype, &p, {&x, &slot}, cache, {36, 132, odd_offset(c.dtype, 64)});
  const double tolerance = c.dtype == TSR_DTYPE_F16 ? 1e-3 : 0.0;
  EXPECT_LE(relative_error(got, ref.to_f32()), tolerance);
}

INSTANTIATE_TEST_SUITE_P(Shapes, KvWrite,
                         ::testing::Values(KvWriteCase{TSR_DTYPE_F32, 4, 16, 4, 8, 5},
                                           KvWriteCase{TSR_DTYPE_F16, 4, 16, 4, 8, 1},
                                           KvWriteCase{TSR_DTYPE_F16, 9, 7, 3, 18, 40},
                                           KvWriteCase{TSR_DTYPE_F32, 3, 5, 1, 96, 15}),
                         [](const auto& info) {
                           const KvWriteCase& c = info.param;
                           return std::string(c.dtype == TSR_DTYPE_F16 ? "f16" : "f32") + "_blocks" +
                                  std::to_string(c.n_blocks) + "x" + std::to_string(c.block_size) + "_width" +
                                  std::to_string(c.n_kv_heads * c.head_dim) + "_t" + std::to_string(c.n_tokens);
                         });

// ---- ATTENTION: 2e-5 (float softmax and sums against double) ---------------------------
// q8_0 caches are dequantised exactly (f16 scale * int8) by both kernels, so they get the
// same bound, tighter than the 1e-4 the q8_0 kernels are specified to.

struct AttentionCase {
  std::string name;
  tsr_dtype dtype;
  int32_t n_heads, n_kv_heads, head_dim, block_size;
  std::vector<int32_t> seq_lens;    // tokens in each sequence after this step
  std::vector<int32_t> new_tokens;  // the last new_tokens[s] of them are queries
  int32_t window = 0;
  float softcap = 0.0f;
  float alibi_max_bias = 0.0f;
};

// The inputs of one ATTENTION call: caches filled at random, each sequence's blocks
// scattered through the cache, queries for the new tokens of all sequences interleaved.
struct AttentionInputs {
  std::vector<HostTensor> tensors;  // q, k_cache, v_cache, pos, seq, block_tables
  tsr_attention_params params{};
  int64_t n_tokens = 0;
};

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
  std::shuffle(tokens.begin(), tokens.end(), std::mt19937(72));
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

class Attention : public VulkanParamTest<AttentionCase> {};

TEST_P(Attention, MatchesTheReference) {
  const AttentionCase c = GetParam();
  const AttentionInputs in = make_inputs(c);
  std::vector<const HostTensor*> inputs;
  for (const HostTensor& t : in.tensors) inputs.push_back(&t);
  const int64_t q_width = static_cast<int64_t>(c.n_heads) * c.head_dim;
  HostTensor ref(TSR_DTYPE_F32, {in.n_tokens, q_width});
  run_reference(cpu::attention_ref, TSR_OP_ATTENTION, &in.params, inputs, ref);
  const auto got = run_on_vulkan(TSR_OP_ATTENTION, c.dtype, &in.params, inputs,
                                 HostTensor(TSR_DTYPE_F32, {in.n_tokens, q_width}),
                                 {36, odd_offset(c.dtype, 24), odd_offset(c.dtype, 257), 4, 68, 260, 516});
  EXPECT_LT(relative_error(got, ref.to_f32()), 2e-5);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Attention,
    ::testing::Values(
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
                      4.0f}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tessera::vulkan::test
