#include "core/ops/op.h"

#include <array>

namespace tessera {
namespace {

constexpr std::array<std::string_view, kOpKindCount> kOpNames = {
    "get_rows", "rms_norm", "layer_norm", "matmul", "add",   "mul",       "silu",
    "gelu",     "swiglu",   "rope",       "kv_write", "attention", "scale",     "gelu_tanh",
    "relu",     "relu_sqr", "softcap",    "slice",
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

const void* op_params_ptr(const OpParams& p) {
  return std::visit(
      [](const auto& v) -> const void* {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>) {
          return nullptr;
        } else {
          return &v;
        }
      },
      p);
}

}  // namespace tessera
