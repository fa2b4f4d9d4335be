// The kernel registry of the CPU plugin and the boundary guard every kernel entry uses.
#include "backends/cpu/kernel_table.h"

#include <array>

#include <tessera/kit/guard.h>

#include "backends/cpu/device.h"
#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/kv_write.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/moe.h"
#include "backends/cpu/ops/norm.h"
#include "backends/cpu/ops/rope.h"
#include "backends/cpu/ops/slice.h"

namespace tessera::cpu {
namespace {

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
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q4_0, "cpu.get_rows.q4_0"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q4_1, "cpu.get_rows.q4_1"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q5_0, "cpu.get_rows.q5_0"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q5_1, "cpu.get_rows.q5_1"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q2_K, "cpu.get_rows.q2_k"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q3_K, "cpu.get_rows.q3_k"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q4_K, "cpu.get_rows.q4_k"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q5_K, "cpu.get_rows.q5_k"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_Q6_K, "cpu.get_rows.q6_k"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_IQ4_NL, "cpu.get_rows.iq4_nl"),
    reference_only<TSR_OP_GET_ROWS, get_rows_ref>(TSR_DTYPE_IQ4_XS, "cpu.get_rows.iq4_xs"),
    optimised<TSR_OP_RMS_NORM, rms_norm_ref, rms_norm_fast>(TSR_DTYPE_F32, "cpu.rms_norm.f32"),
    reference_only<TSR_OP_LAYER_NORM, layer_norm_ref>(TSR_DTYPE_F32, "cpu.layer_norm.f32"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_F32, "cpu.matmul.f32"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_F16, "cpu.matmul.f16"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_BF16, "cpu.matmul.bf16"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q8_0, "cpu.matmul.q8_0"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q4_0, "cpu.matmul.q4_0"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q4_1, "cpu.matmul.q4_1"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q5_0, "cpu.matmul.q5_0"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q5_1, "cpu.matmul.q5_1"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q2_K, "cpu.matmul.q2_k"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q3_K, "cpu.matmul.q3_k"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q4_K, "cpu.matmul.q4_k"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q5_K, "cpu.matmul.q5_k"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_Q6_K, "cpu.matmul.q6_k"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_IQ4_NL, "cpu.matmul.iq4_nl"),
    optimised<TSR_OP_MATMUL, matmul_ref, matmul_fast>(TSR_DTYPE_IQ4_XS, "cpu.matmul.iq4_xs"),
    optimised<TSR_OP_ADD, add_ref, add_fast>(TSR_DTYPE_F32, "cpu.add.f32"),
    optimised<TSR_OP_MUL, mul_ref, mul_fast>(TSR_DTYPE_F32, "cpu.mul.f32"),
    reference_only<TSR_OP_SILU, silu_ref>(TSR_DTYPE_F32, "cpu.silu.f32"),
    reference_only<TSR_OP_GELU, gelu_ref>(TSR_DTYPE_F32, "cpu.gelu.f32"),
    optimised<TSR_OP_SWIGLU, swiglu_ref, swiglu_fast>(TSR_DTYPE_F32, "cpu.swiglu.f32"),
    optimised<TSR_OP_ROPE, rope_ref, rope_fast>(TSR_DTYPE_F32, "cpu.rope.f32"),
    reference_only<TSR_OP_KV_WRITE, kv_write_ref>(TSR_DTYPE_F32, "cpu.kv_write.f32"),
    reference_only<TSR_OP_KV_WRITE, kv_write_ref>(TSR_DTYPE_F16, "cpu.kv_write.f16"),
    reference_only<TSR_OP_KV_WRITE, kv_write_ref>(TSR_DTYPE_Q8_0, "cpu.kv_write.q8_0"),
    optimised<TSR_OP_ATTENTION, attention_ref, attention_fast>(TSR_DTYPE_F32, "cpu.attention.f32"),
    optimised<TSR_OP_ATTENTION, attention_ref, attention_fast>(TSR_DTYPE_F16, "cpu.attention.f16"),
    optimised<TSR_OP_ATTENTION, attention_ref, attention_fast>(TSR_DTYPE_Q8_0, "cpu.attention.q8_0"),
    reference_only<TSR_OP_SCALE, scale_ref>(TSR_DTYPE_F32, "cpu.scale.f32"),
    reference_only<TSR_OP_GELU_TANH, gelu_tanh_ref>(TSR_DTYPE_F32, "cpu.gelu_tanh.f32"),
    reference_only<TSR_OP_RELU, relu_ref>(TSR_DTYPE_F32, "cpu.relu.f32"),
    reference_only<TSR_OP_RELU_SQR, relu_sqr_ref>(TSR_DTYPE_F32, "cpu.relu_sqr.f32"),
    reference_only<TSR_OP_SOFTCAP, softcap_ref>(TSR_DTYPE_F32, "cpu.softcap.f32"),
    reference_only<TSR_OP_SLICE, slice_ref>(TSR_DTYPE_F32, "cpu.slice.f32"),
    reference_only<TSR_OP_SUB, sub_ref>(TSR_DTYPE_F32, "cpu.sub.f32"),
    reference_only<TSR_OP_AFFINE, affine_ref>(TSR_DTYPE_F32, "cpu.affine.f32"),
    reference_only<TSR_OP_CLAMP, clamp_ref>(TSR_DTYPE_F32, "cpu.clamp.f32"),
    reference_only<TSR_OP_MOE_ROUTE, moe_route_ref>(TSR_DTYPE_F32, "cpu.moe_route.f32"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_F32, "cpu.moe_matmul.f32"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_F16, "cpu.moe_matmul.f16"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_BF16, "cpu.moe_matmul.bf16"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q8_0, "cpu.moe_matmul.q8_0"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q4_0, "cpu.moe_matmul.q4_0"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q4_1, "cpu.moe_matmul.q4_1"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q5_0, "cpu.moe_matmul.q5_0"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q5_1, "cpu.moe_matmul.q5_1"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q2_K, "cpu.moe_matmul.q2_k"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q3_K, "cpu.moe_matmul.q3_k"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q4_K, "cpu.moe_matmul.q4_k"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q5_K, "cpu.moe_matmul.q5_k"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_Q6_K, "cpu.moe_matmul.q6_k"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_IQ4_NL, "cpu.moe_matmul.iq4_nl"),
    optimised<TSR_OP_MOE_MATMUL, moe_matmul_ref, moe_matmul_fast>(TSR_DTYPE_IQ4_XS, "cpu.moe_matmul.iq4_xs"),
    reference_only<TSR_OP_MOE_COMBINE, moe_combine_ref>(TSR_DTYPE_F32, "cpu.moe_combine.f32"),
};

constexpr auto make_descs() {
  std::array<tsr_kernel_desc, kSpecs.size()> descs{};
  for (size_t i = 0; i < kSpecs.size(); ++i) {
    descs[i] = {kSpecs[i].op, kSpecs[i].dtype, 0, kSpecs[i].name, kSpecs[i].entry, nullptr};
  }
  return descs;
}
constexpr auto kDescs = make_descs();

}  // namespace

std::span<const KernelSpec> kernel_specs() { return kSpecs; }

std::span<const tsr_kernel_desc> kernel_descs() { return kDescs; }

tsr_status run_guarded(void* device, const tsr_op_call* call, tsr_op op, KernelBody body) noexcept {
  return kit::run_device_kernel<CpuDevice>(device, call, op, "cpu", plugin_error(), body);
}

kit::LastError& plugin_error() {
  static kit::LastError error;
  return error;
}

}  // namespace tessera::cpu
