// Decode MATMUL for block-format weights regrouped eight rows at a time (sixteen on
// AVX-512 for all but Q8_0): the K formats here, the
// 32-element ones in quant_rows8_32.h. Q4_K (q4k_rows8.h): per group and
// super-block, per chunk pair p and four-byte word j, one 32-byte load holds that word of
// eight rows; its low nibbles (chunk 2p) and high nibbles (chunk 2p + 1) each meet four
// broadcast x values in one vpdpbusd, lane r = row r. Per chunk, the eight rows' sums are
// scaled by their eight scales in one multiply:
//   isum_r = sum_c scale_{r,c} * sum_i level_{r,i} q_i,   imin_r = sum_c min_{r,c} * sum_c(x)
// These integers equal those of dot_8rows_k (matmul_quant.cpp), and the float operations
// per super-block are the same, in the same order, so the outputs are equal bit for bit.
// Include only from matmul_quant.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/cpu/decode_rows.h"
#include "backends/cpu/ops/byte_dot.h"
#include "backends/cpu/ops/iq4xs_rows8.h"
#include "backends/cpu/ops/q4k_rows8.h"
#include "backends/cpu/ops/q6k_rows8.h"
#include "backends/cpu/ops/quant_activations.h"
#include "backends/cpu/ops/quant_groups.h"
#include "backends/cpu/ops/read_ahead.h"

#if TESSERA_CPU_AVX2
namespace tessera::cpu::TESSERA_CPU_ISA_NS::rows8 {

inline __m256i broadcast_word(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// The x sums of chunks 2p and 2p + 1 as two int16 in one int32 (|sum| <= 32 * 128), per
// chunk pair p of each of a row's super-blocks: out[4 b + p]. They depend on x only, so
// decode forms them once per step, not once per group of eight rows.
inline void chunk_pair_sums(const Q8KBlock* x, int64_t blocks, int32_t* out) {
  for (int64_t b = 0; b < blocks; ++b) {
    for (int p = 0; p < 4; ++p) {
      const auto lo = static_cast<uint16_t>(x[b].sums[4 * p] + x[b].sums[4 * p + 1]);
      const auto hi = static_cast<uint16_t>(x[b].sums[4 * p + 2] + x[b].sums[4 * p + 3]);
      out[4 * b + p] = static_cast<int32_t>(lo | static_cast<uint32_t>(hi) << 16);
    }
  }
}

// Q6_K's levels carry a bias of 32: minus 32 times the x sum of each sixteen of each
// super-block, out[16 b + s], the value each sixteen's dot starts from.
inline void sixteen_biases(const Q8KBlock* x, int64_t blocks, int32_t* out) {
  for (int64_t b = 0; b < blocks; ++b) {
    for (int s = 0; s < 16; ++s) out[16 * b + s] = -32 * x[b].sums[s];
  }
}

// A Q4_K group, or a Q5_K group's fields but the fifth bits.
template <int R>
const Q4KRows<R>& low_bits(const Q4KRows<R>& g) {
  return g;
}
template <int R>
const Q4KRows<R>& low_bits(const Q5KRows<R>& g) {
  return g.low;
}

// The levels of word j of part p of a Q4_K group's super-block (s), or of a Q5_K group's
// (g): ql the low nibbles, qh the high ones, for Q5_K with the fifth bits (bits 2p and
// 2p + 1 of each qh byte) moved to bit 4.
template <class G>
[[gnu::always_inline]] inline void word_levels(const G& g, const Q4KRows8& s, int p, int j, __m256i& ql, __m256i& qh) {
  const __m256i nibble = _mm256_set1_epi8(0x0F), one = _mm256_set1_epi8(1);
  const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.pair[p].qs[j]));
  ql = _mm256_and_si256(q, nibble);
  qh = _mm256_and_si256(_mm256_srli_epi16(q, 4), nibble);
  if constexpr (std::is_same_v<G, Q5KRows8>) {
    const __m256i h = _mm256_srli_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(g.qh[j])), 2 * p);
    ql = _mm256_or_si256(ql, _mm256_slli_epi16(_mm256_and_si256(h, one), 4));
    qh = _mm256_or_si256(qh, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 1), one), 4));
  }
}

