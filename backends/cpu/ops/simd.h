// Eight-lane f32 vectors for the optimised kernels: AVX2/FMA/F16C intrinsics where the
// code targets them, plain loops the compiler can vectorise for any other target.
// In a kernel-variant source (isa_target.h) they follow its level and live in its
// namespace; elsewhere (the benchmarks) they follow the compiler's flags.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <tessera/kit/half.h>

#if defined(TESSERA_CPU_ISA_LEVEL)
#include "backends/cpu/isa_target.h"
#define TESSERA_CPU_SIMD_NS tessera::cpu::TESSERA_CPU_ISA_NS::simd
#else
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define TESSERA_CPU_AVX2 1
#include <immintrin.h>
#else
#define TESSERA_CPU_AVX2 0
#endif
#define TESSERA_CPU_SIMD_NS tessera::cpu::simd
#endif

namespace TESSERA_CPU_SIMD_NS {

inline constexpr int kLanes = 8;

// Weight bytes the decode kernels read ahead of the ones being dotted: rows are short (a
// few hundred bytes to a few KiB) and the hardware prefetcher alone left decode waiting
// on memory.
inline constexpr int kPrefetchBytes = 2048;

#if TESSERA_CPU_AVX2

struct F32x8 {
  __m256 v;
};

inline F32x8 zero() { return {_mm256_setzero_ps()}; }
inline F32x8 broadcast(float s) { return {_mm256_set1_ps(s)}; }
inline F32x8 load(const float* p) { return {_mm256_loadu_ps(p)}; }
inline void store(float* p, F32x8 a) { _mm256_storeu_ps(p, a.v); }
// 8 IEEE halves -> f32.
inline F32x8 load_f16(const uint16_t* p) {
  return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))};
}
// 8 bfloat16 -> f32: the bf16 bits are the high half of the f32 bits.
inline F32x8 load_bf16(const uint16_t* p) {
  const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return {_mm256_castsi256_ps(_mm256_slli_epi32(wide, 16))};
}
// 8 int8 -> f32.
inline F32x8 load_i8(const int8_t* p) {
  int64_t bits;
  std::memcpy(&bits, p, sizeof bits);
  return {_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(bits)))};
}
inline F32x8 add(F32x8 a, F32x8 b) { return {_mm256_add_ps(a.v, b.v)}; }
inline F32x8 mul(F32x8 a, F32x8 b) { return {_mm256_mul_ps(a.v, b.v)}; }
inline F32x8 div(F32x8 a, F32x8 b) { return {_mm256_div_ps(a.v, b.v)}; }
// a * b + c
inline F32x8 fma(F32x8 a, F32x8 b, F32x8 c) { return {_mm256_fmadd_ps(a.v, b.v, c.v)}; }
inline float hsum(F32x8 a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
// The total of the eight int32 lanes of v.
inline int hsum_i32(__m256i v) {
  __m128i h = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4E));
  h = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0xB1));
  return _mm_cvtsi128_si32(h);
}
inline float f16_scalar(uint16_t h) { return _cvtsh_ss(h); }
inline F32x8 max(F32x8 a, F32x8 b) { return {_mm256_max_ps(a.v, b.v)}; }
// Lane i of the result = hsum(v[i]): eight horizontal sums at once.
inline F32x8 hsum8(const F32x8* v) {
  const __m256 t0 = _mm256_hadd_ps(v[0].v, v[1].v), t1 = _mm256_hadd_ps(v[2].v, v[3].v);
  const __m256 t2 = _mm256_hadd_ps(v[4].v, v[5].v), t3 = _mm256_hadd_ps(v[6].v, v[7].v);
  const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
  // u0 = [sums of v0..v3 over the low halves | ... over the high halves], u1 for v4..v7
  return {_mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31))};
}
// e^x within about 2 ulp: x = n ln2 + r, |r| <= ln2 / 2, e^r by a degree-7 polynomial
// (Cephes' expf coefficients) and 2^n put in the exponent. 0 below -87 (where e^x would
// be subnormal), so a score masked to -inf weighs exactly 0; NaN stays NaN.
inline F32x8 exp(F32x8 a) {
  const __m256 x0 = a.v;
  const __m256 x = _mm256_max_ps(_mm256_min_ps(x0, _mm256_set1_ps(88.0f)), _mm256_set1_ps(-87.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);  // ln2 in two parts
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i pow2n = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(pow2n));
  y = _mm256_and_ps(y, _mm256_cmp_ps(x0, _mm256_set1_ps(-87.0f), _CMP_GE_OQ));
  return {_mm256_blendv_ps(y, x0, _mm256_cmp_ps(x0, x0, _CMP_UNORD_Q))};
}

