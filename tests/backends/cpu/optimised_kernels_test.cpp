// Differential tests: each optimised kernel against the reference on random inputs, over
// one table of op cases with odd shapes, run on 1, 2 and 3 threads.
//
// Tolerance: max |optimised - reference| <= 1e-5 x max |reference|, or equal values for
// ADD, MUL and ROPE (the same arithmetic, spread over threads and lanes). Both
// sides see the same weights (the reference converts f16 and bf16 exactly to f32, and
// these optimised kernels do not quantise activations; a q8_0 KV cache is
// dequantised alike by both attention kernels), so the only difference is f32 versus
// double accumulation and summation order (and, with ALiBi, the f32 bias; with SWIGLU,
// the vectorised exponential). bf16 prefill on AVX512-BF16 rounds x to bf16 first
// (matmul_bf16.h): there the reference is given x rounded alike, and bf16_matmul_test.cpp
// bounds what the rounding costs against the unrounded x.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <ostream>
#include <string>

#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/matmul_bf16.h"
#include "backends/cpu/ops/norm.h"
#include "backends/cpu/ops/rope.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

constexpr double kRelTol = 1e-5;

// The inputs of one call, the output shape and the params.
struct Inputs {
  std::vector<HostTensor> tensors;
  std::vector<int64_t> out_shape;
  tsr_attention_params attention{};  // used by attention cases
  tsr_norm_params norm{};            // rms_norm cases
  tsr_rope_params rope{};            // rope cases

  const void* params(tsr_op op) const {
    switch (op) {
      case TSR_OP_ATTENTION: return &attention;
      case TSR_OP_RMS_NORM: return &norm;
      case TSR_OP_ROPE: return &rope;
      default: return nullptr;
    }
  }
};

struct OpCase {
  std::string name;
  tsr_op op;
  KernelBody reference;
  KernelBody optimised;
  std::function<Inputs()> make;
  double tolerance = kRelTol;  // 0 where the optimised kernel must give the same bits
  bool bf16_prefill = false;   // bf16 weights, more rows of x than decode takes
};

// x rounded to bf16, as the AVX512-BF16 prefill rounds it.
HostTensor rounded_to_bf16(const HostTensor& x) {
  const std::vector<int64_t> shape(x.desc().shape, x.desc().shape + x.desc().ndim);
  return HostTensor::f32(shape, HostTensor::from_f32(TSR_DTYPE_BF16, shape, x.to_f32()).to_f32());
}

// x [n, k] f32 and w [m, k] in `dtype`, random.
Inputs matmul_inputs(tsr_dtype dtype, int64_t n, int64_t m, int64_t k) {
  Inputs in;
  in.tensors.push_back(HostTensor::f32({n, k}, random_values(n * k, 11)));
  in.tensors.push_back(HostTensor::from_f32(dtype, {m, k}, random_values(m * k, 12)));
  in.out_shape = {n, m};
  return in;
}

// A paged attention problem: `n_seqs` sequences of `seq_len` keys each, the last
// `new_tokens` of every sequence being queried; blocks handed out in a shuffled order so
// no table is contiguous.
struct AttentionShape {
  int n_heads, n_kv_heads, head_dim, block_size, n_seqs, seq_len, new_tokens;
  int window = 0;
  float softcap = 0.0f;
  float alibi_max_bias = 0.0f;
};

