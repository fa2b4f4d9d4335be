// RoPE's per-element arithmetic as __host__ __device__ functions (TSR_HD): the
// frequency of a pair (Llama 3.1 bands, GGUF's freq_factors), its angle (linear
// scaling, YaRN's ramp), reduced to [-pi, pi] before cos and sin, and the rotated
// value of one element of a head. The CUDA kernel evaluates these; the CPU test
// compares the same functions, compiled for the host, with the CPU reference.
#pragma once

#include <cmath>
#include <cstdint>

#include <tessera/kit/host_device.h>
#include <tessera/kit/rope_terms.h>

namespace tessera::cuda {

struct RopeLaunch {
  const float* x = nullptr;             // [T, n_heads * head_dim]
  const int32_t* pos = nullptr;         // [T]
  const float* freq_factors = nullptr;  // [n_rot / 2], or null
  float* out = nullptr;
  int64_t n_tokens = 0;
  int32_t n_heads = 0, head_dim = 0, n_rot = 0;
  bool neox = false;
  float freq_scale = 1.0f, ext_factor = 0.0f;
  float llama3_factor = 0.0f, llama3_low = 0.0f, llama3_high = 0.0f;  // factor 0: no Llama 3.1 scaling
  kit::RopeTerms terms;
};

TSR_HD inline float rope_pair_frequency(const RopeLaunch& r, int i) {
  float f = exp2f(-static_cast<float>(i) * r.terms.log2_theta_step);
  if (r.llama3_factor > 0.0f) {
    const float ratio = r.terms.llama3_ctx_per_turn * f;  // n_ctx_orig / wavelength
    if (ratio < r.llama3_low) {
      f = f / r.llama3_factor;
    } else if (ratio <= r.llama3_high) {
      const float s = (ratio - r.llama3_low) / (r.llama3_high - r.llama3_low);
      f = (1.0f - s) * f / r.llama3_factor + s * f;
    }
  }
  if (r.freq_factors != nullptr) f /= r.freq_factors[i];
  return f;
}

TSR_HD inline float rope_pair_angle(const RopeLaunch& r, int i, int32_t position) {
  const float inv_freq = rope_pair_frequency(r, i);
  const float interpolated = static_cast<float>(position) * r.freq_scale * inv_freq;
  if (r.ext_factor == 0.0f) return interpolated;
  const float y = (static_cast<float>(i) - r.terms.yarn_low) / fmaxf(0.001f, r.terms.yarn_high - r.terms.yarn_low);
  const float ramp = r.ext_factor * (1.0f - fminf(fmaxf(y, 0.0f), 1.0f));
  return interpolated * (1.0f - ramp) + static_cast<float>(position) * inv_freq * ramp;
}

// Element d of the head at `head` (head_dim values) of a token at `position`.
TSR_HD inline float rope_element(const RopeLaunch& r, const float* head, int d, int32_t position) {
  if (d >= r.n_rot) return head[d];
  const int half_rot = r.n_rot / 2;
  const int i = r.neox ? d % half_rot : d / 2;         // pair index
  const int ia = r.neox ? i : 2 * i;                   // first dim of the pair
  const int ib = r.neox ? i + half_rot : 2 * i + 1;    // second dim
  constexpr float kTwoPi = 6.28318530717958648f;
  float angle = rope_pair_angle(r, i, position);
  angle -= kTwoPi * floorf(angle / kTwoPi + 0.5f);  // into [-pi, pi], where sin and cos are accurate
  const float c = cosf(angle) * r.terms.magnitude, s = sinf(angle) * r.terms.magnitude;
  const float a = head[ia], b = head[ib];
  return d == ia ? a * c - b * s : a * s + b * c;
}

}  // namespace tessera::cuda