// isum[i] += the scaled dots of part p of Q5_K super-block b with x[i], in int16 sums
// widened every int16_terms(31) = 4 words: a loop per run of four, where one loop over the
// eight words (the Q4_K dot's, one widening per eight) tested j % 4 for every row of x at
// run time (GCC 12 does not unroll it) and kept the sums on the stack: BM_Prefill q5_k,
// n = 512, 1 thread, Zen 3, medians in alternation 56.9 -> 87.5 and 42.7 -> 63.1 G ops/s.
// Q4_K measured slower the same way (best of 8: 144 -> 98), so it keeps its loop.
template <int NX>
[[gnu::always_inline]] inline void dot_q5k_part(const Q5KRows8& g, const Q4KRows8& s, int p, const Q8KBlock* const* x,
                                                int64_t b, __m256i sl, __m256i sh, __m256i* isum) {
  constexpr int kWords = int16_terms(31);
  static_assert(kWords == 4);
  for (int j0 = 0; j0 < 8; j0 += kWords) {
    __m256i low[NX], high[NX];
    for (int i = 0; i < NX; ++i) low[i] = high[i] = _mm256_setzero_si256();
    for (int j = j0; j < j0 + kWords; ++j) {
      __m256i ql, qh;
      word_levels(g, s, p, j, ql, qh);
      for (int i = 0; i < NX; ++i) {
        const int8_t* xq = x[i][b].q + 64 * p + 4 * j;
        low[i] = _mm256_add_epi16(low[i], pair_dots16(ql, broadcast_word(xq)));
        high[i] = _mm256_add_epi16(high[i], pair_dots16(qh, broadcast_word(xq + 32)));
      }
    }
    for (int i = 0; i < NX; ++i) {
      isum[i] = _mm256_add_epi32(isum[i],
                                 _mm256_add_epi32(widen16(low[i], scale_pairs(sl)), widen16(high[i], scale_pairs(sh))));
    }
  }
}

// Each layout has a dot of this form; the int32 x sums per block (XSumsOf, row_groups.h)
// are taken by the K formats and IQ4_XS only.
// out[i * ldo + r] for NX rows of x against the eight rows of one group (`blocks`
// super-blocks at g) of Q4_K, or of Q5_K (G = Q5KRows8: the fifth bits joined to the
// levels before the same dots); pair_sums[i] from chunk_pair_sums of x[i].
template <int NX, class G>
  requires std::is_same_v<G, Q4KRows8> || std::is_same_v<G, Q5KRows8>
void dot(const G* g, const Q8KBlock* const* x, const int32_t* const* pair_sums, int64_t blocks, float* out,
         int64_t ldo) {
  constexpr bool kFifthBit = std::is_same_v<G, Q5KRows8>;
  constexpr int kWords = int16_terms(kFifthBit ? 31 : 15) < 8 ? int16_terms(kFifthBit ? 31 : 15) : 8;
  static_assert(kWords >= 1 && 8 % kWords == 0);
  __m256 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm256_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    // The groups of a thread's share are one sequential stream. Asking for the bytes
    // ahead by hand (8 groups ahead, 20 lines per group) made TinyLlama-shaped q4_k_m
    // decode slower on an AMD EPYC (Zen 4), 2 threads: 43.1/45.2/41.2 tok/s against
    // 53.4/55.9/56.3 without; where decode_read_ahead() asks, it is a part at a time.
    const Q4KRows8& s = low_bits(g[b]);
    __m256i isum[NX];
    for (int i = 0; i < NX; ++i) isum[i] = _mm256_setzero_si256();
    for (int p = 0; p < 4; ++p) {
      read_ahead(&g[b], p, 4);
      const __m256i sl = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.pair[p].scales[0])));
      const __m256i sh = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.pair[p].scales[1])));
      if constexpr (kFifthBit && kInt16Sums && NX > 1) {  // decode (NX = 1): no faster end to end
        dot_q5k_part<NX>(g[b], s, p, x, b, sl, sh, isum);
        continue;
      }
      __m256i low[NX], high[NX];
      for (int i = 0; i < NX; ++i) low[i] = high[i] = _mm256_setzero_si256();
      for (int j = 0; j < 8; ++j) {
        __m256i ql, qh;
        word_levels(g[b], s, p, j, ql, qh);
        for (int i = 0; i < NX; ++i) {
          const int8_t* xq = x[i][b].q + 64 * p + 4 * j;
          if constexpr (kInt16Sums) {  // int16 sums (byte_dot.h), widened by the scales
            const __m256i dl = pair_dots16(ql, broadcast_word(xq)), dh = pair_dots16(qh, broadcast_word(xq + 32));
            low[i] = j % kWords == 0 ? dl : _mm256_add_epi16(low[i], dl);
            high[i] = j % kWords == 0 ? dh : _mm256_add_epi16(high[i], dh);
            if (j % kWords == kWords - 1) {
              isum[i] = _mm256_add_epi32(
                  isum[i], _mm256_add_epi32(widen16(low[i], scale_pairs(sl)), widen16(high[i], scale_pairs(sh))));
            }
          } else {
            low[i] = dot_bytes_add<false>(low[i], ql, broadcast_word(xq));
            high[i] = dot_bytes_add<false>(high[i], qh, broadcast_word(xq + 32));
          }
        }
      }
      if constexpr (!kInt16Sums) {
        for (int i = 0; i < NX; ++i) {
          isum[i] = _mm256_add_epi32(isum[i],
                                     _mm256_add_epi32(_mm256_mullo_epi32(low[i], sl), _mm256_mullo_epi32(high[i], sh)));
        }
      }
    }
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.d)));
    const __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.dmin)));
    for (int i = 0; i < NX; ++i) {
      const Q8KBlock& xb = x[i][b];
      __m256i imin = _mm256_setzero_si256();
      for (int p = 0; p < 4; ++p) {
        const __m256i mins = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.mins[p]));
        imin = _mm256_add_epi32(imin, _mm256_madd_epi16(mins, _mm256_set1_epi32(pair_sums[i][4 * b + p])));
      }
      const __m256 dx = _mm256_set1_ps(xb.d);
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[i]), _mm256_mul_ps(dw, dx), acc[i]);
      summ[i] = _mm256_fnmadd_ps(_mm256_mul_ps(dmin, dx), _mm256_cvtepi32_ps(imin), summ[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, _mm256_add_ps(acc[i], summ[i]));
}

