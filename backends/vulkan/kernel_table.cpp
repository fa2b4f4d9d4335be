// The kernel list of the Vulkan plugin and the exception boundary of every kernel.
#include "backends/vulkan/kernel_table.h"

#include <array>
#include <mutex>
#include <new>
#include <string>

#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/ops.h"

namespace tessera::vulkan {
namespace {

std::mutex g_plugin_error_mutex;
std::string g_plugin_error;

tsr_status report(VulkanDevice& dev, tsr_status status, const std::string& message) noexcept {
  try {
    dev.set_error(message);
  } catch (...) {
    dev.set_error(std::string());
  }
  return status;
}

// The C entry registered for one kernel: a distinct function per (op, body).
template <tsr_op Op, KernelBody Body>
tsr_status entry(void* device, const tsr_op_call* call) {
  return run_guarded(device, call, Op, Body);
}

template <tsr_op Op, KernelBody Body>
constexpr tsr_kernel_desc kernel(tsr_dtype dtype, const char* name) {
  return {Op, dtype, 0, name, &entry<Op, Body>};
}

// The same (op, dtype) pairs as the CPU plugin registers.
constexpr std::array kKernels = {
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_F32, "vulkan.get_rows.f32"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_F16, "vulkan.get_rows.f16"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_BF16, "vulkan.get_rows.bf16"),
    kernel<TSR_OP_GET_ROWS, get_rows>(TSR_DTYPE_Q8_0, "vulkan.get_rows.q8_0"),
    kernel<TSR_OP_RMS_NORM, rms_norm>(TSR_DTYPE_F32, "vulkan.rms_norm.f32"),
    kernel<TSR_OP_LAYER_NORM, layer_norm>(TSR_DTYPE_F32, "vulkan.layer_norm.f32"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_F32, "vulkan.matmul.f32"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_F16, "vulkan.matmul.f16"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_BF16, "vulkan.matmul.bf16"),
    kernel<TSR_OP_MATMUL, matmul>(TSR_DTYPE_Q8_0, "vulkan.matmul.q8_0"),
    kernel<TSR_OP_ADD, add>(TSR_DTYPE_F32, "vulkan.add.f32"),
    kernel<TSR_OP_MUL, mul>(TSR_DTYPE_F32, "vulkan.mul.f32"),
    kernel<TSR_OP_SILU, silu>(TSR_DTYPE_F32, "vulkan.silu.f32"),
    kernel<TSR_OP_GELU, gelu>(TSR_DTYPE_F32, "vulkan.gelu.f32"),
    kernel<TSR_OP_SWIGLU, swiglu>(TSR_DTYPE_F32, "vulkan.swiglu.f32"),
    kernel<TSR_OP_ROPE, rope>(TSR_DTYPE_F32, "vulkan.rope.f32"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_F32, "vulkan.kv_write.f32"),
    kernel<TSR_OP_KV_WRITE, kv_write>(TSR_DTYPE_F16, "vulkan.kv_write.f16"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_F32, "vulkan.attention.f32"),
    kernel<TSR_OP_ATTENTION, attention>(TSR_DTYPE_F16, "vulkan.attention.f16"),
    kernel<TSR_OP_SCALE, scale>(TSR_DTYPE_F32, "vulkan.scale.f32"),
};

}  // namespace

std::span<const tsr_kernel_desc> kernel_descs() { return kKernels; }

tsr_status run_guarded(void* device, const tsr_op_call* call, tsr_op op, KernelBody body) noexcept {
  if (device == nullptr) {
    set_plugin_error("kernel called without a device");
    return TSR_E_INVALID_ARGUMENT;
  }
  auto& dev = *static_cast<VulkanDevice*>(device);
  try {
    if (call == nullptr) throw KernelError(TSR_E_INVALID_ARGUMENT, "kernel called without a call");
    if (call->op != op) {
      throw KernelError(TSR_E_INVALID_ARGUMENT,
                        "kernel for op " + std::to_string(op) + " called with op " + std::to_string(call->op));
    }
    body(dev, *call);
    return TSR_OK;
  } catch (const KernelError& e) {
    return report(dev, e.status(), e.what());
  } catch (const VulkanError& e) {
    return report(dev, e.status(), e.what());
  } catch (const std::bad_alloc&) {
    return report(dev, TSR_E_OUT_OF_MEMORY, "out of host memory in a vulkan kernel");
  } catch (const std::exception& e) {
    return report(dev, TSR_E_INTERNAL, std::string("internal error in a vulkan kernel: ") + e.what());
  } catch (...) {
    return report(dev, TSR_E_INTERNAL, "internal error in a vulkan kernel: unknown exception");
  }
}

const char* plugin_error() {
  std::lock_guard lock(g_plugin_error_mutex);
  return g_plugin_error.c_str();
}

void set_plugin_error(const char* message) noexcept {
  std::lock_guard lock(g_plugin_error_mutex);
  try {
    g_plugin_error = message;
  } catch (...) {
    g_plugin_error.clear();
  }
}

}  // namespace tessera::vulkan
