// ROPE: x, out [T, n_heads * head_dim] f32, pos i32 [T]. The first n_rot dims of every
// head are rotated in pairs (interleaved: (2i, 2i+1); neox: (i, i + n_rot/2)) by the
// angle pos * freq_scale * f(i), f(i) = theta^(-2i / n_rot), rescaled by Llama 3.1's
// bands when llama3_factor > 0 and divided by freq_factors[i] when given; the other
// dims are copied. With YaRN (ext_factor > 0) pair i's angle is mixed with the
// unscaled pos * f(i) by ramp(i) = ext_factor * (1 - clamp((i - low) / max(0.001,
// high - low), 0, 1)), and cos and sin are scaled by `magnitude` (low, high and
// magnitude come from the host). One invocation per output element.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
  FloatRef x;
  IntRef pos;
  FloatRef out_;
  uint n_tokens;
  uint n_heads;
  uint head_dim;
  uint n_rot;
  uint neox;
  float freq_scale;
  float log2_theta_step;  // 2 * log2(theta) / n_rot, computed on the host in double
  float ext_factor;       // 0: no YaRN, and the three below are unused
  float yarn_low;
  float yarn_high;
  float magnitude;
  uint has_freq_factors;
  FloatRef freq_factors;  // [n_rot / 2], read only when has_freq_factors != 0
  float llama3_factor;        // 0: no Llama 3.1 scaling, and the three below are unused
  float llama3_low;           // low_freq_factor
  float llama3_high;          // high_freq_factor
  float llama3_ctx_per_turn;  // n_ctx_orig / (2 pi)
} p;

const float TWO_PI = 6.28318530717958648;

// Llama 3.1: f is kept when its wavelength fits llama3_high times into n_ctx_orig,
// divided by the factor when it fits fewer than llama3_low times, and blended in
// between; the blend is continuous at both edges, so rounding near one is harmless.
float llama3_frequency(float f) {
  const float ratio = p.llama3_ctx_per_turn * f;  // n_ctx_orig / wavelength
  if (ratio > p.llama3_high) return f;
  if (ratio < p.llama3_low) return f / p.llama3_factor;
  const float s = (ratio - p.llama3_low) / (p.llama3_high - p.llama3_low);
  return (1.0 - s) * f / p.llama3_factor + s * f;
}

// The frequency of pair i: exactly plain RoPE's without Llama 3.1 and freq_factors.
float pair_frequency(uint i) {
  float f = exp2(-float(i) * p.log2_theta_step);
  if (p.llama3_factor > 0.0) f = llama3_frequency(f);
  if (p.has_freq_factors != 0u) f /= p.freq_factors.v[i];
  return f;
}

// The angle of pair i at position `position`.
float pair_angle(uint i, int position) {
  const float inv_freq = pair_frequency(i);
  const float interpolated = float(position) * p.freq_scale * inv_freq;
  if (p.ext_factor == 0.0) return interpolated;
  const float y = (float(i) - p.yarn_low) / max(0.001, p.yarn_high - p.yarn_low);
  const float ramp = p.ext_factor * (1.0 - clamp(y, 0.0, 1.0));
  return interpolated * (1.0 - ramp) + float(position) * inv_freq * ramp;
}

void main() {
  const uint width = p.n_heads * p.head_dim;
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (e >= p.n_tokens * width) return;
  const uint t = e / width;
  const uint head_start = e - (e % p.head_dim);
  const uint d = e % p.head_dim;
  if (d >= p.n_rot) {
    p.out_.v[e] = p.x.v[e];
    return;
  }
  const uint half_rot = p.n_rot / 2u;
  const uint i = p.neox != 0u ? d % half_rot : d / 2u;               // pair index
  const uint ia = p.neox != 0u ? i : 2u * i;                          // first dim of the pair
  const uint ib = p.neox != 0u ? i + half_rot : 2u * i + 1u;          // second dim
  float angle = pair_angle(i, p.pos.v[t]);
  angle -= TWO_PI * floor(angle / TWO_PI + 0.5);  // into [-pi, pi] where sin/cos are accurate
  const float c = cos(angle) * p.magnitude, s = sin(angle) * p.magnitude;
  const float a = p.x.v[head_start + ia], b = p.x.v[head_start + ib];
  p.out_.v[e] = d == ia ? a * c - b * s : a * s + b * c;
}
