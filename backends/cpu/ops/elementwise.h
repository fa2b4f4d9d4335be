// Element-wise f32 kernels: ADD, MUL and SUB (b of a's shape, or b [C] broadcast over
// the rows of a), SWIGLU (gate, up), and the one-input SILU, GELU, GELU_TANH, RELU,
// RELU_SQR, SCALE, SOFTCAP, AFFINE and CLAMP. Output has the shape of input 0 and may be any input
// (in place).
#pragma once

#include "backends/cpu/ops/tensor_args.h"

namespace tessera::cpu {

// A checked ADD, MUL or SUB: a and out [rows, cols], b the same or [cols] (broadcast).
struct BinaryArgs {
  const float* a;
  const float* b;
  float* out;
  int64_t rows, cols;
  bool broadcast;
};
BinaryArgs check_binary_call(const tsr_op_call& call, const char* op);

// A checked SWIGLU: gate, up and out of n elements each.
struct SwigluArgs {
  const float* gate;
  const float* up;
  float* out;
  int64_t n;
};
SwigluArgs check_swiglu(const tsr_op_call& call);

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

// ADD, MUL and SWIGLU multithreaded over large tensors and vectorised (the silu's
// exponential to about 2 ulp); isa_dispatch.cpp runs the copy of the instruction set in
// use. ADD and MUL give the reference's values exactly.
void add_fast(CpuDevice& device, const tsr_op_call& call);
void mul_fast(CpuDevice& device, const tsr_op_call& call);
void swiglu_fast(CpuDevice& device, const tsr_op_call& call);

}  // namespace tessera::cpu
