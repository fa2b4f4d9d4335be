// The Vulkan ROPE kernel with frequency scaling (Llama 3.1's bands, the optional
// freq_factors input, both) against the CPU reference, on random inputs of odd shapes
// at offsets that are not multiples of 256; plain RoPE stays bit for bit when neither
// is used; bad params are refused with the CPU kernel's messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/op_params.h"
#include "backends/cpu/ops/rope.h"
#include "core/util/error.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using cpu::test::random_values;
using cpu::test::relative_error;
using cpu::test::llama3_params;
using cpu::test::rope_params;
using cpu::test::yarn_params;

std::vector<int32_t> random_positions(size_t n, int32_t max_pos, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> dist(0, max_pos);
  std::vector<int32_t> positions(n);
  for (int32_t& v : positions) v = dist(rng);
  positions[0] = max_pos;
  return positions;
}

// ---- against the reference: 2e-6 + 1.2e-7 per unit of the largest position ----------
// As for plain RoPE: a float angle of p radians carries about p * 6e-8 of rounding,
// which the double reference does not.

struct ScalingCase {
  std::string name;
  int32_t pairing, n_tokens, n_heads, head_dim, n_rot;
  float theta, freq_scale;
  int32_t max_pos;
  bool llama3;   // factor 8, low 1, high 4 over n_ctx_orig
  int32_t n_ctx_orig;
  bool factors;  // random freq_factors in [1, 40)
};

void PrintTo(const ScalingCase& c, std::ostream* out) { *out << c.name; }

class RopeScaling : public VulkanParamTest<ScalingCase> {};

TEST_P(RopeScaling, MatchesTheReference) {
  const ScalingCase c = GetParam();
  const int64_t width = int64_t{c.n_heads} * c.head_dim;
  const HostTensor x = HostTensor::f32({c.n_tokens, width}, random_values(static_cast<size_t>(c.n_tokens * width), 71));
  const HostTensor pos =
      HostTensor::i32({c.n_tokens}, random_positions(static_cast<size_t>(c.n_tokens), c.max_pos, 72));
  tsr_rope_params p = rope_params(c.theta, c.freq_scale, c.n_heads, c.head_dim, c.n_rot, c.pairing);
  if (c.llama3) p = llama3_params(p, 8.0f, 1.0f, 4.0f, c.n_ctx_orig);
  std::vector<const HostTensor*> inputs = {&x, &pos};
  std::optional<HostTensor> factors;
  if (c.factors) {
    factors = HostTensor::f32({c.n_rot / 2}, random_values(static_cast<size_t>(c.n_rot / 2), 73, 1.0f, 40.0f));
    inputs.push_back(&*factors);
  }
  HostTensor ref(TSR_DTYPE_F32, {c.n_tokens, width});
  run_reference(cpu::rope_ref, TSR_OP_ROPE, &p, inputs, ref);
  const auto got = run_on_vulkan(TSR_OP_ROPE, TSR_DTYPE_F32, &p, inputs, HostTensor(TSR_DTYPE_F32, {c.n_tokens, width}),
                                 {36, 100, 212, 516});
  EXPECT_LT(relative_error(got, ref.to_f32()), 2e-6 + 1.2e-7 * c.max_pos);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, RopeScaling,
    ::testing::Values(
        // theta 500000 over 8192 tokens: pairs 0-1 kept, 2 blended, 3 divided (n_rot 8);
        // 0-3 kept, 4 blended, 5-7 divided (n_rot 16)
        ScalingCase{"llama3_neox_rot8", TSR_ROPE_NEOX, 7, 3, 10, 8, 500000.0f, 1.0f, 599, true, 8192, false},
        ScalingCase{"llama3_interleaved_rot16", TSR_ROPE_INTERLEAVED, 5, 5, 18, 16, 500000.0f, 1.0f, 300, true, 8192,
                    false},
        // theta 10000 over 128 tokens: pair 0 kept, 1 blended, 2-3 divided
        ScalingCase{"llama3_small_ctx_scaled", TSR_ROPE_NEOX, 9, 2, 8, 8, 10000.0f, 0.5f, 90, true, 128, false},
        ScalingCase{"factors_neox", TSR_ROPE_NEOX, 7, 3, 14, 10, 10000.0f, 1.0f, 511, false, 0, true},
        ScalingCase{"factors_interleaved_scaled", TSR_ROPE_INTERLEAVED, 3, 5, 18, 6, 10000.0f, 0.25f, 300, false, 0,
                    true},
        ScalingCase{"llama3_and_factors", TSR_ROPE_NEOX, 5, 1, 66, 64, 500000.0f, 1.0f, 500, true, 8192, true}),
    [](const auto& info) { return info.param.name; });

