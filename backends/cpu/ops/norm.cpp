// RMS and layer normalisation reference kernels; statistics accumulate in double.
#include "backends/cpu/ops/norm.h"

#include <cmath>

namespace tessera::cpu {
namespace {

struct NormArgs {
  TensorView x, w, out;
  const float* bias = nullptr;  // layer norm only; null when absent
  tsr_norm_params params{};
};

NormArgs check_norm(const tsr_op_call& call, const char* op, int max_inputs) {
  expect_input_count(call, 2, max_inputs, op);
  NormArgs a;
  a.x = input(call, 0, op, "x");
  a.w = input(call, 1, op, "w");
  a.out = output(call, op);
  a.params = params_of<tsr_norm_params>(call, op);
  expect_dtype(a.x, TSR_DTYPE_F32, op, "x");
  expect_dtype(a.w, TSR_DTYPE_F32, op, "w");
  expect_dtype(a.out, TSR_DTYPE_F32, op, "out");
  expect_vector(a.w, a.x.cols(), op, "w");
  expect_matrix(a.out, a.x.rows(), a.x.cols(), op, "out");
  if (call.n_inputs > 2) {
    const TensorView b = input(call, 2, op, "b");
    expect_dtype(b, TSR_DTYPE_F32, op, "b");
    expect_vector(b, a.x.cols(), op, "b");
    a.bias = b.as<const float>();
  }
  if (!(a.params.eps >= 0.0f)) fail(op, "eps must be >= 0, got " + std::to_string(a.params.eps));
  return a;
}

// The scale of column c: w[c], or 1 + w[c] for weight_plus_one.
float gain(const NormArgs& a, int64_t c) {
  const float w = a.w.as<const float>()[c];
  return a.params.weight_plus_one ? 1.0f + w : w;
}

}  // namespace

void rms_norm_ref(CpuDevice&, const tsr_op_call& call) {
  const NormArgs a = check_norm(call, "rms_norm", 2);
  const int64_t cols = a.x.cols();
  for (int64_t r = 0; r < a.x.rows(); ++r) {
    const float* x = a.x.row<const float>(r);
    float* out = a.out.row<float>(r);
    double sum_sq = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum_sq += static_cast<double>(x[c]) * x[c];
    const double mean_sq = cols > 0 ? sum_sq / static_cast<double>(cols) : 0.0;
    const double inv_rms = 1.0 / std::sqrt(mean_sq + a.params.eps);
    for (int64_t c = 0; c < cols; ++c) out[c] = static_cast<float>(x[c] * inv_rms * gain(a, c));
  }
}

void layer_norm_ref(CpuDevice&, const tsr_op_call& call) {
  const NormArgs a = check_norm(call, "layer_norm", 3);
  const int64_t cols = a.x.cols();
  for (int64_t r = 0; r < a.x.rows(); ++r) {
    const float* x = a.x.row<const float>(r);
    float* out = a.out.row<float>(r);
    double sum = 0.0;
    for (int64_t c = 0; c < cols; ++c) sum += x[c];
    const double mean = cols > 0 ? sum / static_cast<double>(cols) : 0.0;
    double sum_sq = 0.0;  // two passes: var = mean((x - mean)^2), no cancellation
    for (int64_t c = 0; c < cols; ++c) sum_sq += (x[c] - mean) * (x[c] - mean);
    const double var = cols > 0 ? sum_sq / static_cast<double>(cols) : 0.0;
    const double inv_std = 1.0 / std::sqrt(var + a.params.eps);
    for (int64_t c = 0; c < cols; ++c) {
      const double y = (x[c] - mean) * inv_std * gain(a, c) + (a.bias ? a.bias[c] : 0.0f);
      out[c] = static_cast<float>(y);
    }
  }
}

}  // namespace tessera::cpu
