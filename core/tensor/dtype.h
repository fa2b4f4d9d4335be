// Element types of tensors (mirrors tsr_dtype of the plugin ABI) for the core: the
// enum, names and sizes, and the conversions to and from f32. The facts and the
// reference conversions themselves live once, in the plugin kit (<tessera/kit/...>),
// shared with every backend; this header gives them the core's types and errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <tessera/kit/half.h>
#include <tessera/kit/quant_blocks.h>
#include <tessera/plugin_abi.h>

namespace tessera {

enum class DType : int32_t {
  F32 = TSR_DTYPE_F32,
  F16 = TSR_DTYPE_F16,
  BF16 = TSR_DTYPE_BF16,
  Q8_0 = TSR_DTYPE_Q8_0,
  I32 = TSR_DTYPE_I32,
  Q4_0 = TSR_DTYPE_Q4_0,
  Q4_1 = TSR_DTYPE_Q4_1,
  Q5_0 = TSR_DTYPE_Q5_0,
  Q5_1 = TSR_DTYPE_Q5_1,
  Q2_K = TSR_DTYPE_Q2_K,
  Q3_K = TSR_DTYPE_Q3_K,
  Q4_K = TSR_DTYPE_Q4_K,
  Q5_K = TSR_DTYPE_Q5_K,
  Q6_K = TSR_DTYPE_Q6_K,
  IQ4_NL = TSR_DTYPE_IQ4_NL,
  IQ4_XS = TSR_DTYPE_IQ4_XS,
};
inline constexpr int kDTypeCount = TSR_DTYPE_COUNT;

inline tsr_dtype to_abi(DType t) { return static_cast<tsr_dtype>(t); }

// Elements per storage block (32 or 256 for the block formats, 1 otherwise).
int64_t dtype_block_elems(DType t);
// Bytes per storage block (34 for Q8_0, 144 for Q4_K, the element size otherwise).
int64_t dtype_block_bytes(DType t);
// Bytes of a row of `n` elements; throws tessera::Error if n is not a whole number of blocks.
int64_t dtype_row_bytes(DType t, int64_t n);
// Whether t is a block format with scales (q8_0, q4_k, ...).
bool dtype_is_quantized(DType t);
std::string_view dtype_name(DType t);  // "f32", "f16", "bf16", "q8_0", "q4_k", "i32", ...
// Parses a name as printed by dtype_name (or ggml's spelling, "q4_K"); false if unknown.
bool dtype_from_name(std::string_view name, DType* out);

using kit::BlockQ8_0;
inline constexpr int kQ8BlockElems = kit::kQK;

using kit::bf16_to_f32;
using kit::f16_to_f32;
using kit::f32_to_bf16;
using kit::f32_to_f16;

// Converts `n` elements of `src` (dtype t) to f32; n is a multiple of the block size.
// Throws tessera::Error otherwise, or for I32.
void dequantize_row(DType t, const void* src, float* dst, int64_t n);
// Converts `n` f32 values to dtype t (any dtype but I32); n is a multiple of the block size.
void quantize_row(DType t, const float* src, void* dst, int64_t n);

}  // namespace tessera
