// ROPE frequency scaling (ABI v2): Llama 3.1's "llama3" bands and the optional
// freq_factors input of the reference kernel, against the formulas of plugin_abi.h
// written out here (tolerance 1e-6 relative to the largest output), on hand-computed
// pairs and random inputs; plain RoPE stays bit for bit; bad params are refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/cpu/ops/rope.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

using ::testing::FloatNear;
using ::testing::Pointwise;
using ::testing::StrEq;

// Llama 3.1's published values: factor 8, low 1, high 4 over 8192 tokens.
tsr_rope_params llama31(tsr_rope_params plain) { return llama3_params(plain, 8.0f, 1.0f, 4.0f, 8192); }

enum class Band { kept, blended, divided };

// The header's text, transcribed: pair i's frequency f = theta^(-2i / n_rot) has
// wavelength w = 2 pi / f; w < L / high keeps f, w > L / low uses f / factor, and in
// between s = (L / w - low) / (high - low) gives (1 - s) f / factor + s f.
Band llama3_band(const tsr_rope_params& p, int i) {
  const double w = 2 * std::numbers::pi / std::pow(p.theta, -2.0 * i / p.n_rot);
  if (w < p.n_ctx_orig / p.llama3_high_freq_factor) return Band::kept;
  if (w > p.n_ctx_orig / p.llama3_low_freq_factor) return Band::divided;
  return Band::blended;
}

double llama3_frequency(const tsr_rope_params& p, int i) {
  const double f = std::pow(p.theta, -2.0 * i / p.n_rot);
  const double w = 2 * std::numbers::pi / f;
  const double low = p.llama3_low_freq_factor, high = p.llama3_high_freq_factor, factor = p.llama3_factor;
  switch (llama3_band(p, i)) {
    case Band::kept: return f;
    case Band::divided: return f / factor;
    case Band::blended: break;
  }
  const double s = (p.n_ctx_orig / w - low) / (high - low);
  return (1 - s) * f / factor + s * f;
}

// Plain RoPE with each pair's frequency from `frequency(i)`, its angle divided by
// factors[i] when given.
template <class Frequency>
std::vector<float> rope_formula(const std::vector<float>& x, const std::vector<int32_t>& pos,
                                const tsr_rope_params& p, Frequency frequency,
                                const std::optional<std::vector<float>>& factors) {
  std::vector<float> out = x;
  const int64_t width = int64_t{p.n_heads} * p.head_dim;
  for (size_t t = 0; t < pos.size(); ++t) {
    for (int h = 0; h < p.n_heads; ++h) {
      const int64_t base = static_cast<int64_t>(t) * width + int64_t{h} * p.head_dim;
      for (int i = 0; i < p.n_rot / 2; ++i) {
        double angle = pos[t] * double{p.freq_scale} * frequency(i);
        if (factors) angle /= (*factors)[static_cast<size_t>(i)];
        const int64_t a = base + (p.pairing == TSR_ROPE_NEOX ? i : 2 * i);
        const int64_t b = base + (p.pairing == TSR_ROPE_NEOX ? i + p.n_rot / 2 : 2 * i + 1);
        out[a] = static_cast<float>(x[a] * std::cos(angle) - x[b] * std::sin(angle));
        out[b] = static_cast<float>(x[a] * std::sin(angle) + x[b] * std::cos(angle));
      }
    }
  }
  return out;
}

