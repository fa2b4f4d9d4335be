// Element c of a row of any float or block dtype, in device code: the kit's value
// formulas (block_values.h, f16/bf16 conversions), and a switch from the dtype to the
// block type for kernels templated on it.
#pragma once

#include <cstdint>

#include <tessera/kit/block_values.h>
#include <tessera/kit/half.h>
#include <tessera/kit/quant_blocks.h>
#include <tessera/plugin_abi.h>

namespace tessera::cuda {

// Element types: F32 and the 16-bit floats as "blocks" of one element.
struct F32Elem { float v; };
struct F16Elem { uint16_t v; };
struct BF16Elem { uint16_t v; };

template <class B> struct BlockSize { static constexpr int value = kit::kQK; };
template <> struct BlockSize<F32Elem> { static constexpr int value = 1; };
template <> struct BlockSize<F16Elem> { static constexpr int value = 1; };
template <> struct BlockSize<BF16Elem> { static constexpr int value = 1; };
template <> struct BlockSize<kit::BlockQ2_K> { static constexpr int value = kit::kQKK; };
template <> struct BlockSize<kit::BlockQ3_K> { static constexpr int value = kit::kQKK; };
template <> struct BlockSize<kit::BlockQ4_K> { static constexpr int value = kit::kQKK; };
template <> struct BlockSize<kit::BlockQ5_K> { static constexpr int value = kit::kQKK; };
template <> struct BlockSize<kit::BlockQ6_K> { static constexpr int value = kit::kQKK; };
template <> struct BlockSize<kit::BlockIQ4_XS> { static constexpr int value = kit::kQKK; };

__device__ inline float elem_value(const F32Elem& e, int) { return e.v; }
__device__ inline float elem_value(const F16Elem& e, int) { return kit::f16_to_f32(e.v); }
__device__ inline float elem_value(const BF16Elem& e, int) { return kit::bf16_to_f32(e.v); }
template <class B>
__device__ inline float elem_value(const B& b, int i) {
  return kit::block_value(b, i);
}

// Element c of a row starting at `row` (bytes).
template <class B>
__device__ inline float row_value(const uint8_t* row, int64_t c) {
  constexpr int kN = BlockSize<B>::value;
  const B& b = reinterpret_cast<const B*>(row)[c / kN];
  return elem_value(b, static_cast<int>(c % kN));
}

// A block type as a value, for generic lambdas: [&](auto tag) { using B = typename decltype(tag)::type; }.
template <class B>
struct BlockTag {
  using type = B;
};

// Calls fn(BlockTag<B>{}) with B the element or block type of `dtype`; false for a
// dtype without one (I32, unknown).
template <class Fn>
bool with_block_type(tsr_dtype dtype, Fn&& fn) {
  switch (dtype) {
    case TSR_DTYPE_F32: fn(BlockTag<F32Elem>{}); return true;
    case TSR_DTYPE_F16: fn(BlockTag<F16Elem>{}); return true;
    case TSR_DTYPE_BF16: fn(BlockTag<BF16Elem>{}); return true;
    case TSR_DTYPE_Q8_0: fn(BlockTag<kit::BlockQ8_0>{}); return true;
    case TSR_DTYPE_Q4_0: fn(BlockTag<kit::BlockQ4_0>{}); return true;
    case TSR_DTYPE_Q4_1: fn(BlockTag<kit::BlockQ4_1>{}); return true;
    case TSR_DTYPE_Q5_0: fn(BlockTag<kit::BlockQ5_0>{}); return true;
    case TSR_DTYPE_Q5_1: fn(BlockTag<kit::BlockQ5_1>{}); return true;
    case TSR_DTYPE_IQ4_NL: fn(BlockTag<kit::BlockIQ4_NL>{}); return true;
    case TSR_DTYPE_Q2_K: fn(BlockTag<kit::BlockQ2_K>{}); return true;
    case TSR_DTYPE_Q3_K: fn(BlockTag<kit::BlockQ3_K>{}); return true;
    case TSR_DTYPE_Q4_K: fn(BlockTag<kit::BlockQ4_K>{}); return true;
    case TSR_DTYPE_Q5_K: fn(BlockTag<kit::BlockQ5_K>{}); return true;
    case TSR_DTYPE_Q6_K: fn(BlockTag<kit::BlockQ6_K>{}); return true;
    case TSR_DTYPE_IQ4_XS: fn(BlockTag<kit::BlockIQ4_XS>{}); return true;
    default: return false;
  }
}

}  // namespace tessera::cuda
