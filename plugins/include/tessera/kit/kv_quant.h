// The int8 KV cache's quantisation (a q8_0 row, blocks of 32 values), as the KV_WRITE
// kernels of every backend do it: d = max|x| / 127 rounded to f16, and each value
// x / d, with d as stored, rounded half away from zero and clamped to [-127, 127] (the
// stored d may be just below max|x| / 127). TSR_HD: CUDA kernels call the same functions.
#pragma once

#include <cmath>
#include <cstdint>

#include <tessera/kit/half.h>
#include <tessera/kit/host_device.h>

namespace tessera::kit {

// The f16 bits of a block's scale, from its largest magnitude.
TSR_HD inline uint16_t kv_q8_0_scale_bits(float amax) { return f32_to_f16(amax / 127.0f); }

// 1 / d for the scale as stored (0 for an all-zero block).
TSR_HD inline float kv_q8_0_inverse(uint16_t scale_bits) {
  const float d = f16_to_f32(scale_bits);
  return d > 0.0f ? 1.0f / d : 0.0f;
}

// One value's int8 code.
TSR_HD inline int8_t kv_q8_0_code(float x, float inverse) {
  const long q = lroundf(x * inverse);
  return static_cast<int8_t>(q < -127 ? -127 : (q > 127 ? 127 : q));
}

}  // namespace tessera::kit
