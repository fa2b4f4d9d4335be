// The kernels of the acme_ops example plugin, over tensors in host memory.
#pragma once

#include <tessera/plugin_abi.h>

namespace acme {

// The op this plugin adds: acme.fused_silu_mul(gate, up, alpha: 1.0), elementwise
//   out = gate * sigmoid(alpha * gate) * up
// (the gated unit of SwiGLU with a Swish slope; alpha 1 is SwiGLU itself).
extern const tsr_op_decl kFusedSiluMul;

void fused_silu_mul_f32(const tsr_op_call& call);

// An override of the CPU backend's RMS_NORM f32 (the same result, summed in double).
void rms_norm_f32(const tsr_op_call& call);

}  // namespace acme