class RopeScaling : public ::testing::Test {
 protected:
  std::vector<float> rope(const tsr_rope_params& p, const HostTensor& x, const HostTensor& pos,
                          const HostTensor* factors = nullptr) {
    HostTensor out(TSR_DTYPE_F32, {x.desc().shape[0], x.desc().shape[1]});
    std::vector<const HostTensor*> inputs = {&x, &pos};
    if (factors) inputs.push_back(factors);
    EXPECT_EQ(run_kernel(device_, rope_ref, TSR_OP_ROPE, &p, inputs, out), TSR_OK) << device_.last_error();
    return out.to_f32();
  }
  // The message of a call on x [1, 8] (one head of 8 dims) that must fail.
  std::string fails(const tsr_rope_params& p, const std::vector<const HostTensor*>& extra_inputs = {}) {
    HostTensor x(TSR_DTYPE_F32, {1, 8}), out(TSR_DTYPE_F32, {1, 8});
    const auto pos = HostTensor::i32({1}, {3});
    std::vector<const HostTensor*> inputs = {&x, &pos};
    inputs.insert(inputs.end(), extra_inputs.begin(), extra_inputs.end());
    EXPECT_EQ(run_kernel(device_, rope_ref, TSR_OP_ROPE, &p, inputs, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{1};
};

TEST_F(RopeScaling, Llama3BlendsAPairBetweenTheBands) {
  // One pair of frequency 1 (wavelength 2 pi) over n_ctx_orig 12: L / w = 1.90986 lies
  // between low 1 and high 4, so s = 0.303286 and f = (1 - s) / 8 + s = 0.390376;
  // at pos 2 the angle is 0.780751 rad, turning (0.5, -1) to (1.059006, -0.358478).
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 2, 2, TSR_ROPE_NEOX), 8.0f, 1.0f, 4.0f, 12);
  const auto x = HostTensor::f32({1, 2}, {0.5f, -1.0f});
  const auto pos = HostTensor::i32({1}, {2});
  EXPECT_THAT(rope(p, x, pos), Pointwise(FloatNear(1e-6f), {1.05900580f, -0.35847833f}));
}

TEST_F(RopeScaling, FreqFactorDividesThePairsAngle) {
  // Frequency 1 at pos 3 with factor 4: 0.75 rad.
  const tsr_rope_params p = rope_params(10000.0f, 1.0f, 1, 2, 2, TSR_ROPE_INTERLEAVED);
  const auto x = HostTensor::f32({1, 2}, {1.0f, 0.0f});
  const auto pos = HostTensor::i32({1}, {3});
  const auto factors = HostTensor::f32({1}, {4.0f});
  EXPECT_THAT(rope(p, x, pos, &factors), Pointwise(FloatNear(1e-6f), {0.73168887f, 0.68163876f}));
}

TEST_F(RopeScaling, Llama31KeepsHighFrequenciesAndDividesLowOnes) {
  // Theta 500000 with 16 rotated dims: the bands of a 128-dim head, eight times coarser.
  const tsr_rope_params plain = rope_params(500000.0f, 1.0f, 1, 16, 16, TSR_ROPE_NEOX);
  const tsr_rope_params p = llama31(plain);
  std::vector<Band> bands;
  for (int i = 0; i < 8; ++i) bands.push_back(llama3_band(p, i));
  ASSERT_THAT(bands, ::testing::ElementsAre(Band::kept, Band::kept, Band::kept, Band::kept, Band::blended,
                                            Band::divided, Band::divided, Band::divided));
  const auto x = HostTensor::f32({1, 16}, random_values(16, 60));
  const auto pos = HostTensor::i32({1}, {20000});
  tsr_rope_params eighth = plain;
  eighth.freq_scale = 0.125f;
  const std::vector<float> got = rope(p, x, pos), unscaled = rope(plain, x, pos), divided = rope(eighth, x, pos);
  for (int i = 0; i < 8; ++i) {  // neox: pair i is dims i and i + 8
    for (const int d : {i, i + 8}) {
      switch (bands[i]) {
        case Band::kept: EXPECT_EQ(got[d], unscaled[d]) << "dim " << d; break;
        case Band::divided: EXPECT_NEAR(got[d], divided[d], 1e-6) << "dim " << d; break;
        case Band::blended:
          EXPECT_GT(std::fabs(got[d] - unscaled[d]), 1e-3) << "dim " << d;
          EXPECT_GT(std::fabs(got[d] - divided[d]), 1e-3) << "dim " << d;
          break;
      }
    }
  }
}

struct ScalingCase {
  std::string name;
  int32_t pairing, n_heads, head_dim, n_rot;
  float theta, freq_scale;
  bool llama3, factors;
};

// gtest prints a failing case by its name (not as raw bytes).
void PrintTo(const ScalingCase& c, std::ostream* out) { *out << c.name; }

class RopeScalingRandom : public RopeScaling, public ::testing::WithParamInterface<ScalingCase> {};

TEST_P(RopeScalingRandom, MatchesTheHeaderFormula) {
  const ScalingCase c = GetParam();
  tsr_rope_params p = rope_params(c.theta, c.freq_scale, c.n_heads, c.head_dim, c.n_rot, c.pairing);
  if (c.llama3) p = llama31(p);
  const int64_t width = int64_t{c.n_heads} * c.head_dim;
  const std::vector<float> values = random_values(static_cast<size_t>(7 * width), 61);
  const std::vector<int32_t> positions = {0, 1, 17, 2047, 8191, 30000, 131071};
  std::optional<std::vector<float>> factors;
  if (c.factors) factors = random_values(static_cast<size_t>(c.n_rot / 2), 62, 1.0f, 40.0f);
  const auto x = HostTensor::f32({7, width}, values);
  const auto pos = HostTensor::i32({7}, positions);
  const std::optional<HostTensor> factor_tensor =
      factors ? std::optional(HostTensor::f32({c.n_rot / 2}, *factors)) : std::nullopt;
  const auto frequency = [&](int i) {
    return c.llama3 ? llama3_frequency(p, i) : std::pow(p.theta, -2.0 * i / p.n_rot);
  };
  EXPECT_LT(relative_error(rope(p, x, pos, factor_tensor ? &*factor_tensor : nullptr),
                           rope_formula(values, positions, p, frequency, factors)),
            1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, RopeScalingRandom,
    ::testing::Values(ScalingCase{"llama3_neox_rot16", TSR_ROPE_NEOX, 3, 16, 16, 500000.0f, 1.0f, true, false},
                      ScalingCase{"llama3_interleaved_rot8", TSR_ROPE_INTERLEAVED, 2, 10, 8, 500000.0f, 1.0f, true,
                                  false},
                      ScalingCase{"llama3_neox_rot32_scaled", TSR_ROPE_NEOX, 2, 32, 32, 500000.0f, 0.5f, true, false},
                      ScalingCase{"factors_neox", TSR_ROPE_NEOX, 3, 18, 12, 10000.0f, 1.0f, false, true},
                      ScalingCase{"factors_interleaved_scaled", TSR_ROPE_INTERLEAVED, 2, 16, 16, 10000.0f, 0.25f,
                                  false, true},
                      ScalingCase{"llama3_and_factors", TSR_ROPE_NEOX, 1, 16, 16, 500000.0f, 1.0f, true, true}),
    [](const auto& info) { return info.param.name; });

TEST_F(RopeScaling, FactorsOfOneLeavePlainRopeBitForBit) {
  const tsr_rope_params p = rope_params(10000.0f, 0.5f, 2, 16, 12, TSR_ROPE_NEOX);
  const auto x = HostTensor::f32({3, 32}, random_values(96, 63));
  const auto pos = HostTensor::i32({3}, {0, 7, 3000});
  const auto ones = HostTensor::f32({6}, std::vector<float>(6, 1.0f));
  EXPECT_EQ(rope(p, x, pos, &ones), rope(p, x, pos));
}

TEST_F(RopeScaling, Llama3FactorZeroIgnoresTheOriginalContextBitForBit) {
  const tsr_rope_params plain = rope_params(10000.0f, 0.5f, 2, 16, 12, TSR_ROPE_INTERLEAVED);
  tsr_rope_params off = plain;
  off.n_ctx_orig = 8192;
  const auto x = HostTensor::f32({3, 32}, random_values(96, 64));
  const auto pos = HostTensor::i32({3}, {0, 7, 3000});
  EXPECT_EQ(rope(off, x, pos), rope(plain, x, pos));
}

TEST_F(RopeScaling, Llama3ChangesTheOutput) {
  const tsr_rope_params plain = rope_params(500000.0f, 1.0f, 1, 16, 16, TSR_ROPE_NEOX);
  const auto x = HostTensor::f32({1, 16}, random_values(16, 65));
  const auto pos = HostTensor::i32({1}, {5000});
  EXPECT_GT(relative_error(rope(llama31(plain), x, pos), rope(plain, x, pos)), 0.1);
}

TEST_F(RopeScaling, RejectsLlama3WithYarn) {
  const tsr_rope_params p = llama31(
      yarn_params(rope_params(10000.0f, 0.5f, 1, 8, 8, TSR_ROPE_NEOX), 1.0f, 1.0f, 32.0f, 1.0f, 4096));
  EXPECT_THAT(fails(p), StrEq("rope: llama3 scaling and YaRN (ext_factor > 0) cannot be combined"));
}

TEST_F(RopeScaling, RejectsALowFactorNotBelowTheHighOne) {
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), 8.0f, 4.0f, 4.0f, 8192);
  EXPECT_THAT(fails(p), StrEq("rope: llama3 scaling needs llama3_low_freq_factor < llama3_high_freq_factor, got "
                              "4.000000 and 4.000000"));
}

