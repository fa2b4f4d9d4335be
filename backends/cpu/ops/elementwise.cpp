// Element-wise reference kernels.
#include "backends/cpu/ops/elementwise.h"

#include <cmath>
#include <numbers>
#include <string>

#include <tessera/kit/op_params.h>
#include <tessera/kit/op_shapes.h>

namespace tessera::cpu {
namespace {

float silu(float x) { return x / (1.0f + std::exp(-x)); }

// Checks a unary op: x f32 of any shape, out f32 of the same shape.
struct Unary {
  const float* x;
  float* out;
  int64_t n;
};
Unary check_unary(const tsr_op_call& call, const char* op) {
  expect_input_count(call, 1, 1, op);
  const TensorView x = input(call, 0, op, "x");
  const TensorView out = output(call, op);
  kit::check_unary(x, out, op);
  return {x.as<const float>(), out.as<float>(), x.elements()};
}

// Runs out[r, c] = f(a[r, c], b[r, c] or b[c]) after checking the shapes.
template <class F>
void binary(const tsr_op_call& call, const char* op, F f) {
  const BinaryArgs x = check_binary_call(call, op);
  for (int64_t r = 0; r < x.rows; ++r) {
    const float* b_row = x.broadcast ? x.b : x.b + r * x.cols;
    for (int64_t c = 0; c < x.cols; ++c) x.out[r * x.cols + c] = f(x.a[r * x.cols + c], b_row[c]);
  }
}

}  // namespace

BinaryArgs check_binary_call(const tsr_op_call& call, const char* op) {
  expect_input_count(call, 2, 2, op);
  const TensorView a = input(call, 0, op, "a");
  const TensorView b = input(call, 1, op, "b");
  const TensorView out = output(call, op);
  const bool broadcast = kit::check_binary(a, b, out, op);
  return {a.as<const float>(), b.as<const float>(), out.as<float>(), a.rows(), a.cols(), broadcast};
}

SwigluArgs check_swiglu(const tsr_op_call& call) {
  const char* op = "swiglu";
  expect_input_count(call, 2, 2, op);
  const TensorView gate = input(call, 0, op, "gate");  // [N, C]
  const TensorView up = input(call, 1, op, "up");      // [N, C]
  const TensorView out = output(call, op);             // [N, C]
  kit::check_swiglu(gate, up, out);
  return {gate.as<const float>(), up.as<const float>(), out.as<float>(), gate.elements()};
}

void add_ref(CpuDevice&, const tsr_op_call& call) {
  binary(call, "add", [](float a, float b) { return a + b; });
}

void mul_ref(CpuDevice&, const tsr_op_call& call) {
  binary(call, "mul", [](float a, float b) { return a * b; });
}

void sub_ref(CpuDevice&, const tsr_op_call& call) {
  binary(call, "sub", [](float a, float b) { return a - b; });
}

void silu_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "silu");
  for (int64_t i = 0; i < u.n; ++i) u.out[i] = silu(u.x[i]);
}

void gelu_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "gelu");
  const float inv_sqrt2 = 0.70710678118654752f;
  for (int64_t i = 0; i < u.n; ++i) u.out[i] = 0.5f * u.x[i] * (1.0f + std::erf(u.x[i] * inv_sqrt2));
}

void scale_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "scale");
  const float s = params_of<tsr_scale_params>(call, "scale").scale;
  for (int64_t i = 0; i < u.n; ++i) u.out[i] = u.x[i] * s;
}

// The activations below are evaluated in double and rounded once, so the oracle's only
// error is that rounding.
void gelu_tanh_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "gelu_tanh");
  const double sqrt_2_over_pi = std::sqrt(2.0 / std::numbers::pi);
  for (int64_t i = 0; i < u.n; ++i) {
    const double x = u.x[i];
    u.out[i] = static_cast<float>(0.5 * x * (1.0 + std::tanh(sqrt_2_over_pi * (x + 0.044715 * x * x * x))));
  }
}

void relu_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "relu");
  for (int64_t i = 0; i < u.n; ++i) u.out[i] = u.x[i] > 0.0f ? u.x[i] : 0.0f;
}

void relu_sqr_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "relu_sqr");
  for (int64_t i = 0; i < u.n; ++i) {
    const double r = u.x[i] > 0.0f ? u.x[i] : 0.0f;
    u.out[i] = static_cast<float>(r * r);
  }
}

void softcap_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "softcap");
  const double cap = params_of<tsr_scale_params>(call, "softcap").scale;
  if (!(cap > 0.0) || !std::isfinite(cap)) {
    fail("softcap", "scale must be positive and finite, got " + std::to_string(cap));
  }
  for (int64_t i = 0; i < u.n; ++i) u.out[i] = static_cast<float>(cap * std::tanh(u.x[i] / cap));
}

// In double and rounded once: the oracle's error is that rounding, whatever a backend
// contracts into a fused multiply-add.
void affine_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "affine");
  const tsr_affine_params& p = params_of<tsr_affine_params>(call, "affine");
  const double scale = p.scale, bias = p.bias;
  for (int64_t i = 0; i < u.n; ++i) u.out[i] = static_cast<float>(u.x[i] * scale + bias);
}

// NaN stays NaN (neither bound holds for it), as in std::clamp's comparisons.
void clamp_ref(CpuDevice&, const tsr_op_call& call) {
  const Unary u = check_unary(call, "clamp");
  const tsr_clamp_params& p = params_of<tsr_clamp_params>(call, "clamp");
  kit::check_clamp_params(p);
  for (int64_t i = 0; i < u.n; ++i) {
    const float x = u.x[i];
    u.out[i] = x < p.lo ? p.lo : (x > p.hi ? p.hi : x);
  }
}

void swiglu_ref(CpuDevice&, const tsr_op_call& call) {
  const SwigluArgs a = check_swiglu(call);
  for (int64_t i = 0; i < a.n; ++i) a.out[i] = silu(a.gate[i]) * a.up[i];
}

}  // namespace tessera::cpu
