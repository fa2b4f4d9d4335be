// GGUF-typed MetaValue constructors; see gguf_values.h.
#include "core/weights/gguf_values.h"

#include "core/weights/gguf_types.h"

namespace tessera::gguf {
namespace {

MetaValue typed(decltype(MetaValue::value) value, int type) {
  MetaValue v;
  v.value = std::move(value);
  v.gguf_type = type;
  return v;
}

}  // namespace

MetaValue make_u8(uint8_t v) { return typed(uint64_t{v}, kUint8); }
MetaValue make_i8(int8_t v) { return typed(int64_t{v}, kInt8); }
MetaValue make_u16(uint16_t v) { return typed(uint64_t{v}, kUint16); }
MetaValue make_i16(int16_t v) { return typed(int64_t{v}, kInt16); }
MetaValue make_u32(uint32_t v) { return typed(uint64_t{v}, kUint32); }
MetaValue make_i32(int32_t v) { return typed(int64_t{v}, kInt32); }
MetaValue make_u64(uint64_t v) { return typed(v, kUint64); }
MetaValue make_i64(int64_t v) { return typed(v, kInt64); }
MetaValue make_f32(float v) { return typed(double{v}, kFloat32); }
MetaValue make_f64(double v) { return typed(v, kFloat64); }
MetaValue make_bool(bool v) { return typed(v, kBool); }
MetaValue make_string(std::string v) { return typed(std::move(v), kString); }

MetaValue make_array(int elem_type, MetaArray items) {
  MetaValue v = typed(std::move(items), kArray);
  v.gguf_elem_type = elem_type;
  return v;
}

MetaValue make_string_array(const std::vector<std::string>& items) {
  MetaArray out;
  out.reserve(items.size());
  for (const std::string& s : items) out.push_back(make_string(s));
  return make_array(kString, std::move(out));
}

MetaValue make_f32_array(std::span<const float> items) {
  MetaArray out;
  out.reserve(items.size());
  for (float f : items) out.push_back(make_f32(f));
  return make_array(kFloat32, std::move(out));
}

MetaValue make_i32_array(std::span<const int32_t> items) {
  MetaArray out;
  out.reserve(items.size());
  for (int32_t i : items) out.push_back(make_i32(i));
  return make_array(kInt32, std::move(out));
}

MetaValue make_u32_array(std::span<const uint32_t> items) {
  MetaArray out;
  out.reserve(items.size());
  for (uint32_t i : items) out.push_back(make_u32(i));
  return make_array(kUint32, std::move(out));
}

}  // namespace tessera::gguf
