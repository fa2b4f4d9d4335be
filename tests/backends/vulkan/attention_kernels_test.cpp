// The Vulkan KV_WRITE and paged ATTENTION kernels against the CPU reference: caches in
// f32 and f16 (and q8_0 for ATTENTION; q8_0 KV_WRITE is in q8_0_kv_cache_test.cpp),
// block tables in shuffled order with unused entries set to -1, several
// sequences, prefill and decode tokens, GQA / MQA, windows and softcaps, ALiBi with head
// counts that are not powers of two, and head dimensions that do not divide the workgroup;
// split-KV (long contexts, few tokens) with every cache dtype, and its error path; tiled
// prefill (several tokens per workgroup), with tiles that straddle sequences, and its error path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/kv_write.h"
#include "backends/vulkan/ops/attention_path.h"
#include "core/util/error.h"
#include "backends/attention_cases.h"
#include "backends/gpu_kernel_checks.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_values;
using gpu_test::AttentionCase;
using gpu_test::AttentionInputs;
using gpu_test::make_inputs;
using gpu_test::pointers;
using gpu_test::reference_of;
using cpu::test::relative_error;

// ---- KV_WRITE: f32 exact; f16 within one half-precision step -------------------------

using gpu_test::KvWriteCase;

class KvWrite : public VulkanParamTest<KvWriteCase> {};

