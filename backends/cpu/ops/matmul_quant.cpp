// Block-format MATMUL kernels; see matmul_quant.h.
//   32-element formats: out = sum over blocks of (d_w * d_x) * sum_i level_i q_i
//                             (+ m_w * s_x for the formats with a min)
//   K formats:          out = sum over super-blocks of (d_w * d_x) * sum_j scale_j sum_i level_i q_i
//                             - (dmin_w * d_x) * sum_j min_j sum_i q_i
// Integer sums are exact; the float operations per block are those above, accumulated
// in 8 lanes and added up at the end of the row.
#include "backends/cpu/ops/matmul_quant.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/dtype_traits.h>

#include <tessera/kit/half.h>
#include <tessera/kit/quant_blocks.h>

#include "backends/cpu/amx_support.h"
#include "backends/cpu/buffer.h"
#include "backends/cpu/decode_rows.h"
#include "backends/cpu/ops/iq4xs_rows8.h"
#include "backends/cpu/ops/q40_rows8.h"
#include "backends/cpu/ops/q4k_rows8.h"
#include "backends/cpu/ops/q50_rows8.h"
#include "backends/cpu/ops/q6k_rows8.h"
#include "backends/cpu/ops/q80_rows8.h"
#include "backends/cpu/ops/quant_activations.h"
#include "backends/cpu/repacked_weights.h"

#include "backends/cpu/isa_target.h"
#include "backends/cpu/ops/byte_dot.h"
#include "backends/cpu/ops/quant_amx.h"
#include "backends/cpu/ops/quant_groups.h"
#include "backends/cpu/ops/quant_panel.h"
#include "backends/cpu/ops/quant_rows8.h"
#include "backends/cpu/ops/quant_rows8_32.h"
#include "backends/cpu/ops/row_groups.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {
namespace {

constexpr int64_t kGrainRows = 16;  // weight rows per task
constexpr int kTileX = 4;           // rows of x dotted with each weight row at once
constexpr int64_t kPrefillXRows = 64;  // rows of x per block of the rows path's prefill (a multiple of kTileX)
using simd::kPrefetchBytes;

enum class PrefillPath { kPortable, kRows, kVnni, kAmx };

// The best path this build and processor have, or the one TESSERA_CPU_MATMUL names
// (rows, vnni, amx) where it is present: tests force each in turn.
PrefillPath choose_prefill_path() {
  const char* env = std::getenv("TESSERA_CPU_MATMUL");
  const std::string_view want = env == nullptr ? "" : env;
  PrefillPath best = PrefillPath::kPortable;
  (void)want;
#if TESSERA_CPU_AVX2
  best = PrefillPath::kRows;
  if (want == "rows") return best;
#endif
#if TESSERA_CPU_PANEL
  best = PrefillPath::kVnni;
  if (want == "vnni") return best;
#endif
#if TESSERA_CPU_AMX
  if (amx_usable()) best = PrefillPath::kAmx;
#endif
  return best;
}

PrefillPath prefill_path() {
  static const PrefillPath path = choose_prefill_path();
  return path;
}

#if TESSERA_CPU_AVX2

inline float hsum(__m256 v) { return simd::hsum({v}); }

#if TESSERA_CPU_AVX512
constexpr bool kVnni = true;
#else
constexpr bool kVnni = false;
#endif

// With vpdpbusd, the levels are made unsigned by the format's bias (quant_groups.h): a dot
// then needs no sign trick and loses bias * sum(x), subtracted once per block. Without it,
// maddubs would saturate on biased bytes, so the levels stay signed (sign trick).
template <class F>
constexpr int dot_bias() {
  if constexpr (kVnni && F::kSigned) {
    return F::kBias;
  } else {
    return 0;
  }
}

template <class F>
inline __m256i biased(__m256i levels) {
  if constexpr (dot_bias<F>() != 0) return _mm256_add_epi8(levels, _mm256_set1_epi8(static_cast<char>(dot_bias<F>())));
  return levels;
}

// 8 int32 sums of 4 products of levels (from biased<F>) with x's int8 values.
template <class F>
inline __m256i dot_levels(__m256i levels, __m256i xq) {
  return dot_bytes < F::kSigned && dot_bias<F>() == 0 > (levels, xq);
}

// out[i * ldo] for NX rows of x against one weight row of a 32-element format. Even and
// odd blocks accumulate apart, halving the chain of dependent multiply-adds.
template <class F, int NX>
void dot_row_32(const uint8_t* w, const Q8Block* const* x, int64_t blocks, float* out, int64_t ldo) {
  __m256 acc[2][NX];
  float summ[2][NX];
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < NX; ++i) {
      acc[p][i] = _mm256_setzero_ps();
      summ[p][i] = 0.0f;
    }
  }
  const auto step = [&](int64_t b, int p) {
    const uint8_t* blk = w + b * F::kBytes;
    _mm_prefetch(reinterpret_cast<const char*>(blk) + kPrefetchBytes, _MM_HINT_T0);
    const __m256i q = biased<F>(F::levels(blk));
    const float dw = F::d(blk);
    for (int i = 0; i < NX; ++i) {
      const Q8Block& xb = x[i][b];
      __m256i dot = dot_levels<F>(q, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q)));
      if constexpr (dot_bias<F>() != 0) dot = _mm256_sub_epi32(dot, _mm256_setr_epi32(dot_bias<F>() * xb.sum, 0, 0, 0, 0, 0, 0, 0));
      acc[p][i] = _mm256_fmadd_ps(_mm256_set1_ps(dw * xb.d), _mm256_cvtepi32_ps(dot), acc[p][i]);
      if constexpr (F::kHasMin) summ[p][i] += F::m(blk) * xb.s;
    }
  };
  int64_t b = 0;
  for (; b + 1 < blocks; b += 2) {
    step(b, 0);
    step(b + 1, 1);
  }
  if (b < blocks) step(b, 0);
  for (int i = 0; i < NX; ++i) out[i * ldo] = hsum(_mm256_add_ps(acc[0][i], acc[1][i])) + (summ[0][i] + summ[1][i]);
}

