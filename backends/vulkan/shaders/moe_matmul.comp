// MOE_MATMUL: out[t, j * M + m] = sum_c x_tj[c] * experts[e, m, c], e = route[t, j],
// x_tj row t of x [T, K] (or its columns j * K.., PER_SLOT: x [T, k * K]), experts
// [E, M, K] in DTYPE (as MATMUL's weights, read as the matrix [E * M, K]), out
// [T, k * M] f32. A workgroup computes one output element: its invocations split K and
// a shared-memory tree sums them. Only the chosen experts' rows are read; an index that
// is not a whole number 0 .. E - 1 is reported, and its outputs written as zeros.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64u;  // a power of two
layout(constant_id = 1) const uint DTYPE = 0u;

layout(push_constant) uniform Push {
  HalfRef w;
  FloatRef x;
  FloatRef route;
  FloatRef out_;
  StatusRef status;
  uint slots;      // T * k
  uint k;          // experts per token
  uint experts;    // E
  uint m;
  uint cols;       // K
  uint per_slot;   // x has k * K columns
  uint call_id;
  uint unused;
} p;

shared float partial[WG];

void main() {
  const uint group = flat_group_id();
  const uint slot = group / p.m, m = group % p.m;
  if (slot >= p.slots) return;  // uniform over the workgroup
  const uint t = slot / p.k, j = slot % p.k;
  const float stored = p.route.v[t * 2u * p.k + j];
  if (!(stored >= 0.0) || stored >= float(p.experts) || stored != floor(stored)) {
    if (gl_LocalInvocationID.x == 0u) {
      if (m == 0u) report_error(p.status, p.call_id, 1u, int(slot), int(stored));
      p.out_.v[slot * p.m + m] = 0.0;
    }
    return;
  }
  const uint row = uint(stored) * p.m + m;
  const uint x0 = p.per_slot != 0u ? slot * p.cols : t * p.cols;
  float acc = 0.0;
  for (uint c = gl_LocalInvocationID.x; c < p.cols; c += WG) {
    acc += matrix_elem(DTYPE, p.w, row, p.cols, c) * p.x.v[x0 + c];
  }
  const uint i = gl_LocalInvocationID.x;
  partial[i] = acc;
  barrier();
  for (uint s = WG / 2u; s > 0u; s >>= 1u) {
    if (i < s) partial[i] += partial[i + s];
    barrier();
  }
  if (i == 0u) p.out_.v[slot * p.m + m] = partial[0];
}