TEST_P(KvWrite, WritesTheSlotsAndKeepsTheOtherRows) {
  const KvWriteCase c = GetParam();
  gpu_test::expect_kv_write_like_reference(c, c.dtype == TSR_DTYPE_F16 ? 1e-3 : 0.0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, KvWrite,
                         ::testing::Values(KvWriteCase{TSR_DTYPE_F32, 4, 16, 4, 8, 5},
                                           KvWriteCase{TSR_DTYPE_F16, 4, 16, 4, 8, 1},
                                           KvWriteCase{TSR_DTYPE_F16, 9, 7, 3, 18, 40},
                                           KvWriteCase{TSR_DTYPE_F32, 3, 5, 1, 96, 15}),
                         [](const auto& info) { return gpu_test::kv_write_case_name(info.param); });

// ---- ATTENTION: 2e-5 (float softmax and sums against double) ---------------------------
// q8_0 caches are dequantised exactly (f16 scale * int8) by both kernels, so they get the
// same bound, tighter than the 1e-4 the q8_0 kernels are specified to.

// How many splits the Vulkan kernel cuts these inputs' keys into (attention_path.h).
int64_t splits_of(const AttentionInputs& in) {
  return attention_splits(in.n_tokens, in.params.n_heads, in.params.max_blocks_per_seq, in.params.block_size);
}

// Whether the Vulkan kernel takes the tiled prefill path for these inputs.
bool tiled(const AttentionInputs& in) {
  return attention_tiled(in.n_tokens, in.params.n_seqs, in.params.head_dim, splits_of(in));
}

// The largest error of the Vulkan kernel relative to the reference.
double attention_error(const AttentionCase& c, const AttentionInputs& in) {
  const HostTensor ref = reference_of(in);
  const auto got = run_on_vulkan(TSR_OP_ATTENTION, c.dtype, &in.params, pointers(in.tensors),
                                 HostTensor(TSR_DTYPE_F32, {in.n_tokens, int64_t{c.n_heads} * c.head_dim}),
                                 {36, odd_offset(c.dtype, 24), odd_offset(c.dtype, 257), 4, 68, 260, 516});
  return relative_error(got, ref.to_f32());
}

class Attention : public VulkanParamTest<AttentionCase> {};

TEST_P(Attention, MatchesTheReference) {
  const AttentionCase c = GetParam();
  EXPECT_LT(attention_error(c, make_inputs(c)), 2e-5);
}

INSTANTIATE_TEST_SUITE_P(Cases, Attention, ::testing::ValuesIn(gpu_test::common_attention_cases()),
                         [](const auto& info) { return info.param.name; });

// ---- split-KV ATTENTION: the same 2e-5 ----------------------------------------------
// The rule of attention_path.h: split when n_tokens * n_heads < 256 and the block
// tables allow more than 512 keys (max_blocks_per_seq * block_size); each test asserts
// the split count of its shapes. make_inputs gives the block tables one more column
// than the longest sequence needs, so max_ctx = (ceil(longest / block_size) + 1) * block_size.

class SplitKvAttention : public VulkanParamTest<AttentionCase> {};

TEST_P(SplitKvAttention, SplitsAndMatchesTheReference) {
  const AttentionCase c = GetParam();
  const AttentionInputs in = make_inputs(c);
  ASSERT_GT(splits_of(in), 1);
  EXPECT_LT(attention_error(c, in), 2e-5);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SplitKvAttention,
    ::testing::Values(
        // 3 tokens x 8 heads, 3024 keys: 11 splits; the 40-key sequence fills only the
        // first split, the others are empty; the 1200-key one leaves the last empty.
        AttentionCase{"decode_three_sequences_f32", TSR_DTYPE_F32, 8, 4, 64, 16, {3000, 1200, 40}, {1, 1, 1}},
        AttentionCase{"decode_three_sequences_f16", TSR_DTYPE_F16, 8, 4, 64, 16, {3000, 1200, 40}, {1, 1, 1}},
        // Heads of 40 start inside q8_0 blocks.
        AttentionCase{"decode_heads_of_40_q8_0", TSR_DTYPE_Q8_0, 8, 4, 40, 16, {3000, 1200, 40}, {1, 1, 1}},
        // Several new tokens per sequence (a small batch of speculative or chunked tokens).
        AttentionCase{"three_tokens_of_two_sequences_gqa", TSR_DTYPE_F16, 4, 2, 64, 16, {2500, 700}, {3, 2}},
        // MQA with head_dim 256 over an odd block size.
        AttentionCase{"mqa_head_dim_256_block_7", TSR_DTYPE_F32, 2, 1, 256, 7, {1500}, {1}},
        // A window of 100 keys, shorter than one split: two chunks, the other splits empty.
        AttentionCase{"window_shorter_than_a_split_f16", TSR_DTYPE_F16, 8, 2, 64, 16, {3000, 2000}, {1, 2}, 100},
        AttentionCase{"window_shorter_than_a_split_q8_0", TSR_DTYPE_Q8_0, 8, 2, 64, 16, {3000, 2000}, {1, 2}, 100},
        // ALiBi with a head count that is not a power of two, with softcap.
        AttentionCase{"alibi_softcap_6_heads_f16", TSR_DTYPE_F16, 6, 2, 40, 16, {3000, 90}, {1, 1}, 0, 30.0f, 8.0f},
        AttentionCase{"alibi_window_softcap_5_heads_q8_0", TSR_DTYPE_Q8_0, 5, 1, 64, 16, {2100}, {2}, 700, 5.0f,
                      4.0f},
        // Right above the threshold: 497 keys need 32 blocks, + 1 = 33 x 16 = 528 > 512.
        AttentionCase{"just_above_the_threshold", TSR_DTYPE_F32, 8, 4, 64, 16, {497, 30}, {1, 1}},
        // head_dim 1024 (the largest): 16 dims per invocation.
        AttentionCase{"head_dim_1024_f16", TSR_DTYPE_F16, 2, 1, 1024, 16, {900}, {1}}),
    [](const auto& info) { return info.param.name; });

TEST(AttentionSplits, FollowTheDocumentedRule) {
  // 24 groups, 3024 keys: min(3024 / 256, ceil(256 / 24), 32) = min(11, 11, 32).
  EXPECT_EQ(attention_splits(3, 8, 189, 16), 11);
  // 8 groups, 4096 keys: min(16, 32, 32).
  EXPECT_EQ(attention_splits(1, 8, 256, 16), 16);
  // 1 group, 65536 keys: the cap.
  EXPECT_EQ(attention_splits(1, 1, 4096, 16), 32);
  // 200 groups: ceil(256 / 200) = 2.
  EXPECT_EQ(attention_splits(25, 8, 256, 16), 2);
  // Enough groups already, or a short context: one dispatch.
  EXPECT_EQ(attention_splits(32, 8, 256, 16), 1);
  EXPECT_EQ(attention_splits(1, 8, 32, 16), 1);
  EXPECT_EQ(attention_splits(1, 8, 33, 16), 2);
}

class SplitKvThreshold : public VulkanTest {};

// Right at the threshold: 496 keys need 31 blocks, + 1 = 32 x 16 = 512, not split.
TEST_F(SplitKvThreshold, RightAtItOneDispatchMatchesTheReference) {
  const AttentionCase c{"at_threshold", TSR_DTYPE_F32, 8, 4, 64, 16, {496, 30}, {1, 1}};
  const AttentionInputs in = make_inputs(c);
  ASSERT_EQ(in.params.max_blocks_per_seq * in.params.block_size, 512);
  ASSERT_EQ(splits_of(in), 1);
  EXPECT_LT(attention_error(c, in), 2e-5);
}

// A split run where block 50 of sequence 1 (keys 800..815) names a block outside the cache.
class SplitKvAttentionError : public VulkanTest {
 protected:
  static constexpr int32_t kBadBlock = 9999;

  SplitKvAttentionError() : c_{"bad_block", TSR_DTYPE_F16, 8, 4, 64, 16, {3000, 1200}, {1, 1}}, in_(make_inputs(c_)) {
    ref_ = reference_of(in_).to_f32();  // of the intact tables
    auto* tables = reinterpret_cast<int32_t*>(in_.tensors[5].bytes());
    tables[in_.params.max_blocks_per_seq + 50] = kBadBlock;
    const auto* seq = reinterpret_cast<const int32_t*>(in_.tensors[4].bytes());
    bad_token_ = seq[0] == 1 ? 0 : 1;
  }

  // Uploads the inputs and an output of sevens; `run` calls the kernel and returns the
  // error message; `out` is the output read back.
  template <class Run>
  std::string run_and_read(Run run, std::vector<float>& out) {
    std::vector<GpuTensor> gpu;
    for (const HostTensor& t : in_.tensors) gpu.emplace_back(t, odd_offset(t.desc().dtype, 9));
    std::vector<const GpuTensor*> inputs;
    for (const GpuTensor& t : gpu) inputs.push_back(&t);
    const int64_t width = int64_t{c_.n_heads} * c_.head_dim;
    const std::vector<float> sevens(static_cast<size_t>(in_.n_tokens * width), 7.0f);
    const GpuTensor result(HostTensor::f32({in_.n_tokens, width}, sevens), 4);
    std::string message;
    try {
      run(inputs, result);
    } catch (const Error& e) {
      message = e.what();
    }
    out = result.read().to_f32();
    return message;
  }

  // The row of the bad token is zeros; the other token's row matches the reference.
  void expect_rows(const std::vector<float>& out) const {
    const size_t width = static_cast<size_t>(c_.n_heads * c_.head_dim);
    const size_t bad = static_cast<size_t>(bad_token_) * width, good = static_cast<size_t>(1 - bad_token_) * width;
    EXPECT_EQ(std::vector<float>(out.begin() + bad, out.begin() + bad + width), std::vector<float>(width, 0.0f));
    EXPECT_LT(relative_error(std::vector<float>(out.begin() + good, out.begin() + good + width),
                             std::vector<float>(ref_.begin() + good, ref_.begin() + good + width)),
              2e-5);
  }

  std::string expected_message() const {
    return "attention: token " + std::to_string(bad_token_) + " reads block 9999 from its block table but the cache has " +
           std::to_string(in_.tensors[1].desc().shape[0]) + " blocks";
  }

  AttentionCase c_;
  AttentionInputs in_;
  std::vector<float> ref_;
  int32_t bad_token_ = 0;
};

TEST_F(SplitKvAttentionError, BadBlockIsReportedAndItsRowIsZero) {
  ASSERT_GT(splits_of(in_), 1);
  std::vector<float> out;
  const std::string message = run_and_read(
      [&](const std::vector<const GpuTensor*>& inputs, const GpuTensor& result) {
        run_vulkan(TSR_OP_ATTENTION, c_.dtype, &in_.params, inputs, result);
      },
      out);
  EXPECT_THAT(message, ::testing::HasSubstr(expected_message()));
  expect_rows(out);
}

TEST_F(SplitKvAttentionError, BadBlockInsideAStepComesBackFromStepEnd) {
  ASSERT_GT(splits_of(in_), 1);
  std::vector<float> out;
  const Device& device = *session().device;
  const std::string message = run_and_read(
      [&](const std::vector<const GpuTensor*>& inputs, const GpuTensor& result) {
        device.begin_step();
        run_vulkan(TSR_OP_ATTENTION, c_.dtype, &in_.params, inputs, result);
        device.end_step();
      },
      out);
  EXPECT_THAT(message, ::testing::HasSubstr(expected_message()));
  expect_rows(out);
}

TEST_F(SplitKvAttentionError, PositionBeyondTheTablesIsReportedAndItsRowIsZero) {
  ASSERT_GT(splits_of(in_), 1);
  auto* pos = reinterpret_cast<int32_t*>(in_.tensors[3].bytes());
  pos[bad_token_] = in_.params.max_blocks_per_seq * in_.params.block_size;  // one past the last slot
  auto* tables = reinterpret_cast<int32_t*>(in_.tensors[5].bytes());
  tables[in_.params.max_blocks_per_seq + 50] = 0;  // only the position is bad
  std::vector<float> out;
  const std::string message = run_and_read(
      [&](const std::vector<const GpuTensor*>& inputs, const GpuTensor& result) {
        run_vulkan(TSR_OP_ATTENTION, c_.dtype, &in_.params, inputs, result);
      },
      out);
  const int32_t position = pos[bad_token_];
  EXPECT_THAT(message, ::testing::HasSubstr("attention: token " + std::to_string(bad_token_) + " at position " +
                                            std::to_string(position) + " needs block index " +
                                            std::to_string(position / 16) + " but block tables hold " +
                                            std::to_string(in_.params.max_blocks_per_seq) + " blocks per sequence"));
  expect_rows(out);
}

// ---- tiled prefill ATTENTION: the same 2e-5 --------------------------------------------
// attention_tiled.comp: tiles of attention_tile_tokens(head_dim) consecutive tokens (8,
// or 4 at head_dim 1024) per workgroup when the call is unsplit, has at least two tiles
// and more tokens than sequences. Packed sequences put tile boundaries inside sequences,
// so some tiles hold the end of one sequence and the start of the next.

TEST(AttentionTiles, FollowTheDocumentedRule) {
  EXPECT_EQ(attention_tile_tokens(8), 8);
  EXPECT_EQ(attention_tile_tokens(512), 8);
  EXPECT_EQ(attention_tile_tokens(1024), 4);
  EXPECT_TRUE(attention_tiled(16, 1, 64, 1));
  EXPECT_FALSE(attention_tiled(15, 1, 64, 1));    // fewer than two tiles of 8
  EXPECT_TRUE(attention_tiled(8, 1, 1024, 1));    // two tiles of 4
  EXPECT_FALSE(attention_tiled(16, 16, 64, 1));   // decode: one token per sequence
  EXPECT_FALSE(attention_tiled(16, 1, 64, 2));    // split-KV
}

class TiledAttention : public VulkanParamTest<AttentionCase> {};

TEST_P(TiledAttention, TakesTheTiledPathAndMatchesTheReference) {
  const AttentionCase c = GetParam();
  const AttentionInputs in = make_inputs(c);
  ASSERT_TRUE(tiled(in));
  EXPECT_LT(attention_error(c, in), 2e-5);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TiledAttention,
    ::testing::Values(
        // One sequence: 37 tokens end in a partial tile; block sizes 16 and 7.
        AttentionCase{"prefill_37_block_16", TSR_DTYPE_F32, 4, 2, 64, 16, {37}, {37}, 0, 0.0f, 0.0f, true},
        AttentionCase{"prefill_100_block_7_f16", TSR_DTYPE_F16, 4, 2, 64, 7, {100}, {100}, 0, 0.0f, 0.0f, true},
        AttentionCase{"prefill_300_block_16_q8_0", TSR_DTYPE_Q8_0, 4, 2, 64, 16, {300}, {300}, 0, 0.0f, 0.0f, true},
        AttentionCase{"prefill_300_block_7_gqa", TSR_DTYPE_F32, 8, 2, 32, 7, {300}, {300}, 0, 0.0f, 0.0f, true},
        // Packed sequences: tile 4 (tokens 32..39) holds the end of sequence 0 and the
        // start of sequence 1; the chunked ones start at positions past 0.
        AttentionCase{"two_sequences_packed", TSR_DTYPE_F32, 4, 4, 16, 16, {37, 20}, {37, 20}, 0, 0.0f, 0.0f, true},
        AttentionCase{"three_sequences_chunked_f16", TSR_DTYPE_F16, 6, 3, 72, 7, {50, 23, 70}, {13, 23, 30}, 0, 0.0f,
                      0.0f, true},
        AttentionCase{"three_sequences_heads_of_40_q8_0", TSR_DTYPE_Q8_0, 8, 4, 40, 7, {90, 12, 31}, {40, 12, 31}, 0,
                      0.0f, 0.0f, true},
        // Tokens in random order: every tile mixes sequences and positions far apart.
        AttentionCase{"shuffled_two_sequences", TSR_DTYPE_F32, 4, 2, 64, 16, {60, 45}, {60, 30}},
        // Sliding windows: per-token first keys inside a tile's key range.
        AttentionCase{"window_prefill_f16", TSR_DTYPE_F16, 4, 1, 64, 16, {100}, {100}, 10, 0.0f, 0.0f, true},
        AttentionCase{"window_chunked_two_sequences_q8_0", TSR_DTYPE_Q8_0, 4, 2, 32, 16, {200, 40}, {40, 40}, 50,
                      0.0f, 0.0f, true},
        AttentionCase{"alibi_softcap_12_heads", TSR_DTYPE_F32, 12, 4, 8, 16, {60, 30}, {60, 30}, 0, 5.0f, 8.0f, true},
        AttentionCase{"alibi_window_softcap_5_heads_f16", TSR_DTYPE_F16, 5, 1, 16, 4, {90}, {90}, 30, 5.0f, 4.0f,
                      true},
        AttentionCase{"mqa_head_dim_256_f16", TSR_DTYPE_F16, 2, 1, 256, 16, {100}, {100}, 0, 0.0f, 0.0f, true},
        // head_dim 1024 (tiles of 4): 16 dims per invocation for each of the 4 tokens.
        AttentionCase{"head_dim_1024_f16", TSR_DTYPE_F16, 2, 1, 1024, 16, {37}, {37}, 0, 0.0f, 0.0f, true},
        AttentionCase{"head_dim_1024_q8_0", TSR_DTYPE_Q8_0, 2, 2, 1024, 7, {20, 9}, {20, 9}, 0, 0.0f, 0.0f, true}),
    [](const auto& info) { return info.param.name; });

// A prefill of 33 tokens whose third block (key 32, only token 32's) names a block outside
// the cache: token 32 sits alone in the last tile of 8.
class TiledAttentionError : public VulkanTest {
 protected:
  TiledAttentionError()
      : c_{"bad_block", TSR_DTYPE_F32, 4, 2, 64, 16, {33}, {33}, 0, 0.0f, 0.0f, true}, in_(make_inputs(c_)) {
    ref_ = reference_of(in_).to_f32();  // of the intact tables
    ref_block_ = reinterpret_cast<int32_t*>(in_.tensors[5].bytes())[2];
    reinterpret_cast<int32_t*>(in_.tensors[5].bytes())[2] = 9999;
  }

  // Runs the kernel (through `run`) on an output of sevens; returns the error message
  // and checks the rows: token 32's is zeros, the others match the reference.
  template <class Run>
  std::string run_and_check(Run run) {
    std::vector<GpuTensor> gpu;
    for (const HostTensor& t : in_.tensors) gpu.emplace_back(t, odd_offset(t.desc().dtype, 9));
    std::vector<const GpuTensor*> inputs;
    for (const GpuTensor& t : gpu) inputs.push_back(&t);
    const auto width = static_cast<size_t>(c_.n_heads * c_.head_dim);
    const GpuTensor result(HostTensor::f32({in_.n_tokens, static_cast<int64_t>(width)},
                                           std::vector<float>(static_cast<size_t>(in_.n_tokens) * width, 7.0f)),
                           4);
    std::string message;
    try {
      run(inputs, result);
    } catch (const Error& e) {
      message = e.what();
    }
    const std::vector<float> out = result.read().to_f32();
    const auto bad = static_cast<std::ptrdiff_t>(32 * width);
    EXPECT_EQ(std::vector<float>(out.begin() + bad, out.end()), std::vector<float>(width, 0.0f));
    EXPECT_LT(relative_error(std::vector<float>(out.begin(), out.begin() + bad),
                             std::vector<float>(ref_.begin(), ref_.begin() + bad)),
              2e-5);
    return message;
  }

  std::string expected_message() const {
    return "attention: token 32 reads block 9999 from its block table but the cache has " +
           std::to_string(in_.tensors[1].desc().shape[0]) + " blocks";
  }

  AttentionCase c_;
  AttentionInputs in_;
  std::vector<float> ref_;
  int32_t ref_block_ = 0;  // the intact table entry
};

TEST_F(TiledAttentionError, BadBlockIsReportedAndItsRowIsZero) {
  ASSERT_TRUE(tiled(in_));
  const std::string message = run_and_check([&](const std::vector<const GpuTensor*>& inputs, const GpuTensor& result) {
    run_vulkan(TSR_OP_ATTENTION, c_.dtype, &in_.params, inputs, result);
  });
  EXPECT_THAT(message, ::testing::HasSubstr(expected_message()));
}

TEST_F(TiledAttentionError, BadBlockInsideAStepComesBackFromStepEnd) {
  ASSERT_TRUE(tiled(in_));
  const Device& device = *session().device;
  const std::string message = run_and_check([&](const std::vector<const GpuTensor*>& inputs, const GpuTensor& result) {
    device.begin_step();
    run_vulkan(TSR_OP_ATTENTION, c_.dtype, &in_.params, inputs, result);
    device.end_step();
  });
  EXPECT_THAT(message, ::testing::HasSubstr(expected_message()));
}

TEST_F(TiledAttentionError, BadSequenceIdIsReportedAndItsRowIsZero) {
  ASSERT_TRUE(tiled(in_));
  reinterpret_cast<int32_t*>(in_.tensors[5].bytes())[2] = ref_block_;  // only the sequence id is bad
  reinterpret_cast<int32_t*>(in_.tensors[4].bytes())[32] = 5;
  const std::string message = run_and_check([&](const std::vector<const GpuTensor*>& inputs, const GpuTensor& result) {
    run_vulkan(TSR_OP_ATTENTION, c_.dtype, &in_.params, inputs, result);
  });
  EXPECT_THAT(message, ::testing::HasSubstr("attention: token 32 has seq 5 outside the 1 block tables"));
}

}  // namespace
}  // namespace tessera::vulkan::test