Inputs attention_inputs(tsr_dtype cache_dtype, const AttentionShape& s) {
  const int blocks_per_seq = (s.seq_len + s.block_size - 1) / s.block_size;
  const int n_blocks = s.n_seqs * blocks_per_seq + 1;  // one block nobody uses
  std::vector<int32_t> block_ids(static_cast<size_t>(n_blocks));
  std::iota(block_ids.begin(), block_ids.end(), 0);
  std::shuffle(block_ids.begin(), block_ids.end(), std::mt19937(7));
  std::vector<int32_t> tables(block_ids.begin(), block_ids.begin() + s.n_seqs * blocks_per_seq);

  std::vector<int32_t> pos, seq;
  for (int q = 0; q < s.n_seqs; ++q) {
    for (int p = s.seq_len - s.new_tokens; p < s.seq_len; ++p) {
      pos.push_back(p);
      seq.push_back(q);
    }
  }
  const int64_t n_tokens = static_cast<int64_t>(pos.size());
  const int64_t q_width = int64_t{s.n_heads} * s.head_dim;
  const int64_t kv_width = int64_t{s.n_kv_heads} * s.head_dim;
  const int64_t cache_elems = int64_t{n_blocks} * s.block_size * kv_width;

  Inputs in;
  in.tensors.push_back(HostTensor::f32({n_tokens, q_width}, random_values(n_tokens * q_width, 21)));
  in.tensors.push_back(HostTensor::from_f32(cache_dtype, {n_blocks, s.block_size, kv_width},
                                            random_values(cache_elems, 22)));
  in.tensors.push_back(HostTensor::from_f32(cache_dtype, {n_blocks, s.block_size, kv_width},
                                            random_values(cache_elems, 23)));
  in.tensors.push_back(HostTensor::i32({n_tokens}, pos));
  in.tensors.push_back(HostTensor::i32({n_tokens}, seq));
  in.tensors.push_back(HostTensor::i32({s.n_seqs, blocks_per_seq}, tables));
  in.out_shape = {n_tokens, q_width};
  auto& p = in.attention;
  p.n_heads = s.n_heads;
  p.n_kv_heads = s.n_kv_heads;
  p.head_dim = s.head_dim;
  p.block_size = s.block_size;
  p.n_seqs = s.n_seqs;
  p.max_blocks_per_seq = blocks_per_seq;
  p.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  p.window = s.window;
  p.softcap = s.softcap;
  p.alibi_max_bias = s.alibi_max_bias;
  return in;
}

// x [n, c] and w [group or c] for RMS_NORM (c with per_group: a gain per group).
Inputs rms_norm_inputs(int64_t n, int64_t c, int32_t group, bool plus_one, bool per_group = false) {
  Inputs in;
  in.tensors.push_back(HostTensor::f32({n, c}, random_values(n * c, 31, -4.0f, 4.0f)));
  const int64_t w_len = group > 0 && !per_group ? group : c;
  in.tensors.push_back(HostTensor::f32({w_len}, random_values(w_len, 32)));
  in.out_shape = {n, c};
  in.norm = norm_params(1e-6f, plus_one, group);
  return in;
}

// a [n, c] and b [n, c] or [c]; for SWIGLU gate and up, with gates far into both tails.
Inputs binary_inputs(int64_t n, int64_t c, bool broadcast, float range) {
  Inputs in;
  in.tensors.push_back(HostTensor::f32({n, c}, random_values(n * c, 41, -range, range)));
  const int64_t b_rows = broadcast ? 1 : n;
  in.tensors.push_back(broadcast ? HostTensor::f32({c}, random_values(c, 42))
                                 : HostTensor::f32({b_rows, c}, random_values(b_rows * c, 42)));
  in.out_shape = {n, c};
  return in;
}

// x [n, heads * head_dim] at scattered positions, with the given pairing and scaling.
Inputs rope_inputs(int64_t n, int heads, int head_dim, int n_rot, tsr_rope_pairing pairing, float ext_factor) {
  Inputs in;
  const int64_t width = int64_t{heads} * head_dim;
  in.tensors.push_back(HostTensor::f32({n, width}, random_values(n * width, 51)));
  std::vector<int32_t> pos;
  for (int64_t t = 0; t < n; ++t) pos.push_back(static_cast<int32_t>((t * 7919) % 5000));
  in.tensors.push_back(HostTensor::i32({n}, pos));
  in.out_shape = {n, width};
  in.rope = rope_params(10000.0f, ext_factor > 0.0f ? 0.25f : 1.0f, heads, head_dim, n_rot, pairing);
  if (ext_factor > 0.0f) in.rope = yarn_params(in.rope, ext_factor, 1.0f, 32.0f, 1.0f, 4096);
  return in;
}

