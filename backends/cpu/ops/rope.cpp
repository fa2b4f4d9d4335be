// ROPE kernels; angles are computed in double so the oracle stays accurate at large
// positions. Each token's cos and sin are computed once for all its heads; the optimised
// kernel is the reference over the threads, so the two agree bit for bit.
#include "backends/cpu/ops/rope.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <optional>
#include <vector>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>
#include <tessera/kit/rope_terms.h>

#include "backends/cpu/device.h"

namespace tessera::cpu {
namespace {

constexpr const char* kOp = "rope";


// Llama 3.1's frequency f of a pair: unchanged when its wavelength 2 pi / f fits
// high_freq_factor times into n_ctx_orig, f / factor when it does not fit
// low_freq_factor times, and a linear blend of the two in between. With
// ratio = n_ctx_orig / wavelength the blend weight is continuous at both band edges,
// so which side of an edge rounding picks does not matter.
double llama3_frequency(double f, const tsr_rope_params& p) {
  const double ratio = p.n_ctx_orig * f / (2.0 * std::numbers::pi);
  const double low = p.llama3_low_freq_factor, high = p.llama3_high_freq_factor;
  if (ratio > high) return f;
  if (ratio < low) return f / p.llama3_factor;
  const double s = (ratio - low) / (high - low);
  return (1.0 - s) * f / p.llama3_factor + s * f;
}

// Per pair i < n_rot / 2: theta^(-2i / n_rot), rescaled by Llama 3.1's bands and
// divided by freq_factors[i] when those are given. Without either, the values are
// exactly those of plain RoPE.
std::vector<double> pair_frequencies(const tsr_rope_params& p, const float* freq_factors) {
  std::vector<double> inv_freq(static_cast<size_t>(p.n_rot / 2));
  for (size_t i = 0; i < inv_freq.size(); ++i) {
    double f = std::pow(static_cast<double>(p.theta), -2.0 * static_cast<double>(i) / p.n_rot);
    if (p.llama3_factor > 0.0f) f = llama3_frequency(f, p);
    if (freq_factors) f /= freq_factors[i];
    inv_freq[i] = f;
  }
  return inv_freq;
}

// What YaRN changes for each pair: the weight of the original (unscaled) angle, and
// the factor on cos and sin. Without YaRN every weight is 0 and the factor 1.
struct YarnMix {
  std::vector<double> ramp;  // [n_rot / 2]
  double magnitude = 1.0;
};

YarnMix yarn_mix(const tsr_rope_params& p) {
  YarnMix mix{std::vector<double>(static_cast<size_t>(p.n_rot / 2), 0.0), 1.0};
  if (p.ext_factor == 0.0f) return mix;
  const kit::YarnBounds bounds = kit::yarn_bounds(p);
  for (size_t i = 0; i < mix.ramp.size(); ++i) {
    const double y = (static_cast<double>(i) - bounds.low) / std::max(0.001, bounds.high - bounds.low);
    mix.ramp[i] = p.ext_factor * (1.0 - std::clamp(y, 0.0, 1.0));
  }
  mix.magnitude = bounds.magnitude;
  return mix;
}

// The optional input 2, freq_factors f32 [n_rot / 2], or nullopt.
std::optional<TensorView> freq_factors_input(const tsr_op_call& call, const tsr_rope_params& p) {
  if (call.n_inputs < 3) return std::nullopt;
  const TensorView factors = input(call, 2, kOp, "freq_factors");
  kit::check_rope_factors(factors, p);
  return factors;
}

// A checked ROPE call and the angles' per-pair parts, shared by every token.
struct RopeArgs {
  TensorView x, pos, out;
  tsr_rope_params p{};
  const float* factors = nullptr;  // freq_factors [n_rot / 2], or none
  std::vector<double> inv_freq;     // [n_rot / 2], after find_pair_terms
  YarnMix yarn;
};

RopeArgs check_rope(const tsr_op_call& call) {
  expect_input_count(call, 2, 3, kOp);
  RopeArgs a;
  a.x = input(call, 0, kOp, "x");      // [T, n_heads * head_dim]
  a.pos = input(call, 1, kOp, "pos");  // [T] i32
  a.out = output(call, kOp);           // [T, n_heads * head_dim]
  a.p = params_of<tsr_rope_params>(call, kOp);
  kit::check_rope(a.x, a.pos, a.out, a.p);
  const std::optional<TensorView> factors = freq_factors_input(call, a.p);  // [n_rot / 2]
  a.factors = factors ? factors->as<const float>() : nullptr;
  return a;
}

// Fills the per-pair parts of the angles in.
void find_pair_terms(RopeArgs& a) {
  a.inv_freq = pair_frequencies(a.p, a.factors);
  a.yarn = yarn_mix(a.p);
}

// The cos and sin of each pair's angle at position `pos`, into cs [n_rot].
void token_angles(const RopeArgs& a, int32_t pos, double* cs) {
  const tsr_rope_params& p = a.p;
  const double scaled_pos = static_cast<double>(pos) * p.freq_scale;
  for (int i = 0; i < p.n_rot / 2; ++i) {
    double angle = scaled_pos * a.inv_freq[i];
    if (a.yarn.ramp[i] != 0.0) {  // only with YaRN: keeps ext_factor 0 bit-identical
      const double original = static_cast<double>(pos) * a.inv_freq[i];
      angle = angle * (1.0 - a.yarn.ramp[i]) + original * a.yarn.ramp[i];
    }
    cs[2 * i] = std::cos(angle) * a.yarn.magnitude;
    cs[2 * i + 1] = std::sin(angle) * a.yarn.magnitude;
  }
}

// Every head of token t turned by the angles cs [n_rot].
void rotate_token(const RopeArgs& a, int64_t t, const double* cs) {
  const tsr_rope_params& p = a.p;
  const int half = p.n_rot / 2;
  for (int h = 0; h < p.n_heads; ++h) {
    const float* v = a.x.row<const float>(t) + static_cast<int64_t>(h) * p.head_dim;
    float* o = a.out.row<float>(t) + static_cast<int64_t>(h) * p.head_dim;
    for (int d = p.n_rot; d < p.head_dim; ++d) o[d] = v[d];  // pass-through dims
    for (int i = 0; i < half; ++i) {
      // The two dims of pair i, by pairing.
      const int ia = p.pairing == TSR_ROPE_NEOX ? i : 2 * i;
      const int ib = p.pairing == TSR_ROPE_NEOX ? i + half : 2 * i + 1;
      const double c = cs[2 * i], s = cs[2 * i + 1];
      const double x0 = v[ia], x1 = v[ib];
      o[ia] = static_cast<float>(x0 * c - x1 * s);
      o[ib] = static_cast<float>(x0 * s + x1 * c);
    }
  }
}

// Tokens [t_begin, t_end): each pair's cos and sin once per token, then every head.
// cs holds n_rot values of scratch.
void rope_tokens(const RopeArgs& a, int64_t t_begin, int64_t t_end, std::vector<double>& cs) {
  cs.resize(static_cast<size_t>(a.p.n_rot));
  const int32_t* positions = a.pos.as<const int32_t>();
  for (int64_t t = t_begin; t < t_end; ++t) {
    token_angles(a, positions[t], cs.data());
    rotate_token(a, t, cs.data());
  }
}

// A decode step ropes q and k of every layer at the same positions with the same
// parameters, and the pow, cos and sin of each were most of a SmolLM2-sized rope's time:
// calls of up to this many tokens keep their angles (CpuDevice::rope_angles).
constexpr int64_t kCachedTokens = 64;

tsr_rope_params angle_params(tsr_rope_params p) {
  p.n_heads = p.head_dim = p.pairing = 0;
  return p;
}

// The angles of a's tokens [T, n_rot], from the cache where it holds the same call's.
const double* cached_angles(RopeArgs& a, RopeAngleCache& cache) {
  const tsr_rope_params p = angle_params(a.p);
  const auto* positions = a.pos.as<const int32_t>();
  const size_t n_tokens = static_cast<size_t>(a.x.rows()), n_pairs = static_cast<size_t>(a.p.n_rot / 2);
  const bool same = std::memcmp(&cache.p, &p, sizeof p) == 0 && cache.positions.size() == n_tokens &&
                    std::equal(positions, positions + n_tokens, cache.positions.begin()) &&
                    (a.factors == nullptr ? cache.factors.empty()
                                          : cache.factors.size() == n_pairs &&
                                                std::equal(a.factors, a.factors + n_pairs, cache.factors.begin()));
  if (!same) {
    cache.p = tsr_rope_params{};  // matches no call until the angles below are complete
    find_pair_terms(a);
    cache.positions.assign(positions, positions + n_tokens);
    cache.factors.assign(a.factors, a.factors == nullptr ? a.factors : a.factors + n_pairs);
    cache.cs.resize(n_tokens * static_cast<size_t>(a.p.n_rot));
    for (size_t t = 0; t < n_tokens; ++t) token_angles(a, positions[t], cache.cs.data() + t * a.p.n_rot);
    cache.p = p;
  }
  return cache.cs.data();
}

}  // namespace

void rope_ref(CpuDevice&, const tsr_op_call& call) {
  RopeArgs a = check_rope(call);
  find_pair_terms(a);
  std::vector<double> cs;
  rope_tokens(a, 0, a.x.rows(), cs);
}

void rope_fast(CpuDevice& device, const tsr_op_call& call) {
  RopeArgs a = check_rope(call);
  // A token is n_heads * head_dim elements and n_rot / 2 cos/sin pairs.
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(a.x.cols(), 1));
  if (a.x.rows() <= kCachedTokens) {
    const double* cs = cached_angles(a, device.rope_angles());
    device.pool().parallel_for(a.x.rows(), grain, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) rotate_token(a, t, cs + t * a.p.n_rot);
    });
    return;
  }
  find_pair_terms(a);
  device.pool().parallel_for(a.x.rows(), grain, [&](int64_t b, int64_t e) {
    std::vector<double> cs;
    rope_tokens(a, b, e, cs);
  });
}

}  // namespace tessera::cpu
