// What the optimised ATTENTION kernels (attention_fast.cpp, attention_tiled.cpp) share:
// the KV cache through raw pointers (a head's row as f32 whatever the cache dtype), the
// ALiBi slopes, and the online-softmax step on a row of scores. An ISA-specific header
// (isa_target.h): include it after the target.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {

// The KV cache seen through raw pointers. f32/f16: row r, KV head h starts at
// base + r * row_bytes + h * head_bytes. q8_0: the row is blocks of 34 bytes (f16 scale,
// 32 int8) and head h's elements h * head_dim .. + head_dim may start inside a block.
struct CacheView {
  static constexpr int64_t kQ8Elems = 32;
  static constexpr int64_t kQ8Bytes = 34;

  const std::byte* base;
  int64_t row_bytes;
  int64_t head_dim;
  int64_t head_bytes;  // f32/f16: bytes of one head; q8_0: bytes of the blocks a head touches
  tsr_dtype dtype;

  CacheView(const TensorView& t, int64_t hd)
      : base(t.data), row_bytes(t.row_bytes()), head_dim(hd), head_bytes(head_span_bytes(t.dtype, hd)),
        dtype(t.dtype) {}

  static int64_t head_span_bytes(tsr_dtype dtype, int64_t hd) {
    if (dtype == TSR_DTYPE_Q8_0) return ((hd + kQ8Elems - 1) / kQ8Elems + 1) * kQ8Bytes;  // may straddle
    return hd * (dtype == TSR_DTYPE_F16 ? 2 : 4);
  }

  const std::byte* at(int64_t row, int kv_head) const {
    if (dtype == TSR_DTYPE_Q8_0) return base + row * row_bytes + kv_head * head_dim / kQ8Elems * kQ8Bytes;
    return base + row * row_bytes + kv_head * head_bytes;
  }
  // Asks for the head's cache lines ahead of use: rows of a paged cache are scattered, so
  // the hardware prefetcher does not see them coming. (A prefetch past the row is harmless.)
  void prefetch(int64_t row, int kv_head) const {
    const std::byte* p = at(row, kv_head);
    for (int64_t line = 0; line < head_bytes; line += 64) __builtin_prefetch(p + line);
  }
  // The head's n values as f32: in place for f32, converted into tmp for f16 and q8_0.
  const float* span(int64_t row, int kv_head, int64_t n, float* tmp) const {
    if (dtype == TSR_DTYPE_Q8_0) return dequantise_q8_0(row, kv_head, n, tmp);
    const std::byte* p = at(row, kv_head);
    if (dtype != TSR_DTYPE_F16) return reinterpret_cast<const float*>(p);
    const auto* h = reinterpret_cast<const uint16_t*>(p);
    int64_t i = 0;
    for (; i + simd::kLanes <= n; i += simd::kLanes) simd::store(tmp + i, simd::load_f16(h + i));
    for (; i < n; ++i) tmp[i] = simd::f16_scalar(h[i]);
    return tmp;
  }

 private:
  // Elements kv_head * head_dim .. + n of the row, block by block: scale * int8.
  const float* dequantise_q8_0(int64_t row, int kv_head, int64_t n, float* tmp) const {
    const std::byte* row_base = base + row * row_bytes;
    const int64_t first = kv_head * head_dim;
    for (int64_t i = 0; i < n;) {
      const int64_t block = (first + i) / kQ8Elems;
      const int64_t j0 = (first + i) % kQ8Elems;
      const int64_t count = std::min(kQ8Elems - j0, n - i);
      const std::byte* b = row_base + block * kQ8Bytes;
      const float scale = simd::f16_scalar(*reinterpret_cast<const uint16_t*>(b));
      const auto* q = reinterpret_cast<const int8_t*>(b + 2) + j0;
      for (int64_t k = 0; k < count; ++k) tmp[i + k] = scale * static_cast<float>(q[k]);
      i += count;
    }
    return tmp;
  }
};

// [n_heads] ALiBi slopes; empty without ALiBi.
inline std::vector<float> alibi_slopes(const tsr_attention_params& p) {
  std::vector<float> slopes;
  if (p.alibi_max_bias == 0.0f) return slopes;
  for (int h = 0; h < p.n_heads; ++h) slopes.push_back(static_cast<float>(alibi_slope(p, h)));
  return slopes;
}

// Online softmax over a row of n scores (n a multiple of the lanes; padding holds -inf):
// the scores become weights e^(s - new_max), in place; returns their sum.
inline float exp_weights(float* scores, int64_t n, float new_max) {
  const simd::F32x8 shift = simd::broadcast(-new_max);
  simd::F32x8 sum = simd::zero();
  for (int64_t j = 0; j < n; j += simd::kLanes) {
    const simd::F32x8 w = simd::exp(simd::add(simd::load(scores + j), shift));
    simd::store(scores + j, w);
    sum = simd::add(sum, w);
  }
  return simd::hsum(sum);
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
