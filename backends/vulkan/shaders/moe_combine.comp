// MOE_COMBINE: out[t, c] = sum_j route[t, k + j] * y[t, j * C + c], y [T, k * C] f32,
// route [T, 2k] f32, out [T, C] f32. One invocation per output element.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
  FloatRef y;
  FloatRef route;
  FloatRef out_;
  uint tokens;
  uint cols;  // C
  uint k;
  uint unused;
} p;

void main() {
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (e >= p.tokens * p.cols) return;
  const uint t = e / p.cols, c = e % p.cols;
  float sum = 0.0;
  for (uint j = 0u; j < p.k; ++j) sum += p.route.v[t * 2u * p.k + p.k + j] * p.y.v[(t * p.k + j) * p.cols + c];
  p.out_.v[e] = sum;
}