// ---- without scaling: plain RoPE, bit for bit ------------------------------------------

class RopeWithoutScaling : public VulkanTest {
 protected:
  std::vector<float> run(const tsr_rope_params& p, const HostTensor* factors = nullptr) {
    std::vector<const HostTensor*> inputs = {&x_, &pos_};
    if (factors) inputs.push_back(factors);
    return run_on_vulkan(TSR_OP_ROPE, TSR_DTYPE_F32, &p, inputs, HostTensor(TSR_DTYPE_F32, {5, 3 * 18}),
                         {36, 100, 212, 516});
  }
  const HostTensor x_ = HostTensor::f32({5, 3 * 18}, random_values(5 * 3 * 18, 74));
  const HostTensor pos_ = HostTensor::i32({5}, random_positions(5, 3000, 75));
  const tsr_rope_params plain_ = rope_params(10000.0f, 0.5f, 3, 18, 12, TSR_ROPE_NEOX);
};

TEST_F(RopeWithoutScaling, FactorsOfOneLeaveTheOutputBitForBit) {
  const HostTensor ones = HostTensor::f32({6}, std::vector<float>(6, 1.0f));
  EXPECT_EQ(run(plain_, &ones), run(plain_));
}

TEST_F(RopeWithoutScaling, Llama3FactorZeroIgnoresTheOriginalContextBitForBit) {
  tsr_rope_params off = plain_;
  off.n_ctx_orig = 8192;
  EXPECT_EQ(run(off), run(plain_));
}

// ---- refusals: the CPU kernel's messages --------------------------------------------

class RopeScalingErrors : public VulkanTest {
 protected:
  // The message of a call on x [1, 8] (one head of 8 dims) that must fail.
  std::string fails(const tsr_rope_params& p, const std::optional<HostTensor>& factors = std::nullopt) {
    const GpuTensor x(HostTensor(TSR_DTYPE_F32, {1, 8}), 36), out(HostTensor(TSR_DTYPE_F32, {1, 8}), 132);
    const GpuTensor pos(HostTensor::i32({1}, {3}), 100);
    std::vector<const GpuTensor*> inputs = {&x, &pos};
    std::optional<GpuTensor> gpu_factors;
    if (factors) inputs.push_back(&gpu_factors.emplace(*factors, 212));
    try {
      run_vulkan(TSR_OP_ROPE, TSR_DTYPE_F32, &p, inputs, out);
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  }
};

TEST_F(RopeScalingErrors, Llama3WithYarnIsRefused) {
  const tsr_rope_params p = llama3_params(
      yarn_params(rope_params(10000.0f, 0.5f, 1, 8, 8, TSR_ROPE_NEOX), 1.0f, 1.0f, 32.0f, 1.0f, 4096), 8.0f, 1.0f,
      4.0f, 4096);
  EXPECT_THAT(fails(p), ::testing::HasSubstr("rope: llama3 scaling and YaRN (ext_factor > 0) cannot be combined"));
}

TEST_F(RopeScalingErrors, ALowFactorAboveTheHighOneIsRefused) {
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), 8.0f, 4.0f, 1.0f, 8192);
  EXPECT_THAT(fails(p), ::testing::HasSubstr("rope: llama3 scaling needs llama3_low_freq_factor < "
                                             "llama3_high_freq_factor, got 4.000000 and 1.000000"));
}

TEST_F(RopeScalingErrors, BandFactorsWithoutAFactorAreRefused) {
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), 0.0f, 1.0f, 4.0f, 8192);
  EXPECT_THAT(fails(p), ::testing::HasSubstr("rope: llama3_low_freq_factor 1.000000 and llama3_high_freq_factor "
                                             "4.000000 need llama3_factor > 0"));
}

TEST_F(RopeScalingErrors, Llama3WithoutAnOriginalContextIsRefused) {
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), 8.0f, 1.0f, 4.0f, 0);
  EXPECT_THAT(fails(p), ::testing::HasSubstr("rope: llama3 scaling needs n_ctx_orig > 0, got 0"));
}

TEST_F(RopeScalingErrors, FreqFactorsOfTheWrongLengthAreRefused) {
  EXPECT_THAT(fails(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), HostTensor::f32({3}, {1.0f, 2.0f, 3.0f})),
              ::testing::HasSubstr("rope: freq_factors has shape [3], expected 4 elements"));
}

TEST_F(RopeScalingErrors, FreqFactorsThatAreNotF32AreRefused) {
  EXPECT_THAT(fails(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), HostTensor(TSR_DTYPE_F16, {4})),
              ::testing::HasSubstr("rope: freq_factors is f16, expected f32"));
}

}  // namespace
}  // namespace tessera::vulkan::test
