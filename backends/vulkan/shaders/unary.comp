// Element-wise ops of one f32 input, chosen by OP:
//   0 SILU: x * sigmoid(x)    1 GELU: 0.5 x (1 + erf(x / sqrt 2))    2 SCALE: x * scale
//   3 GELU_TANH: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
//   4 RELU: max(x, 0)         5 RELU_SQR: max(x, 0)^2               6 SOFTCAP: scale * tanh(x / scale)
//   7 AFFINE: x * scale + bias                                      8 CLAMP: min(max(x, scale), bias)
// (CLAMP's bounds lo, hi travel as scale, bias; a NaN x stays NaN.)
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint OP = 0u;

layout(push_constant) uniform Push {
  FloatRef x;
  FloatRef out_;
  uint n;
  float scale;
  float bias;
} p;

// erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7); GLSL has none.
float erf_approx(float x) {
  const float t = 1.0 / (1.0 + 0.3275911 * abs(x));
  const float poly =
      t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign(x) * (1.0 - poly * exp(-x * x));
}

// For large |x| the cube overflows to +-inf, where stable_tanh gives +-1: the result
// is then x or 0, as it should be.
float gelu_tanh(float x) {
  return 0.5 * x * (1.0 + stable_tanh(0.79788456080286536 * (x + 0.044715 * x * x * x)));
}

void main() {
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (e >= p.n) return;
  const float x = p.x.v[e];
  float y;
  if (OP == 0u) {
    y = x / (1.0 + exp(-x));
  } else if (OP == 1u) {
    y = 0.5 * x * (1.0 + erf_approx(x * 0.70710678118654752));
  } else if (OP == 2u) {
    y = x * p.scale;
  } else if (OP == 3u) {
    y = gelu_tanh(x);
  } else if (OP == 4u) {
    y = max(x, 0.0);
  } else if (OP == 5u) {
    const float r = max(x, 0.0);
    y = r * r;
  } else if (OP == 6u) {
    y = p.scale * stable_tanh(x / p.scale);
  } else if (OP == 7u) {
    y = x * p.scale + p.bias;
  } else {
    y = x < p.scale ? p.scale : (x > p.bias ? p.bias : x);
  }
  p.out_.v[e] = y;
}
