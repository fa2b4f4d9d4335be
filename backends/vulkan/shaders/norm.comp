// RMS_NORM (KIND 0) and LAYER_NORM (KIND 1) over the rows of x [rows, cols] f32:
// one workgroup per row, sums reduced by workgroup_sum (subgroupAdd in the _subgroup
// variant, a shared-memory tree in the plain one).
//   rms:   out = x / sqrt(mean(x^2) + eps) * g
//   layer: out = (x - mean) / sqrt(var + eps) * g + b
// with g = w, or 1 + w when weight_plus_one is set, or 1 when has_weight is 0 (a layer
// norm without parameters). A grouped norm (tsr_norm_params.group) arrives as the rows
// of its groups: rows = N * C / group, cols = group; with a gain per group, row r's
// parameters start at (r % groups_per_row) * param_stride (param_stride 0: shared).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 128u;
layout(constant_id = 1) const uint KIND = 0u;

layout(push_constant) uniform Push {
  FloatRef x;
  FloatRef w;  // unused when has_weight is 0
  FloatRef b;  // layer norm bias; unused when has_bias is 0
  FloatRef out_;
  uint rows;
  uint cols;
  float eps;
  uint weight_plus_one;
  uint has_bias;
  uint has_weight;
  uint groups_per_row;
  uint param_stride;
} p;

// One slot per invocation for the tree; one per subgroup (at most WG) for subgroupAdd.
shared float partial[WG];

// The sum of every invocation's `v`, returned to all of them. With subgroup arithmetic:
// subgroupAdd, one shared slot per subgroup, and every invocation adds the slots in the
// same order (so all get the same total); else a log2(WG) shared-memory tree.
float workgroup_sum(float v) {
#if TESSERA_SUBGROUPS
  const float s = subgroupAdd(v);
  if (subgroupElect()) partial[gl_SubgroupID] = s;
  barrier();
  float total = 0.0;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) total += partial[i];
#else
  const uint t = gl_LocalInvocationID.x;
  partial[t] = v;
  barrier();
  for (uint s = WG / 2u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  const float total = partial[0];
#endif
  barrier();  // partial is reused by the next call
  return total;
}

void main() {
  const uint row = flat_group_id();
  if (row >= p.rows) return;
  const uint t = gl_LocalInvocationID.x;
  const uint base = row * p.cols;
  const float n = float(p.cols);

  float mean = 0.0;
  if (KIND == 1u) {
    float s = 0.0;
    for (uint c = t; c < p.cols; c += WG) s += p.x.v[base + c];
    mean = workgroup_sum(s) / n;
  }
  float sq = 0.0;
  for (uint c = t; c < p.cols; c += WG) {
    const float d = p.x.v[base + c] - mean;
    sq += d * d;
  }
  const float inv = inversesqrt(workgroup_sum(sq) / n + p.eps);
  const uint param = (row % p.groups_per_row) * p.param_stride;
  for (uint c = t; c < p.cols; c += WG) {
    const float w = p.has_weight == 0u ? 0.0 : p.w.v[param + c];
    const float g = p.has_weight == 0u ? 1.0 : (p.weight_plus_one != 0u ? 1.0 + w : w);
    float y = (p.x.v[base + c] - mean) * inv * g;
    if (KIND == 1u && p.has_bias != 0u) y += p.b.v[param + c];
    p.out_.v[base + c] = y;
  }
}
