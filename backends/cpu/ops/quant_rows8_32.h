// Decode MATMUL for the 32-element block formats regrouped eight rows at a time, sixteen
// on AVX-512 for all but Q8_0 (q40_rows8.h for Q4_0, Q4_1 and IQ4_NL, q50_rows8.h
// for Q5_0 and Q5_1, q80_rows8.h); the K formats' kernels and what both share are in
// quant_rows8.h. Include only from matmul_quant.cpp.
#pragma once

#include <cstdint>

#include "backends/cpu/ops/byte_dot.h"
#include "backends/cpu/ops/q40_rows8.h"
#include "backends/cpu/ops/q50_rows8.h"
#include "backends/cpu/ops/q80_rows8.h"
#include "backends/cpu/ops/quant_activations.h"
#include "backends/cpu/ops/quant_rows8.h"

#if TESSERA_CPU_AVX2
namespace tessera::cpu::TESSERA_CPU_ISA_NS::rows8 {

// Per block, the eight rows' integer dots with x, lane r = row r, then the same float
// operations per block as dot_8rows_32 (matmul_quant.cpp) on the same integers, so the
// outputs are equal bit for bit. Nibbles (with Q5's fifth bits: 0..31) are unsigned:
// Q4_0's lose 8 * sum(x) once per block, Q5_0's 16 * sum(x); Q4_1's and Q5_1's add
// m * d_x * sum(x). IQ4_NL's are looked up in level_table() (quant_rows8.h). Q8_0's
// levels are made unsigned by + 128 (and lose 128 * sum(x)) where vpdpbusd adds them
// without saturating, and move their sign onto x on AVX2, whose pmaddubsw would saturate
// on 128 + level.

// The nibble formats' integer dots of block b: per word j (a 32-byte load of eight rows'
// bytes 4j .. 4j + 3), levels(low, high) turns its low nibbles (elements 4j ..) and high
// nibbles (16 + 4j ..) into the bytes dot_bytes_add<Signed> takes, in order of j.
// Unsigned levels up to MaxLevel add their dots in int16 on AVX2 (byte_dot.h), kWords
// words at a time: all four for nibbles, two for Q5's levels.
template <int NX, bool Signed = false, int MaxLevel = 15, class Levels>
inline void nibble_dots(const uint8_t (*qs)[8][4], const Q8Block* const* x, int64_t b, __m256i* isum,
                        Levels&& levels) {
  constexpr bool kInt16 = kInt16Sums && !Signed;
  constexpr int kFit = int16_terms(MaxLevel) / 2;  // two dots per word
  constexpr int kWords = !kInt16 ? 1 : kFit < 4 ? kFit : 4;
  static_assert(kWords >= 1 && 4 % kWords == 0);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  __m256i sum16[NX];
  for (int i = 0; i < NX; ++i) isum[i] = sum16[i] = _mm256_setzero_si256();
  for (int j = 0; j < 4; ++j) {
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs[j]));
    __m256i ql = _mm256_and_si256(q, nibble), qh = _mm256_and_si256(_mm256_srli_epi16(q, 4), nibble);
    levels(ql, qh);
    for (int i = 0; i < NX; ++i) {
      const __m256i xl = broadcast_word(x[i][b].q + 4 * j), xh = broadcast_word(x[i][b].q + 16 + 4 * j);
      if constexpr (kInt16) {
        const __m256i d = _mm256_add_epi16(pair_dots16(ql, xl), pair_dots16(qh, xh));
        sum16[i] = j % kWords == 0 ? d : _mm256_add_epi16(sum16[i], d);
        if (j % kWords == kWords - 1) isum[i] = _mm256_add_epi32(isum[i], widen16(sum16[i]));
      } else {
        isum[i] = dot_bytes_add<Signed>(dot_bytes_add<Signed>(isum[i], ql, xl), qh, xh);
      }
    }
  }
}

template <int NX>
inline void nibble_dots(const uint8_t (*qs)[8][4], const Q8Block* const* x, int64_t b, __m256i* isum) {
  nibble_dots<NX>(qs, x, b, isum, [](__m256i&, __m256i&) {});
}