// The 4-byte words at p + r * row_bytes for r < 8, in lanes 0..7. (Eight loads: a
// gather instruction was slower.)
inline __m256i row_words(const uint8_t* p, int64_t row_bytes) {
  int32_t v[8];
  for (int r = 0; r < 8; ++r) std::memcpy(&v[r], p + r * row_bytes, 4);
  return _mm256_setr_epi32(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

// Eight int32x8 sums as one vector: lane r = the total of t[r]. Integer adds, exact.
inline __m256i reduce8(const __m256i* t) {
  const __m256i a = _mm256_hadd_epi32(t[0], t[1]), b = _mm256_hadd_epi32(t[2], t[3]);
  const __m256i c = _mm256_hadd_epi32(t[4], t[5]), d = _mm256_hadd_epi32(t[6], t[7]);
  const __m256i ab = _mm256_hadd_epi32(a, b), cd = _mm256_hadd_epi32(c, d);
  // ab: rows 0-3, elements 0-3 of each in the low half and 4-7 in the high half; cd: rows 4-7.
  return _mm256_add_epi32(_mm256_permute2x128_si256(ab, cd, 0x20), _mm256_permute2x128_si256(ab, cd, 0x31));
}

// Decode reads a group of eight rows, 8 * row_bytes contiguous bytes, block by block; at
// block b it asks for the b-th share of the next group's bytes, so the whole next group
// is on its way while this one is dotted. (A read-ahead within the row would land in the
// rows of the same group once rows are shorter than the distance.)
template <int kBlockBytes>
inline void prefetch_next_group(const uint8_t* w, int64_t row_bytes, int64_t b) {
  const char* next = reinterpret_cast<const char*>(w + 8 * row_bytes + b * 8 * kBlockBytes);
  for (int line = 0; line < 8 * kBlockBytes; line += 64) _mm_prefetch(next + line, _MM_HINT_T1);
}

// The f16 at the start (high = false) or at byte 2 (high = true) of 32-bit words, as f32.
inline __m256 halves_to_f32(__m256i words, bool high) {
  const __m256i v = high ? _mm256_srli_epi32(words, 16) : words;
  const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, pick), 0x08);
  return _mm256_cvtph_ps(_mm256_castsi256_si128(packed));
}

// For the formats whose levels are a block's raw nibbles once biased (q4_0, q4_1): the
// integer dots of eight rows' blocks at qs + r * row_bytes with x block xb, lane r = row r
// (before the bias correction). Rows r and r + 4 share a vector (one 128-bit half each), so
// the nibbles are split once for two rows and three rounds of hadd leave rows in order.
inline __m256i nibble_sums8(const uint8_t* qs, int64_t row_bytes, const Q8Block& xb) {
  const __m256i low_x = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xb.q)));
  const __m256i high_x = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xb.q + 16)));
  const __m256i mask = _mm256_set1_epi8(0x0F);
  __m256i t[4];
  for (int p = 0; p < 4; ++p) {
    const __m256i raw = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(qs + (p + 4) * row_bytes),
                                            reinterpret_cast<const __m128i*>(qs + p * row_bytes));
    const __m256i low = _mm256_and_si256(raw, mask), high = _mm256_and_si256(_mm256_srli_epi16(raw, 4), mask);
    t[p] = dot_bytes_add<false>(dot_bytes<false>(high, high_x), low, low_x);
  }
  // t[p]: lanes 0..3 row p, 4..7 row p + 4.
  return _mm256_hadd_epi32(_mm256_hadd_epi32(t[0], t[1]), _mm256_hadd_epi32(t[2], t[3]));
}

