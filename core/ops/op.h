// The closed, typed op set of the graph. OpKind mirrors tsr_op of the plugin ABI and
// each op's attributes are the ABI's params struct, so nothing is re-encoded at dispatch.
#pragma once

#include <cstdint>
#include <string_view>
#include <variant>

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
};
inline constexpr int kOpKindCount = TSR_OP_COUNT;

using NormParams = tsr_norm_params;
using RopeParams = tsr_rope_params;
using KvWriteParams = tsr_kv_write_params;
using AttentionParams = tsr_attention_params;
using ScaleParams = tsr_scale_params;
using SliceParams = tsr_slice_params;

// The attributes of one node; std::monostate for ops without attributes.
using OpParams =
    std::variant<std::monostate, NormParams, RopeParams, KvWriteParams, AttentionParams, ScaleParams,
                 SliceParams>;

std::string_view op_name(OpKind op);  // "get_rows", "rms_norm", ... (lower snake case)
bool op_from_name(std::string_view name, OpKind* out);

// Pointer to the ABI params struct held in `p`, or nullptr for std::monostate.
const void* op_params_ptr(const OpParams& p);

}  // namespace tessera
