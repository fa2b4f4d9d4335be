// The per-call terms of ROPE (see rope_terms.h), as plugin_abi.h states them.
#include <tessera/kit/rope_terms.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tessera::kit {

YarnBounds yarn_bounds(const tsr_rope_params& p) {
  YarnBounds y;
  if (p.ext_factor == 0.0f) return y;
  // d(b): the pair index that turns b times over n_ctx_orig tokens.
  const auto pair_turning = [&](double b) {
    return p.n_rot * std::log(p.n_ctx_orig / (2.0 * std::numbers::pi * b)) / (2.0 * std::log(double{p.theta}));
  };
  y.low = std::max(0.0, std::floor(pair_turning(p.beta_fast)));
  y.high = std::min(p.n_rot - 1.0, std::ceil(pair_turning(p.beta_slow)));
  y.magnitude = p.attn_factor * (1.0 + 0.1 * std::log(1.0 / p.freq_scale));
  return y;
}

RopeTerms rope_terms(const tsr_rope_params& p) {
  RopeTerms t;
  // Frequencies theta^(-2i / n_rot) = exp2(-i * step): the step is formed in double so
  // a kernel's error stays that of one exp2.
  t.log2_theta_step = p.n_rot > 0 ? static_cast<float>(2.0 * std::log2(static_cast<double>(p.theta)) / p.n_rot) : 0.0f;
  const YarnBounds y = yarn_bounds(p);
  t.yarn_low = static_cast<float>(y.low);
  t.yarn_high = static_cast<float>(y.high);
  t.magnitude = static_cast<float>(y.magnitude);
  if (p.llama3_factor > 0.0f) t.llama3_ctx_per_turn = static_cast<float>(p.n_ctx_orig / (2.0 * std::numbers::pi));
  return t;
}

}  // namespace tessera::kit