// out[i * ldo + r] for NX rows of x against eight consecutive weight rows (r < 8, row r at
// w + r * row_bytes) of a 32-element format. Per block, the eight rows' scales come in one
// gather and their integer dots are summed in one vector, so the float work and the x
// loads are shared by eight rows.
template <class F, int NX>
void dot_8rows_32(const uint8_t* w, int64_t row_bytes, const Q8Block* const* x, int64_t blocks, float* out,
                  int64_t ldo, bool prefetch) {
  __m256 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm256_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* blk = w + b * F::kBytes;
    // d (and m) of each row: the first 4 bytes of its block.
    const __m256i words = row_words(blk, row_bytes);
    const __m256 dw = halves_to_f32(words, false);
    if (prefetch) prefetch_next_group<F::kBytes>(w, row_bytes, b);
    // Decode of the plain 4-bit formats splits two rows' nibbles per vector instead.
    constexpr bool kNibblePairs = kVnni && NX == 1 && requires { F::kNibbles; };
    __m256i levels[8];
    if constexpr (!kNibblePairs) {
      for (int r = 0; r < 8; ++r) levels[r] = biased<F>(F::levels(blk + r * row_bytes));
    }
    for (int i = 0; i < NX; ++i) {
      const Q8Block& xb = x[i][b];
      __m256i isum;
      if constexpr (kNibblePairs) {
        isum = nibble_sums8(blk + F::kNibbles, row_bytes, xb);
      } else {
        const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q));
        __m256i t[8];
        for (int r = 0; r < 8; ++r) t[r] = dot_levels<F>(levels[r], xq);
        isum = reduce8(t);
      }
      if constexpr (dot_bias<F>() != 0) isum = _mm256_sub_epi32(isum, _mm256_set1_epi32(dot_bias<F>() * xb.sum));
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(dw, _mm256_set1_ps(xb.d)), acc[i]);
      if constexpr (F::kHasMin) summ[i] = _mm256_fmadd_ps(halves_to_f32(words, true), _mm256_set1_ps(xb.s), summ[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, _mm256_add_ps(acc[i], summ[i]));
}

// Half-chunk j of a super-block is 16 elements: lanes 0..3 of chunk j / 2's dot for even j,
// lanes 4..7 for odd j. Two rounds of hadd over four chunks' dots leave the half-chunks'
// sums in the order 0, 2, 4, 6, 1, 3, 5, 7 (then 8, 10, ...); this puts 8 values
// (scales, x sums) of consecutive half-chunks in that order.
inline __m256i half_chunk_order(__m256i v) {
  return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}

inline __m256i load8i(const int* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }

// What a K format's dot needs of one x block, shared by every weight row: the biases'
// share of each half-chunk (bias * its x sum, in half_chunk_order) for the signed formats
// without scale_bytes, and the x sums as 16 int16 for pairing with mins and scales.
struct XTerms {
  const Q8KBlock* xb;
  __m256i bias[2];
  __m256i sums16;
};

template <class F>
inline XTerms x_terms(const Q8KBlock& xb) {
  XTerms t{&xb, {}, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.sums))};
  if constexpr (dot_bias<F>() != 0 && !requires(const uint8_t* b) { F::scale_bytes(b); }) {
    for (int h = 0; h < 2; ++h) {
      const __m256i xs = _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xb.sums + 8 * h)));
      t.bias[h] = _mm256_mullo_epi32(half_chunk_order(xs), _mm256_set1_epi32(dot_bias<F>()));
    }
  }
  return t;
}

// The eight chunks' dots of one super-block: 8 lanes each, lanes 0..3 its first 16.
template <class F>
inline void chunk_dots(const uint8_t* blk, const Q8KBlock& xb, __m256i* d) {
  for (int c = 0; c < 8; ++c) {
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q + 32 * c));
    d[c] = dot_levels<F>(biased<F>(F::levels(blk, c)), xq);
  }
}

// Sums of lanes of four chunks' dots (two rounds of hadd): per 128-bit half, one value
// per chunk; the low half holds first halves-of-16, the high half second ones.
inline __m256i hadd4(const __m256i* q) {
  return _mm256_hadd_epi32(_mm256_hadd_epi32(q[0], q[1]), _mm256_hadd_epi32(q[2], q[3]));
}

