// The CUDA plugin's kernel table (see kernel_table.h).
#include "backends/cuda/kernel_table.h"

#include <array>

#include <tessera/kit/guard.h>

#include "backends/cuda/cuda_error.h"
#include "backends/cuda/device.h"
#include "backends/cuda/ops/ops.h"

namespace tessera::cuda {
namespace {

// The op's body, then the device's after_call: outside a step an index error a kernel
// reported comes back from this call.
template <KernelBody Body>
void body_then_settle(CudaDevice& device, const tsr_op_call& call) {
  Body(device, call);
  device.after_call();
}

template <tsr_op Op, KernelBody Body>
tsr_status entry(void* device, const tsr_op_call* call) {
  return run_guarded(device, call, Op, &body_then_settle<Body>);
}

template <tsr_op Op, KernelBody Body>
constexpr tsr_kernel_desc kernel(tsr_dtype dtype, const char* name) {
  return {Op, dtype, 0, name, &entry<Op, Body>, nullptr};
}

// The same (op, dtype) pairs as the CPU plugin registers; GET_ROWS, MATMUL and
// MOE_MATMUL take every block format (the kit's value formulas run on the device).
constexpr std::array kKernels = {
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_F32, "cuda.get_rows.f32"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_F16, "cuda.get_rows.f16"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_BF16, "cuda.get_rows.bf16"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q8_0, "cuda.get_rows.q8_0"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q4_0, "cuda.get_rows.q4_0"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q4_1, "cuda.get_rows.q4_1"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q5_0, "cuda.get_rows.q5_0"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q5_1, "cuda.get_rows.q5_1"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q2_K, "cuda.get_rows.q2_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q3_K, "cuda.get_rows.q3_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q4_K, "cuda.get_rows.q4_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q5_K, "cuda.get_rows.q5_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q6_K, "cuda.get_rows.q6_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_IQ4_NL, "cuda.get_rows.iq4_nl"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_IQ4_XS, "cuda.get_rows.iq4_xs"),
    kernel<TSR_OP_RMS_NORM, rms_norm>(TSR_DTYPE_F32, "cuda.rms_norm.f32"),
    kernel<TSR_OP_LAYER_NORM, layer_norm>(TSR_DTYPE_F32, "cuda.layer_norm.f32"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_F32, "cuda.matmul.f32"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_F16, "cuda.matmul.f16"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_BF16, "cuda.matmul.bf16"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q8_0, "cuda.matmul.q8_0"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q4_0, "cuda.matmul.q4_0"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q4_1, "cuda.matmul.q4_1"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q5_0, "cuda.matmul.q5_0"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q5_1, "cuda.matmul.q5_1"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q2_K, "cuda.matmul.q2_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q3_K, "cuda.matmul.q3_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q4_K, "cuda.matmul.q4_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q5_K, "cuda.matmul.q5_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q6_K, "cuda.matmul.q6_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_IQ4_NL, "cuda.matmul.iq4_nl"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_IQ4_XS, "cuda.matmul.iq4_xs"),
    kernel<TSR_OP_ADD, add>(TSR_DTYPE_F32, "cuda.add.f32"),
    kernel<TSR_OP_MUL, mul>(TSR_DTYPE_F32, "cuda.mul.f32"),
    kernel<TSR_OP_SILU, silu>(TSR_DTYPE_F32, "cuda.silu.f32"),
    kernel<TSR_OP_GELU, gelu>(TSR_DTYPE_F32, "cuda.gelu.f32"),
    kernel<TSR_OP_SWIGLU, swiglu>(TSR_DTYPE_F32, "cuda.swiglu.f32"),
    kernel<TSR_OP_ROPE, rope>(TSR_DTYPE_F32, "cuda.rope.f32"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_F32, "cuda.kv_write.f32"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_F16, "cuda.kv_write.f16"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_Q8_0, "cuda.kv_write.q8_0"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_F32, "cuda.attention.f32"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_F16, "cuda.attention.f16"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_Q8_0, "cuda.attention.q8_0"),
    kernel<TSR_OP_SCALE, scale>(TSR_DTYPE_F32, "cuda.scale.f32"),
    kernel<TSR_OP_GELU_TANH, gelu_tanh>(TSR_DTYPE_F32, "cuda.gelu_tanh.f32"),
    kernel<TSR_OP_RELU, relu>(TSR_DTYPE_F32, "cuda.relu.f32"),
    kernel<TSR_OP_RELU_SQR, relu_sqr>(TSR_DTYPE_F32, "cuda.relu_sqr.f32"),
    kernel<TSR_OP_SOFTCAP, softcap>(TSR_DTYPE_F32, "cuda.softcap.f32"),
    kernel<TSR_OP_SLICE, slice>(TSR_DTYPE_F32, "cuda.slice.f32"),
    kernel<TSR_OP_SUB, sub>(TSR_DTYPE_F32, "cuda.sub.f32"),
    kernel<TSR_OP_AFFINE, affine>(TSR_DTYPE_F32, "cuda.affine.f32"),
    kernel<TSR_OP_CLAMP, clamp>(TSR_DTYPE_F32, "cuda.clamp.f32"),
    kernel<TSR_OP_MOE_ROUTE, moe_route>(TSR_DTYPE_F32, "cuda.moe_route.f32"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_F32, "cuda.moe_matmul.f32"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_F16, "cuda.moe_matmul.f16"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_BF16, "cuda.moe_matmul.bf16"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q8_0, "cuda.moe_matmul.q8_0"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q4_0, "cuda.moe_matmul.q4_0"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q4_1, "cuda.moe_matmul.q4_1"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q5_0, "cuda.moe_matmul.q5_0"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q5_1, "cuda.moe_matmul.q5_1"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q2_K, "cuda.moe_matmul.q2_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q3_K, "cuda.moe_matmul.q3_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q4_K, "cuda.moe_matmul.q4_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q5_K, "cuda.moe_matmul.q5_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q6_K, "cuda.moe_matmul.q6_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_IQ4_NL, "cuda.moe_matmul.iq4_nl"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_IQ4_XS, "cuda.moe_matmul.iq4_xs"),
    kernel<TSR_OP_MOE_COMBINE, moe_combine>(TSR_DTYPE_F32, "cuda.moe_combine.f32"),
};

}  // namespace

std::span<const tsr_kernel_desc> kernel_descs() { return kKernels; }

tsr_status run_guarded(void* device, const tsr_op_call* call, tsr_op op, KernelBody body) noexcept {
  return kit::run_device_kernel<CudaDevice, CudaError>(device, call, op, "cuda", plugin_error(), body);
}

kit::LastError& plugin_error() {
  static kit::LastError error;
  return error;
}

}  // namespace tessera::cuda
