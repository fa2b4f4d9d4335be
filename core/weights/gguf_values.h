// Constructors of metadata values carrying their GGUF type, so a value made in code
// (a llama2.c header field, `tessera init` settings) is written back with that type.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/weights/weight_file.h"

namespace tessera::gguf {

MetaValue make_u8(uint8_t v);
MetaValue make_i8(int8_t v);
MetaValue make_u16(uint16_t v);
MetaValue make_i16(int16_t v);
MetaValue make_u32(uint32_t v);
MetaValue make_i32(int32_t v);
MetaValue make_u64(uint64_t v);
MetaValue make_i64(int64_t v);
MetaValue make_f32(float v);
MetaValue make_f64(double v);
MetaValue make_bool(bool v);
MetaValue make_string(std::string v);

// Arrays: `elem_type` is the GGUF code of the elements (kept even when empty).
MetaValue make_array(int elem_type, MetaArray items);
MetaValue make_string_array(const std::vector<std::string>& items);
MetaValue make_f32_array(std::span<const float> items);
MetaValue make_i32_array(std::span<const int32_t> items);
MetaValue make_u32_array(std::span<const uint32_t> items);

}  // namespace tessera::gguf
