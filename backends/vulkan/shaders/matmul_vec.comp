// MATMUL for few rows of x (decode): out[n, m] = sum_k x[n, k] * w[m, k], with
// x [N, K] f32, w [M, K] in DTYPE, out [N, M] f32. A workgroup takes one weight row and
// up to ROWS rows of x: its invocations split K, keep one partial sum per x row, and
// reduce them in shared memory, so each weight row is read once per ROWS rows of x.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 128u;  // a power of two
layout(constant_id = 1) const uint DTYPE = 0u;
layout(constant_id = 2) const uint ROWS = 8u;  // rows of x per workgroup

layout(push_constant) uniform Push {
  HalfRef w;
  FloatRef x;
  FloatRef out_;
  uint n;
  uint k;
  uint m;
} p;

shared float partial[ROWS * WG];

void main() {
  const uint group = flat_group_id();
  const uint row = group % p.m;          // weight row = output column
  const uint n0 = (group / p.m) * ROWS;  // first x row
  if (n0 >= p.n) return;                 // uniform over the workgroup
  const uint t = gl_LocalInvocationID.x;
  const uint rows = min(ROWS, p.n - n0);

  float acc[ROWS];
  for (uint r = 0u; r < ROWS; ++r) acc[r] = 0.0;
  for (uint k = t; k < p.k; k += WG) {
    const float wv = matrix_elem(DTYPE, p.w, row, p.k, k);
    for (uint r = 0u; r < ROWS; ++r) {
      if (r < rows) acc[r] += wv * p.x.v[(n0 + r) * p.k + k];
    }
  }
  for (uint r = 0u; r < ROWS; ++r) partial[r * WG + t] = acc[r];
  barrier();
  for (uint s = WG / 2u; s > 0u; s >>= 1u) {
    if (t < s) {
      for (uint r = 0u; r < ROWS; ++r) partial[r * WG + t] += partial[r * WG + t + s];
    }
    barrier();
  }
  if (t < rows) p.out_.v[(n0 + t) * p.m + row] = partial[t * WG];
}
