// The kernel registry of the CPU plugin and the boundary guard every kernel entry uses.
#include "backends/cpu/kernel_table.h"

#include <array>
#include <mutex>
#include <new>
#include <string>

#include "backends/cpu/device.h"
#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/kv_write.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/norm.h"
#include "backends/cpu/ops/rope.h"

namespace tessera::cpu {
namespace {

std::mutex g_plugin_error_mutex;
std::string g_plugin_error;

// Records prefix + what as the device's last error and returns `status`; if even the
// message cannot be allocated, the error is recorded empty.
tsr_status report(CpuDevice& dev, tsr_status status, const char* prefix, const char* what) noexcept {
  try {
    dev.set_error(std::string(prefix) + what);
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

// Table rows: a kernel with only a reference registers it; one with an optimised
// variant registers that, keeping the reference as its oracle.
template <tsr_op Op, KernelBody Ref>
constexpr KernelSpec reference_only(tsr_dtype dtype, const char* name) {
  return {Op, dtype, name, Ref, nullptr, &entry<Op, Ref>};
}
template <tsr_op Op, KernelBody Ref, KernelBody Fast>
constexpr KernelSpec optimised(tsr_dtype dtype, const char* name) {
  return {Op, dtype, name, Ref, Fast, &entry<Op, Fast>};
}

constexpr std::array kSpecs = {
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_F32, "cpu.get_rows.f32"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_F16, "cpu.get_rows.f16"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_BF16, "cpu.get_rows.bf16"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q8_0, "cpu.get_rows.q8_0"),
    reference_only<TSR_OP_RMS_NORM, rms_norm_ref>(TSR_DTYPE_F32, "cpu.rms_norm.f32"),
    reference_only<TSR_OP_LAYER_NORM, layer_norm_ref>(TSR_DTYPE_F32, "cpu.layer_norm.f32"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_F32, "cpu.matmul.f32"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_F16, "cpu.matmul.f16"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_BF16, "cpu.matmul.bf16"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q8_0, "cpu.matmul.q8_0"),
    reference_only<TSR_OP_ADD, add_ref>(TSR_DTYPE_F32, "cpu.add.f32"),
    reference_only<TSR_OP_MUL, mul_ref>(TSR_DTYPE_F32, "cpu.mul.f32"),
    reference_only<TSR_OP_SILU, silu_ref>(TSR_DTYPE_F32, "cpu.silu.f32"),
    reference_only<TSR_OP_GELU, gelu_ref>(TSR_DTYPE_F32, "cpu.gelu.f32"),
    reference_only<TSR_OP_SWIGLU, swiglu_ref>(TSR_DTYPE_F32, "cpu.swiglu.f32"),
    reference_only<TSR_OP_ROPE, rope_ref>(TSR_DTYPE_F32, "cpu.rope.f32"),
    reference_only<TSR_OP_KV_WRITE, kv_write_ref>(TSR_DTYPE_F32, "cpu.kv_write.f32"),
    reference_only<TSR_OP_KV_WRITE, kv_write_ref>(TSR_DTYPE_F16, "cpu.kv_write.f16"),
    optimised<TSR_OP_ATTENTION, attention_ref, attention_fast>(TSR_DTYPE_F32, "cpu.attention.f32"),
    optimised<TSR_OP_ATTENTION, attention_ref, attention_fast>(TSR_DTYPE_F16, "cpu.attention.f16"),
    reference_only<TSR_OP_SCALE, scale_ref>(TSR_DTYPE_F32, "cpu.scale.f32"),
};

constexpr auto make_descs() {
  std::array<tsr_kernel_desc, kSpecs.size()> descs{};
  for (size_t i = 0; i < kSpecs.size(); ++i) {
    descs[i] = {kSpecs[i].op, kSpecs[i].dtype, 0, kSpecs[i].name, kSpecs[i].entry};
  }
  return descs;
}
constexpr auto kDescs = make_descs();

}  // namespace

std::span<const KernelSpec> kernel_specs() { return kSpecs; }

std::span<const tsr_kernel_desc> kernel_descs() { return kDescs; }

tsr_status run_guarded(void* device, const tsr_op_call* call, tsr_op op, KernelBody body) noexcept {
  if (device == nullptr) {
    set_plugin_error("kernel called without a device");
    return TSR_E_INVALID_ARGUMENT;
  }
  auto& dev = *static_cast<CpuDevice*>(device);
  try {
    if (call == nullptr) throw KernelError(TSR_E_INVALID_ARGUMENT, "kernel called without a call");
    if (call->op != op) {
      throw KernelError(TSR_E_INVALID_ARGUMENT, "kernel for op " + std::to_string(op) +
                                                    " called with op " + std::to_string(call->op));
    }
    body(dev, *call);
    return TSR_OK;
  } catch (const KernelError& e) {
    return report(dev, e.status(), "", e.what());
  } catch (const std::bad_alloc&) {
    return report(dev, TSR_E_OUT_OF_MEMORY, "out of memory in a cpu kernel", "");
  } catch (const std::exception& e) {
    return report(dev, TSR_E_INTERNAL, "internal error in a cpu kernel: ", e.what());
  } catch (...) {
    return report(dev, TSR_E_INTERNAL, "internal error in a cpu kernel: unknown exception", "");
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
    g_plugin_error.clear();  // no memory even for the message
  }
}

}  // namespace tessera::cpu
