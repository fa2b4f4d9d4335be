// The CUDA backend's kernel bodies, one per op (several dtypes each): they check the
// call with the kit and launch on the device's stream.
#pragma once

#include <tessera/plugin_abi.h>

namespace tessera::cuda {

class CudaDevice;

void get_rows(CudaDevice& device, const tsr_op_call& call);
void rms_norm(CudaDevice& device, const tsr_op_call& call);
void layer_norm(CudaDevice& device, const tsr_op_call& call);
void matmul(CudaDevice& device, const tsr_op_call& call);
void rope(CudaDevice& device, const tsr_op_call& call);
void kv_write(CudaDevice& device, const tsr_op_call& call);
void attention(CudaDevice& device, const tsr_op_call& call);
void slice(CudaDevice& device, const tsr_op_call& call);
void add(CudaDevice& device, const tsr_op_call& call);
void mul(CudaDevice& device, const tsr_op_call& call);
void sub(CudaDevice& device, const tsr_op_call& call);
void swiglu(CudaDevice& device, const tsr_op_call& call);
void silu(CudaDevice& device, const tsr_op_call& call);
void gelu(CudaDevice& device, const tsr_op_call& call);
void gelu_tanh(CudaDevice& device, const tsr_op_call& call);
void relu(CudaDevice& device, const tsr_op_call& call);
void relu_sqr(CudaDevice& device, const tsr_op_call& call);
void scale(CudaDevice& device, const tsr_op_call& call);
void softcap(CudaDevice& device, const tsr_op_call& call);
void affine(CudaDevice& device, const tsr_op_call& call);
void clamp(CudaDevice& device, const tsr_op_call& call);
void moe_route(CudaDevice& device, const tsr_op_call& call);
void moe_matmul(CudaDevice& device, const tsr_op_call& call);
void moe_combine(CudaDevice& device, const tsr_op_call& call);

}  // namespace tessera::cuda
