// Activation quantisation for the block-format kernels; see quant_activations.h.
// Compiled once per instruction set (isa_target.h).
#include "backends/cpu/ops/quant_activations.h"

#include <algorithm>
#include <cmath>

#include <tessera/kit/half.h>

#include "backends/cpu/isa_target.h"
#include "backends/cpu/ops/simd.h"

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

#if TESSERA_CPU_AVX512
// The AVX2 copy's numbers on 16 lanes: a block of 32 is two vectors, and a Q8_K sixteen
// one. Decode quantises x on one thread while the others wait, once per matrix, so
// every microsecond here is one of each step.

// |v| per lane. MAXPS keeps its second operand when the first is NaN, so NaN lanes never
// become the maximum: max_of(v, m) skips them as max_abs does.
inline __m512 abs16(__m512 v) { return _mm512_maskz_andnot_ps(0xFFFF, _mm512_set1_ps(-0.0f), v); }
inline __m512 max_of(__m512 v, __m512 m) { return _mm512_maskz_max_ps(0xFFFF, abs16(v), m); }

// The largest lane of a vector free of NaN.
inline float max_lane(__m512 m) {
  const __m512d d = _mm512_castps_pd(m);
  const __m256 h8 = _mm256_max_ps(_mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, d, 0)),
                                  _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, d, 1)));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
}

// round(v * scale) clamped to [-127, 127], NaN products zeroed, as 16 int32.
inline __m512i round16(__m512 v, __m512 scale) {
  const __m512 p = _mm512_mul_ps(v, scale);
  const __mmask16 ordered = _mm512_cmp_ps_mask(p, p, _CMP_ORD_Q);
  __m512 r = _mm512_maskz_roundscale_ps(ordered, p, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm512_maskz_min_ps(0xFFFF, _mm512_maskz_max_ps(0xFFFF, r, _mm512_set1_ps(-127.0f)), _mm512_set1_ps(127.0f));
  return _mm512_maskz_cvtps_epi32(0xFFFF, r);
}

// The values rounded to f16 and back, lane by lane as f16_round.
inline __m512 f16_round16(__m512 v) {
  return _mm512_maskz_cvtph_ps(0xFFFF, _mm512_maskz_cvtps_ph(0xFFFF, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

inline void store_bytes16(int8_t* q, __m512i ints) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm512_maskz_cvtepi32_epi8(0xFFFF, ints));
}
#elif TESSERA_CPU_AVX2
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

#if !TESSERA_CPU_AVX512
// A block's scales from its max |x| and the sum of its rounded values.
void finish_q8_block(Q8Block& o, float amax, int sum) {
  const float d = amax / 127.0f;
  o.d = f16_round(d);
  o.s = f16_round(d * static_cast<float>(sum));
  o.sum = sum;
}
#endif

}  // namespace

#if TESSERA_CPU_AVX512
// Sixteen blocks at a time: their max |x| first, then their 127 / max and, after the
// rounding, their scales (f16-rounded as finish_q8_block does) as vectors; per block,
// the f16 round trips and divisions went through scalar registers one by one.
void quantize_q8_row(const float* x, int64_t K, Q8Block* out) {
  const __m512 zero = _mm512_setzero_ps(), levels = _mm512_set1_ps(127.0f);
  for (int64_t b0 = 0; b0 < K / 32; b0 += 16) {
    const int n = static_cast<int>(std::min<int64_t>(16, K / 32 - b0));
    const float* xs = x + b0 * 32;
    alignas(64) float amax[16] = {}, inv[16], d[16], s[16];
    alignas(64) int32_t sum[16] = {};
    for (int i = 0; i < n; ++i) {
      amax[i] = max_lane(max_of(_mm512_loadu_ps(xs + 32 * i + 16), max_of(_mm512_loadu_ps(xs + 32 * i), zero)));
    }
    const __m512 a = _mm512_load_ps(amax);
    _mm512_store_ps(inv, _mm512_maskz_div_ps(_mm512_cmp_ps_mask(a, zero, _CMP_NEQ_OQ), levels, a));
    for (int i = 0; i < n; ++i) {
      const __m512 scale = _mm512_set1_ps(inv[i]);
      const __m512i i0 = round16(_mm512_loadu_ps(xs + 32 * i), scale);
      const __m512i i1 = round16(_mm512_loadu_ps(xs + 32 * i + 16), scale);
      store_bytes16(out[b0 + i].q, i0);
      store_bytes16(out[b0 + i].q + 16, i1);
      sum[i] = simd::hsum_i32(_mm512_add_epi32(i0, i1));
    }
    const __m512 scale = _mm512_maskz_div_ps(0xFFFF, a, levels);
    _mm512_store_ps(d, f16_round16(scale));
    _mm512_store_ps(s, f16_round16(_mm512_mul_ps(scale, _mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_load_si512(sum)))));
    for (int i = 0; i < n; ++i) {
      out[b0 + i].d = d[i];
      out[b0 + i].s = s[i];
      out[b0 + i].sum = sum[i];
    }
  }
}

void quantize_q8k_row(const float* x, int64_t K, Q8KBlock* out) {
  for (int64_t b = 0; b < K / 256; ++b) {
    const float* xb = x + b * 256;
    Q8KBlock& o = out[b];
    __m512 m[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int i = 0; i < 256; i += 64) {
      for (int j = 0; j < 4; ++j) m[j] = max_of(_mm512_loadu_ps(xb + i + 16 * j), m[j]);
    }
    const float amax = max_lane(_mm512_maskz_max_ps(0xFFFF, _mm512_maskz_max_ps(0xFFFF, m[0], m[1]),
                                                    _mm512_maskz_max_ps(0xFFFF, m[2], m[3])));
    if (amax == 0.0f) {
      o = Q8KBlock{};
      continue;
    }
    // The first value of that magnitude, which the scalar scan's strict > keeps.
    float max = 0.0f;
    for (int i = 0; i < 256; i += 16) {
      const __mmask16 at = _mm512_cmp_ps_mask(abs16(_mm512_loadu_ps(xb + i)), _mm512_set1_ps(amax), _CMP_EQ_OQ);
      if (at != 0) {
        max = xb[i + __builtin_ctz(at)];
        break;
      }
    }
    const float inv = -127.0f / max;
    for (int s = 0; s < 16; ++s) {
      const __m512i ints = round16(_mm512_loadu_ps(xb + 16 * s), _mm512_set1_ps(inv));
      store_bytes16(o.q + 16 * s, ints);
      o.sums[s] = static_cast<int16_t>(simd::hsum_i32(ints));
    }
    o.d = 1.0f / inv;
  }
}
#elif TESSERA_CPU_AVX2
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
