// ATTENTION's per-key arithmetic as __host__ __device__ functions (TSR_HD): an element
// of a KV cache row (f32, f16 or q8_0), a key's score (scale, soft cap, ALiBi bias) and
// the online softmax that folds keys in one at a time (flash attention's running max
// and sum). The CUDA kernel evaluates these; the CPU test runs the same functions over
// whole heads and compares with the CPU reference.
#pragma once

#include <cmath>
#include <cstdint>

#include <tessera/kit/half.h>
#include <tessera/kit/host_device.h>
#include <tessera/kit/quant_blocks.h>
#include <tessera/plugin_abi.h>

namespace tessera::cuda {

// Element d of a cache row of `dtype` (a q8_0 row is blocks of 32: a head may start
// inside a block).
TSR_HD inline float kv_value(tsr_dtype dtype, const uint8_t* row, int64_t d) {
  if (dtype == TSR_DTYPE_F16) return kit::f16_to_f32(reinterpret_cast<const uint16_t*>(row)[d]);
  if (dtype == TSR_DTYPE_Q8_0) {
    const kit::BlockQ8_0& b = reinterpret_cast<const kit::BlockQ8_0*>(row)[d / kit::kQK];
    return kit::f16_to_f32(b.d) * static_cast<float>(b.q[d % kit::kQK]);
  }
  return reinterpret_cast<const float*>(row)[d];
}

// scale * q.k, soft-capped (c * tanh(s / c)) when softcap > 0, plus slope * (key - pos).
TSR_HD inline float attention_score(float dot, float scale, float softcap, float slope, int64_t key_pos,
                                    int64_t pos) {
  float s = dot * scale;
  if (softcap > 0.0f) s = softcap * tanhf(s / softcap);
  return s + slope * static_cast<float>(key_pos - pos);
}

// The softmax of scores seen one at a time: add(s) returns the factor by which the
// weighted sum so far must be rescaled, and sets `weight`, the new value's weight;
// the output is that sum divided by `sum`.
struct OnlineSoftmax {
  float max = -INFINITY;
  float sum = 0.0f;

  TSR_HD float add(float score, float& weight) {
    const float m = fmaxf(max, score);
    const float rescale = expf(max - m);  // 0 for the first score
    weight = expf(score - m);
    sum = sum * rescale + weight;
    max = m;
    return rescale;
  }
};

// Split-KV decoding: each split of a head's keys leaves its OnlineSoftmax (max, sum)
// and unnormalised weighted sum acc; merged, output = sum_i acc_i * f_i / sum_i sum_i * f_i
// with f_i = exp(max_i - M), M the largest max. A split with no keys (max -inf, sum 0,
// acc 0) weighs nothing. `scale_of` gives f_i; `largest` is M.
TSR_HD inline float split_factor(float split_max, float largest) {
  return split_max == -INFINITY ? 0.0f : expf(split_max - largest);
}

}  // namespace tessera::cuda
