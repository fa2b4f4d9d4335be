// RMS and layer normalisation reference kernels; statistics accumulate in double.
#include "backends/cpu/ops/norm.h"

#include <cmath>
#include <string>

#include <tessera/kit/op_params.h>

namespace tessera::cpu {

NormArgs check_norm(const tsr_op_call& call, const char* op, int min_inputs, int max_inputs) {
  expect_input_count(call, min_inputs, max_inputs, op);
  NormArgs a;
  a.x = input(call, 0, op, "x");
  TensorView w, b;
  if (call.n_inputs > 1) w = input(call, 1, op, "w");
  if (call.n_inputs > 2) b = input(call, 2, op, "b");
  a.out = output(call, op);
  a.params = params_of<tsr_norm_params>(call, op);
  const kit::NormLayout layout =
      kit::check_norm(a.x, call.n_inputs > 1 ? &w : nullptr, call.n_inputs > 2 ? &b : nullptr, a.out, a.params, op);
  a.group = layout.group;
  a.param_stride = layout.param_stride;
  if (call.n_inputs > 1) a.w = w.as<const float>();
  if (call.n_inputs > 2) a.bias = b.as<const float>();
  return a;
}

namespace {

// The scale of column c of a group whose parameters start at w: w[c], or 1 + w[c] for
// weight_plus_one; 1 without w.
float gain(const NormArgs& a, const float* w, int64_t c) {
  if (!w) return 1.0f;
  return a.params.weight_plus_one ? 1.0f + w[c] : w[c];
}

// The vectors of a row: the x and out spans of each group in turn, with the group's gain
// and bias (null when absent).
template <class F>
void for_each_vector(const NormArgs& a, F normalise) {
  const int64_t n_groups = a.group > 0 ? a.x.cols() / a.group : 0;
  for (int64_t r = 0; r < a.x.rows(); ++r) {
    for (int64_t g = 0; g < n_groups; ++g) {
      const int64_t p = g * a.param_stride;
      normalise(a.x.row<const float>(r) + g * a.group, a.out.row<float>(r) + g * a.group, a.w ? a.w + p : nullptr,
                a.bias ? a.bias + p : nullptr);
    }
  }
}

}  // namespace

void rms_norm_ref(CpuDevice&, const tsr_op_call& call) {
  const NormArgs a = check_norm(call, "rms_norm", 2, 2);
  const int64_t n = a.group;
  for_each_vector(a, [&](const float* x, float* out, const float* w, const float*) {
    double sum_sq = 0.0;
    for (int64_t c = 0; c < n; ++c) sum_sq += static_cast<double>(x[c]) * x[c];
    const double inv_rms = 1.0 / std::sqrt(sum_sq / static_cast<double>(n) + a.params.eps);
    for (int64_t c = 0; c < n; ++c) out[c] = static_cast<float>(x[c] * inv_rms * gain(a, w, c));
  });
}

void layer_norm_ref(CpuDevice&, const tsr_op_call& call) {
  const NormArgs a = check_norm(call, "layer_norm", 1, 3);
  const int64_t n = a.group;
  for_each_vector(a, [&](const float* x, float* out, const float* w, const float* bias) {
    double sum = 0.0;
    for (int64_t c = 0; c < n; ++c) sum += x[c];
    const double mean = sum / static_cast<double>(n);
    double sum_sq = 0.0;  // two passes: var = mean((x - mean)^2), no cancellation
    for (int64_t c = 0; c < n; ++c) sum_sq += (x[c] - mean) * (x[c] - mean);
    const double inv_std = 1.0 / std::sqrt(sum_sq / static_cast<double>(n) + a.params.eps);
    for (int64_t c = 0; c < n; ++c) {
      const double y = (x[c] - mean) * inv_std * gain(a, w, c) + (bias ? bias[c] : 0.0f);
      out[c] = static_cast<float>(y);
    }
  });
}

}  // namespace tessera::cpu
