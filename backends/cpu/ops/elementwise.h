// Element-wise f32 kernels: ADD, MUL and SUB (b of a's shape, or b [C] broadcast over
// the rows of a), SWIGLU (gate, up), and the one-input SILU, GELU, GELU_TANH, RELU,
// RELU_SQR, SCALE, SOFTCAP, AFFINE and CLAMP. Output has the shape of input 0 and may be any input
// (in place).
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

void add_ref(CpuDevice& device, const tsr_op_call& call);     // out = a + b
void mul_ref(CpuDevice& device, const tsr_op_call& call);     // out = a * b
void sub_ref(CpuDevice& device, const tsr_op_call& call);     // out = a - b
void silu_ref(CpuDevice& device, const tsr_op_call& call);    // out = x * sigmoid(x)
void gelu_ref(CpuDevice& device, const tsr_op_call& call);    // out = 0.5 x (1 + erf(x / sqrt 2))
void swiglu_ref(CpuDevice& device, const tsr_op_call& call);  // out = silu(gate) * up
void scale_ref(CpuDevice& device, const tsr_op_call& call);   // out = x * params.scale
// out = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
void gelu_tanh_ref(CpuDevice& device, const tsr_op_call& call);
void relu_ref(CpuDevice& device, const tsr_op_call& call);      // out = max(x, 0)
void relu_sqr_ref(CpuDevice& device, const tsr_op_call& call);  // out = max(x, 0)^2
// out = c tanh(x / c) with c = params.scale (tsr_scale_params); fails unless c > 0.
void softcap_ref(CpuDevice& device, const tsr_op_call& call);
// out = x * scale + bias (tsr_affine_params).
void affine_ref(CpuDevice& device, const tsr_op_call& call);
// out = min(max(x, lo), hi) (tsr_clamp_params); fails unless lo <= hi.
void clamp_ref(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
