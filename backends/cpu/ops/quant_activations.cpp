// Activation quantisation for the block-format kernels; see quant_activations.h.
// Compiled once per instruction set (isa_target.h).
#include "backends/cpu/ops/quant_activations.h"

#include <cmath>

#include <tessera/kit/half.h>

#include "backends/cpu/isa_target.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {
namespace {

#if !TESSERA_CPU_AVX2
float f16_round(float v) { return kit::f16_to_f32(kit::f32_to_f16(v)); }
#endif

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

#if TESSERA_CPU_AVX2
// The same numbers as the scalar loops below, eight lanes at a time. MAXPS returns its
// second operand when the first is NaN, so NaN inputs never become the maximum, as in
// max_abs; rounding is to nearest even, as nearbyint in the default mode; NaN products
// are zeroed before the clamp, as round_to_int8 does.

float f16_round(float v) { return _cvtsh_ss(_cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)); }

// max |x| over n (a multiple of 8) values, NaN skipped.
float max_abs_lanes(const float* x, int n) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 m = _mm256_setzero_ps();
  for (int i = 0; i < n; i += 8) m = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x + i)), m);
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  h = _mm_max_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

// round(x[i] * scale) clamped to [-127, 127] (NaN -> 0) for 32 values, into q; returns
// the rounded values' sum.
int round_32(const float* x, float scale, int8_t* q) {
  const __m256 vs = _mm256_set1_ps(scale);
  const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
  __m256i ints[4];
  __m256 total = _mm256_setzero_ps();
  for (int i = 0; i < 4; ++i) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + 8 * i), vs);
    __m256 r = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_and_ps(r, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
    r = _mm256_min_ps(_mm256_max_ps(r, lo), hi);
    total = _mm256_add_ps(total, r);  // integers below 2^24: exact
    ints[i] = _mm256_cvtps_epi32(r);
  }
  // The packs interleave 128-bit halves; the permutation puts the 32 bytes back in order.
  const __m256i packed = _mm256_packs_epi16(_mm256_packs_epi32(ints[0], ints[1]), _mm256_packs_epi32(ints[2], ints[3]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(q),
                      _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(total), _mm256_extractf128_ps(total, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return static_cast<int>(_mm_cvtss_f32(h));
}
#endif

// A block's scales from its max |x| and the sum of its rounded values.
void finish_q8_block(Q8Block& o, float amax, int sum) {
  const float d = amax / 127.0f;
  o.d = f16_round(d);
  o.s = f16_round(d * static_cast<float>(sum));
  o.sum = sum;
}

}  // namespace

#if TESSERA_CPU_AVX2
void quantize_q8_row(const float* x, int64_t K, Q8Block* out) {
  for (int64_t b = 0; b < K / 32; ++b) {
    const float* xb = x + b * 32;
    const float amax = max_abs_lanes(xb, 32);
    const float inv = amax != 0.0f ? 127.0f / amax : 0.0f;
    Q8Block& o = out[b];
    const int sum = round_32(xb, inv, o.q);
    finish_q8_block(o, amax, sum);
  }
}

void quantize_q8k_row(const float* x, int64_t K, Q8KBlock* out) {
  for (int64_t b = 0; b < K / 256; ++b) {
    const float* xb = x + b * 256;
    Q8KBlock& o = out[b];
    const float amax = max_abs_lanes(xb, 256);
    if (amax == 0.0f) {
      o = Q8KBlock{};
      continue;
    }
    // The first value of that magnitude, which the scalar scan's strict > keeps.
    float max = 0.0f;
    for (int i = 0; i < 256; ++i) {
      if (std::fabs(xb[i]) == amax) {
        max = xb[i];
        break;
      }
    }
    const float inv = -127.0f / max;
    for (int i = 0; i < 256; i += 32) round_32(xb + i, inv, o.q + i);
    for (int s = 0; s < 16; ++s) {
      // 16 int8 -> int16, pairs summed to int32, then across the lanes.
      const __m256i w = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(o.q + 16 * s)));
      const __m256i pairs = _mm256_madd_epi16(w, _mm256_set1_epi16(1));
      __m128i h = _mm_add_epi32(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1));
      h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
      h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xb1));
      o.sums[s] = static_cast<int16_t>(_mm_cvtsi128_si32(h));
    }
    o.d = 1.0f / inv;
  }
}
#else
void quantize_q8_row(
const float* x, int64_t K, Q8Block* out) {
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
    finish_q8_block(o, amax, sum);
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

#endif

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
