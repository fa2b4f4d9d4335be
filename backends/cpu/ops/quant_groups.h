// The block formats seen 32 elements at a time, for the optimised CPU kernels (AVX2).
// Every format's chunk of 32 consecutive elements becomes one Group32: 32 int8 levels
// (unsigned for the formats with an offset, signed for the others) and, for each half
// of 16, a multiplier a and an offset b with value = a * level + b. Decode dots the
// levels with int8-quantised activations; prefill turns them into f32 panels.
// Include only from kernel sources compiled with the same flags (see simd.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backends/cpu/ops/simd.h"

#if TESSERA_CPU_AVX2
#include <tessera/kit/quant_blocks.h>

namespace tessera::cpu::quant {

struct Group32 {
  __m256i q;  // 32 levels, element i in byte i
  float a_lo, a_hi;  // multipliers of elements 0..15 and 16..31
  float b_lo, b_hi;  // offsets of elements 0..15 and 16..31
};

inline float half(const void* p) {
  uint16_t h;
  std::memcpy(&h, p, sizeof h);
  return _cvtsh_ss(h);
}

inline __m256i load32(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

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

inline Group32 uniform(__m256i q, float a, float b) { return {q, a, a, b, b}; }

// Each format: block geometry, whether levels are signed, and chunk c of a block.
struct Q8_0 {
  static constexpr int kElems = 32, kBytes = 34;
  static constexpr bool kSigned = true;
  static Group32 group(const uint8_t* blk, int) {
    return uniform(load32(blk + 2), half(blk), 0.0f);
  }
};
struct Q4_0 {
  static constexpr int kElems = 32, kBytes = 18;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int) {
    const float d = half(blk);
    return uniform(nibbles32(blk + 2), d, -8.0f * d);
  }
};
struct Q4_1 {
  static constexpr int kElems = 32, kBytes = 20;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int) {
    return uniform(nibbles32(blk + 4), half(blk), half(blk + 2));
  }
};
struct Q5_0 {
  static constexpr int kElems = 32, kBytes = 22;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int) {
    const float d = half(blk);
    return uniform(_mm256_or_si256(nibbles32(blk + 6), bits_as_0x10(blk + 2)), d, -16.0f * d);
  }
};
struct Q5_1 {
  static constexpr int kElems = 32, kBytes = 24;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int) {
    return uniform(_mm256_or_si256(nibbles32(blk + 8), bits_as_0x10(blk + 4)), half(blk), half(blk + 2));
  }
};
struct IQ4_NL {
  static constexpr int kElems = 32, kBytes = 18;
  static constexpr bool kSigned = true;
  static __m256i table() {
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kit::kIq4nlValues));
    return _mm256_set_m128i(t, t);
  }
  static Group32 group(const uint8_t* blk, int) {
    return uniform(_mm256_shuffle_epi8(table(), nibbles32(blk + 2)), half(blk), 0.0f);
  }
};

// 256-element formats: chunk c in 0..7.
struct Q2_K {
  static constexpr int kElems = 256, kBytes = 84;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int c) {
    const uint8_t* scales = blk;
    const float d = half(blk + 80), dmin = half(blk + 82);
    const __m256i q = byte_field(load32(blk + 16 + 32 * (c / 4)), 2 * (c % 4), 3);
    const int s = 2 * c;
    return {q, d * static_cast<float>(scales[s] & 0xF), d * static_cast<float>(scales[s + 1] & 0xF),
            -dmin * static_cast<float>(scales[s] >> 4), -dmin * static_cast<float>(scales[s + 1] >> 4)};
  }
};
struct Q3_K {
  static constexpr int kElems = 256, kBytes = 110;
  static constexpr bool kSigned = false;
  static int scale(const uint8_t* sc, int k) {
    const int low = (sc[k % 8] >> (4 * (k / 8))) & 0xF;
    const int high = (sc[8 + k % 4] >> (2 * (k / 4))) & 3;
    return (low | high << 4) - 32;
  }
  static Group32 group(const uint8_t* blk, int c) {
    const float d = half(blk + 108);
    const __m256i low = byte_field(load32(blk + 32 + 32 * (c / 4)), 2 * (c % 4), 3);
    const __m256i high = _mm256_slli_epi16(byte_field(load32(blk), c, 1), 2);  // hmask bit c
    const float a_lo = d * static_cast<float>(scale(blk + 96, 2 * c));
    const float a_hi = d * static_cast<float>(scale(blk + 96, 2 * c + 1));
    return {_mm256_or_si256(low, high), a_lo, a_hi, -4.0f * a_lo, -4.0f * a_hi};
  }
};
inline Group32 k4_group(const uint8_t* blk, int c, __m256i q) {
  uint8_t sc, mn;
  kit::k4_scale_min(blk + 4, c, &sc, &mn);
  return uniform(q, half(blk) * static_cast<float>(sc), -half(blk + 2) * static_cast<float>(mn));
}
struct Q4_K {
  static constexpr int kElems = 256, kBytes = 144;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int c) {
    return k4_group(blk, c, byte_field(load32(blk + 16 + 32 * (c / 2)), 4 * (c % 2), 0xF));
  }
};
struct Q5_K {
  static constexpr int kElems = 256, kBytes = 176;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int c) {
    const __m256i low = byte_field(load32(blk + 48 + 32 * (c / 2)), 4 * (c % 2), 0xF);
    const __m256i high = _mm256_slli_epi16(byte_field(load32(blk + 16), c, 1), 4);
    return k4_group(blk, c, _mm256_or_si256(low, high));
  }
};
struct Q6_K {
  static constexpr int kElems = 256, kBytes = 210;
  static constexpr bool kSigned = false;
  static Group32 group(const uint8_t* blk, int c) {
    const int g = c / 4, o = c % 4;  // elements 128 g + 32 o ..
    const __m256i low = byte_field(load32(blk + 64 * g + 32 * (o % 2)), 4 * (o / 2), 0xF);
    const __m256i high = _mm256_slli_epi16(byte_field(load32(blk + 128 + 32 * g), 2 * o, 3), 4);
    const auto* scales = reinterpret_cast<const int8_t*>(blk + 192);
    const float d = half(blk + 208);
    const float a_lo = d * static_cast<float>(scales[2 * c]), a_hi = d * static_cast<float>(scales[2 * c + 1]);
    return {_mm256_or_si256(low, high), a_lo, a_hi, -32.0f * a_lo, -32.0f * a_hi};
  }
};
struct IQ4_XS {
  static constexpr int kElems = 256, kBytes = 136;
  static constexpr bool kSigned = true;
  static Group32 group(const uint8_t* blk, int c) {
    uint16_t scales_h;
    std::memcpy(&scales_h, blk + 2, sizeof scales_h);
    const int low = (blk[4 + c / 2] >> (4 * (c % 2))) & 0xF;
    const int high = (scales_h >> (2 * c)) & 3;
    const float a = half(blk) * static_cast<float>((low | high << 4) - 32);
    return uniform(_mm256_shuffle_epi8(IQ4_NL::table(), nibbles32(blk + 8 + 16 * c)), a, 0.0f);
  }
};

// Calls fn.template operator()<Format>() for the format of `dtype`; false if it is not
// one of the block formats above.
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

}  // namespace tessera::cpu::quant
#endif