std::vector<OpCase> op_cases() {
  std::vector<OpCase> cases;
  // (n, m, k): rows of x, rows of w, inner dimension; k is not a multiple of 8, but in the
  // last two: there bf16 prefill on AMX tiles reads whole panels of weight rows in place
  // (bf16_amx.h), with a tail panel and a last sixteen rows of x of 5, resp. 16.
  const int64_t shapes[][3] = {{1, 1, 13},  {1, 7, 67},    {1, 33, 300},  {1, 100, 67},
                               {2, 33, 67}, {3, 7, 300},   {4, 100, 13},  {5, 33, 67},
                               {7, 33, 13}, {33, 100, 67}, {100, 7, 300}, {100, 33, 13},
                               {37, 70, 96}, {16, 64, 64}};
  // The block formats (q8_0 included) quantise x, with their own bound: quant_matmul_test.cpp.
  const std::pair<tsr_dtype, const char*> dtypes[] = {
      {TSR_DTYPE_F32, "f32"}, {TSR_DTYPE_F16, "f16"}, {TSR_DTYPE_BF16, "bf16"}};
  for (const auto& dtype_label : dtypes) {
    const tsr_dtype dtype = dtype_label.first;  // named copies: lambdas capture them
    const char* label = dtype_label.second;
    for (const auto& s : shapes) {
      const int64_t k = s[2];
      cases.push_back({"matmul_" + std::string(label) + "_n" + std::to_string(s[0]) + "_m" +
                           std::to_string(s[1]) + "_k" + std::to_string(k),
                       TSR_OP_MATMUL, matmul_ref, matmul_fast,
                       [=] { return matmul_inputs(dtype, s[0], s[1], k); }, kRelTol,
                       dtype == TSR_DTYPE_BF16 && s[0] > 4});
    }
  }
  const std::pair<const char*, AttentionShape> attention_shapes[] = {
      {"decode_mha", {4, 4, 16, 16, 1, 38, 1}},
      {"decode_long", {2, 2, 64, 16, 1, 200, 1}},
      {"decode_gqa_2seqs", {8, 2, 20, 4, 2, 23, 1}},
      {"prefill_gqa", {8, 2, 20, 4, 2, 33, 17}},
      {"prefill_100", {4, 2, 8, 16, 1, 100, 100}},
      // Prefill tiles: runs of 16 tokens, key chunks of 64, a window across both.
      {"prefill_tiles_window", {6, 2, 64, 16, 2, 300, 150, 70}},
      {"prefill_tiles_softcap_alibi", {8, 1, 32, 16, 1, 200, 130, 0, 30.0f, 8.0f}},
      // Rows that are not whole vectors (12 tokens x 5 heads; 2 x 24), head_dim 80 and 40.
      {"prefill_tiles_group5_hd80", {10, 2, 80, 16, 1, 150, 100}},
      {"prefill_tiles_group24_window", {24, 1, 40, 8, 1, 90, 41, 30}},
      {"mqa_window_softcap", {6, 1, 32, 8, 1, 70, 7, 5, 30.0f}},
      {"odd_head_dim", {3, 3, 5, 3, 3, 10, 4}},
      // Few (token, KV head) pairs and long contexts: the split-KV path.
      {"split_kv_mqa", {4, 1, 32, 16, 1, 700, 1}},
      {"split_kv_window", {4, 2, 16, 8, 1, 600, 1, 300}},
      {"split_kv_two_seqs", {2, 1, 16, 16, 2, 520, 1, 0, 20.0f}},
      // (token, KV head) pairs that do not divide among 2 threads: split to balance.
      {"split_kv_balance_3_kv_heads", {9, 3, 64, 16, 1, 140, 1}},
      {"split_kv_balance_5_seqs", {4, 1, 16, 16, 5, 90, 1}},
      // Heads that share a q8_0 block (head_dim 8, as stories260K) or straddle two (48).
      {"heads_share_blocks", {8, 4, 8, 16, 2, 45, 3}},
      {"heads_straddle_blocks", {4, 2, 48, 8, 1, 60, 9}},
      {"split_kv_heads_share_blocks", {8, 4, 8, 16, 1, 900, 1}},
      // ALiBi, with head counts that are not powers of two (slopes of both kinds).
      {"alibi_prefill_gqa", {12, 4, 8, 16, 2, 45, 17, 0, 0.0f, 8.0f}},
      {"alibi_decode_window_softcap", {6, 2, 16, 8, 3, 70, 1, 20, 30.0f, 8.0f}},
      {"split_kv_alibi_mqa", {5, 1, 32, 16, 1, 700, 1, 0, 0.0f, 8.0f}},
  };
  const std::pair<tsr_dtype, const char*> cache_dtypes[] = {
      {TSR_DTYPE_F32, "f32_"}, {TSR_DTYPE_F16, "f16_"}, {TSR_DTYPE_Q8_0, "q8_0_"}};
  for (const auto& named : attention_shapes) {
    const char* label = named.first;
    const AttentionShape shape = named.second;
    for (const auto& [dtype, prefix] : cache_dtypes) {
      // q8_0 cache rows are whole blocks of 32; the other shapes are covered by f32/f16.
      if (dtype == TSR_DTYPE_Q8_0 && shape.n_kv_heads * shape.head_dim % 32 != 0) continue;
      const tsr_dtype cache_dtype = dtype;  // a named copy: the lambda captures it
      cases.push_back({std::string("attention_") + prefix + label, TSR_OP_ATTENTION, attention_ref,
                       attention_fast, [=] { return attention_inputs(cache_dtype, shape); }});
    }
  }
  // Element-wise and norm kernels, from one row (decode, on the calling thread) to sizes
  // that go over the threads; widths that are not multiples of 8.
  const int64_t rows_cols[][2] = {{1, 13}, {1, 576}, {3, 67}, {37, 300}, {200, 576}};
  for (const auto& rc : rows_cols) {
    const int64_t n = rc[0], c = rc[1];
    const std::string shape = "_n" + std::to_string(n) + "_c" + std::to_string(c);
    cases.push_back({"rms_norm" + shape, TSR_OP_RMS_NORM, rms_norm_ref, rms_norm_fast,
                     [=] { return rms_norm_inputs(n, c, 0, false); }});
    cases.push_back({"add" + shape, TSR_OP_ADD, add_ref, add_fast, [=] { return binary_inputs(n, c, false, 1.0f); }, 0.0});
    cases.push_back({"add_broadcast" + shape, TSR_OP_ADD, add_ref, add_fast,
                     [=] { return binary_inputs(n, c, true, 1.0f); }, 0.0});
    cases.push_back({"mul" + shape, TSR_OP_MUL, mul_ref, mul_fast, [=] { return binary_inputs(n, c, false, 1.0f); }, 0.0});
    cases.push_back({"mul_broadcast" + shape, TSR_OP_MUL, mul_ref, mul_fast,
                     [=] { return binary_inputs(n, c, true, 1.0f); }, 0.0});
    cases.push_back({"swiglu" + shape, TSR_OP_SWIGLU, swiglu_ref, swiglu_fast,
                     [=] { return binary_inputs(n, c, false, 100.0f); }});
  }
  // Per-head norms (QK-norm) with Gemma's 1 + w.
  cases.push_back({"rms_norm_per_head_plus_one", TSR_OP_RMS_NORM, rms_norm_ref, rms_norm_fast,
                   [] { return rms_norm_inputs(70, 6 * 20, 20, true); }});
  cases.push_back({"rms_norm_gain_per_head", TSR_OP_RMS_NORM, rms_norm_ref, rms_norm_fast,
                   [] { return rms_norm_inputs(70, 6 * 20, 20, false, true); }});
  cases.push_back({"rope_interleaved_decode", TSR_OP_ROPE, rope_ref, rope_fast,
                   [] { return rope_inputs(1, 9, 64, 64, TSR_ROPE_INTERLEAVED, 0.0f); }, 0.0});
  cases.push_back({"rope_neox_partial", TSR_OP_ROPE, rope_ref, rope_fast,
                   [] { return rope_inputs(300, 4, 40, 24, TSR_ROPE_NEOX, 0.0f); }, 0.0});
  cases.push_back({"rope_yarn", TSR_OP_ROPE, rope_ref, rope_fast,
                   [] { return rope_inputs(77, 3, 64, 64, TSR_ROPE_NEOX, 1.0f); }, 0.0});
  return cases;
}

