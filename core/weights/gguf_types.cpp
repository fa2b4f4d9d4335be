// GGUF value types and GGML tensor type ids; see gguf_types.h.
#include "core/weights/gguf_types.h"

#include <array>
#include <limits>

#include <tessera/kit/dtype_traits.h>

#include "core/util/error.h"

namespace tessera::gguf {
namespace {

constexpr std::array<std::string_view, kValueTypeCount> kValueTypeNames = {
    "uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
    "bool",  "string", "array",  "uint64", "int64",  "float64"};

// Indexed by GGML type id; "" marks ids that were removed from GGML.
constexpr std::array<std::string_view, 40> kGgmlTypeNames = {
    "f32",     "f16",    "q4_0",    "q4_1",  "",       "",      "q5_0",  "q5_1",
    "q8_0",    "q8_1",   "q2_K",    "q3_K",  "q4_K",   "q5_K",  "q6_K",  "q8_K",
    "iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq4_nl", "iq3_s", "iq2_s", "iq4_xs",
    "i8",      "i16",    "i32",     "i64",   "f64",    "iq1_m", "bf16",  "",
    "",        "",       "tq1_0",   "tq2_0", "",       "",      "",      "mxfp4"};

}  // namespace

bool is_valid_value_type(int64_t type) { return type >= 0 && type < kValueTypeCount; }

std::string_view value_type_name(int type) {
  return is_valid_value_type(type) ? kValueTypeNames[static_cast<size_t>(type)] : "unknown";
}

bool is_signed_integer_type(int type) {
  return type == kInt8 || type == kInt16 || type == kInt32 || type == kInt64;
}

bool is_integer_type(int type) {
  return is_signed_integer_type(type) || type == kUint8 || type == kUint16 || type == kUint32 ||
         type == kUint64;
}

bool is_float_type(int type) { return type == kFloat32 || type == kFloat64; }

uint64_t fixed_value_bytes(int type) {
  switch (type) {
    case kUint8:
    case kInt8:
    case kBool:
      return 1;
    case kUint16:
    case kInt16:
      return 2;
    case kUint32:
    case kInt32:
    case kFloat32:
      return 4;
    case kUint64:
    case kInt64:
    case kFloat64:
      return 8;
    default:
      return 0;
  }
}

uint64_t min_value_bytes(int type) {
  if (type == kString) return 8;  // uint64 length
  if (type == kArray) return 12;  // uint32 element type + uint64 count
  return fixed_value_bytes(type);
}

bool signed_fits(int type, int64_t v) {
  switch (type) {
    case kInt8:
      return v >= INT8_MIN && v <= INT8_MAX;
    case kInt16:
      return v >= INT16_MIN && v <= INT16_MAX;
    case kInt32:
      return v >= INT32_MIN && v <= INT32_MAX;
    case kInt64:
      return true;
    default:
      return v >= 0 && unsigned_fits(type, static_cast<uint64_t>(v));
  }
}

bool unsigned_fits(int type, uint64_t v) {
  switch (type) {
    case kUint8:
      return v <= UINT8_MAX;
    case kUint16:
      return v <= UINT16_MAX;
    case kUint32:
      return v <= UINT32_MAX;
    case kUint64:
      return true;
    case kInt8:
      return v <= static_cast<uint64_t>(INT8_MAX);
    case kInt16:
      return v <= static_cast<uint64_t>(INT16_MAX);
    case kInt32:
      return v <= static_cast<uint64_t>(INT32_MAX);
    case kInt64:
      return v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    default:
      return false;
  }
}

std::string_view ggml_type_name(uint32_t id) {
  return id < kGgmlTypeNames.size() ? kGgmlTypeNames[id] : std::string_view();
}

std::string describe_ggml_type(uint32_t id) {
  const std::string_view name = ggml_type_name(id);
  return (name.empty() ? std::string("unknown") : std::string(name)) + " (" + std::to_string(id) +
         ")";
}

std::optional<DType> dtype_from_ggml(uint32_t id) {
  tsr_dtype t;
  if (!kit::dtype_from_ggml_id(id, &t)) return std::nullopt;
  return static_cast<DType>(t);
}

uint32_t ggml_from_dtype(DType t) {
  if (!kit::is_known_dtype(to_abi(t))) {
    throw Error("dtype code " + std::to_string(static_cast<int>(t)) + " has no GGML type id");
  }
  return kit::dtype_traits(to_abi(t)).ggml_id;
}

std::string supported_ggml_types() {
  std::string list;
  for (int i = 0; i < kDTypeCount; ++i) {
    if (!list.empty()) list += ", ";
    list += kit::dtype_traits(static_cast<tsr_dtype>(i)).ggml;
  }
  return list;
}

}  // namespace tessera::gguf
