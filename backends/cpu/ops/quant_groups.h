// The block formats as integer levels, for the optimised CPU kernels (AVX2). A weight
// row is dotted with activations quantised to int8 (quant_activations.h) block by block:
//  - the 32-element formats give a block's 32 levels (signed, or unsigned with a min m)
//    and its f16 scale d: value = d * level (+ m);
//  - the 256-element K formats give each chunk of 32 its levels, the integer scales (and
//    mins) of every half-chunk of 16, and the super-block's d (and dmin):
//    value = d * scale * level - dmin * min.
// The integer sums are exact; the float work per block mirrors how the dequantised value
// is formed. Include only from kernel-variant sources (isa_target.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tessera/kit/quant_blocks.h>

#include "backends/cpu/ops/simd.h"

#if TESSERA_CPU_AVX2

namespace tessera::cpu::TESSERA_CPU_ISA_NS::quant {

inline float half(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, sizeof h);
  return _cvtsh_ss(h);
}

inline __m256i load32(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline __m128i load16(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// 16 bytes of nibbles: low nibbles as elements 0..15, high nibbles as 16..31.
inline __m256i nibbles32(const uint8_t* qs) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
  const __m128i m = _mm_set1_epi8(0x0F);
  return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), m), _mm_and_si128(v, m));
}

// Bits of a little-endian 32-bit mask as bytes: byte i is 0x10 when bit i is set.
inline __m256i bits_as_0x10(const uint8_t* qh4) {
  uint32_t bits;
  std::memcpy(&bits, qh4, sizeof bits);
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(bits)),
      _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303));
  const __m256i probe = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, probe), probe);
  return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

// (v >> shift) & mask for each byte of v.
inline __m256i byte_field(__m256i v, int shift, int mask) {
  return _mm256_and_si256(_mm256_srli_epi16(v, shift), _mm256_set1_epi8(static_cast<char>(mask)));
}

inline __m256i iq4nl_table() {
  const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kit::kIq4nlValues));
  return _mm256_set_m128i(t, t);
}

// ---- 32-element formats: levels(blk) and d(blk); m(blk) when kHasMin ----------------

struct Q8_0 {
  static constexpr int kBias = 128;
  static constexpr int kBytes = 34;
  static constexpr bool kSigned = true, kHasMin = false;
  static __m256i levels(const uint8_t* b) { return load32(b + 2); }
  static float d(const uint8_t* b) { return half(b); }
  static float m(const uint8_t*) { return 0.0f; }
};
struct Q4_0 {
  static constexpr int kNibbles = 2;  // offset of the 16 bytes of nibbles: levels + kBias
  static constexpr int kBias = 8;
  static constexpr int kBytes = 18;
  static constexpr bool kSigned = true, kHasMin = false;
  static __m256i levels(const uint8_t* b) { return _mm256_sub_epi8(nibbles32(b + 2), _mm256_set1_epi8(8)); }
  static float d(const uint8_t* b) { return half(b); }
  static float m(const uint8_t*) { return 0.0f; }
};
struct Q4_1 {
  static constexpr int kNibbles = 4;  // offset of the 16 bytes of nibbles: the levels
  static constexpr int kBytes = 20;
  static constexpr bool kSigned = false, kHasMin = true;
  static __m256i levels(const uint8_t* b) { return nibbles32(b + 4); }
  static float d(const uint8_t* b) { return half(b); }
  static float m(const uint8_t* b) { return half(b + 2); }
};
struct Q5_0 {
  static constexpr int kBias = 16;
  static constexpr int kBytes = 22;
  static constexpr bool kSigned = true, kHasMin = false;
  static __m256i levels(const uint8_t* b) {
    return _mm256_sub_epi8(_mm256_or_si256(nibbles32(b + 6), bits_as_0x10(b + 2)), _mm256_set1_epi8(16));
  }
  static float d(const uint8_t* b) { return half(b); }
  static float m(const uint8_t*) { return 0.0f; }
};
struct Q5_1 {
  static constexpr int kBytes = 24;
  static constexpr bool kSigned = false, kHasMin = true;
  static __m256i levels(const uint8_t* b) { return _mm256_or_si256(nibbles32(b + 8), bits_as_0x10(b + 4)); }
  static float d(const uint8_t* b) { return half(b); }
  static float m(const uint8_t* b) { return half(b + 2); }
};
struct IQ4_NL {
  static constexpr int kBias = 128;
  static constexpr int kBytes = 18;
  static constexpr bool kSigned = true, kHasMin = false;
  static __m256i levels(const uint8_t* b) { return _mm256_shuffle_epi8(iq4nl_table(), nibbles32(b + 2)); }
  static float d(const uint8_t* b) { return half(b); }
  static float m(const uint8_t*) { return 0.0f; }
};