// Q5_0's and Q5_1's (q50_rows8.h): the fifth bits join the nibbles at bit 4 first. For
// word j they sit at bit j (low nibbles) and bit 4 + j (high) of each byte of qh: a shift
// left by 4 - j, resp. right by j, moves them to bit 4 (16-bit shifts: no bit of the other
// byte reaches bit 4), done as one shift by 1 per word.
template <int NX, class G>
inline void fifth_bit_dots(const G& g, const Q8Block* const* x, int64_t b, __m256i* isum) {
  const __m256i bit4 = _mm256_set1_epi8(0x10), qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.qh));
  __m256i low = _mm256_slli_epi16(qh, 4), high = qh;
  nibble_dots<NX, false, 31>(g.qs, x, b, isum, [&](__m256i& ql, __m256i& qhigh) {
    ql = _mm256_or_si256(ql, _mm256_and_si256(low, bit4));
    qhigh = _mm256_or_si256(qhigh, _mm256_and_si256(high, bit4));
    low = _mm256_srli_epi16(low, 1);
    high = _mm256_srli_epi16(high, 1);
  });
}

inline __m256 halves8(const uint16_t* h) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)));
}

// Levels raised by `bias`: out += (isum - bias * sum(x)) * d_w * d_x per block.
template <int NX, class G, class Dots>
void dot_biased(const G* g, const Q8Block* const* x, int64_t blocks, int bias, float* out, int64_t ldo, Dots&& dots) {
  __m256 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm256_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    read_ahead(&g[b]);
    __m256i isum[NX];
    dots(g[b], b, isum);
    const __m256 dw = halves8(g[b].d);
    for (int i = 0; i < NX; ++i) {
      const __m256i dot = _mm256_sub_epi32(isum[i], _mm256_set1_epi32(bias * x[i][b].sum));
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(dw, _mm256_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, acc[i]);
}

// Unsigned levels with a min: out += isum * d_w * d_x + m_w * s_x per block.
template <int NX, class G, class Dots>
void dot_with_min(const G* g, const Q8Block* const* x, int64_t blocks, float* out, int64_t ldo, Dots&& dots) {
  __m256 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm256_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    read_ahead(&g[b]);
    __m256i isum[NX];
    dots(g[b], b, isum);
    const __m256 dw = halves8(g[b].d), mw = halves8(g[b].m);
    for (int i = 0; i < NX; ++i) {
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[i]), _mm256_mul_ps(dw, _mm256_set1_ps(x[i][b].d)), acc[i]);
      summ[i] = _mm256_fmadd_ps(mw, _mm256_set1_ps(x[i][b].s), summ[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, _mm256_add_ps(acc[i], summ[i]));
}

template <int NX>
void dot(const Q40Rows8* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_biased<NX>(g, x, blocks, 8, out, ldo,
                 [&](const Q40Rows8& s, int64_t b, __m256i* isum) { nibble_dots<NX>(s.qs, x, b, isum); });
}

template <int NX>
void dot(const Q41Rows8* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_with_min<NX>(g, x, blocks, out, ldo,
                   [&](const Q41Rows8& s, int64_t b, __m256i* isum) { nibble_dots<NX>(s.qs, x, b, isum); });
}

template <int NX>
void dot(const IQ4NLRows8* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  const __m256i table = level_table();
  dot_biased<NX>(g, x, blocks, kTableBias, out, ldo, [&](const IQ4NLRows8& s, int64_t b, __m256i* isum) {
    nibble_dots<NX, kTableBias == 0>(s.qs, x, b, isum, [&](__m256i& low, __m256i& high) {
      low = _mm256_shuffle_epi8(table, low);
      high = _mm256_shuffle_epi8(table, high);
    });
  });
}

template <int NX>
void dot(const Q50Rows8* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_biased<NX>(g, x, blocks, 16, out, ldo,
                 [&](const Q50Rows8& s, int64_t b, __m256i* isum) { fifth_bit_dots<NX>(s, x, b, isum); });
}

template <int NX>
void dot(const Q51Rows8* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_with_min<NX>(g, x, blocks, out, ldo,
                   [&](const Q51Rows8& s, int64_t b, __m256i* isum) { fifth_bit_dots<NX>(s, x, b, isum); });
}

template <int NX>
void dot(const Q80Rows8* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  __m256 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm256_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    read_ahead(&g[b]);
    const Q80Rows8& s = g[b];
    __m256i isum[NX];
    for (int i = 0; i < NX; ++i) isum[i] = _mm256_setzero_si256();
    for (int j = 0; j < 8; ++j) {
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.qs[j]));
#if TESSERA_CPU_AVX512
      const __m256i u = _mm256_xor_si256(q, _mm256_set1_epi8(static_cast<char>(0x80)));  // level + 128
      for (int i = 0; i < NX; ++i) isum[i] = dot_bytes_add<false>(isum[i], u, broadcast_word(x[i][b].q + 4 * j));
#else
      for (int i = 0; i < NX; ++i) isum[i] = dot_bytes_add<true>(isum[i], q, broadcast_word(x[i][b].q + 4 * j));
#endif
    }
    const __m256 dw = halves8(s.d);
    for (int i = 0; i < NX; ++i) {
#if TESSERA_CPU_AVX512
      const __m256i dot = _mm256_sub_epi32(isum[i], _mm256_set1_epi32(128 * x[i][b].sum));
#else
      const __m256i dot = isum[i];
#endif
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(dw, _mm256_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, acc[i]);
}

