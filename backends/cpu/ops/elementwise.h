// Element-wise f32 kernels: ADD and MUL (b of a's shape, or b [C] broadcast over the
// rows of a), SILU, GELU, SWIGLU (gate, up) and SCALE. Output has the shape of input 0
// and may be any input (in place).
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

void add_ref(CpuDevice& device, const tsr_op_call& call);     // out = a + b
void mul_ref(CpuDevice& device, const tsr_op_call& call);     // out = a * b
void silu_ref(CpuDevice& device, const tsr_op_call& call);    // out = x * sigmoid(x)
void gelu_ref(CpuDevice& device, const tsr_op_call& call);    // out = 0.5 x (1 + erf(x / sqrt 2))
void swiglu_ref(CpuDevice& device, const tsr_op_call& call);  // out = silu(gate) * up
void scale_ref(CpuDevice& device, const tsr_op_call& call);   // out = x * params.scale

}  // namespace tessera::cpu
