// Reference quantisers of the plain and 32-element formats, and the dispatch of
// quantize_row; the K formats are in quantize_k.cpp.
#include <tessera/kit/quantize.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/half.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/quant_blocks.h>

#include "quantize_fit.h"
#include "quantize_k.h"

namespace tessera::kit {
namespace {

// v truncated towards zero as the int conversion does, with NaN as 0 and huge values
// saturated: a NaN weight must not make the conversion undefined.
int truncated(float v) {
  if (!(v == v)) return 0;
  return v >= 1e9f ? 1000000000 : (v <= -1e9f ? -1000000000 : static_cast<int>(v));
}

// The value of largest magnitude, with its sign.
float signed_absmax(const float* x, int n) {
  float amax = 0.0f, max = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  return max;
}

void min_max(const float* x, int n, float* lo, float* hi) {
  *lo = x[0];
  *hi = x[0];
  for (int i = 1; i < n; ++i) {
    *lo = std::min(*lo, x[i]);
    *hi = std::max(*hi, x[i]);
  }
}

// Nibble i of a 32-element block: low nibbles hold 0..15, high nibbles 16..31.
void put_nibbles(uint8_t* qs, const int* u) {
  for (int j = 0; j < kQK / 2; ++j) qs[j] = static_cast<uint8_t>((u[j] & 0xF) | (u[j + 16] & 0xF) << 4);
}

void put_high_bits(uint8_t* qh, const int* u) {
  uint32_t bits = 0;
  for (int i = 0; i < kQK; ++i) bits |= static_cast<uint32_t>(u[i] >> 4) << i;
  std::memcpy(qh, &bits, sizeof bits);
}

void q8_0(const float* x, BlockQ8_0& b) {
  float amax = 0.0f;
  for (int i = 0; i < kQK; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  const float inv = d != 0.0f ? 1.0f / d : 0.0f;
  b.d = f32_to_f16(d);
  for (int i = 0; i < kQK; ++i) {
    const float r = std::round(x[i] * inv);  // half away from zero, as ggml's roundf
    b.q[i] = static_cast<int8_t>(r == r ? r : 0.0f);
  }
}

// Symmetric 2^bits levels, the extreme value at the negative end (as ggml's q4_0/q5_0).
template <class Block>
void symmetric(const float* x, Block& b, int levels) {
  const float max = signed_absmax(x, kQK);
  const float d = max / static_cast<float>(-levels / 2);
  const float inv = d != 0.0f ? 1.0f / d : 0.0f;
  int u[kQK];
  for (int i = 0; i < kQK; ++i) {
    u[i] = std::max(0, std::min(levels - 1, truncated(x[i] * inv + static_cast<float>(levels / 2) + 0.5f)));
  }
  b.d = f32_to_f16(d);
  put_nibbles(b.qs, u);
  if constexpr (sizeof(Block) == sizeof(BlockQ5_0)) put_high_bits(b.qh, u);
}

// Affine 2^bits levels from the block's min to its max (as ggml's q4_1/q5_1).
template <class Block>
void affine(const float* x, Block& b, int levels) {
  float lo, hi;
  min_max(x, kQK, &lo, &hi);
  const float d = (hi - lo) / static_cast<float>(levels - 1);
  const float inv = d != 0.0f ? 1.0f / d : 0.0f;
  int u[kQK];
  for (int i = 0; i < kQK; ++i) u[i] = std::max(0, std::min(levels - 1, truncated((x[i] - lo) * inv + 0.5f)));
  b.d = f32_to_f16(d);
  b.m = f32_to_f16(lo);
  put_nibbles(b.qs, u);
  if constexpr (sizeof(Block) == sizeof(BlockQ5_1)) put_high_bits(b.qh, u);
}

void iq4_nl(const float* x, BlockIQ4_NL& b) {
  const float scale = fit::fit_table(x, kQK, kIq4nlValues);
  b.d = f32_to_f16(scale);
  const float d = f16_to_f32(b.d);
  int u[kQK];
  for (int i = 0; i < kQK; ++i) u[i] = d != 0.0f ? fit::nearest_table_level(x[i] / d, kIq4nlValues) : 8;
  put_nibbles(b.qs, u);
}

template <class Block, class Fn>
void each_block(const float* src, void* dst, int64_t n, int64_t elems, Fn fn) {
  auto* blocks = static_cast<Block*>(dst);
  for (int64_t i = 0; i < n / elems; ++i) fn(src + i * elems, blocks[i]);
}

}  // namespace

void quantize_row(tsr_dtype t, const float* src, void* dst, int64_t n) {
  const DTypeTraits& tr = dtype_traits(t);
  if (!is_known_dtype(t) || t == TSR_DTYPE_I32) {
    fail("quantize", "cannot convert f32 to " + std::string(tr.name));
  }
  if (n % tr.block_elems != 0) {
    fail("quantize", "a row of " + std::to_string(n) + " elements is not a whole number of " +
                         std::string(tr.name) + " blocks of " + std::to_string(tr.block_elems));
  }
  auto* out16 = static_cast<uint16_t*>(dst);
  switch (t) {
    case TSR_DTYPE_F32: std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float)); return;
    case TSR_DTYPE_F16:
      for (int64_t i = 0; i < n; ++i) out16[i] = f32_to_f16(src[i]);
      return;
    case TSR_DTYPE_BF16:
      for (int64_t i = 0; i < n; ++i) out16[i] = f32_to_bf16(src[i]);
      return;
    case TSR_DTYPE_Q8_0: return each_block<BlockQ8_0>(src, dst, n, kQK, q8_0);
    case TSR_DTYPE_Q4_0:
      return each_block<BlockQ4_0>(src, dst, n, kQK, [](const float* x, BlockQ4_0& b) { symmetric(x, b, 16); });
    case TSR_DTYPE_Q5_0:
      return each_block<BlockQ5_0>(src, dst, n, kQK, [](const float* x, BlockQ5_0& b) { symmetric(x, b, 32); });
    case TSR_DTYPE_Q4_1:
      return each_block<BlockQ4_1>(src, dst, n, kQK, [](const float* x, BlockQ4_1& b) { affine(x, b, 16); });
    case TSR_DTYPE_Q5_1:
      return each_block<BlockQ5_1>(src, dst, n, kQK, [](const float* x, BlockQ5_1& b) { affine(x, b, 32); });
    case TSR_DTYPE_IQ4_NL: return each_block<BlockIQ4_NL>(src, dst, n, kQK, iq4_nl);
    case TSR_DTYPE_Q2_K: return each_block<BlockQ2_K>(src, dst, n, kQKK, quantize_q2_k);
    case TSR_DTYPE_Q3_K: return each_block<BlockQ3_K>(src, dst, n, kQKK, quantize_q3_k);
    case TSR_DTYPE_Q4_K: return each_block<BlockQ4_K>(src, dst, n, kQKK, quantize_q4_k);
    case TSR_DTYPE_Q5_K: return each_block<BlockQ5_K>(src, dst, n, kQKK, quantize_q5_k);
    case TSR_DTYPE_Q6_K: return each_block<BlockQ6_K>(src, dst, n, kQKK, quantize_q6_k);
    case TSR_DTYPE_IQ4_XS: return each_block<BlockIQ4_XS>(src, dst, n, kQKK, quantize_iq4_xs);
    default: break;
  }
  fail("quantize", "cannot convert f32 to " + std::string(tr.name));
}

}  // namespace tessera::kit
