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

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