#if TESSERA_CPU_AVX512
// Q4_K in groups of sixteen rows (Q4KRows16): one 64-byte load holds a word of the sixteen
// rows, lane r = row r. The integers per super-block are the eight-row kernel's, and so is
// every float operation of a lane, in order: the outputs are equal bit for bit. Against
// two groups of eight, under half the instructions per weight: decode was limited by the
// vector ports while it waited on memory. (The masked conversions: GCC 12's unmasked ones
// pass an undefined vector through and draw -Wmaybe-uninitialized.)
inline __m512i broadcast_word16(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}
inline __m512 halves16(const uint16_t* h) {
  return _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h)));
}
inline __m512 to_float16(__m512i v) { return _mm512_maskz_cvtepi32_ps(0xFFFF, v); }
inline __m512i bytes_to_ints16(const uint8_t* p) {
  return _mm512_maskz_cvtepu8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Q4_K's high nibbles meet x in place, as 16 times their level (one operation per word
// fewer); their scaled sum, a multiple of 16, is shifted back exactly before it joins the
// low one. Q5_K likewise (G = Q5KRows16), the fifth bits joined to the levels before the
// dots as the eight-row kernel joins them: per vector, one rotation moves them to bit 4
// and one ternary-logic operation joins them.
template <int NX, class G>
  requires std::is_same_v<G, Q4KRows16> || std::is_same_v<G, Q5KRows16>
void dot(const G* g, const Q8KBlock* const* x, const int32_t* const* pair_sums, int64_t blocks, float* out,
         int64_t ldo) {
  constexpr bool kFifthBit = std::is_same_v<G, Q5KRows16>;
  __m512 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm512_setzero_ps();
  const __m512i nibble = _mm512_set1_epi8(0x0F), bit4 = _mm512_set1_epi8(0x10);
  for (int64_t b = 0; b < blocks; ++b) {
    const Q4KRows16& s = low_bits(g[b]);
    __m512i isum[NX];
    for (int i = 0; i < NX; ++i) isum[i] = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p) {
      read_ahead(&g[b], p, 4);
      __m512i low[NX], high[NX];
      for (int i = 0; i < NX; ++i) low[i] = high[i] = _mm512_setzero_si512();
      // Q5_K: bits 2p and 2p + 1 of each qh byte to bit 4, each by one rotation of the lane
      const __m512i low_to_bit4 = _mm512_set1_epi32((4 - 2 * p) & 31);
      const __m512i high_to_bit4 = _mm512_set1_epi32((3 - 2 * p) & 31);
      for (int j = 0; j < 8; ++j) {
        const __m512i q = _mm512_loadu_si512(s.pair[p].qs[j]);
        __m512i ql = _mm512_and_si512(q, nibble), qh;
        if constexpr (kFifthBit) {  // a | (b & c)
          const __m512i h = _mm512_loadu_si512(g[b].qh[j]);
          ql = _mm512_ternarylogic_epi32(ql, _mm512_maskz_rolv_epi32(0xFFFF, h, low_to_bit4), bit4, 0xF8);
          qh = _mm512_ternarylogic_epi32(_mm512_and_si512(_mm512_srli_epi16(q, 4), nibble),
                                         _mm512_maskz_rolv_epi32(0xFFFF, h, high_to_bit4), bit4, 0xF8);
        } else {
          qh = _mm512_maskz_andnot_epi32(0xFFFF, nibble, q);  // 16 times the high nibble, in place
        }
        for (int i = 0; i < NX; ++i) {
          const int8_t* xq = x[i][b].q + 64 * p + 4 * j;
          low[i] = _mm512_dpbusd_epi32(low[i], ql, broadcast_word16(xq));
          high[i] = _mm512_dpbusd_epi32(high[i], qh, broadcast_word16(xq + 32));
        }
      }
      const __m512i sl = bytes_to_ints16(s.pair[p].scales[0]), sh = bytes_to_ints16(s.pair[p].scales[1]);
      for (int i = 0; i < NX; ++i) {
        __m512i high_scaled = _mm512_mullo_epi32(high[i], sh);
        // Q4_K: a multiple of 16, shifted back exactly
        if constexpr (!kFifthBit) high_scaled = _mm512_maskz_srai_epi32(0xFFFF, high_scaled, 4);
        isum[i] = _mm512_add_epi32(isum[i], _mm512_add_epi32(_mm512_mullo_epi32(low[i], sl), high_scaled));
      }
    }
    const __m512 dw = halves16(s.d), dmin = halves16(s.dmin);
    for (int i = 0; i < NX; ++i) {
      __m512i imin = _mm512_setzero_si512();
      for (int p = 0; p < 4; ++p) {
        const __m512i mins = _mm512_loadu_si512(s.mins[p]);
        imin = _mm512_add_epi32(imin, _mm512_madd_epi16(mins, _mm512_set1_epi32(pair_sums[i][4 * b + p])));
      }
      const __m512 dx = _mm512_set1_ps(x[i][b].d);
      acc[i] = _mm512_fmadd_ps(to_float16(isum[i]), _mm512_mul_ps(dw, dx), acc[i]);
      summ[i] = _mm512_fnmadd_ps(_mm512_mul_ps(dmin, dx), to_float16(imin), summ[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm512_storeu_ps(out + i * ldo, _mm512_add_ps(acc[i], summ[i]));
}
#endif

// Q6KRows8's levels (0..63) from the three bytes of a word (q6k_rows8.h): the first three
// one mask each, the fourth from the bit pairs 6-7 of each.
struct Q6KLevels {
  __m256i low6, bits01, bits23, bits45;
  Q6KLevels()
      : low6(_mm256_set1_epi8(0x3F)),
        bits01(_mm256_set1_epi8(0x03)),
        bits23(_mm256_set1_epi8(0x0C)),
        bits45(_mm256_set1_epi8(0x30)) {}
  __m256i first(__m256i byte) const { return _mm256_and_si256(byte, low6); }
  __m256i fourth(__m256i p, __m256i q, __m256i r) const {
    const __m256i pq = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(p, 6), bits01),
                                       _mm256_and_si256(_mm256_srli_epi16(q, 4), bits23));
    return _mm256_or_si256(pq, _mm256_and_si256(_mm256_srli_epi16(r, 2), bits45));
  }
};

// Q6_K for prefill on AVX2 (NX >= 2 rows of x, int16 sums): one chunk of a sixteen at a
// time, so that only NX int32 and NX int16 sums are live beside the level; the word-major
// order of the kernel below holds 4 NX of each and spilled them to the stack. Each pair of
// words' int16 sums is widened by the rows' scales (pmaddwd), and the levels' bias of 32
// is taken once per super-block from the scales and x's sums of sixteens:
//   isum_r = sum_s scale_{r,s} sum_i level_{r,i} q_i  -  32 sum_s scale_{r,s} sum_s(x)
// the integer of the kernel below; the float operations are its own, so the outputs are
// equal bit for bit. On an AMD EPYC (Zen 3), against the kernel below: bench_cpu_kernels
// BM_Prefill q6_k, 1 thread, median 53.6 -> 107.0 G ops/s; TinyLlama-shaped pp512, 2
// threads, in alternation, q6_k 44.5/41.8 -> 70.7/72.3 and q5_k_m (Q6_K in part) 64.3/58.2
// -> 71.8/75.1 tok/s.
template <int NX>
void dot_by_chunk(const Q6KRows8* g, const Q8KBlock* const* x, int64_t blocks, float* out, int64_t ldo) {
  static_assert(int16_terms(63) == 2);  // two words per int16 sum
  __m256 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm256_setzero_ps();
  const Q6KLevels levels;
  for (int64_t b = 0; b < blocks; ++b) {
    const Q6KRows8& s = g[b];
    __m256i isum[NX];
    for (int i = 0; i < NX; ++i) isum[i] = _mm256_setzero_si256();
    for (int half = 0; half < 2; ++half) {
      for (int sixteen = 0; sixteen < 2; ++sixteen) {
        const Q6KRows8::Sixteen& words = s.part[half][sixteen];
        for (int o = 0; o < 4; ++o) {
          // row r's scale in both int16 halves of lane r
          const __m256i scale32 =
              _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(words.scales[o])));
          const __m256i scale = _mm256_blend_epi16(scale32, _mm256_slli_epi32(scale32, 16), 0xAA);
          for (int jj = 0; jj < 4; jj += 2) {
            __m256i sum16[NX];
            for (int t = 0; t < 2; ++t) {
              const auto word = [&](int k) {
                return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words.words[jj + t][k]));
              };
              const __m256i level = o < 3 ? levels.first(word(o)) : levels.fourth(word(0), word(1), word(2));
              for (int i = 0; i < NX; ++i) {
                const int8_t* xq = x[i][b].q + 128 * half + 32 * o + 4 * (4 * sixteen + jj + t);
                const __m256i d = pair_dots16(level, broadcast_word(xq));
                sum16[i] = t == 0 ? d : _mm256_add_epi16(sum16[i], d);
              }
            }
            for (int i = 0; i < NX; ++i) isum[i] = _mm256_add_epi32(isum[i], widen16(sum16[i], scale));
          }
        }
      }
    }
    // The bias: per chunk c, the rows' scales of its two sixteens interleaved as int16
    // pairs meet x's sums of those sixteens (adjacent int16, one int32).
    __m256i bias[NX];
    for (int i = 0; i < NX; ++i) bias[i] = _mm256_setzero_si256();
    for (int half = 0; half < 2; ++half) {
      for (int o = 0; o < 4; ++o) {
        const __m128i s0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.part[half][0].scales[o]));
        const __m128i s1 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s.part[half][1].scales[o]));
        const __m256i pairs = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(s0, s1));
        const int c = 4 * half + o;
        for (int i = 0; i < NX; ++i) {
          int32_t sums;
          std::memcpy(&sums, x[i][b].sums + 2 * c, 4);
          bias[i] = _mm256_add_epi32(bias[i], _mm256_madd_epi16(pairs, _mm256_set1_epi32(sums)));
        }
      }
    }
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.d)));
    for (int i = 0; i < NX; ++i) {
      const __m256i total = _mm256_sub_epi32(isum[i], _mm256_slli_epi32(bias[i], 5));
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(total), _mm256_mul_ps(dw, _mm256_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, acc[i]);
}

