// Element-wise ops of two f32 inputs, chosen by OP:
//   0 ADD: a + b    1 MUL: a * b    2 SWIGLU: silu(a) * b (a = gate, b = up)    3 SUB: a - b
// a, out [rows, cols]; b the same shape, or [cols] broadcast over rows.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0u;

layout(push_constant) uniform Push {
  FloatRef a;
  FloatRef b;
  FloatRef out_;
  uint n;          // elements of a
  uint cols;
  uint broadcast;  // nonzero: b is one row of cols
} p;

void main() {
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (e >= p.n) return;
  const float a = p.a.v[e];
  const float b = p.b.v[p.broadcast != 0u ? e % p.cols : e];
  float y;
  if (OP == 0u) {
    y = a + b;
  } else if (OP == 1u) {
    y = a * b;
  } else if (OP == 2u) {
    y = a / (1.0 + exp(-a)) * b;
  } else {
    y = a - b;
  }
  p.out_.v[e] = y;
}
