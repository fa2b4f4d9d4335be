// Activation quantisation for the block-format kernels; see quant_activations.h.
#include "backends/cpu/ops/quant_activations.h"

#include <cmath>

#include <tessera/kit/half.h>

namespace tessera::cpu {
namespace {

float f16_round(float v) { return kit::f16_to_f32(kit::f32_to_f16(v)); }

}  // namespace

void quantize_q8_row(const float* x, int64_t K, Q8Block* out) {
  for (int64_t b = 0; b < K / 32; ++b) {
    const float* xb = x + b * 32;
    float amax = 0.0f;
    for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(xb[i]));
    const float inv = amax != 0.0f ? 127.0f / amax : 0.0f;
    Q8Block& o = out[b];
    int sum = 0;
    for (int i = 0; i < 32; ++i) {
      o.q[i] = static_cast<int8_t>(std::nearbyint(xb[i] * inv));
      sum += o.q[i];
    }
    const float d = amax / 127.0f;
    o.d = f16_round(d);
    o.s = f16_round(d * static_cast<float>(sum));
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
      const int v = static_cast<int>(std::nearbyint(inv * xb[i]));
      o.q[i] = static_cast<int8_t>(v > 127 ? 127 : v);
    }
    for (int s = 0; s < 16; ++s) {
      int sum = 0;
      for (int i = 0; i < 16; ++i) sum += o.q[16 * s + i];
      o.sums[s] = static_cast<int16_t>(sum);
    }
    o.d = 1.0f / inv;
  }
}

}  // namespace tessera::cpu
