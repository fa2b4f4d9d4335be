#include "kernels.h"

#include <cmath>
#include <cstdint>
#include <string>

#include <tessera/kit/call_args.h>
#include <tessera/kit/custom_call.h>
#include <tessera/kit/kernel_error.h>

namespace acme {
namespace {

namespace kit = tessera::kit;

const tsr_input_decl kGateUp[] = {
    {"gate", TSR_SHAPE_ANY, 0, 0},
    {"up", TSR_SHAPE_SAME_AS, 0, 0},
};
const tsr_attr_decl kAlpha[] = {
    {"alpha", TSR_ATTR_FLOAT, 0, {.f = 1.0}, "slope of the Swish gate; 1 gives SwiGLU"},
};

}  // namespace

const tsr_op_decl kFusedSiluMul = {
    "acme.fused_silu_mul", "gate * sigmoid(alpha * gate) * up, elementwise",
    2, kGateUp, 1, kAlpha,
    /*output_like=*/0, /*output_columns=*/nullptr, /*key_input=*/0,
};

void fused_silu_mul_f32(const tsr_op_call& call) {
  const kit::CustomCall c = kit::check_custom_call(call, kFusedSiluMul);
  const auto alpha = static_cast<float>(c.attr_float("alpha"));
  const float* gate = c.inputs[0].as<const float>();
  const float* up = c.inputs[1].as<const float>();
  float* out = c.out.as<float>();
  const int64_t n = c.out.elements();
  for (int64_t i = 0; i < n; ++i) out[i] = gate[i] / (1.0f + std::exp(-alpha * gate[i])) * up[i];
}

void rms_norm_f32(const tsr_op_call& call) {
  const char* op = "acme.rms_norm";
  kit::expect_input_count(call, 2, 2, op);
  const kit::HostView x = kit::host_input(call, 0, op, "x");
  const kit::HostView w = kit::host_input(call, 1, op, "w");
  const kit::HostView out = kit::host_output(call, op);
  const auto& p = kit::params_of<tsr_norm_params>(call, op);
  for (const kit::HostView* t : {&x, &w, &out}) kit::expect_dtype(*t, TSR_DTYPE_F32, op, "tensor");
  const int64_t rows = x.rows(), cols = x.cols();
  const int64_t group = p.group > 0 ? p.group : cols;
  if (cols % group != 0) kit::fail(op, "the row does not split into groups of " + std::to_string(group));
  // w [group], shared by the groups, or a row's worth: each group its own gain.
  const int64_t w_stride = group < cols && w.elements() == cols ? group : 0;
  if (w_stride == 0) kit::expect_vector(w, group, op, "w");
  kit::expect_matrix(out, rows, cols, op, "out");
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x.row<const float>(r);
    float* yr = out.row<float>(r);
    for (int64_t g0 = 0; g0 < cols; g0 += group) {
      double sum = 0;
      for (int64_t j = 0; j < group; ++j) sum += static_cast<double>(xr[g0 + j]) * xr[g0 + j];
      const auto scale = static_cast<float>(1.0 / std::sqrt(sum / static_cast<double>(group) + p.eps));
      for (int64_t j = 0; j < group; ++j) {
        const float wj = w.as<const float>()[g0 / group * w_stride + j];
        const float gain = p.weight_plus_one ? 1.0f + wj : wj;
        yr[g0 + j] = xr[g0 + j] * scale * gain;
      }
    }
  }
}

}  // namespace acme