#if TESSERA_CPU_AVX512
// Sixteen rows per group (q40_rows8.h, q50_rows8.h): one 64-byte load holds a word of the
// sixteen rows, and one vpdpbusd against four broadcast x values gives their partial dots,
// lane r = row r. Per block the integers are those of the eight-row kernels, and so is
// every float operation of a lane, in order: the outputs are equal bit for bit. Against
// two eight-row groups, half the instructions per weight: decode of these formats was
// limited by the vector ports while it waited on memory. (broadcast_word16, halves16 and
// to_float16 are in quant_rows8.h.)

template <int NX, class Levels>
inline void nibble_dots16(const uint8_t (*qs)[16][4], const Q8Block* const* x, int64_t b, __m512i* isum,
                          Levels&& levels) {
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  for (int i = 0; i < NX; ++i) isum[i] = _mm512_setzero_si512();
  for (int j = 0; j < 4; ++j) {
    const __m512i q = _mm512_loadu_si512(qs[j]);
    __m512i ql = _mm512_and_si512(q, nibble), qh = _mm512_and_si512(_mm512_srli_epi16(q, 4), nibble);
    levels(ql, qh);
    for (int i = 0; i < NX; ++i) {
      isum[i] = _mm512_dpbusd_epi32(isum[i], ql, broadcast_word16(x[i][b].q + 4 * j));
      isum[i] = _mm512_dpbusd_epi32(isum[i], qh, broadcast_word16(x[i][b].q + 16 + 4 * j));
    }
  }
}

// Q4_0's and Q4_1's dots as nibble_dots16 gives them, the high nibbles met in place (16
// times their level, one operation per word fewer) in a second sum, a multiple of 16.
template <int NX>
inline void nibble_dots16_in_place(const uint8_t (*qs)[16][4], const Q8Block* const* x, int64_t b, __m512i* isum) {
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  __m512i high[NX];
  for (int i = 0; i < NX; ++i) isum[i] = high[i] = _mm512_setzero_si512();
  for (int j = 0; j < 4; ++j) {
    const __m512i q = _mm512_loadu_si512(qs[j]);
    const __m512i ql = _mm512_and_si512(q, nibble), qh = _mm512_maskz_andnot_epi32(0xFFFF, nibble, q);
    for (int i = 0; i < NX; ++i) {
      isum[i] = _mm512_dpbusd_epi32(isum[i], ql, broadcast_word16(x[i][b].q + 4 * j));
      high[i] = _mm512_dpbusd_epi32(high[i], qh, broadcast_word16(x[i][b].q + 16 + 4 * j));
    }
  }
  for (int i = 0; i < NX; ++i) isum[i] = _mm512_add_epi32(isum[i], _mm512_maskz_srai_epi32(0xFFFF, high[i], 4));
}