// A super-block's scaled chunk dots summed in int32 lanes, for the formats with
// scale_bytes: per chunk, pmaddubsw pairs the (unsigned) levels with x into int16 and one
// multiply-add by the chunk's two half-chunk scales widens them, so no per-chunk lane
// sums or 32-bit multiplies are left. The bias of the signed formats comes off once per
// super-block: kBias * sum_s scale_s * xsum_s.
template <class F>
inline __m256i scaled_chunk_sums(const uint8_t* blk, const XTerms& t) {
  const __m128i s8 = F::scale_bytes(blk);
  // Even and odd chunks sum apart, halving the chain of dependent multiply-adds (measured:
  // 26.5-29.9 -> 30.6-31.7 G weights/s per thread for Q6_K in L2, Zen 4).
  __m256i sums[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  for (int c = 0; c < 8; ++c) {
    __m256i& sum = sums[c % 2];
    __m256i levels = F::levels(blk, c);
    if constexpr (F::kSigned) levels = _mm256_add_epi8(levels, _mm256_set1_epi8(static_cast<char>(F::kBias)));
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.xb->q + 32 * c));
    // int16 lanes 0..7: scale 2c, lanes 8..15: scale 2c + 1 (lanes 8..15 of the products
    // are elements 16..31).
    const __m128i pick = _mm_add_epi8(_mm_set1_epi8(static_cast<char>(2 * c)),
                                      _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
    const __m256i scale = _mm256_cvtepi8_epi16(_mm_shuffle_epi8(s8, pick));
    const __m256i products = _mm256_maddubs_epi16(levels, xq);
#if TESSERA_CPU_AVX512
    sum = _mm256_dpwssd_epi32(sum, products, scale);
#else
    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(products, scale));
#endif
  }
  __m256i sum = _mm256_add_epi32(sums[0], sums[1]);
  if constexpr (F::kSigned) {
    const __m256i bias = _mm256_madd_epi16(_mm256_cvtepi8_epi16(s8), t.sums16);
    sum = _mm256_sub_epi32(sum, _mm256_mullo_epi32(bias, _mm256_set1_epi32(F::kBias)));
  }
  return sum;
}

// The integer sums of one super-block of one weight row against x block t.xb, each as the
// total of eight int32 lanes: *isum of sum_j scale_j * sum_i level_i q_i, *imin of
// sum_j min_j sum_i q_i (formats with mins).
template <class F>
inline void k_block_sums(const uint8_t* blk, const XTerms& t, __m256i* isum, __m256i* imin) {
  if constexpr (requires { F::scale_bytes(blk); }) {
    *isum = scaled_chunk_sums<F>(blk, t);
    if constexpr (F::kHasMin) *imin = _mm256_madd_epi16(_mm256_cvtepu8_epi16(F::min_bytes(blk)), t.sums16);
    return;
  } else {
    __m256i d[8];
    chunk_dots<F>(blk, *t.xb, d);
    alignas(32) int sc[16], mn[16];
    __m256i scales[2];
    if constexpr (requires { F::scale_vectors(blk, scales); }) {
      F::scale_vectors(blk, scales);
    } else {
      F::scales(blk, sc, mn);
      scales[0] = load8i(sc);
      scales[1] = load8i(sc + 8);
    }
    __m256i half[2];  // half-chunk sums, 0..7 and 8..15, in half_chunk_order
    for (int h = 0; h < 2; ++h) {
      half[h] = hadd4(d + 4 * h);
      if constexpr (dot_bias<F>() != 0) half[h] = _mm256_sub_epi32(half[h], t.bias[h]);
    }
    *isum = _mm256_add_epi32(_mm256_mullo_epi32(half[0], half_chunk_order(scales[0])),
                             _mm256_mullo_epi32(half[1], half_chunk_order(scales[1])));
    static_assert(!F::kHasMin, "a format with mins gives scale_bytes and min_bytes");
    (void)imin;
  }
}

// The same for a K format, one weight row.
template <class F, int NX>
void dot_row_k(const uint8_t* w, const Q8KBlock* const* x, int64_t blocks, float* out, int64_t ldo) {
  __m256 acc[NX];
  float summ[NX];
  for (int i = 0; i < NX; ++i) {
    acc[i] = _mm256_setzero_ps();
    summ[i] = 0.0f;
  }
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* blk = w + b * F::kBytes;
    for (int line = 0; line < F::kBytes; line += 64) {
      _mm_prefetch(reinterpret_cast<const char*>(blk) + kPrefetchBytes + line, _MM_HINT_T0);
    }
    const float dw = F::d(blk);
    for (int i = 0; i < NX; ++i) {
      __m256i isum, imin;
      k_block_sums<F>(blk, x_terms<F>(x[i][b]), &isum, &imin);
      const float dx = x[i][b].d;
      acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(dw * dx), _mm256_cvtepi32_ps(isum), acc[i]);
      if constexpr (F::kHasMin) summ[i] -= F::dmin(blk) * dx * static_cast<float>(simd::hsum_i32(imin));
    }
  }
  for (int i = 0; i < NX; ++i) out[i * ldo] = hsum(acc[i]) + summ[i];
}

