// The CUDA ATTENTION arithmetic (backends/cuda/ops/attention_math.h: cache elements,
// scores, the online softmax, the merge of split-KV states), compiled for the host and
// run over whole heads in the kernel's order (keys one at a time, in one pass or in
// splits), against the CPU reference on the cases every backend shares; and the rule
// that picks the splits. Tolerance 2e-5 of the largest value: f32 softmax and sums
// against the reference's double.
#include "backends/cuda/ops/attention_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/tensor_info.h>

#include "backends/attention_cases.h"
#include "backends/cuda/ops/attention_split.h"

namespace tessera::cuda {
namespace {

using gpu_test::AttentionCase;
using gpu_test::AttentionInputs;

const uint8_t* bytes_of(AttentionInputs& in, int i) {
  const tsr_tensor& d = in.tensors[static_cast<size_t>(i)].desc();
  return reinterpret_cast<const uint8_t*>(d.buffer->data + d.offset);
}

// What the kernel computes, one (token, head) at a time, its keys in `splits` parts
// whose states are then merged (with one split, the merge is the identity).
std::vector<float> attend(AttentionInputs& in, tsr_dtype dtype, int splits) {
  const tsr_attention_params& p = in.params;
  const auto* q = reinterpret_cast<const float*>(bytes_of(in, 0));
  const uint8_t* k_cache = bytes_of(in, 1);
  const uint8_t* v_cache = bytes_of(in, 2);
  const auto* pos = reinterpret_cast<const int32_t*>(bytes_of(in, 3));
  const auto* seq = reinterpret_cast<const int32_t*>(bytes_of(in, 4));
  const auto* tables = reinterpret_cast<const int32_t*>(bytes_of(in, 5));
  const int hd = p.head_dim;
  const int64_t q_width = int64_t{p.n_heads} * hd, row_bytes = kit::dtype_row_bytes(dtype, int64_t{p.n_kv_heads} * hd);
  std::vector<float> out(static_cast<size_t>(in.n_tokens * q_width));
  std::vector<OnlineSoftmax> states(static_cast<size_t>(splits));
  std::vector<std::vector<float>> acc(static_cast<size_t>(splits), std::vector<float>(static_cast<size_t>(hd)));
  for (int64_t t = 0; t < in.n_tokens; ++t) {
    const int64_t first = kit::attention_first_key(p.window, pos[t]);
    const int64_t per_split = (pos[t] - first + splits) / splits;
    for (int h = 0; h < p.n_heads; ++h) {
      const int64_t kv_col = int64_t{h / (p.n_heads / p.n_kv_heads)} * hd;
      const float* qh = q + t * q_width + int64_t{h} * hd;
      const int32_t* table = tables + int64_t{seq[t]} * p.max_blocks_per_seq;
      const float slope = static_cast<float>(kit::alibi_slope(p.alibi_max_bias, p.n_heads, h));
      for (int s = 0; s < splits; ++s) {
        OnlineSoftmax& softmax = states[static_cast<size_t>(s)] = OnlineSoftmax{};
        std::vector<float>& a = acc[static_cast<size_t>(s)];
        std::fill(a.begin(), a.end(), 0.0f);
        const int64_t begin = first + s * per_split, end = std::min<int64_t>(begin + per_split, pos[t] + 1);
        for (int64_t key = begin; key < end; ++key) {
          const int64_t row = int64_t{table[key / p.block_size]} * p.block_size + key % p.block_size;
          float dot = 0.0f;
          for (int d = 0; d < hd; ++d) dot += qh[d] * kv_value(dtype, k_cache + row * row_bytes, kv_col + d);
          float weight;
          const float rescale = softmax.add(attention_score(dot, p.scale, p.softcap, slope, key, pos[t]), weight);
          for (int d = 0; d < hd; ++d) {
            a[d] = a[d] * rescale + weight * kv_value(dtype, v_cache + row * row_bytes, kv_col + d);
          }
        }
      }
      float largest = -INFINITY, total = 0.0f;
      for (const OnlineSoftmax& st : states) largest = std::max(largest, st.max);
      for (const OnlineSoftmax& st : states) total += st.sum * split_factor(st.max, largest);
      for (int d = 0; d < hd; ++d) {
        float sum = 0.0f;
        for (int s = 0; s < splits; ++s) sum += acc[s][d] * split_factor(states[s].max, largest);
        out[static_cast<size_t>(t * q_width + int64_t{h} * hd + d)] = sum / total;
      }
    }
  }
  return out;
}

class AttentionMath : public ::testing::TestWithParam<AttentionCase> {};

TEST_P(AttentionMath, MatchesTheCpuReferenceInOnePassAndInSplits) {
  const AttentionCase c = GetParam();
  AttentionInputs in = gpu_test::make_inputs(c);
  const std::vector<float> ref = gpu_test::reference_of(in).to_f32();
  for (const int splits : {1, 3, 8}) {  // 8 leaves splits without keys for the short cases
    EXPECT_LT(cpu::test::relative_error(attend(in, c.dtype, splits), ref), 2e-5) << splits << " splits";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionMath, ::testing::ValuesIn(gpu_test::common_attention_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(AttentionSplits, FollowTheDocumentedRule) {
  EXPECT_EQ(attention_splits(16, 511, 132), 1);    // a short context: one pass
  EXPECT_EQ(attention_splits(16, 3000, 132), 11);  // 3000 / 256 keys, fewer than 8 * 132 / 16 warps wanted
  EXPECT_EQ(attention_splits(512, 3000, 132), 3);  // many pairs: ceil(1056 / 512) splits
  EXPECT_EQ(attention_splits(2048, 3000, 132), 1);
  EXPECT_EQ(attention_splits(1, 100000, 132), 64);  // at most kMaxSplits
  EXPECT_EQ(attention_splits(0, 3000, 132), 1);
}

TEST(AttentionSplits, TakeTheLongestContextFromTheTablesOrTheWindow) {
  tsr_attention_params p{};
  p.block_size = 16;
  p.max_blocks_per_seq = 200;
  EXPECT_EQ(longest_context(p), 3200);  // the reach of a table: the positions stay on the device
  p.window = 1000;
  EXPECT_EQ(longest_context(p), 1000);
  p.window = 5000;
  EXPECT_EQ(longest_context(p), 3200);
}

TEST(OnlineSoftmax, EqualsTheTwoPassSoftmax) {
  const float scores[] = {0.5f, -3.0f, 7.25f, 7.0f, -100.0f};
  OnlineSoftmax s;
  float weighted = 0.0f;  // the softmax-weighted sum of the values 1, 2, 3, 4, 5
  for (int i = 0; i < 5; ++i) {
    float w;
    const float rescale = s.add(scores[i], w);
    weighted = weighted * rescale + w * static_cast<float>(i + 1);
  }
  double total = 0.0, expected = 0.0;
  for (int i = 0; i < 5; ++i) total += std::exp(scores[i] - 7.25);
  for (int i = 0; i < 5; ++i) expected += std::exp(scores[i] - 7.25) / total * (i + 1);
  EXPECT_EQ(s.max, 7.25f);
  EXPECT_NEAR(weighted / s.sum, expected, 1e-6);
}

}  // namespace
}  // namespace tessera::cuda