TEST_F(RopeScaling, RejectsBandFactorsWithoutAFactor) {
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), 0.0f, 1.0f, 4.0f, 8192);
  EXPECT_THAT(fails(p), StrEq("rope: llama3_low_freq_factor 1.000000 and llama3_high_freq_factor 4.000000 need "
                              "llama3_factor > 0"));
}

TEST_F(RopeScaling, RejectsANegativeFactor) {
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), -8.0f, 1.0f, 4.0f, 8192);
  EXPECT_THAT(fails(p), StrEq("rope: llama3_factor must be >= 0 (0: off), got -8.000000"));
}

TEST_F(RopeScaling, RejectsLlama3WithoutAnOriginalContext) {
  const tsr_rope_params p = llama3_params(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), 8.0f, 1.0f, 4.0f, 0);
  EXPECT_THAT(fails(p), StrEq("rope: llama3 scaling needs n_ctx_orig > 0, got 0"));
}

TEST_F(RopeScaling, RejectsFreqFactorsOfTheWrongLength) {
  const auto factors = HostTensor::f32({3}, {1.0f, 2.0f, 3.0f});
  EXPECT_THAT(fails(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), {&factors}),
              StrEq("rope: freq_factors has shape [3], expected 4 elements"));
}

TEST_F(RopeScaling, RejectsFreqFactorsAsAMatrix) {
  const auto factors = HostTensor::f32({2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_THAT(fails(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), {&factors}),
              StrEq("rope: freq_factors has shape [2, 2], expected 4 elements"));
}

TEST_F(RopeScaling, RejectsFreqFactorsThatAreNotF32) {
  const HostTensor factors(TSR_DTYPE_F16, {4});
  EXPECT_THAT(fails(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), {&factors}),
              StrEq("rope: freq_factors is f16, expected f32"));
}

TEST_F(RopeScaling, RejectsAFourthInput) {
  const auto factors = HostTensor::f32({4}, {1.0f, 1.0f, 1.0f, 1.0f});
  EXPECT_THAT(fails(rope_params(10000.0f, 1.0f, 1, 8, 8, TSR_ROPE_NEOX), {&factors, &factors}),
              StrEq("rope: expects 2..3 inputs, got 4"));
}

}  // namespace
}  // namespace tessera::cpu::test