// The same for Q6_K (q6k_rows8.h), reading the group's bytes in their order. Per half g
// and word j, three 32-byte loads give the eight rows' levels (0..63, unsigned) of chunks
// 4g .. 4g + 3 at elements 4j .. 4j + 3; each meets four broadcast x values in one
// vpdpbusd. Words 0..3 and 4..7 of a chunk are its two sixteens, with a scale each; the
// dot of sixteen s starts from its bias (sixteen_biases), so per sixteen
//   isum_r += scale_{r,s} * (sum_i level_{r,i} q_i - 32 * sum_s(x))
// which equals the integer of dot_8rows_k (matmul_quant.cpp); the float operations per
// super-block are its own, in its order, so the outputs are equal bit for bit.
template <int NX>
void dot(const Q6KRows8* g, const Q8KBlock* const* x, const int32_t* const* biases, int64_t blocks, float* out,
         int64_t ldo) {
  if constexpr (kInt16Sums && NX > 1) {
    dot_by_chunk<NX>(g, x, blocks, out, ldo);
    return;
  }
  __m256 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm256_setzero_ps();
  constexpr int kWords = int16_terms(63);  // levels 0..63
  static_assert(kWords >= 1 && 4 % kWords == 0);
  const Q6KLevels levels;
  for (int64_t b = 0; b < blocks; ++b) {
    const Q6KRows8& s = g[b];
    __m256i isum[NX];
    for (int i = 0; i < NX; ++i) isum[i] = _mm256_setzero_si256();
    for (int half = 0; half < 2; ++half) {
      for (int sixteen = 0; sixteen < 2; ++sixteen) {
        read_ahead(&g[b], 2 * half + sixteen, 4);
        __m256i part[4][NX], sum16[4][NX];  // [o][i]: chunk 4 half + o, this sixteen
        for (int o = 0; o < 4; ++o) {
          const int sc = 2 * (4 * half + o) + sixteen;
          for (int i = 0; i < NX; ++i) {
            part[o][i] = _mm256_set1_epi32(biases[i][16 * b + sc]);
            sum16[o][i] = _mm256_setzero_si256();
          }
        }
        const Q6KRows8::Sixteen& words = s.part[half][sixteen];
        // Unrolled, so that jj % kWords is known per copy: as a loop (GCC 12 does not unroll
        // it), it was a test per word and kept part and sum16 on the stack.
#pragma GCC unroll 4
        for (int jj = 0; jj < 4; ++jj) {
          const int j = 4 * sixteen + jj;
          const __m256i p = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words.words[jj][0]));
          const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words.words[jj][1]));
          const __m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words.words[jj][2]));
          const __m256i level[4] = {levels.first(p), levels.first(q), levels.first(r), levels.fourth(p, q, r)};
          for (int o = 0; o < 4; ++o) {
            for (int i = 0; i < NX; ++i) {
              const int8_t* xq = x[i][b].q + 128 * half + 32 * o + 4 * j;
              if constexpr (kInt16Sums) {  // int16 sums of two words (byte_dot.h)
                const __m256i d = pair_dots16(level[o], broadcast_word(xq));
                sum16[o][i] = jj % kWords == 0 ? d : _mm256_add_epi16(sum16[o][i], d);
                if (jj % kWords == kWords - 1) part[o][i] = _mm256_add_epi32(part[o][i], widen16(sum16[o][i]));
              } else {
                part[o][i] = dot_bytes_add<false>(part[o][i], level[o], broadcast_word(xq));
              }
            }
          }
        }
        for (int o = 0; o < 4; ++o) {
          const __m256i scale =
              _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(words.scales[o])));
          for (int i = 0; i < NX; ++i) isum[i] = _mm256_add_epi32(isum[i], _mm256_mullo_epi32(part[o][i], scale));
        }
      }
    }
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.d)));
    for (int i = 0; i < NX; ++i) {
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[i]), _mm256_mul_ps(dw, _mm256_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, acc[i]);
}

