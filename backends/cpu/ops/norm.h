// Normalisation kernels, f32: RMS_NORM and LAYER_NORM with x [N, C], w [G] (optional
// for layer norm, and its optional bias b [G]), out [N, C], tsr_norm_params. Each run of G = group
// columns (the whole row of C when group is 0) is normalised on its own: per-head
// QK-norm is group = head_dim. w and b may hold C values instead, a gain per head.
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

struct NormArgs {
  TensorView x, out;
  const float* w = nullptr;     // the gain; null when absent (layer norm without parameters)
  const float* bias = nullptr;  // layer norm only; null when absent
  tsr_norm_params params{};
  int64_t group = 0;            // columns per normalised vector: params.group, or C for 0
  int64_t param_stride = 0;     // 0: w and b serve every group; group: group g's start at g * group
};

// The norm's call: x, then the weight (required unless min_inputs is 1), then the bias
// (up to max_inputs), checked by the kit as every backend checks them.
NormArgs check_norm(const tsr_op_call& call, const char* op, int min_inputs, int max_inputs);

// out = x / sqrt(mean(x^2) + eps) * (w or 1 + w). out may be x (in place).
void rms_norm_ref(CpuDevice& device, const tsr_op_call& call);
// The same, multithreaded over the rows and vectorised, the sum of squares in f32
// (isa_dispatch.cpp runs the copy of the instruction set in use).
void rms_norm_fast(CpuDevice& device, const tsr_op_call& call);

// out = (x - mean) / sqrt(var + eps) * (w or 1 + w) + b; without w, no gain and no
// bias. out may be x (in place).
void layer_norm_ref(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
