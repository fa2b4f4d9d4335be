// RMS and layer normalisation reference kernels; statistics accumulate in double.
#include "backends/cpu/ops/norm.h"

#include <cmath>
#include <string>

namespace tessera::cpu {
namespace {

struct NormArgs {
  TensorView x, w, out;
  const float* bias = nullptr;  // layer norm only; null when absent
  tsr_norm_params params{};
  int64_t group = 0;            // columns per normalised vector: params.group, or C for 0
};

// A group of 0 means the whole row; otherwise it must divide the row.
int64_t group_width(const tsr_norm_params& p, int64_t cols, const char* op) {
  if (p.group < 0) fail(op, "group must be >= 0, got " + std::to_string(p.group));
  if (p.group == 0) return cols;
  if (cols % p.group != 0) {
    fail(op, "group " + std::to_string(p.group) + " does not divide the " + std::to_string(cols) +
                 " columns of x");
  }
  return p.group;
}

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
  a.group = group_width(a.params, a.x.cols(), op);
  expect_vector(a.w, a.group, op, "w");
  expect_matrix(a.out, a.x.rows(), a.x.cols(), op, "out");
  if (call.n_inputs > 2) {
    const TensorView b = input(call, 2, op, "b");
    expect_dtype(b, TSR_DTYPE_F32, op, "b");
    expect_vector(b, a.group, op, "b");
    a.bias = b.as<const float>();
  }
  if (!(a.params.eps >= 0.0f)) fail(op, "eps must be >= 0, got " + std::to_string(a.params.eps));
  return a;
}

// The scale of column c of a group: w[c], or 1 + w[c] for weight_plus_one.
float gain(const NormArgs& a, int64_t c) {
  const float w = a.w.as<const float>()[c];
  return a.params.weight_plus_one ? 1.0f + w : w;
}

// The vectors of a row: the x and out spans of each group in turn.
template <class F>
void for_each_vector(const NormArgs& a, F normalise) {
  const int64_t n_groups = a.group > 0 ? a.x.cols() / a.group : 0;
  for (int64_t r = 0; r < a.x.rows(); ++r) {
    for (int64_t g = 0; g < n_groups; ++g) {
      normalise(a.x.row<const float>(r) + g * a.group, a.out.row<float>(r) + g * a.group);
    }
  }
}

}  // namespace

void rms_norm_ref(CpuDevice&, const tsr_op_call& call) {
  const NormArgs a = check_norm(call, "rms_norm", 2);
  const int64_t n = a.group;
  for_each_vector(a, [&](const float* x, float* out) {
    double sum_sq = 0.0;
    for (int64_t c = 0; c < n; ++c) sum_sq += static_cast<double>(x[c]) * x[c];
    const double inv_rms = 1.0 / std::sqrt(sum_sq / static_cast<double>(n) + a.params.eps);
    for (int64_t c = 0; c < n; ++c) out[c] = static_cast<float>(x[c] * inv_rms * gain(a, c));
  });
}

void layer_norm_ref(CpuDevice&, const tsr_op_call& call) {
  const NormArgs a = check_norm(call, "layer_norm", 3);
  const int64_t n = a.group;
  for_each_vector(a, [&](const float* x, float* out) {
    double sum = 0.0;
    for (int64_t c = 0; c < n; ++c) sum += x[c];
    const double mean = sum / static_cast<double>(n);
    double sum_sq = 0.0;  // two passes: var = mean((x - mean)^2), no cancellation
    for (int64_t c = 0; c < n; ++c) sum_sq += (x[c] - mean) * (x[c] - mean);
    const double inv_std = 1.0 / std::sqrt(sum_sq / static_cast<double>(n) + a.params.eps);
    for (int64_t c = 0; c < n; ++c) {
      const double y = (x[c] - mean) * inv_std * gain(a, c) + (a.bias ? a.bias[c] : 0.0f);
      out[c] = static_cast<float>(y);
    }
  });
}

}  // namespace tessera::cpu