#if TESSERA_CPU_AVX512
// Q6_K in groups of sixteen rows (Q6KRows16), as the eight-row kernel above on 64-byte
// loads, the fourth level's three bit pairs joined by two ternary-logic selects. The
// levels, the integers and every float operation of a lane are the eight-row kernel's:
// the outputs are equal bit for bit.
template <int NX>
void dot(const Q6KRows16* g, const Q8KBlock* const* x, const int32_t* const* biases, int64_t blocks, float* out,
         int64_t ldo) {
  __m512 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm512_setzero_ps();
  const __m512i low6 = _mm512_set1_epi8(0x3F), bits01 = _mm512_set1_epi8(0x03), bits0123 = _mm512_set1_epi8(0x0F);
  constexpr int kSelect = (0xAA & 0xF0) | (~0xAA & 0xCC);  // ternary logic: c ? a : b
  for (int64_t b = 0; b < blocks; ++b) {
    const Q6KRows16& s = g[b];
    __m512i isum[NX];
    for (int i = 0; i < NX; ++i) isum[i] = _mm512_setzero_si512();
    for (int half = 0; half < 2; ++half) {
      for (int sixteen = 0; sixteen < 2; ++sixteen) {
        read_ahead(&g[b], 2 * half + sixteen, 4);
        __m512i part[4][NX];  // [o][i]: chunk 4 half + o, this sixteen
        for (int o = 0; o < 4; ++o) {
          const int sc = 2 * (4 * half + o) + sixteen;
          for (int i = 0; i < NX; ++i) part[o][i] = _mm512_set1_epi32(biases[i][16 * b + sc]);
        }
        const Q6KRows16::Sixteen& words = s.part[half][sixteen];
        for (int jj = 0; jj < 4; ++jj) {
          const int j = 4 * sixteen + jj;
          const __m512i p = _mm512_loadu_si512(words.words[jj][0]);
          const __m512i q = _mm512_loadu_si512(words.words[jj][1]);
          const __m512i r = _mm512_loadu_si512(words.words[jj][2]);
          const __m512i pq =
              _mm512_ternarylogic_epi32(_mm512_srli_epi16(p, 6), _mm512_srli_epi16(q, 4), bits01, kSelect);
          const __m512i level[4] = {
              _mm512_and_si512(p, low6), _mm512_and_si512(q, low6), _mm512_and_si512(r, low6),
              _mm512_and_si512(_mm512_ternarylogic_epi32(pq, _mm512_srli_epi16(r, 2), bits0123, kSelect), low6)};
          for (int o = 0; o < 4; ++o) {
            for (int i = 0; i < NX; ++i) {
              part[o][i] = _mm512_dpbusd_epi32(part[o][i], level[o],
                                               broadcast_word16(x[i][b].q + 128 * half + 32 * o + 4 * j));
            }
          }
        }
        for (int o = 0; o < 4; ++o) {
          const __m512i scale =
              _mm512_maskz_cvtepi8_epi32(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(words.scales[o])));
          for (int i = 0; i < NX; ++i) isum[i] = _mm512_add_epi32(isum[i], _mm512_mullo_epi32(part[o][i], scale));
        }
      }
    }
    const __m512 dw = halves16(s.d);
    for (int i = 0; i < NX; ++i) {
      acc[i] = _mm512_fmadd_ps(to_float16(isum[i]), _mm512_mul_ps(dw, _mm512_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm512_storeu_ps(out + i * ldo, acc[i]);
}
#endif

// IQ4_NL's and IQ4_XS's 16 levels as the bytes their dots take: + 128, unsigned, where
// vpdpbusd adds them without saturating (a dot then loses 128 * sum(x)); signed on AVX2,
// whose pmaddubsw would saturate on 128 + level (the sign moves onto x).
#if TESSERA_CPU_AVX512
constexpr int kTableBias = 128;
#else
constexpr int kTableBias = 0;
#endif

inline __m256i level_table() {
  const __m256i table = quant::iq4nl_table();
  if constexpr (kTableBias != 0) return _mm256_xor_si256(table, _mm256_set1_epi8(static_cast<char>(0x80)));
  return table;
}

// The same for IQ4_XS (iq4xs_rows8.h). Per chunk c, four 32-byte loads give the eight
// rows' nibbles of its 32 elements; a table lookup turns them into levels, and the chunk's
// dots are scaled by the eight rows' scales:
//   isum_r = sum_c scale_{r,c} * sum_i level_{r,i} q_i - kTableBias * sum_c scale_{r,c} * sum_c(x)
// the second sum one vpmaddwd per chunk pair, as Q4_K's mins. These integers equal those
// of dot_8rows_k, and the float operations per super-block are its own, so the outputs
// are equal bit for bit.
template <int NX>
void dot(const IQ4XSRows8* g, const Q8KBlock* const* x, const int32_t* const* pair_sums, int64_t blocks, float* out,
         int64_t ldo) {
  __m256 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm256_setzero_ps();
  const __m256i table = level_table(), nibble = _mm256_set1_epi8(0x0F);
  for (int64_t b = 0; b < blocks; ++b) {
    const IQ4XSRows8& s = g[b];
    __m256i isum[NX], ibias[NX];
    for (int i = 0; i < NX; ++i) isum[i] = ibias[i] = _mm256_setzero_si256();
    for (int p = 0; p < 4; ++p) {
      read_ahead(&g[b], p, 4);
      // Lane r: row r's scales of chunks 2p (low int16) and 2p + 1 (high).
      const __m256i pair = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.scales[p])));
      const __m256i scale[2] = {_mm256_srai_epi32(_mm256_slli_epi32(pair, 16), 16), _mm256_srai_epi32(pair, 16)};
      for (int h = 0; h < 2; ++h) {
        const int c = 2 * p + h;
        __m256i part[NX];
        for (int i = 0; i < NX; ++i) part[i] = _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
          const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.qs[c][j]));
          const __m256i low = _mm256_shuffle_epi8(table, _mm256_and_si256(q, nibble));
          const __m256i high = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(q, 4), nibble));
          for (int i = 0; i < NX; ++i) {
            const int8_t* xq = x[i][b].q + 32 * c + 4 * j;
            part[i] = dot_bytes_add<kTableBias == 0>(part[i], low, broadcast_word(xq));
            part[i] = dot_bytes_add<kTableBias == 0>(part[i], high, broadcast_word(xq + 16));
          }
        }
        for (int i = 0; i < NX; ++i) isum[i] = _mm256_add_epi32(isum[i], _mm256_mullo_epi32(part[i], scale[h]));
      }
      if constexpr (kTableBias != 0) {
        for (int i = 0; i < NX; ++i) {
          ibias[i] = _mm256_add_epi32(ibias[i], _mm256_madd_epi16(pair, _mm256_set1_epi32(pair_sums[i][4 * b + p])));
        }
      }
    }
    const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.d)));
    for (int i = 0; i < NX; ++i) {
      if constexpr (kTableBias != 0) {
        isum[i] = _mm256_sub_epi32(isum[i], _mm256_mullo_epi32(ibias[i], _mm256_set1_epi32(kTableBias)));
      }
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[i]), _mm256_mul_ps(dw, _mm256_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, acc[i]);
}

