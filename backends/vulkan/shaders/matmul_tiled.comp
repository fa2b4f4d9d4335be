// MATMUL for many rows of x (prefill): out[n, m] = sum_k x[n, k] * w[m, k], with
// x [N, K] f32, w [M, K] in DTYPE, out [N, M] f32. A workgroup of 16 x 16 invocations
// computes a TILE x TILE block of out; K advances in slices of TK whose x and w tiles
// are staged (w converted to f32) in shared memory. Each invocation owns
// (TILE/16) x (TILE/16) outputs, spaced 16 apart so shared reads do not collide.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const uint DTYPE = 0u;
layout(constant_id = 2) const uint TILE = 64u;  // a multiple of 16
layout(constant_id = 3) const uint TK = 16u;

const uint PER = TILE / 16u;  // outputs per invocation along each axis

layout(push_constant) uniform Push {
  HalfRef w;
  FloatRef x;
  FloatRef out_;
  uint n;
  uint k;
  uint m;
} p;

shared float xs[TK * TILE];  // [kk][n - n0]
shared float ws[TK * TILE];  // [kk][m - m0]

void main() {
  const uint tiles_m = (p.m + TILE - 1u) / TILE;
  const uint group = flat_group_id();
  const uint m0 = (group % tiles_m) * TILE;
  const uint n0 = (group / tiles_m) * TILE;
  if (n0 >= p.n) return;  // uniform over the workgroup
  const uint t = gl_LocalInvocationID.x;
  const uint tx = t % 16u, ty = t / 16u;

  float acc[PER][PER];
  for (uint i = 0u; i < PER; ++i) {
    for (uint j = 0u; j < PER; ++j) acc[i][j] = 0.0;
  }
  for (uint k0 = 0u; k0 < p.k; k0 += TK) {
    // Stage the slices: consecutive invocations read consecutive k of one row.
    for (uint e = t; e < TK * TILE; e += 256u) {
      const uint kk = e % TK, r = e / TK, k = k0 + kk;
      xs[kk * TILE + r] = (n0 + r < p.n && k < p.k) ? p.x.v[(n0 + r) * p.k + k] : 0.0;
      ws[kk * TILE + r] = (m0 + r < p.m && k < p.k) ? matrix_elem(DTYPE, p.w, m0 + r, p.k, k) : 0.0;
    }
    barrier();
    for (uint kk = 0u; kk < TK; ++kk) {
      float xv[PER], wv[PER];
      for (uint i = 0u; i < PER; ++i) xv[i] = xs[kk * TILE + ty + 16u * i];
      for (uint j = 0u; j < PER; ++j) wv[j] = ws[kk * TILE + tx + 16u * j];
      for (uint i = 0u; i < PER; ++i) {
        for (uint j = 0u; j < PER; ++j) acc[i][j] += xv[i] * wv[j];
      }
    }
    barrier();
  }
  for (uint i = 0u; i < PER; ++i) {
    const uint n = n0 + ty + 16u * i;
    if (n >= p.n) continue;
    for (uint j = 0u; j < PER; ++j) {
      const uint m = m0 + tx + 16u * j;
      if (m < p.m) p.out_.v[n * p.m + m] = acc[i][j];
    }
  }
}
