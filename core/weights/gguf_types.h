// GGUF format constants shared by the reader and the writer: the metadata value type
// codes, the GGML tensor type ids with their names, and the mapping to Tessera dtypes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/tensor/dtype.h"

namespace tessera::gguf {

inline constexpr uint32_t kMagic = 0x46554747;  // the bytes "GGUF" read as little-endian
inline constexpr uint32_t kWriteVersion = 3;
inline constexpr uint64_t kDefaultAlignment = 32;
inline constexpr uint32_t kMaxDims = 4;
inline constexpr std::string_view kAlignmentKey = "general.alignment";

// Metadata value type codes, as stored in the file.
enum ValueType : int {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};
inline constexpr int kValueTypeCount = 13;

bool is_valid_value_type(int64_t type);
std::string_view value_type_name(int type);  // "uint32", "string", ...; "unknown" if invalid
bool is_integer_type(int type);
bool is_signed_integer_type(int type);
bool is_float_type(int type);
// Size in bytes of a fixed-size value (numbers, bool); 0 for string and array.
uint64_t fixed_value_bytes(int type);
// The fewest bytes any value of `type` occupies (a string: its 8-byte length;
// an array: element type + count), used to reject counts that cannot fit.
uint64_t min_value_bytes(int type);
// Whether an integer fits the range of integer type `type`.
bool signed_fits(int type, int64_t v);
bool unsigned_fits(int type, uint64_t v);

// GGML tensor type ids: name ("q4_K") or "" if the id is unknown.
std::string_view ggml_type_name(uint32_t id);
// "q4_K (12)" or "unknown (99)": how a type id appears in messages.
std::string describe_ggml_type(uint32_t id);
// The dtype a GGML type id maps to, if Tessera supports it (supported_ggml_types()).
std::optional<DType> dtype_from_ggml(uint32_t id);
uint32_t ggml_from_dtype(DType t);
// "f32, f16, bf16, q8_0, i32, q4_0, ...": the GGML type names Tessera reads, for messages.
std::string supported_ggml_types();

inline uint64_t align_up(uint64_t offset, uint64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

}  // namespace tessera::gguf
