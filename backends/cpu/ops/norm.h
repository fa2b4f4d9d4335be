// Normalisation kernels, f32: RMS_NORM and LAYER_NORM with x [N, C], w [G] (optional
// for layer norm, and its optional bias b [G]), out [N, C], tsr_norm_params. Each run of G = group
// columns (the whole row of C when group is 0) is normalised on its own: per-head
// QK-norm is group = head_dim.
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

// out = x / sqrt(mean(x^2) + eps) * (w or 1 + w). out may be x (in place).
void rms_norm_ref(CpuDevice& device, const tsr_op_call& call);

// out = (x - mean) / sqrt(var + eps) * (w or 1 + w) + b; without w, no gain and no
// bias. out may be x (in place).
void layer_norm_ref(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