// ---- 256-element formats ---------------------------------------------------------------
// levels(blk, c): the levels of chunk c (elements 32 c .. 32 c + 31); scales(blk, sc, mn):
// the integer scale (and min) of each half-chunk of 16, sc[2 c] and sc[2 c + 1]; d(blk),
// dmin(blk). kScaleWord: offset of a 4-byte word holding d (and dmin) inside the block,
// kDHigh whether d is its upper half (so the word never reaches past the block).
// kBias (signed formats): added to every level, it makes them all unsigned bytes, the
// operand vpdpbusd multiplies without the sign trick; the dot then loses kBias * sum(x).
// scale_bytes(blk) (optional): the sixteen scales as int8 bytes, one per half-chunk, for
// the formats whose biased levels stay below 64 (so pmaddubsw cannot saturate);
// min_bytes(blk) the mins likewise (unsigned).

struct Q2_K {
  static constexpr int kBytes = 84, kScaleWord = 80;
  static constexpr bool kSigned = false, kHasMin = true, kDHigh = false;
  static float d(const uint8_t* b) { return half(b + 80); }
  static float dmin(const uint8_t* b) { return half(b + 82); }
  static __m256i levels(const uint8_t* b, int c) { return byte_field(load32(b + 16 + 32 * (c / 4)), 2 * (c % 4), 3); }
  static void scales(const uint8_t* b, int* sc, int* mn) {
    for (int s = 0; s < 16; ++s) {
      sc[s] = b[s] & 0xF;
      mn[s] = b[s] >> 4;
    }
  }
  static __m128i scale_bytes(const uint8_t* b) { return _mm_and_si128(load16(b), _mm_set1_epi8(0x0F)); }
  static __m128i min_bytes(const uint8_t* b) {
    return _mm_and_si128(_mm_srli_epi16(load16(b), 4), _mm_set1_epi8(0x0F));
  }
};
struct Q3_K {
  static constexpr int kBias = 4;
  static constexpr int kBytes = 110, kScaleWord = 106;
  static constexpr bool kSigned = true, kHasMin = false, kDHigh = true;
  static float d(const uint8_t* b) { return half(b + 108); }
  static float dmin(const uint8_t*) { return 0.0f; }
  static __m256i levels(const uint8_t* b, int c) {
    const __m256i low = byte_field(load32(b + 32 + 32 * (c / 4)), 2 * (c % 4), 3);
    const __m256i high = _mm256_slli_epi16(byte_field(load32(b), c, 1), 2);  // hmask bit c: +4
    return _mm256_sub_epi8(_mm256_or_si256(low, high), _mm256_set1_epi8(4));
  }
  static void scales(const uint8_t* b, int* sc, int* mn) {
    const uint8_t* p = b + 96;
    for (int k = 0; k < 16; ++k) {
      const int low = (p[k % 8] >> (4 * (k / 8))) & 0xF;
      const int high = (p[8 + k % 4] >> (2 * (k / 4))) & 3;
      sc[k] = (low | high << 4) - 32;
      mn[k] = 0;
    }
  }
};
inline void k4_scales(const uint8_t* b, int* sc, int* mn) {
  for (int j = 0; j < 8; ++j) {
    uint8_t s, m;
    kit::k4_scale_min(b + 4, j, &s, &m);
    sc[2 * j] = sc[2 * j + 1] = s;
    mn[2 * j] = mn[2 * j + 1] = m;
  }
}
// Q4_K / Q5_K: the 6-bit scales (sc) and mins (mn) of the eight chunks, packed in the 12
// bytes at b + 4, as the bytes of two 64-bit words (chunk c in byte c). Chunks 0..3 keep
// theirs in the low 6 bits of bytes 0..3 (scales) and 4..7 (mins); chunks 4..7 in the
// nibbles of bytes 8..11, with their top two bits in the top bits of bytes 0..7.
inline void k4_scale_min_words(const uint8_t* b, uint64_t* sc, uint64_t* mn) {
  uint32_t w[3];
  std::memcpy(w, b + 4, sizeof w);
  const uint32_t sc_low = w[0] & 0x3F3F3F3Fu, mn_low = w[1] & 0x3F3F3F3Fu;
  const uint32_t sc_high = (w[2] & 0x0F0F0F0Fu) | ((w[0] >> 2) & 0x30303030u);
  const uint32_t mn_high = ((w[2] >> 4) & 0x0F0F0F0Fu) | ((w[1] >> 2) & 0x30303030u);
  *sc = sc_low | static_cast<uint64_t>(sc_high) << 32;
  *mn = mn_low | static_cast<uint64_t>(mn_high) << 32;
}
// Q4_K / Q5_K: the eight scales (or mins), each twice: one byte per half-chunk.
inline __m128i k4_bytes(const uint8_t* b, bool mins) {
  uint64_t sc, mn;
  k4_scale_min_words(b, &sc, &mn);
  const __m128i v = _mm_cvtsi64_si128(static_cast<int64_t>(mins ? mn : sc));
  return _mm_unpacklo_epi8(v, v);
}
struct Q4_K {
  static constexpr int kBytes = 144, kScaleWord = 0;
  static constexpr bool kSigned = false, kHasMin = true, kDHigh = false;
  static float d(const uint8_t* b) { return half(b); }
  static float dmin(const uint8_t* b) { return half(b + 2); }
  static __m256i levels(const uint8_t* b, int c) { return byte_field(load32(b + 16 + 32 * (c / 2)), 4 * (c % 2), 0xF); }
  static void scales(const uint8_t* b, int* sc, int* mn) { k4_scales(b, sc, mn); }
  static __m128i scale_bytes(const uint8_t* b) { return k4_bytes(b, false); }
  static __m128i min_bytes(const uint8_t* b) { return k4_bytes(b, true); }
};
struct Q5_K {
  static constexpr int kBytes = 176, kScaleWord = 0;
  static constexpr bool kSigned = false, kHasMin = true, kDHigh = false;
  static float d(const uint8_t* b) { return half(b); }
  static float dmin(const uint8_t* b) { return half(b + 2); }
  static __m256i levels(const uint8_t* b, int c) {
    const __m256i low = byte_field(load32(b + 48 + 32 * (c / 2)), 4 * (c % 2), 0xF);
    const __m256i high = _mm256_slli_epi16(byte_field(load32(b + 16), c, 1), 4);
    return _mm256_or_si256(low, high);
  }
  static void scales(const uint8_t* b, int* sc, int* mn) { k4_scales(b, sc, mn); }
  static __m128i scale_bytes(const uint8_t* b) { return k4_bytes(b, false); }
  static __m128i min_bytes(const uint8_t* b) { return k4_bytes(b, true); }
};
struct Q6_K {
  static constexpr int kBias = 32;
  static constexpr int kBytes = 210, kScaleWord = 206;
  static constexpr bool kSigned = true, kHasMin = false, kDHigh = true;
  static float d(const uint8_t* b) { return half(b + 208); }
  static float dmin(const uint8_t*) { return 0.0f; }
  static __m256i levels(const uint8_t* b, int c) {
    const int g = c / 4, o = c % 4;  // elements 128 g + 32 o ..
    const __m256i low = byte_field(load32(b + 64 * g + 32 * (o % 2)), 4 * (o / 2), 0xF);
    const __m256i high = _mm256_slli_epi16(byte_field(load32(b + 128 + 32 * g), 2 * o, 3), 4);
    return _mm256_sub_epi8(_mm256_or_si256(low, high), _mm256_set1_epi8(32));
  }
  // The same scales as two vectors of eight int32 (for formats without mins, optional).
  static __m128i scale_bytes(const uint8_t* b) { return load16(b + 192); }
  static void scale_vectors(const uint8_t* b, __m256i* sc) {
    sc[0] = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 192)));
    sc[1] = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 200)));
  }
  static void scales(const uint8_t* b, int* sc, int* mn) {
    const auto* p = reinterpret_cast<const int8_t*>(b + 192);
    for (int s = 0; s < 16; ++s) {
      sc[s] = p[s];
      mn[s] = 0;
    }
  }
};
struct IQ4_XS {
  static constexpr int kBias = 128;
  static constexpr int kBytes = 136, kScaleWord = 0;
  static constexpr bool kSigned = true, kHasMin = false, kDHigh = false;
  static float d(const uint8_t* b) { return half(b); }
  static float dmin(const uint8_t*) { return 0.0f; }
  static __m256i levels(const uint8_t* b, int c) {
    return _mm256_shuffle_epi8(iq4nl_table(), nibbles32(b + 8 + 16 * c));
  }
  // The sixteen scales (one per half-chunk, both halves of chunk c sharing its 6-bit
  // scale: low nibble c of bytes 4..7, high pair c of bytes 2..3, minus 32) as two
  // vectors, half-chunks 0..7 and 8..15; scales() stores them.
  static void scale_vectors(const uint8_t* b, __m256i* sc) {
    uint16_t scales_h;
    uint32_t scales_l;
    std::memcpy(&scales_h, b + 2, sizeof scales_h);
    std::memcpy(&scales_l, b + 4, sizeof scales_l);
    const __m256i low = _mm256_set1_epi32(static_cast<int>(scales_l)), high = _mm256_set1_epi32(scales_h);
    for (int h = 0; h < 2; ++h) {
      const __m256i c = _mm256_add_epi32(_mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3), _mm256_set1_epi32(4 * h));
      const __m256i lo = _mm256_and_si256(_mm256_srlv_epi32(low, _mm256_slli_epi32(c, 2)), _mm256_set1_epi32(0xF));
      const __m256i hi = _mm256_and_si256(_mm256_srlv_epi32(high, _mm256_slli_epi32(c, 1)), _mm256_set1_epi32(3));
      sc[h] = _mm256_sub_epi32(_mm256_or_si256(lo, _mm256_slli_epi32(hi, 4)), _mm256_set1_epi32(32));
    }
  }
  static void scales(const uint8_t* b, int* sc, int* mn) {
    __m256i v[2];
    scale_vectors(b, v);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sc), v[0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sc + 8), v[1]);
    std::fill_n(mn, 16, 0);
  }
};