// Eight weight rows of a K format at once: each row's integer super-block sums, then
// one vector of eight for the float work.
template <class F, int NX>
void dot_8rows_k(const uint8_t* w, int64_t row_bytes, const Q8KBlock* const* x, int64_t blocks, float* out,
                 int64_t ldo, bool prefetch) {
  __m256 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm256_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* blk = w + b * F::kBytes;
    const __m256i words = row_words(blk + F::kScaleWord, row_bytes);
    const __m256 dw = halves_to_f32(words, F::kDHigh);
    if (prefetch) prefetch_next_group<F::kBytes>(w, row_bytes, b);
    for (int i = 0; i < NX; ++i) {
      __m256i t[8], m[8];
      const XTerms xt = x_terms<F>(x[i][b]);
      for (int r = 0; r < 8; ++r) k_block_sums<F>(blk + r * row_bytes, xt, &t[r], &m[r]);
      const __m256 dx = _mm256_set1_ps(x[i][b].d);
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(reduce8(t)), _mm256_mul_ps(dw, dx), acc[i]);
      if constexpr (F::kHasMin) {
        const __m256 dmin = _mm256_mul_ps(halves_to_f32(words, true), dx);
        summ[i] = _mm256_fnmadd_ps(dmin, _mm256_cvtepi32_ps(reduce8(m)), summ[i]);
      }
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, _mm256_add_ps(acc[i], summ[i]));
}

// Rows of x quantised in the layout the format pairs with.
template <class Block>
struct QuantizedRows {
  std::vector<Block> blocks;  // [N][blocks per row]
  int64_t per_row = 0;
  const Block* row(int64_t n) const { return blocks.data() + n * per_row; }
};

// Calls dot.template operator()<NX>() for nx in 1..kTileX.
template <class Dot>
void with_tile(int nx, Dot&& dot) {
  switch (nx) {
    case 1: dot.template operator()<1>(); break;
    case 2: dot.template operator()<2>(); break;
    case 3: dot.template operator()<3>(); break;
    default: dot.template operator()<4>(); break;
  }
}

// Weight rows [m_begin, m_end) against every row of x, kTileX rows of x at a time, and
// eight weight rows at once where eight remain.
template <class F, class Block>
void run_rows(const MatmulArgs& a, const QuantizedRows<Block>& qx, int64_t m_begin, int64_t m_end) {
  float* out = a.out.as<float>();
  const int64_t row_bytes = a.w.row_bytes();
  const auto* w0 = a.w.as<const uint8_t>();
  // Decode streams each weight once: read ahead. Prefill revisits the rows for every tile
  // of x, and the read-ahead would only repeat.
  const bool prefetch = a.n <= kTileX;
  for (int64_t m = m_begin; m < m_end;) {
    const bool eight = m + 8 <= m_end;
    for (int64_t n0 = 0; n0 < a.n; n0 += kTileX) {
      const Block* x[kTileX];
      const int nx = static_cast<int>(std::min<int64_t>(kTileX, a.n - n0));
      for (int i = 0; i < nx; ++i) x[i] = qx.row(n0 + i);
      float* o = out + n0 * a.m + m;
      const uint8_t* w = w0 + m * row_bytes;
      with_tile(nx, [&]<int NX>() {
        if constexpr (quant::is_k_format<F>()) {
          if (eight) {
            dot_8rows_k<F, NX>(w, row_bytes, x, qx.per_row, o, a.m, prefetch);
          } else {
            dot_row_k<F, NX>(w, x, qx.per_row, o, a.m);
          }
        } else if (eight) {
          dot_8rows_32<F, NX>(w, row_bytes, x, qx.per_row, o, a.m, prefetch);
        } else {
          dot_row_32<F, NX>(w, x, qx.per_row, o, a.m);
        }
      });
    }
    m += eight ? 8 : 1;
  }
}

// Decode (at most kTileX rows of x) for the 32-element formats over weight rows
// [m_begin, m_end): eight rows an eighth of the range apart go through dot_8rows_32
// together (its row stride is that distance), so the thread reads eight sequential
// streams of DRAM side by side instead of one; row r's sums do not depend on which rows
// share its call. The rows left over go one by one. Measured, 2 threads, on an Intel
// Xeon: TinyLlama-shaped q8_0 decode 15-16 -> 19-20 tok/s, SmolLM2 Q4_1 111-115 -> 127-138,
// q4_0 unchanged (its unpacking, not memory, is the limit); on an AMD EPYC it is slower
// than run_rows, so decode_rows() (decode_rows.h) chooses. The K formats got slower here
// too (their scales are gathered across the eight rows), so they keep run_rows.
template <class F>
void run_rows_far(const MatmulArgs& a, const QuantizedRows<Q8Block>& qx, int64_t m_begin, int64_t m_end) {
  float* out = a.out.as<float>();
  const int64_t row_bytes = a.w.row_bytes();
  const auto* w0 = a.w.as<const uint8_t>();
  const int64_t part = (m_end - m_begin) / 8;
  const Q8Block* x[kTileX];
  for (int64_t i = 0; i < a.n; ++i) x[i] = qx.row(i);
  for (int64_t j = 0; j < part; ++j) {
    const uint8_t* w = w0 + (m_begin + j) * row_bytes;
    alignas(32) float sums[kTileX][8];
    with_tile(static_cast<int>(a.n), [&]<int NX>() {
      dot_8rows_32<F, NX>(w, part * row_bytes, x, qx.per_row, sums[0], 8, false);
    });
    for (int64_t i = 0; i < a.n; ++i) {
      for (int r = 0; r < 8; ++r) out[i * a.m + m_begin + r * part + j] = sums[i][r];
    }
  }
  for (int64_t m = m_begin + 8 * part; m < m_end; ++m) {
    with_tile(static_cast<int>(a.n), [&]<int NX>() {
      dot_row_32<F, NX>(w0 + m * row_bytes, x, qx.per_row, out + m, a.m);
    });
  }
}

