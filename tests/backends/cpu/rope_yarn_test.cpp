// ROPE with YaRN (ABI v2): the reference kernel against the formula of plugin_abi.h
// written out here, on a hand-computed pair and on random inputs (tolerance 1e-6
// relative to the largest output); ext_factor 0 leaves plain RoPE bit for bit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "backends/cpu/ops/rope.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::StrEq;

class RopeYarn : public ::testing::Test {
 protected:
  std::vector<float> rope(const tsr_rope_params& p, const HostTensor& x, const HostTensor& pos) {
    HostTensor out(TSR_DTYPE_F32, {x.desc().shape[0], x.desc().shape[1]});
    EXPECT_EQ(run_kernel(device_, rope_ref, TSR_OP_ROPE, &p, {&x, &pos}, out), TSR_OK) << device_.last_error();
    return out.to_f32();
  }
  std::string fails(const tsr_rope_params& p) {
    HostTensor x(TSR_DTYPE_F32, {1, 8}), out(TSR_DTYPE_F32, {1, 8});
    const auto pos = HostTensor::i32({1}, {3});
    EXPECT_EQ(run_kernel(device_, rope_ref, TSR_OP_ROPE, &p, {&x, &pos}, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{1};
};

// The header's text, transcribed: pair i0/2 turns by a mix of the interpolated and the
// original angle with weight `ramp` on the original, and cos, sin are scaled by mscale.
std::vector<float> yarn_formula(const std::vector<float>& x, const std::vector<int32_t>& pos,
                                const tsr_rope_params& p) {
  const double pi = std::numbers::pi;
  const auto d = [&](double b) { return p.n_rot * std::log(p.n_ctx_orig / (2 * pi * b)) / (2 * std::log(p.theta)); };
  const double low = std::max(0.0, std::floor(d(p.beta_fast)));
  const double high = std::min(p.n_rot - 1.0, std::ceil(d(p.beta_slow)));
  const double mscale = p.attn_factor * (1 + 0.1 * std::log(1 / p.freq_scale));
  std::vector<float> out = x;
  const int64_t width = int64_t{p.n_heads} * p.head_dim;
  for (size_t t = 0; t < pos.size(); ++t) {
    for (int h = 0; h < p.n_heads; ++h) {
      const int64_t base = static_cast<int64_t>(t) * width + int64_t{h} * p.head_dim;
      for (int i0 = 0; i0 < p.n_rot; i0 += 2) {
        const double ramp = p.ext_factor * (1 - std::clamp((i0 / 2 - low) / std::max(0.001, high - low), 0.0, 1.0));
        const double original = pos[t] * std::pow(p.theta, -double(i0) / p.n_rot);
        const double angle = original * p.freq_scale * (1 - ramp) + original * ramp;
        const int64_t a = base + (p.pairing == TSR_ROPE_NEOX ? i0 / 2 : i0);
        const int64_t b = base + (p.pairing == TSR_ROPE_NEOX ? i0 / 2 + p.n_rot / 2 : i0 + 1);
        out[a] = static_cast<float>(mscale * (x[a] * std::cos(angle) - x[b] * std::sin(angle)));
        out[b] = static_cast<float>(mscale * (x[a] * std::sin(angle) + x[b] * std::cos(angle)));
      }
    }
  }
  return out;
}

TEST_F(RopeYarn, OnePairMixesTheAnglesAndScalesTheMagnitude) {
  // One pair (n_rot 2, frequency 1) at pos 1 with freq_scale 0.5. n_ctx_orig 4096 puts
  // low at 0 and high at 1, so pair 0's ramp is ext_factor = 0.5:
  // angle = 0.5 * 0.5 + 0.5 * 1 = 0.75 rad; magnitude 1 + 0.1 ln 2.
  const tsr_rope_params p =
      yarn_params(rope_params(10000.0f, 0.5f, 1, 2, 2, TSR_ROPE_NEOX), 0.5f, 1.0f, 32.0f, 1.0f, 4096);
  const auto x = HostTensor::f32({1, 2}, {1, 0});
  const auto pos = HostTensor::i32({1}, {1});
  EXPECT_THAT(rope(p, x, pos), Pointwise(FloatNear(1e-6f), {0.78240568f, 0.72888636f}));
}

struct YarnCase {
  int32_t pairing, n_heads, head_dim, n_rot;
  float freq_scale, ext_factor, attn_factor;
  int32_t n_ctx_orig;
};

class RopeYarnRandom : public RopeYarn, public ::testing::WithParamInterface<YarnCase> {};

TEST_P(RopeYarnRandom, MatchesTheHeaderFormula) {
  const YarnCase c = GetParam();
  const tsr_rope_params p = yarn_params(rope_params(10000.0f, c.freq_scale, c.n_heads, c.head_dim, c.n_rot, c.pairing),
                                        c.ext_factor, c.attn_factor, 32.0f, 1.0f, c.n_ctx_orig);
  const int64_t width = int64_t{c.n_heads} * c.head_dim;
  const std::vector<float> values = random_values(static_cast<size_t>(6 * width), 51);
  std::vector<int32_t> positions = {0, 1, 17, 255, 1024, 5000};
  const auto x = HostTensor::f32({6, width}, values);
  const auto pos = HostTensor::i32({6}, positions);
  EXPECT_LT(relative_error(rope(p, x, pos), yarn_formula(values, positions, p)), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Variants, RopeYarnRandom,
                         ::testing::Values(YarnCase{TSR_ROPE_NEOX, 3, 10, 8, 0.25f, 1.0f, 1.0f, 4096},
                                           YarnCase{TSR_ROPE_INTERLEAVED, 2, 64, 64, 0.125f, 1.0f, 0.9f, 2048},
                                           YarnCase{TSR_ROPE_NEOX, 4, 128, 96, 0.5f, 0.5f, 1.0f, 8192},
                                           YarnCase{TSR_ROPE_INTERLEAVED, 1, 6, 6, 1.0f, 1.0f, 1.0f, 64}),
                         [](const auto& info) {
                           const YarnCase& c = info.param;
                           return std::string(c.pairing == TSR_ROPE_NEOX ? "neox" : "interleaved") + "_dim" +
                                  std::to_string(c.head_dim) + "_rot" + std::to_string(c.n_rot) + "_ctx" +
                                  std::to_string(c.n_ctx_orig);
                         });

TEST_F(RopeYarn, ExtFactorZeroIgnoresTheOtherYarnFieldsBitForBit) {
  const tsr_rope_params plain = rope_params(10000.0f, 0.25f, 2, 16, 12, TSR_ROPE_NEOX);
  const tsr_rope_params off = yarn_params(plain, 0.0f, 3.0f, 32.0f, 1.0f, 4096);
  const auto x = HostTensor::f32({3, 32}, random_values(96, 52));
  const auto pos = HostTensor::i32({3}, {0, 7, 3000});
  EXPECT_EQ(rope(off, x, pos), rope(plain, x, pos));
}

TEST_F(RopeYarn, RejectsANegativeExtFactor) {
  const tsr_rope_params p =
      yarn_params(rope_params(10000.0f, 0.5f, 1, 8, 8, TSR_ROPE_NEOX), -1.0f, 1.0f, 32.0f, 1.0f, 4096);
  EXPECT_THAT(fails(p), StrEq("rope: ext_factor must be >= 0, got -1.000000"));
}

TEST_F(RopeYarn, RejectsYarnWithoutAnOriginalContext) {
  const tsr_rope_params p =
      yarn_params(rope_params(10000.0f, 0.5f, 1, 8, 8, TSR_ROPE_NEOX), 1.0f, 1.0f, 32.0f, 1.0f, 0);
  EXPECT_THAT(fails(p), StrEq("rope: YaRN needs theta > 1, freq_scale > 0, beta_fast > 0, beta_slow > 0 and "
                              "n_ctx_orig > 0"));
}

}  // namespace
}  // namespace tessera::cpu::test
