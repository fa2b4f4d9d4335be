// The rows of a weight of any float or block dtype, as the CUDA kernels read them:
// element c of a row, a lane's share of a row's dot products (accumulate_row), with the
// kit's value formulas (block_values.h, f16/bf16 conversions); and a switch from the
// dtype to the block type for kernels templated on it. __host__ __device__ (TSR_HD):
// the CPU test runs accumulate_row for all 32 lanes of a warp against the reference.
#pragma once

#include <cstdint>

#include <tessera/kit/block_values.h>
#include <tessera/kit/half.h>
#include <tessera/kit/host_device.h>
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

TSR_HD inline float elem_value(const F32Elem& e, int) { return e.v; }
TSR_HD inline float elem_value(const F16Elem& e, int) { return kit::f16_to_f32(e.v); }
TSR_HD inline float elem_value(const BF16Elem& e, int) { return kit::bf16_to_f32(e.v); }
template <class B>
TSR_HD inline float elem_value(const B& b, int i) {
  return kit::block_value(b, i);
}

// Element c of a row starting at `row` (bytes).
template <class B>
TSR_HD inline float row_value(const uint8_t* row, int64_t c) {
  constexpr int kN = BlockSize<B>::value;
  const B& b = reinterpret_cast<const B*>(row)[c / kN];
  return elem_value(b, static_cast<int>(c % kN));
}

// A block type as a value, for generic lambdas: [&](auto tag) { using B = typename decltype(tag)::type; }.
template <class B>
struct BlockTag {
  using type = B;
};

// acc[r] += sum_c w[c] * x[r * x_stride + c] for r < n_rows, over the share of a row of
// `cols` weights (w: `row`) that lane `lane` of a warp takes; the warp's lanes together
// cover the row. One-element types: lane l takes elements l, l + 32, ... (consecutive
// lanes read consecutive elements). Block formats: lane l takes the 32-element chunks
// l, l + 32, ... (the warp reads a run of whole blocks at once) and decodes each chunk
// in registers; cols is a whole number of chunks, as of blocks.
template <class B, int R>
TSR_HD inline void accumulate_row(const uint8_t* row, const float* x, int64_t x_stride, int64_t cols, int n_rows,
                                      int lane, float (&acc)[R]) {
  constexpr int kN = BlockSize<B>::value;
  if constexpr (kN == 1) {
    for (int64_t c = lane; c < cols; c += 32) {
      const float w = row_value<B>(row, c);
TSR_UNROLL
      for (int r = 0; r < R; ++r) {
        if (r < n_rows) acc[r] += w * x[r * x_stride + c];
      }
    }
  } else {
    const B* blocks = reinterpret_cast<const B*>(row);
    for (int64_t chunk = lane; chunk * 32 < cols; chunk += 32) {
      const B& b = blocks[chunk * 32 / kN];
      const int first = static_cast<int>(chunk * 32 % kN);
      const float* xc = x + chunk * 32;
TSR_UNROLL
      for (int i = 0; i < 32; ++i) {
        const float w = kit::block_value(b, first + i);
TSR_UNROLL
        for (int r = 0; r < R; ++r) {
          if (r < n_rows) acc[r] += w * xc[r * x_stride + i];
        }
      }
    }
  }
}

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
