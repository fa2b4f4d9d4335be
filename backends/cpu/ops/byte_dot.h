// Int8 dot products of 32 bytes, four products per int32 lane: vpdpbusd where the
// kernel variant has AVX-512 VNNI, pmaddubsw + pmaddwd on AVX2. Include only from
// kernel-variant sources (isa_target.h).
#pragma once

#include "backends/cpu/ops/simd.h"

#if TESSERA_CPU_AVX2
namespace tessera::cpu::TESSERA_CPU_ISA_NS {

// acc + 8 int32 sums of 4 products each (lanes 0..3 cover bytes 0..15, lanes 4..7 bytes
// 16..31). Signed: levels are int8 (the sign moves onto x); otherwise they are unsigned
// and, on AVX2, small enough that pmaddubsw's int16 sums cannot saturate.
template <bool Signed>
inline __m256i dot_bytes_add(__m256i acc, __m256i levels, __m256i xq) {
  __m256i u = levels, s = xq;
  if constexpr (Signed) {  // the unsigned x signed instructions: move the sign onto x
    u = _mm256_sign_epi8(levels, levels);
    s = _mm256_sign_epi8(xq, levels);
  }
#if TESSERA_CPU_AVX512
  return _mm256_dpbusd_epi32(acc, u, s);
#else
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}

template <bool Signed>
inline __m256i dot_bytes(__m256i levels, __m256i xq) {
  return dot_bytes_add<Signed>(_mm256_setzero_si256(), levels, xq);
}

// Without VNNI each dot above takes two multiplies (pmaddubsw, then pmaddwd to widen its
// int16 pair sums), and they share the vector ports with everything else. The kernels
// that add many dots of unsigned levels into one lane instead add pmaddubsw's int16 sums
// while they cannot overflow, then widen once: int16_terms(max_level) of them for levels
// up to max_level against x in [-128, 127]. The integers are the same. TinyLlama-shaped
// q4_k_m decode on an AMD EPYC (Zen 3), 2 threads, rounds in alternation: 31.8/30.4/30.5
// -> 32.7/31.7/32.5 tok/s; bench_cpu_kernels BM_DecodeCached, 1 thread, G weights/s:
// q4_0 41.6-42.3 -> 41.4-44.5, q4_1 39.1-42.0 -> 43.3-44.3, q4_k 41.1-44.1 -> 45.0-46.0.
#if TESSERA_CPU_AVX512
constexpr bool kInt16Sums = false;  // vpdpbusd widens as it adds
#else
constexpr bool kInt16Sums = true;
#endif

constexpr int int16_terms(int max_level) { return 32767 / (2 * 128 * max_level); }

// 16 int16 sums of 2 products of unsigned levels with x (pmaddubsw).
inline __m256i pair_dots16(__m256i levels, __m256i xq) { return _mm256_maddubs_epi16(levels, xq); }

// 8 int32 sums of the 16 int16 of v taken in pairs, each pair times the int16 at the
// same places of `by` (pmaddwd): widen16(v) for 1s, or a per-lane scale.
inline __m256i widen16(__m256i v, __m256i by = _mm256_set1_epi16(1)) { return _mm256_madd_epi16(v, by); }

// A lane's int32 scale (0 .. 32767) in both of its int16 halves, for widen16.
inline __m256i scale_pairs(__m256i scales32) { return _mm256_or_si256(scales32, _mm256_slli_epi32(scales32, 16)); }

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