// Eight rows of eight dwords to eight vectors of one dword of each row:
// in v[r] = row r; out v[g] = dword g of rows 0..7.
inline void transpose8(__m256i* v) {
  __m256i t[8], u[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = _mm256_unpacklo_epi32(v[2 * p], v[2 * p + 1]);      // dwords 0,1 | 4,5 of two rows
    t[2 * p + 1] = _mm256_unpackhi_epi32(v[2 * p], v[2 * p + 1]);  // dwords 2,3 | 6,7
  }
  for (int h = 0; h < 2; ++h) {  // rows 0..3, rows 4..7
    const __m256i* s = t + 4 * h;
    u[4 * h + 0] = _mm256_unpacklo_epi64(s[0], s[2]);  // dword 0 | 4 of four rows
    u[4 * h + 1] = _mm256_unpackhi_epi64(s[0], s[2]);  // 1 | 5
    u[4 * h + 2] = _mm256_unpacklo_epi64(s[1], s[3]);  // 2 | 6
    u[4 * h + 3] = _mm256_unpackhi_epi64(s[1], s[3]);  // 3 | 7
  }
  for (int g = 0; g < 4; ++g) {
    v[g] = _mm256_permute2x128_si256(u[g], u[4 + g], 0x20);
    v[g + 4] = _mm256_permute2x128_si256(u[g], u[4 + g], 0x31);
  }
}

#else  // portable: fixed-width loops

struct F32x8 {
  float v[kLanes];
};

inline F32x8 zero() { return F32x8{}; }
inline F32x8 broadcast(float s) {
  F32x8 r;
  for (int i = 0; i < kLanes; ++i) r.v[i] = s;
  return r;
}
inline F32x8 load(const float* p) {
  F32x8 r;
  std::memcpy(r.v, p, sizeof r.v);
  return r;
}
inline void store(float* p, F32x8 a) { std::memcpy(p, a.v, sizeof a.v); }
inline F32x8 load_f16(const uint16_t* p) {
  F32x8 r;
  for (int i = 0; i < kLanes; ++i) r.v[i] = tessera::kit::f16_to_f32(p[i]);
  return r;
}
inline F32x8 load_bf16(const uint16_t* p) {
  F32x8 r;
  for (int i = 0; i < kLanes; ++i) r.v[i] = tessera::kit::bf16_to_f32(p[i]);
  return r;
}
inline F32x8 load_i8(const int8_t* p) {
  F32x8 r;
  for (int i = 0; i < kLanes; ++i) r.v[i] = static_cast<float>(p[i]);
  return r;
}
inline F32x8 add(F32x8 a, F32x8 b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] += b.v[i];
  return a;
}
inline F32x8 mul(F32x8 a, F32x8 b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] *= b.v[i];
  return a;
}
inline F32x8 div(F32x8 a, F32x8 b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] /= b.v[i];
  return a;
}
inline F32x8 fma(F32x8 a, F32x8 b, F32x8 c) {
  for (int i = 0; i < kLanes; ++i) c.v[i] += a.v[i] * b.v[i];
  return c;
}
inline float hsum(F32x8 a) {
  float s = 0.0f;
  for (int i = 0; i < kLanes; ++i) s += a.v[i];
  return s;
}
inline float f16_scalar(uint16_t h) { return tessera::kit::f16_to_f32(h); }
inline F32x8 max(F32x8 a, F32x8 b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
  return a;
}
inline F32x8 hsum8(const F32x8* v) {
  F32x8 r;
  for (int i = 0; i < kLanes; ++i) r.v[i] = hsum(v[i]);
  return r;
}
// e^x; 0 below -87, as the AVX2 version.
inline F32x8 exp(F32x8 a) {
  for (int i = 0; i < kLanes; ++i) a.v[i] = a.v[i] >= -87.0f ? std::exp(a.v[i]) : (a.v[i] == a.v[i] ? 0.0f : a.v[i]);
  return a;
}

#endif

#if TESSERA_CPU_AVX2
// Stores lanes [0, rows) of the 16 f32 lanes lo:hi at out (rows <= 16): the AVX2 form of
// store_panel_rows below.
inline void store_panel_rows(float* out, __m256 lo, __m256 hi, int rows) {
  if (rows == 16) {
    _mm256_storeu_ps(out, lo);
    _mm256_storeu_ps(out + 8, hi);
    return;
  }
  alignas(32) float lanes[16];
  _mm256_store_ps(lanes, lo);
  _mm256_store_ps(lanes + 8, hi);
  for (int r = 0; r < rows; ++r) out[r] = lanes[r];
}
#endif

#if defined(TESSERA_CPU_AVX512) && TESSERA_CPU_AVX512
// The total of the sixteen int32 lanes of v (the maskz extracts with a full mask are the
// plain ones, without gcc 12's -Wmaybe-uninitialized).
inline int hsum_i32(__m512i v) {
  return hsum_i32(
      _mm256_add_epi32(_mm512_maskz_extracti64x4_epi64(0xF, v, 0), _mm512_maskz_extracti64x4_epi64(0xF, v, 1)));
}

// Stores lanes [0, rows) of the 32 f32 lanes lo:hi at out (rows <= 32): one row of x
// against a panel of 32 weight rows, of which the last panel may hold fewer.
inline void store_panel_rows(float* out, __m512 lo, __m512 hi, int rows) {
  const __mmask16 low = rows >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << rows) - 1);
  const __mmask16 high = rows <= 16 ? 0 : rows >= 32 ? 0xFFFF : static_cast<__mmask16>((1u << (rows - 16)) - 1);
  _mm512_mask_storeu_ps(out, low, lo);
  _mm512_mask_storeu_ps(out + 16, high, hi);
}
#endif

}  // namespace TESSERA_CPU_SIMD_NS
