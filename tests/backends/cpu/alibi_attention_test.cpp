// ATTENTION with ALiBi (ABI v2): both CPU kernels on a hand-computed case with a head
// count that is not a power of two, and against a plain attention written out here on
// random inputs (with GQA, a window and a softcap; tolerance 1e-5 relative to the
// largest output); the reference's slopes and the parameter check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu/ops/attention.h"
#include "host_tensor.h"

namespace tessera::cpu::test {
namespace {

using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::StrEq;

// One sequence whose block table is 0, 1, 2, ...: cache row p holds position p.
struct Contiguous {
  tsr_attention_params p{};
  HostTensor k, v, seq, tables;
  Contiguous(tsr_attention_params params, int n_positions, const std::vector<float>& k_values,
             const std::vector<float>& v_values)
      : p(params),
        k(HostTensor::f32({blocks(params, n_positions), params.block_size, kv_width(params)}, k_values)),
        v(HostTensor::f32({blocks(params, n_positions), params.block_size, kv_width(params)}, v_values)),
        seq(HostTensor(TSR_DTYPE_I32, {1})),
        tables(table(params, n_positions)) {}
  static int64_t kv_width(const tsr_attention_params& p) { return int64_t{p.n_kv_heads} * p.head_dim; }
  static int64_t blocks(const tsr_attention_params& p, int n) { return (n + p.block_size - 1) / p.block_size; }
  static int64_t cache_values(const tsr_attention_params& p, int n) {
    return blocks(p, n) * p.block_size * kv_width(p);
  }
  static HostTensor table(const tsr_attention_params& p, int n) {
    std::vector<int32_t> ids(static_cast<size_t>(blocks(p, n)));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
    return HostTensor::i32({1, blocks(p, n)}, ids);
  }
  // Runs `body` for queries q at positions `pos` (all of sequence 0).
  std::vector<float> run(KernelBody body, const HostTensor& q, const std::vector<int32_t>& positions) {
    CpuDevice device(3);
    const int64_t n = static_cast<int64_t>(positions.size());
    const HostTensor pos = HostTensor::i32({n}, positions);
    const HostTensor seqs(TSR_DTYPE_I32, {n});  // zeros: sequence 0
    HostTensor out(TSR_DTYPE_F32, {n, int64_t{p.n_heads} * p.head_dim});
    EXPECT_EQ(run_kernel(device, body, TSR_OP_ATTENTION, &p, {&q, &k, &v, &pos, &seqs, &tables}, out), TSR_OK)
        << device.last_error();
    return out.to_f32();
  }
};

tsr_attention_params params(int n_heads, int n_kv_heads, int head_dim, int block_size, int max_blocks, float bias) {
  tsr_attention_params p{};
  p.n_heads = n_heads;
  p.n_kv_heads = n_kv_heads;
  p.head_dim = head_dim;
  p.block_size = block_size;
  p.n_seqs = 1;
  p.max_blocks_per_seq = max_blocks;
  p.scale = 1.0f;
  p.alibi_max_bias = bias;
  return p;
}

TEST(AlibiAttention, SlopesOfThreeHeadsFollowThePaper) {
  // n2 = 2: heads 0, 1 get 2^(-8/2), 2^(-16/2); head 2 gets 2^(-8 * 1 / 4).
  const tsr_attention_params p = params(3, 1, 1, 4, 1, 8.0f);
  EXPECT_DOUBLE_EQ(alibi_slope(p, 0), 0.0625);
  EXPECT_DOUBLE_EQ(alibi_slope(p, 1), 1.0 / 256);
  EXPECT_DOUBLE_EQ(alibi_slope(p, 2), 0.25);
}

TEST(AlibiAttention, SlopesAreZeroWithoutAlibi) {
  EXPECT_EQ(alibi_slope(params(3, 1, 1, 4, 1, 0.0f), 2), 0.0);
}

TEST(AlibiAttention, ThreeHeadsWeighRecentKeysByTheirSlopes) {
  // q = 0: every score is the bias slope * (p - 3) alone. v at position p is p, so each
  // head returns sum p e^(slope (p - 3)) / sum e^(slope (p - 3)) over p = 0..3.
  Contiguous c(params(3, 1, 1, 4, 1, 8.0f), 4, {0, 0, 0, 0}, {0, 1, 2, 3});
  const auto q = HostTensor::f32({1, 3}, {0, 0, 0});
  const std::vector<float> expected = {1.57803866f, 1.50488279f, 1.80709516f};
  for (KernelBody body : {attention_ref, attention_fast}) {
    SCOPED_TRACE(body == attention_ref ? "reference" : "optimised");
    EXPECT_THAT(c.run(body, q, {3}), Pointwise(FloatNear(1e-6f), expected));
  }
}

// Plain attention over positions 0..pos (window, softcap, then ALiBi), written out for
// one sequence whose cache row p holds position p.
std::vector<float> plain_attention(const tsr_attention_params& p, const std::vector<float>& q,
                                   const std::vector<float>& k, const std::vector<float>& v,
                                   const std::vector<int32_t>& positions) {
  const int64_t hd = p.head_dim, kv_w = int64_t{p.n_kv_heads} * hd, q_w = int64_t{p.n_heads} * hd;
  std::vector<float> out;
  for (size_t t = 0; t < positions.size(); ++t) {
    const int pos = positions[t];
    const int first = p.window > 0 ? std::max(0, pos - p.window + 1) : 0;
    for (int h = 0; h < p.n_heads; ++h) {
      const int64_t kv = int64_t{h / (p.n_heads / p.n_kv_heads)} * hd;
      std::vector<double> s;
      for (int key = first; key <= pos; ++key) {
        double dot = 0;
        for (int64_t d = 0; d < hd; ++d) dot += double{q[t * q_w + h * hd + d]} * k[key * kv_w + kv + d];
        dot *= p.scale;
        if (p.softcap > 0) dot = p.softcap * std::tanh(dot / p.softcap);
        s.push_back(dot + alibi_slope(p, h) * (key - pos));
      }
      const double top = *std::max_element(s.begin(), s.end());
      double total = 0;
      for (double& x : s) total += (x = std::exp(x - top));
      for (int64_t d = 0; d < hd; ++d) {
        double acc = 0;
        for (int key = first; key <= pos; ++key) acc += s[key - first] * v[key * kv_w + kv + d];
        out.push_back(static_cast<float>(acc / total));
      }
    }
  }
  return out;
}

struct AlibiCase {
  const char* name;
  int n_heads, n_kv_heads, head_dim, window;
  float softcap, max_bias;
};

class AlibiRandom : public ::testing::TestWithParam<AlibiCase> {};

TEST_P(AlibiRandom, BothKernelsMatchPlainAttention) {
  const AlibiCase c = GetParam();
  tsr_attention_params p = params(c.n_heads, c.n_kv_heads, c.head_dim, 8, 6, c.max_bias);
  p.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  p.window = c.window;
  p.softcap = c.softcap;
  const int n_positions = 45;
  const auto n_cache = static_cast<size_t>(Contiguous::cache_values(p, n_positions));
  const std::vector<float> k = random_values(n_cache, 81, -2, 2), v = random_values(n_cache, 82);
  Contiguous cache(p, n_positions, k, v);
  const std::vector<int32_t> positions = {0, 5, 16, 44, 30};
  const size_t q_n = positions.size() * c.n_heads * c.head_dim;
  const std::vector<float> q = random_values(q_n, 83, -2, 2);
  const auto q_tensor = HostTensor::f32({static_cast<int64_t>(positions.size()), int64_t{c.n_heads} * c.head_dim}, q);
  const std::vector<float> expected = plain_attention(p, q, k, v, positions);
  EXPECT_LT(relative_error(cache.run(attention_ref, q_tensor, positions), expected), 1e-5);
  EXPECT_LT(relative_error(cache.run(attention_fast, q_tensor, positions), expected), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Cases, AlibiRandom,
                         ::testing::Values(AlibiCase{"mha_5_heads", 5, 5, 4, 0, 0.0f, 8.0f},
                                           AlibiCase{"gqa_6_heads", 6, 2, 8, 0, 0.0f, 8.0f},
                                           AlibiCase{"window_softcap_12_heads", 12, 3, 3, 9, 2.0f, 8.0f},
                                           AlibiCase{"max_bias_4_mqa", 7, 1, 5, 0, 0.0f, 4.0f}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(AlibiAttention, RejectsANegativeMaxBias) {
  Contiguous c(params(2, 1, 4, 4, 1, -1.0f), 4, std::vector<float>(16), std::vector<float>(16));
  CpuDevice device(1);
  const auto q = HostTensor::f32({1, 8}, std::vector<float>(8));
  const auto pos = HostTensor::i32({1}, {0});
  HostTensor out(TSR_DTYPE_F32, {1, 8});
  EXPECT_EQ(run_kernel(device, attention_ref, TSR_OP_ATTENTION, &c.p, {&q, &c.k, &c.v, &pos, &c.seq, &c.tables}, out),
            TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(device.last_error(), StrEq("attention: alibi_max_bias must be >= 0 and finite, got -1.000000"));
}

}  // namespace
}  // namespace tessera::cpu::test
