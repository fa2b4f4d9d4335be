#include "core/ops/op.h"

#include <array>

namespace tessera {
namespace {

constexpr std::array<std::string_view, kOpKindCount> kOpNames = {
    "get_rows", "rms_norm", "layer_norm", "matmul", "add",   "mul",       "silu",
    "gelu",     "swiglu",   "rope",       "kv_write", "attention", "scale",     "gelu_tanh",
    "relu",     "relu_sqr", "softcap",    "slice",    "custom",   "sub",       "affine",    "clamp",
    "moe_route", "moe_matmul", "moe_combine",
};
static_assert(kOpNames.size() == TSR_OP_COUNT, "every op needs a name");

}  // namespace

std::string_view op_name(OpKind op) {
  const auto i = static_cast<size_t>(op);
  return i < kOpNames.size() ? kOpNames[i] : std::string_view("?");
}

bool op_from_name(std::string_view name, OpKind* out) {
  for (size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) {
      *out = static_cast<OpKind>(i);
      return true;
    }
  }
  return false;
}

std::string op_ref_name(const OpRef& op) {
  return op.op == OpKind::Custom ? std::string(op.custom) : std::string(op_name(op.op));
}

const void* op_params_ptr(const OpParams& p, tsr_custom_params* custom) {
  return std::visit(
      [custom](const auto& v) -> const void* {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, CustomOpParams>) {
          custom->op_name = v.name.c_str();
          custom->n_attrs = static_cast<int32_t>(v.attrs.size());
          custom->attrs = v.attrs.data();
          return custom;
        } else {
          return &v;
        }
      },
      p);
}

}  // namespace tessera
