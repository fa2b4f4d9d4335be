// The closed, typed op set of the graph. OpKind mirrors tsr_op of the plugin ABI and
// each op's attributes are the ABI's params struct, so nothing is re-encoded at dispatch.
// OpKind::Custom is the one open door: an op a plugin declares (core/ops/custom_op.h),
// named in its CustomOpParams.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <tessera/plugin_abi.h>

namespace tessera {

enum class OpKind : int32_t {
  GetRows = TSR_OP_GET_ROWS,
  RmsNorm = TSR_OP_RMS_NORM,
  LayerNorm = TSR_OP_LAYER_NORM,
  MatMul = TSR_OP_MATMUL,
  Add = TSR_OP_ADD,
  Mul = TSR_OP_MUL,
  Silu = TSR_OP_SILU,
  Gelu = TSR_OP_GELU,
  SwiGlu = TSR_OP_SWIGLU,
  Rope = TSR_OP_ROPE,
  KvWrite = TSR_OP_KV_WRITE,
  Attention = TSR_OP_ATTENTION,
  Scale = TSR_OP_SCALE,
  GeluTanh = TSR_OP_GELU_TANH,
  Relu = TSR_OP_RELU,
  ReluSqr = TSR_OP_RELU_SQR,
  SoftCap = TSR_OP_SOFTCAP,
  Slice = TSR_OP_SLICE,
  Custom = TSR_OP_CUSTOM,
  Sub = TSR_OP_SUB,
  Affine = TSR_OP_AFFINE,
  Clamp = TSR_OP_CLAMP,
  MoeRoute = TSR_OP_MOE_ROUTE,
  MoeMatMul = TSR_OP_MOE_MATMUL,
  MoeCombine = TSR_OP_MOE_COMBINE,
};
inline constexpr int kOpKindCount = TSR_OP_COUNT;

using NormParams = tsr_norm_params;
using RopeParams = tsr_rope_params;
using KvWriteParams = tsr_kv_write_params;
using AttentionParams = tsr_attention_params;
using ScaleParams = tsr_scale_params;
using SliceParams = tsr_slice_params;
using AffineParams = tsr_affine_params;
using ClampParams = tsr_clamp_params;
using MoeRouteParams = tsr_moe_route_params;

// The attributes of a node of OpKind::Custom: the declared op it calls and its
// attribute values in declaration order (defaults filled in).
struct CustomOpParams {
  std::string name;       // "acme.fused_silu_mul"
  int32_t key_input = 0;  // the input whose dtype its kernels are registered under
  std::vector<tsr_attr_value> attrs;
};

// The attributes of one node; std::monostate for ops without attributes.
using OpParams =
    std::variant<std::monostate, NormParams, RopeParams, KvWriteParams, AttentionParams, ScaleParams,
                 SliceParams, CustomOpParams, AffineParams, ClampParams, MoeRouteParams>;

// Which op a kernel runs: a built-in one, or (op Custom) the declared op `custom`.
// Converts from OpKind for the built-in ones.
struct OpRef {
  OpKind op = OpKind::Add;
  std::string_view custom;  // OpKind::Custom only: the declared op's name

  OpRef(OpKind kind) : op(kind) {}  // NOLINT: a built-in op is an OpRef
  OpRef(OpKind kind, std::string_view name) : op(kind), custom(name) {}
};
// op_name(op.op), or the declared op's name for OpKind::Custom.
std::string op_ref_name(const OpRef& op);

std::string_view op_name(OpKind op);  // "get_rows", "rms_norm", ... (lower snake case)
bool op_from_name(std::string_view name, OpKind* out);

// The ABI params struct held in `p` for a kernel call, or nullptr for std::monostate.
// A CustomOpParams is described in `*custom` (which must outlive the call), pointing
// into `p`.
const void* op_params_ptr(const OpParams& p, tsr_custom_params* custom);

}  // namespace tessera