#if TESSERA_CPU_PANEL
// Panels packed per group: enough that a tile of x, read once from the outer caches, is
// dotted with many panels, few enough that the group stays in L2 (x of a long row is
// megabytes; the row loop ran over all of it again for every panel).
constexpr int64_t kGroupBytes = 1 << 20;
constexpr int64_t kMaxGroupPanels = 8;

// Weight rows [m_begin, m_end) against every row of x: groups of up to kMaxGroupPanels
// panels of sixteen rows are unpacked (quant_panel.h), then every tile of x meets each
// panel of the group, on the AMX tiles (sixteen rows of x) or panel::kTileX rows at a
// time with vpdpbusd.
template <class F, class Block>
void run_panels(const MatmulArgs& a, const QuantizedRows<Block>& qx, int64_t m_begin, int64_t m_end, bool amx) {
  const int64_t panel_size = qx.per_row * panel::Layout<F>::kBytes;
  const int64_t group = std::clamp<int64_t>(kGroupBytes / panel_size, 1, kMaxGroupPanels);
  // One buffer per task (not thread_local: a thread_local with a destructor would keep the
  // plugin from unloading until the thread ends).
  std::vector<uint8_t> panels(static_cast<size_t>(group * panel_size));
  float* out = a.out.as<float>();
  const int64_t row_bytes = a.w.row_bytes();
#if TESSERA_CPU_AMX
  // A last tile of fewer than sixteen rows of x: those rows copied beside zero rows.
  std::vector<Block> tail;
  const int64_t whole = a.n / amx::kRowsX * amx::kRowsX;
  if (amx && whole < a.n) {
    tail.assign(static_cast<size_t>(amx::kRowsX * qx.per_row), Block{});
    std::copy(qx.row(whole), qx.row(a.n), tail.begin());
  }
  std::optional<amx::TileScope> tiles;
  if (amx) tiles.emplace(amx::int8_tiles<quant::is_k_format<F>() ? panel::sub_elems<F>() : 32>());
#else
  (void)amx;
#endif
  for (int64_t m0 = m_begin; m0 < m_end; m0 += group * panel::kRows) {
    const int64_t n_panels = std::min(group, (m_end - m0 + panel::kRows - 1) / panel::kRows);
    int rows[kMaxGroupPanels];
    for (int64_t p = 0; p < n_panels; ++p) {
      const int64_t m = m0 + p * panel::kRows;
      rows[p] = static_cast<int>(std::min<int64_t>(panel::kRows, m_end - m));
      const uint8_t* w = a.w.as<const uint8_t>() + m * row_bytes;
      uint8_t* panel = panels.data() + p * panel_size;
      if (amx) {
        panel::pack<F, false>(w, row_bytes, rows[p], qx.per_row, panel);  // AMX takes the levels unbiased
      } else {
        panel::pack<F>(w, row_bytes, rows[p], qx.per_row, panel);
      }
    }
#if TESSERA_CPU_AMX
    if (amx) {
      for (int64_t i = 0; i < a.n; i += amx::kRowsX) {
        const Block* x = i < whole ? qx.row(i) : tail.data();
        const int nx = static_cast<int>(std::min<int64_t>(amx::kRowsX, a.n - i));
        for (int64_t p = 0; p < n_panels; ++p) {
          const uint8_t* panel = panels.data() + p * panel_size;
          float* o = out + i * a.m + m0 + p * panel::kRows;
          if constexpr (quant::is_k_format<F>()) {
            amx::dot_k<F>(panel, qx.per_row, x, nx, o, a.m, rows[p]);
          } else {
            amx::dot_32<F>(panel, qx.per_row, x, nx, o, a.m, rows[p]);
          }
        }
      }
      continue;
    }
#endif
    for (int64_t n0 = 0; n0 < a.n; n0 += panel::kTileX) {
      const Block* x[panel::kTileX];
      const int nx = static_cast<int>(std::min<int64_t>(panel::kTileX, a.n - n0));
      for (int i = 0; i < nx; ++i) x[i] = qx.row(n0 + i);
      for (int64_t p = 0; p < n_panels; ++p) {
        const uint8_t* panel = panels.data() + p * panel_size;
        float* o = out + n0 * a.m + m0 + p * panel::kRows;
        with_tile(nx, [&]<int NX>() {
          if constexpr (quant::is_k_format<F>()) {
            panel::dot_k<F, NX>(panel, qx.per_row, x, o, a.m, rows[p]);
          } else {
            panel::dot_32<F, NX>(panel, qx.per_row, x, o, a.m, rows[p]);
          }
        });
      }
    }
  }
}
#endif

