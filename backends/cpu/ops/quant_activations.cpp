// Activation quantisation for the block-format kernels; see quant_activations.h.
// Compiled once per instruction set (isa_target.h).
#include "backends/cpu/ops/quant_activations.h"

#include <cmath>

#include <tessera/kit/half.h>

#include "backends/cpu/isa_target.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {
namespace {

float f16_round(float v) { return kit::f16_to_f32(kit::f32_to_f16(v)); }

// v rounded to the nearest integer (ties to even) and clamped to int8's symmetric range;
// NaN gives 0, so no input makes the conversion overflow.
inline int8_t round_to_int8(float v) {
  if (!(v == v)) return 0;
  const float r = std::nearbyint(v);
  return static_cast<int8_t>(r > 127.0f ? 127.0f : (r < -127.0f ? -127.0f : r));
}

// max(a, |x|) for a non-NaN a; inline, unlike std::fmax.
inline float max_abs(float a, float x) {
  const float ax = x < 0.0f ? -x : x;
  return ax > a ? ax : a;
}

}  // namespace

void quantize_q8_row(const float* x, int64_t K, Q8Block* out) {
  for (int64_t b = 0; b < K / 32; ++b) {
    const float* xb = x + b * 32;
    float amax = 0.0f;
    for (int i = 0; i < 32; ++i) amax = max_abs(amax, xb[i]);
    const float inv = amax != 0.0f ? 127.0f / amax : 0.0f;
    Q8Block& o = out[b];
    int sum = 0;
    for (int i = 0; i < 32; ++i) {
      o.q[i] = round_to_int8(xb[i] * inv);
      sum += o.q[i];
    }
    const float d = amax / 127.0f;
    o.d = f16_round(d);
    o.s = f16_round(d * static_cast<float>(sum));
    o.sum = sum;
  }
}

void quantize_q8k_row(const float* x, int64_t K, Q8KBlock* out) {
  for (int64_t b = 0; b < K / 256; ++b) {
    const float* xb = x + b * 256;
    float amax = 0.0f, max = 0.0f;
    for (int i = 0; i < 256; ++i) {
      const float a = std::fabs(xb[i]);
      if (a > amax) {
        amax = a;
        max = xb[i];
      }
    }
    Q8KBlock& o = out[b];
    if (amax == 0.0f) {
      o = Q8KBlock{};
      continue;
    }
    const float inv = -127.0f / max;
    for (int i = 0; i < 256; ++i) {
      o.q[i] = round_to_int8(inv * xb[i]);
    }
    for (int s = 0; s < 16; ++s) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += o.q[16 * s + i];
      o.sums[s] = static_cast<int16_t>(sum);
    }
    o.d = 1.0f / inv;
  }
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
