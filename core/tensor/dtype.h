// Element types of tensors (mirrors tsr_dtype of the plugin ABI) and the sizes
// and conversions every module needs: half floats, bfloat16, Q8_0 blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <tessera/plugin_abi.h>

namespace tessera {

enum class DType : int32_t {
  F32 = TSR_DTYPE_F32,
  F16 = TSR_DTYPE_F16,
  BF16 = TSR_DTYPE_BF16,
  Q8_0 = TSR_DTYPE_Q8_0,
  I32 = TSR_DTYPE_I32,
};
inline constexpr int kDTypeCount = TSR_DTYPE_COUNT;

// Elements per storage block (32 for Q8_0, 1 otherwise).
int64_t dtype_block_elems(DType t);
// Bytes per storage block (34 for Q8_0).
int64_t dtype_block_bytes(DType t);
// Bytes of a row of `n` elements; throws tessera::Error if n is not a whole number of blocks.
int64_t dtype_row_bytes(DType t, int64_t n);
std::string_view dtype_name(DType t);  // "f32", "f16", "bf16", "q8_0", "i32"
// Parses a name as printed by dtype_name; returns false if unknown.
bool dtype_from_name(std::string_view name, DType* out);

inline constexpr int kQ8BlockElems = 32;
struct BlockQ8_0 {
  uint16_t d;  // f16 scale
  int8_t q[kQ8BlockElems];
};
static_assert(sizeof(BlockQ8_0) == 34);

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);  // round to nearest even
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);  // round to nearest even

// Converts `n` elements of `src` (dtype t) to f32; n is a multiple of the block size.
void dequantize_row(DType t, const void* src, float* dst, int64_t n);
// Converts `n` f32 values to dtype t (F32, F16, BF16, Q8_0); n is a multiple of the block size.
void quantize_row(DType t, const float* src, void* dst, int64_t n);

}  // namespace tessera