// Decode, and prefill on the rows path, from the weight's copy in groups of eight (or
// sixteen) rows (Rows8<F>, row_groups.h), made at its first use and kept with its buffer;
// false, having done nothing, where there is no such copy (no buffer: an expert's view;
// fewer rows than a group; TESSERA_CPU_DECODE_REPACK=off; no memory for it). By default a
// copy is made only while the memory left available after it still holds the whole
// weight buffer once more: the copies then never squeeze a mapped file's pages out of
// memory. Prefill meets each group with a block of rows of x, four at a time, while the
// group is in cache. Against the file's layout (run_rows), TinyLlama-shaped pp512 on an AMD
// EPYC (Zen 3), 2 threads, tok/s: q4_0 46.6 -> 98.0, q4_k_m 49.2 -> 123.5, q5_k_m 43.2
// -> 89.5, q6_k 47.6 -> 64.9, q8_0 72.9 -> 98.3.
template <class F>
bool matmul_rows8(ThreadPool& pool, const MatmulArgs& a, const QuantizedRows<typename Rows8<F>::XBlock>& qx) {
  using Group = typename Rows8<F>::Group;
  using XBlock = typename Rows8<F>::XBlock;
  constexpr int64_t kRows = Rows8<F>::kRows;
  const int64_t groups = a.m / kRows, blocks = qx.per_row;
  const DecodeRepack mode = decode_repack();
  if (a.w_buffer == nullptr || groups == 0 || mode == DecodeRepack::kOff) return false;
  const uint64_t reserve = mode == DecodeRepack::kAuto ? std::max<uint64_t>(a.w_buffer->size, 1) : 0;
  const int64_t row_bytes = a.w.row_bytes();
  const auto* w0 = a.w.as<const uint8_t>();
  const RepackedWeights::Key key{static_cast<uint64_t>(a.w.data - a.w_buffer->data), a.w.dtype, a.m, a.k};
  const auto* packed = reinterpret_cast<const Group*>(a.w_buffer->repacked.find_or_make(
      key, static_cast<size_t>(groups * blocks) * sizeof(Group), reserve, [&](std::byte* copy) {
        auto* out = reinterpret_cast<Group*>(copy);
        pool.parallel_for(groups, 16, [&](int64_t b, int64_t e) {
          Rows8<F>::repack(w0, row_bytes, blocks, b, e, out + b * blocks);
        });
      }));
  if (packed == nullptr) return false;
  std::vector<const XBlock*> x(static_cast<size_t>(a.n));
  for (int64_t i = 0; i < a.n; ++i) x[static_cast<size_t>(i)] = qx.row(i);
  using XSums = typename Rows8<F>::XSums;
  constexpr int64_t kSums = XSums::kPerBlock;
  std::vector<int32_t> sums(static_cast<size_t>(a.n * blocks * kSums));  // formed once per step
  std::vector<const int32_t*> x_sums(static_cast<size_t>(a.n));
  if constexpr (kSums > 0) {
    for (int64_t i = 0; i < a.n; ++i) {
      XSums::form(x[static_cast<size_t>(i)], blocks, sums.data() + i * blocks * kSums);
      x_sums[static_cast<size_t>(i)] = sums.data() + i * blocks * kSums;
    }
  }
  float* out = a.out.as<float>();
  // Rows [n_begin, n_end) of x meet a group while its bytes are in cache, kTileX at a time.
  const auto tiles = [&](int64_t n_begin, int64_t n_end, auto&& dot_tile) {
    for (int64_t n0 = n_begin; n0 < n_end; n0 += kTileX) {
      const int nx = static_cast<int>(std::min<int64_t>(kTileX, n_end - n0));
      with_tile(nx, [&]<int NX>() { dot_tile.template operator()<NX>(n0); });
    }
  };
  // One contiguous share of the groups per thread, in chunks that a thread done early takes
  // over from the back of another's share. Decode: chunks of about 16 KiB; smaller matrices
  // balance: with 64 KiB, SmolLM2's k and v (12 groups of 5.6 KiB) split 11 + 1, and decode
  // went 191-195 -> 197-201 tok/s on 2 threads with 16. Prefill: chunks of up to 128 KiB,
  // at least four per thread, met by x kPrefillXRows rows at a time, so that a block of x
  // (128 KiB of Q8_K at K = 2048) and the chunk's groups stay in L2 together, where each
  // group met all of x (1 MiB and more at 512 rows) from the last-level cache.
  const int64_t group_bytes = blocks * static_cast<int64_t>(sizeof(Group));
  const bool prefill = a.n > kTileX;
  const int64_t chunk_bytes =
      prefill ? std::min<int64_t>(int64_t{128} << 10, groups * group_bytes / (4 * pool.size())) : int64_t{16} << 10;
  const int64_t chunk = std::max<int64_t>(1, chunk_bytes / group_bytes);
  const int64_t x_block = prefill ? kPrefillXRows : a.n;
  pool.parallel_for_shares(groups, chunk, [&](int64_t b, int64_t e) {
    for (int64_t n_begin = 0; n_begin < a.n; n_begin += x_block) {
      const int64_t n_end = std::min(a.n, n_begin + x_block);
      for (int64_t g = b; g < e; ++g) {
        tiles(n_begin, n_end, [&]<int NX>(int64_t n0) {
          rows8::dot<NX>(packed + g * blocks, x.data() + n0, x_sums.data() + n0, blocks,
                         out + n0 * a.m + kRows * g, a.m);
        });
      }
    }
  });
  for (int64_t m = kRows * groups; m < a.m; ++m) {
    tiles(0, a.n, [&]<int NX>(int64_t n0) {
      if constexpr (quant::is_k_format<F>()) {
        dot_row_k<F, NX>(w0 + m * row_bytes, x.data() + n0, blocks, out + n0 * a.m + m, a.m);
      } else {
        dot_row_32<F, NX>(w0 + m * row_bytes, x.data() + n0, blocks, out + n0 * a.m + m, a.m);
      }
    });
  }
  return true;
}