// gtest prints a failing case by its name instead of its bytes.
void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

class OptimisedKernel : public ::testing::TestWithParam<OpCase> {};

TEST_P(OptimisedKernel, MatchesReferenceOnOneTwoAndThreeThreads) {
  const OpCase& c = GetParam();
  Inputs in = c.make();
  std::vector<const HostTensor*> inputs;
  for (const HostTensor& t : in.tensors) inputs.push_back(&t);
  const void* params = in.params(c.op);

  CpuDevice ref_device(1);
  HostTensor expected(TSR_DTYPE_F32, in.out_shape);
  std::vector<const HostTensor*> ref_inputs = inputs;
  std::optional<HostTensor> x_rounded;
  if (c.bf16_prefill && std::string(bf16_prefill_path()) != "f32") {
    x_rounded = rounded_to_bf16(in.tensors[0]);
    ref_inputs[0] = &*x_rounded;
  }
  ASSERT_EQ(run_kernel(ref_device, c.reference, c.op, params, ref_inputs, expected), TSR_OK)
      << ref_device.last_error();
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    CpuDevice device(threads);
    HostTensor actual(TSR_DTYPE_F32, in.out_shape);
    ASSERT_EQ(run_kernel(device, c.optimised, c.op, params, inputs, actual), TSR_OK)
        << device.last_error();
    EXPECT_LE(relative_error(actual.to_f32(), expected.to_f32()), c.tolerance);
  }
}

INSTANTIATE_TEST_SUITE_P(OpCases, OptimisedKernel, ::testing::ValuesIn(op_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tessera::cpu::test