// Calls fn.template operator()<Format>() for the format of `dtype`; false if it is none.
template <class Fn>
bool with_format(tsr_dtype dtype, Fn&& fn) {
  switch (dtype) {
    case TSR_DTYPE_Q8_0: fn.template operator()<Q8_0>(); return true;
    case TSR_DTYPE_Q4_0: fn.template operator()<Q4_0>(); return true;
    case TSR_DTYPE_Q4_1: fn.template operator()<Q4_1>(); return true;
    case TSR_DTYPE_Q5_0: fn.template operator()<Q5_0>(); return true;
    case TSR_DTYPE_Q5_1: fn.template operator()<Q5_1>(); return true;
    case TSR_DTYPE_IQ4_NL: fn.template operator()<IQ4_NL>(); return true;
    case TSR_DTYPE_Q2_K: fn.template operator()<Q2_K>(); return true;
    case TSR_DTYPE_Q3_K: fn.template operator()<Q3_K>(); return true;
    case TSR_DTYPE_Q4_K: fn.template operator()<Q4_K>(); return true;
    case TSR_DTYPE_Q5_K: fn.template operator()<Q5_K>(); return true;
    case TSR_DTYPE_Q6_K: fn.template operator()<Q6_K>(); return true;
    case TSR_DTYPE_IQ4_XS: fn.template operator()<IQ4_XS>(); return true;
    default: return false;
  }
}

// Whether a format is one of the 256-element K formats (scales()) or a 32-element one.
template <class F>
constexpr bool is_k_format() {
  return requires(const uint8_t* b, int* v) { F::scales(b, v, v); };
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::quant
#endif