template <class F>
void matmul_format(ThreadPool& pool, const MatmulArgs& a) {
  using Block = std::conditional_t<quant::is_k_format<F>(), Q8KBlock, Q8Block>;
  QuantizedRows<Block> qx;
  qx.per_row = a.k / (quant::is_k_format<F>() ? 256 : 32);
  qx.blocks.resize(static_cast<size_t>(a.n * qx.per_row));
  pool.parallel_for(a.n, 4, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      if constexpr (quant::is_k_format<F>()) {
        quantize_q8k_row(a.x.row<const float>(n), a.k, qx.blocks.data() + n * qx.per_row);
      } else {
        quantize_q8_row(a.x.row<const float>(n), a.k, qx.blocks.data() + n * qx.per_row);
      }
    }
  });
#if TESSERA_CPU_PANEL
  const PrefillPath path = prefill_path();
  if (a.n > kTileX && path != PrefillPath::kRows) {
    pool.parallel_for((a.m + panel::kRows - 1) / panel::kRows, 1, [&](int64_t b, int64_t e) {
      run_panels<F>(a, qx, b * panel::kRows, std::min(e * panel::kRows, a.m), path == PrefillPath::kAmx);
    });
    return;
  }
#endif
  if constexpr (Rows8<F>::kHas) {
    if (matmul_rows8<F>(pool, a, qx)) return;
  }
  // Tasks of whole groups of eight rows; decode gives each thread one contiguous share, so
  // that its reads (and read-ahead) stream through one region of the weights.
  const int64_t groups = (a.m + 7) / 8;
  const int64_t grain = a.n <= kTileX ? std::max<int64_t>(kGrainRows / 8, (groups + pool.size() - 1) / pool.size())
                                      : kGrainRows / 8;
  const bool far = a.n <= kTileX && decode_rows() == DecodeRows::kFar;
  pool.parallel_for(groups, grain, [&](int64_t b, int64_t e) {
    if constexpr (!quant::is_k_format<F>()) {
      if (far) {
        run_rows_far<F>(a, qx, b * 8, std::min(e * 8, a.m));
        return;
      }
    }
    run_rows<F>(a, qx, b * 8, std::min(e * 8, a.m));
  });
}

#endif  // TESSERA_CPU_AVX2

// The portable path: dequantise each weight row, then an f32 dot with every row of x.
void rows_portable(const MatmulArgs& a, int64_t m_begin, int64_t m_end) {
  std::vector<float> w(static_cast<size_t>(a.k));
  float* out = a.out.as<float>();
  for (int64_t m = m_begin; m < m_end; ++m) {
    kit::dequantize_row(a.w.dtype, a.w.row<const std::byte>(m), w.data(), a.k);
    for (int64_t n = 0; n < a.n; ++n) {
      const float* x = a.x.row<const float>(n);
      float sum = 0.0f;
      for (int64_t k = 0; k < a.k; ++k) sum += x[k] * w[static_cast<size_t>(k)];
      out[n * a.m + m] = sum;
    }
  }
}

}  // namespace

const char* quant_prefill_path() {
  switch (prefill_path()) {
    case PrefillPath::kAmx: return "amx";
    case PrefillPath::kVnni: return "vnni";
    case PrefillPath::kRows: return "rows";
    default: return "portable";
  }
}

void matmul_quant(ThreadPool& pool, const MatmulArgs& a) {
#if TESSERA_CPU_AVX2
  if (quant::with_format(a.w.dtype, [&]<class F>() { matmul_format<F>(pool, a); })) return;
#endif
  pool.parallel_for(a.m, kGrainRows, [&](int64_t b, int64_t e) { rows_portable(a, b, e); });
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
