// SLICE: out[n, g * count + j] = x[n, start + g * stride + j] for x [rows, cols] f32 and
// out [rows, groups * count] f32; the host checks that every column read is inside x.
// One invocation per output element.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
  FloatRef x;
  FloatRef out_;
  uint n;         // elements of out
  uint x_cols;
  uint out_cols;  // groups * count
  uint start;
  uint count;
  uint stride;
} p;

void main() {
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (e >= p.n) return;
  const uint row = e / p.out_cols;
  const uint col = e % p.out_cols;
  const uint g = col / p.count, j = col % p.count;
  p.out_.v[e] = p.x.v[row * p.x_cols + p.start + g * p.stride + j];
}
