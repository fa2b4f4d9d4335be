// Safetensors dtype names; see safetensors_dtype.h.
#include "core/weights/safetensors_dtype.h"

#include <array>
#include <utility>

namespace tessera {
namespace {

constexpr std::array<std::pair<std::string_view, DType>, 4> kNames = {{
    {"F32", DType::F32},
    {"F16", DType::F16},
    {"BF16", DType::BF16},
    {"I32", DType::I32},
}};

}  // namespace

std::optional<DType> dtype_from_safetensors(std::string_view name) {
  for (const auto& [text, dtype] : kNames) {
    if (text == name) return dtype;
  }
  return std::nullopt;
}

std::optional<std::string_view> safetensors_dtype_name(DType t) {
  for (const auto& [text, dtype] : kNames) {
    if (dtype == t) return text;
  }
  return std::nullopt;
}

}  // namespace tessera
