// What a ROPE kernel derives from tsr_rope_params once per call, on the host and in
// double, so that the per-element work on a device stays in f32: the frequency step,
// YaRN's ramp bounds and cos/sin magnitude, and Llama 3.1's context per turn.
#pragma once

#include <tessera/plugin_abi.h>

namespace tessera::kit {

struct RopeTerms {
  float log2_theta_step = 0.0f;  // 2 log2(theta) / n_rot: pair i's frequency is exp2(-i * step)
  float yarn_low = 0.0f;         // YaRN's ramp bounds (pair indices) and the factor of cos
  float yarn_high = 0.0f;        // and sin; 0, 0, 1 without YaRN (ext_factor 0)
  float magnitude = 1.0f;
  float llama3_ctx_per_turn = 0.0f;  // n_ctx_orig / (2 pi); 0 without Llama 3.1 scaling
};

// The terms of `p` (checked by check_rope_params).
RopeTerms rope_terms(const tsr_rope_params& p);

// YaRN's ramp bounds and magnitude in double (the CPU reference's precision); 0, 0, 1
// without YaRN. rope_terms holds them rounded to float.
struct YarnBounds {
  double low = 0.0, high = 0.0, magnitude = 1.0;
};
YarnBounds yarn_bounds(const tsr_rope_params& p);

}  // namespace tessera::kit
