// The element types a safetensors file names in its header ("F32", "BF16") mapped to
// Tessera's DType, for the safetensors reader and writer alike.
#pragma once

#include <optional>
#include <string_view>

#include "core/tensor/dtype.h"

namespace tessera {

// The list printed when a dtype is refused.
inline constexpr std::string_view kSupportedSafetensorsDtypes = "F32, F16, BF16, I32";

// The DType of a header dtype name; nullopt for names Tessera does not load (F64,
// I64, U8, BOOL, F8_E4M3, ...) and for unknown ones.
std::optional<DType> dtype_from_safetensors(std::string_view name);
// The header name of `t`; nullopt for Q8_0, which safetensors cannot hold.
std::optional<std::string_view> safetensors_dtype_name(DType t);

}  // namespace tessera
