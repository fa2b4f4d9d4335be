// ROPE: x, out [T, n_heads * head_dim] f32, pos i32 [T]. The first n_rot dims of every
// head are rotated in pairs (interleaved: (2i, 2i+1); neox: (i, i + n_rot/2)) by the
// angle pos * freq_scale * theta^(-2i / n_rot); the other dims are copied.
// One invocation per output element.
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
} p;

const float TWO_PI = 6.28318530717958648;

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
  const float inv_freq = exp2(-float(i) * p.log2_theta_step);
  float angle = float(p.pos.v[t]) * p.freq_scale * inv_freq;
  angle -= TWO_PI * floor(angle / TWO_PI + 0.5);  // into [-pi, pi] where sin/cos are accurate
  const float c = cos(angle), s = sin(angle);
  const float a = p.x.v[head_start + ia], b = p.x.v[head_start + ib];
  p.out_.v[e] = d == ia ? a * c - b * s : a * s + b * c;
}
