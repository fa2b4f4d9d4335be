// Second dispatch of split-KV ATTENTION, one workgroup per (token t, query head h):
// combines the n_splits partial results attention.comp wrote,
//   partials [n_groups, n_splits, HEAD_DIM + 2] f32 = (m_s, sum_s, acc_s[HEAD_DIM]),
// into out [T, n_heads * HEAD_DIM] f32 (group g = t * n_heads + h is row t, columns
// h * HEAD_DIM ...): with m = max m_s and w_s = exp(m_s - m),
//   out = sum_s w_s acc_s / sum_s w_s sum_s.
// Empty splits (sum 0) add nothing. A split that found a bad index wrote sum = -code
// and the bad value's int bits in place of m_s: the merge reports it through the error
// word (with the message codes of attention.comp) and writes the row as zeros.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64u;
layout(constant_id = 1) const uint HEAD_DIM = 64u;

const uint MAX_SPLITS = 32u;  // kAttentionMaxSplits of ops/attention_path.h

layout(push_constant) uniform Push {
  FloatRef partials;
  FloatRef out_;
  StatusRef status;
  uint n_groups;  // n_tokens * n_heads
  uint n_heads;
  uint n_splits;
  uint call_id;
} p;

shared float weight_sh[MAX_SPLITS];  // w_s, 0 for an empty split

void main() {
  const float NEG_INF = uintBitsToFloat(0xff800000u);
  const uint group = flat_group_id();
  if (group >= p.n_groups) return;
  const uint tid = gl_LocalInvocationID.x;
  const uint record = HEAD_DIM + 2u;
  const uint base = group * p.n_splits * record;

  // Every invocation finds m and whether a split failed (n_splits pairs of floats).
  float m = NEG_INF;
  bool failed = false;
  for (uint s = 0u; s < p.n_splits; ++s) {
    const float sum = p.partials.v[base + s * record + 1u];
    if (sum < 0.0 && !failed) {
      failed = true;
      const int value = IntRef(p.partials).v[base + s * record];
      if (tid == 0u) report_error(p.status, p.call_id, uint(-sum), int(group / p.n_heads), value);
    }
    if (sum > 0.0) m = max(m, p.partials.v[base + s * record]);
  }
  for (uint s = tid; s < p.n_splits; s += WG) {
    const float sum = p.partials.v[base + s * record + 1u];
    weight_sh[s] = sum > 0.0 ? exp(p.partials.v[base + s * record] - m) : 0.0;
  }
  barrier();

  float total = 0.0;
  for (uint s = 0u; s < p.n_splits; ++s) {
    if (weight_sh[s] > 0.0) total += weight_sh[s] * p.partials.v[base + s * record + 1u];
  }
  const bool zero = failed || !(total > 0.0);
  for (uint d = tid; d < HEAD_DIM; d += WG) {
    float value = 0.0;
    if (!zero) {
      for (uint s = 0u; s < p.n_splits; ++s) {
        if (weight_sh[s] > 0.0) value += weight_sh[s] * p.partials.v[base + s * record + 2u + d];
      }
      value /= total;
    }
    p.out_.v[group * HEAD_DIM + d] = value;
  }
}