template <int NX, class G, class Dots>
void dot_biased16(const G* g, const Q8Block* const* x, int64_t blocks, int bias, float* out, int64_t ldo,
                  Dots&& dots) {
  __m512 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    read_ahead(&g[b]);
    __m512i isum[NX];
    dots(g[b], b, isum);
    const __m512 dw = halves16(g[b].d);
    for (int i = 0; i < NX; ++i) {
      const __m512i dot = _mm512_sub_epi32(isum[i], _mm512_set1_epi32(bias * x[i][b].sum));
      acc[i] = _mm512_fmadd_ps(to_float16(dot), _mm512_mul_ps(dw, _mm512_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm512_storeu_ps(out + i * ldo, acc[i]);
}

template <int NX>
void dot(const Q40Rows16* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_biased16<NX>(g, x, blocks, 8, out, ldo, [&](const Q40Rows16& s, int64_t b, __m512i* isum) {
    nibble_dots16_in_place<NX>(s.qs, x, b, isum);
  });
}

template <int NX>
void dot(const IQ4NLRows16* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  const __m512i table = _mm512_maskz_broadcast_i32x4(0xFFFF, _mm256_castsi256_si128(level_table()));
  dot_biased16<NX>(g, x, blocks, kTableBias, out, ldo, [&](const IQ4NLRows16& s, int64_t b, __m512i* isum) {
    nibble_dots16<NX>(s.qs, x, b, isum, [&](__m512i& low, __m512i& high) {
      low = _mm512_shuffle_epi8(table, low);
      high = _mm512_shuffle_epi8(table, high);
    });
  });
}

// Q5_0's and Q5_1's fifth bits joined as fifth_bit_dots does, each by one ternary-logic
// operation: nibble | (shifted qh & 0x10).
template <int NX, class G>
inline void fifth_bit_dots16(const G& g, const Q8Block* const* x, int64_t b, __m512i* isum) {
  const __m512i bit4 = _mm512_set1_epi8(0x10), qh = _mm512_loadu_si512(g.qh);
  constexpr int kOrMasked = 0xF8;  // a | (b & c)
  __m512i low = _mm512_slli_epi16(qh, 4), high = qh;
  nibble_dots16<NX>(g.qs, x, b, isum, [&](__m512i& ql, __m512i& qhigh) {
    ql = _mm512_ternarylogic_epi32(ql, low, bit4, kOrMasked);
    qhigh = _mm512_ternarylogic_epi32(qhigh, high, bit4, kOrMasked);
    low = _mm512_srli_epi16(low, 1);
    high = _mm512_srli_epi16(high, 1);
  });
}

template <int NX>
void dot(const Q50Rows16* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_biased16<NX>(g, x, blocks, 16, out, ldo,
                   [&](const Q50Rows16& s, int64_t b, __m512i* isum) { fifth_bit_dots16<NX>(s, x, b, isum); });
}

template <int NX, class G, class Dots>
void dot_with_min16(const G* g, const Q8Block* const* x, int64_t blocks, float* out, int64_t ldo, Dots&& dots) {
  __m512 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    read_ahead(&g[b]);
    __m512i isum[NX];
    dots(g[b], b, isum);
    const __m512 dw = halves16(g[b].d), mw = halves16(g[b].m);
    for (int i = 0; i < NX; ++i) {
      acc[i] = _mm512_fmadd_ps(to_float16(isum[i]), _mm512_mul_ps(dw, _mm512_set1_ps(x[i][b].d)), acc[i]);
      summ[i] = _mm512_fmadd_ps(mw, _mm512_set1_ps(x[i][b].s), summ[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm512_storeu_ps(out + i * ldo, _mm512_add_ps(acc[i], summ[i]));
}

template <int NX>
void dot(const Q41Rows16* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_with_min16<NX>(g, x, blocks, out, ldo, [&](const Q41Rows16& s, int64_t b, __m512i* isum) {
    nibble_dots16_in_place<NX>(s.qs, x, b, isum);
  });
}

template <int NX>
void dot(const Q51Rows16* g, const Q8Block* const* x, const int32_t* const*, int64_t blocks, float* out,
         int64_t ldo) {
  dot_with_min16<NX>(g, x, blocks, out, ldo,
                     [&](const Q51Rows16& s, int64_t b, __m512i* isum) { fifth_bit_dots16<NX>(s, x, b, isum); });
}
#endif

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::rows8
#endif