#if TESSERA_CPU_AVX512
// IQ4_XS in groups of sixteen rows (IQ4XSRows16): one 64-byte load holds a word of the
// sixteen rows, lane r = row r. The integers per super-block are the eight-row kernel's,
// and so is every float operation of a lane, in order.
template <int NX>
void dot(const IQ4XSRows16* g, const Q8KBlock* const* x, const int32_t* const* pair_sums, int64_t blocks, float* out,
         int64_t ldo) {
  __m512 acc[NX];
  for (int i = 0; i < NX; ++i) acc[i] = _mm512_setzero_ps();
  const __m512i table = _mm512_maskz_broadcast_i32x4(0xFFFF, _mm256_castsi256_si128(level_table()));
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  for (int64_t b = 0; b < blocks; ++b) {
    const IQ4XSRows16& s = g[b];
    __m512i isum[NX], ibias[NX];
    for (int i = 0; i < NX; ++i) isum[i] = ibias[i] = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p) {
      read_ahead(&g[b], p, 4);
      // Lane r: row r's scales of chunks 2p (low int16) and 2p + 1 (high).
      const __m512i pair =
          _mm512_maskz_cvtepi8_epi16(0xFFFFFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.scales[p])));
      const __m512i scale[2] = {_mm512_maskz_srai_epi32(0xFFFF, _mm512_maskz_slli_epi32(0xFFFF, pair, 16), 16),
                                _mm512_maskz_srai_epi32(0xFFFF, pair, 16)};
      for (int h = 0; h < 2; ++h) {
        const int c = 2 * p + h;
        __m512i part[NX];
        for (int i = 0; i < NX; ++i) part[i] = _mm512_setzero_si512();
        for (int j = 0; j < 4; ++j) {
          const __m512i q = _mm512_loadu_si512(s.qs[c][j]);
          const __m512i low = _mm512_shuffle_epi8(table, _mm512_and_si512(q, nibble));
          const __m512i high = _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(q, 4), nibble));
          for (int i = 0; i < NX; ++i) {
            const int8_t* xq = x[i][b].q + 32 * c + 4 * j;
            part[i] = _mm512_dpbusd_epi32(part[i], low, broadcast_word16(xq));
            part[i] = _mm512_dpbusd_epi32(part[i], high, broadcast_word16(xq + 16));
          }
        }
        for (int i = 0; i < NX; ++i) isum[i] = _mm512_add_epi32(isum[i], _mm512_mullo_epi32(part[i], scale[h]));
      }
      for (int i = 0; i < NX; ++i) {
        ibias[i] = _mm512_add_epi32(ibias[i], _mm512_madd_epi16(pair, _mm512_set1_epi32(pair_sums[i][4 * b + p])));
      }
    }
    const __m512 dw = halves16(s.d);
    for (int i = 0; i < NX; ++i) {
      isum[i] = _mm512_sub_epi32(isum[i], _mm512_mullo_epi32(ibias[i], _mm512_set1_epi32(kTableBias)));
      acc[i] = _mm512_fmadd_ps(to_float16(isum[i]), _mm512_mul_ps(dw, _mm512_set1_ps(x[i][b].d)), acc[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm512_storeu_ps(out + i * ldo, acc[i]);
}
#endif

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::rows8
#endif
