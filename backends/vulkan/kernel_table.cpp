// The kernel list of the Vulkan plugin and the exception boundary of every kernel.
#include "backends/vulkan/kernel_table.h"

#include <array>

#include <tessera/kit/guard.h>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/ops.h"

namespace tessera::vulkan {
namespace {

// The C entry registered for one kernel: a distinct function per (op, body).
template <tsr_op Op, KernelBody Body>
tsr_status entry(void* device, const tsr_op_call* call) {
  return run_guarded(device, call, Op, Body);
}

template <tsr_op Op, KernelBody Body>
constexpr tsr_kernel_desc kernel(tsr_dtype dtype, const char* name) {
  return {Op, dtype, 0, name, &entry<Op, Body>, nullptr};
}

// The same (op, dtype) pairs as the CPU plugin registers; GET_ROWS, MATMUL and MOE_MATMUL
// take every block format (dequant.glsl decodes them in the shaders).
constexpr std::array kKernels = {
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_F32, "vulkan.get_rows.f32"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_F16, "vulkan.get_rows.f16"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_BF16, "vulkan.get_rows.bf16"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q8_0, "vulkan.get_rows.q8_0"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q4_0, "vulkan.get_rows.q4_0"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q4_1, "vulkan.get_rows.q4_1"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q5_0, "vulkan.get_rows.q5_0"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q5_1, "vulkan.get_rows.q5_1"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q2_K, "vulkan.get_rows.q2_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q3_K, "vulkan.get_rows.q3_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q4_K, "vulkan.get_rows.q4_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q5_K, "vulkan.get_rows.q5_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q6_K, "vulkan.get_rows.q6_k"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_IQ4_NL, "vulkan.get_rows.iq4_nl"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_IQ4_XS, "vulkan.get_rows.iq4_xs"),
    kernel<TSR_OP_RMS_NORM, rms_norm>(TSR_DTYPE_F32, "vulkan.rms_norm.f32"),
    kernel<TSR_OP_LAYER_NORM, layer_norm>(TSR_DTYPE_F32, "vulkan.layer_norm.f32"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_F32, "vulkan.matmul.f32"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_F16, "vulkan.matmul.f16"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_BF16, "vulkan.matmul.bf16"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q8_0, "vulkan.matmul.q8_0"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q4_0, "vulkan.matmul.q4_0"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q4_1, "vulkan.matmul.q4_1"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q5_0, "vulkan.matmul.q5_0"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q5_1, "vulkan.matmul.q5_1"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q2_K, "vulkan.matmul.q2_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q3_K, "vulkan.matmul.q3_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q4_K, "vulkan.matmul.q4_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q5_K, "vulkan.matmul.q5_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q6_K, "vulkan.matmul.q6_k"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_IQ4_NL, "vulkan.matmul.iq4_nl"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_IQ4_XS, "vulkan.matmul.iq4_xs"),
    kernel<TSR_OP_ADD, add>(TSR_DTYPE_F32, "vulkan.add.f32"),
    kernel<TSR_OP_MUL, mul>(TSR_DTYPE_F32, "vulkan.mul.f32"),
    kernel<TSR_OP_SILU, silu>(TSR_DTYPE_F32, "vulkan.silu.f32"),
    kernel<TSR_OP_GELU, gelu>(TSR_DTYPE_F32, "vulkan.gelu.f32"),
    kernel<TSR_OP_SWIGLU, swiglu>(TSR_DTYPE_F32, "vulkan.swiglu.f32"),
    kernel<TSR_OP_ROPE, rope>(TSR_DTYPE_F32, "vulkan.rope.f32"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_F32, "vulkan.kv_write.f32"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_F16, "vulkan.kv_write.f16"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_Q8_0, "vulkan.kv_write.q8_0"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_F32, "vulkan.attention.f32"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_F16, "vulkan.attention.f16"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_Q8_0, "vulkan.attention.q8_0"),
    kernel<TSR_OP_SCALE, scale>(TSR_DTYPE_F32, "vulkan.scale.f32"),
    kernel<TSR_OP_GELU_TANH, gelu_tanh>(TSR_DTYPE_F32, "vulkan.gelu_tanh.f32"),
    kernel<TSR_OP_RELU, relu>(TSR_DTYPE_F32, "vulkan.relu.f32"),
    kernel<TSR_OP_RELU_SQR, relu_sqr>(TSR_DTYPE_F32, "vulkan.relu_sqr.f32"),
    kernel<TSR_OP_SOFTCAP, softcap>(TSR_DTYPE_F32, "vulkan.softcap.f32"),
    kernel<TSR_OP_SLICE, slice>(TSR_DTYPE_F32, "vulkan.slice.f32"),
    kernel<TSR_OP_SUB, sub>(TSR_DTYPE_F32, "vulkan.sub.f32"),
    kernel<TSR_OP_AFFINE, affine>(TSR_DTYPE_F32, "vulkan.affine.f32"),
    kernel<TSR_OP_CLAMP, clamp>(TSR_DTYPE_F32, "vulkan.clamp.f32"),
    kernel<TSR_OP_MOE_ROUTE, moe_route>(TSR_DTYPE_F32, "vulkan.moe_route.f32"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_F32, "vulkan.moe_matmul.f32"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_F16, "vulkan.moe_matmul.f16"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_BF16, "vulkan.moe_matmul.bf16"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q8_0, "vulkan.moe_matmul.q8_0"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q4_0, "vulkan.moe_matmul.q4_0"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q4_1, "vulkan.moe_matmul.q4_1"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q5_0, "vulkan.moe_matmul.q5_0"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q5_1, "vulkan.moe_matmul.q5_1"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q2_K, "vulkan.moe_matmul.q2_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q3_K, "vulkan.moe_matmul.q3_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q4_K, "vulkan.moe_matmul.q4_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q5_K, "vulkan.moe_matmul.q5_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_Q6_K, "vulkan.moe_matmul.q6_k"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_IQ4_NL, "vulkan.moe_matmul.iq4_nl"),
    kernel<TSR_OP_MOE_MATMUL, moe_matmul>(TSR_DTYPE_IQ4_XS, "vulkan.moe_matmul.iq4_xs"),
    kernel<TSR_OP_MOE_COMBINE, moe_combine>(TSR_DTYPE_F32, "vulkan.moe_combine.f32"),
};

}  // namespace

std::span<const tsr_kernel_desc> kernel_descs() { return kKernels; }

tsr_status run_guarded(void* device, const tsr_op_call* call, tsr_op op, KernelBody body) noexcept {
  return kit::run_device_kernel<VulkanDevice, VulkanError>(device, call, op, "vulkan", plugin_error(), body);
}

kit::LastError& plugin_error() {
  static kit::LastError error;
  return error;
}

}  // namespace tessera::vulkan
