// Block-format MATMUL kernels; see matmul_quant.h.
//   32-element formats: out = sum over blocks of (d_w * d_x) * sum_i level_i q_i
//                             (+ m_w * s_x for the formats with a min)
//   K formats:          out = sum over super-blocks of (d_w * d_x) * sum_j scale_j sum_i level_i q_i
//                             - (dmin_w * d_x) * sum_j min_j sum_i q_i
// Integer sums are exact; the float operations per block are those above, accumulated
// in 8 lanes and added up at the end of the row.
#include "backends/cpu/ops/matmul_quant.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/dtype_traits.h>

#include "backends/cpu/ops/quant_activations.h"
#include "backends/cpu/ops/quant_groups.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu {
namespace {

constexpr int64_t kGrainRows = 16;  // weight rows per task
constexpr int kTileX = 4;           // rows of x dotted with each weight row at once
// Weight bytes read ahead of the block being dotted: rows are short (a few hundred bytes)
// and the hardware prefetcher alone left decode waiting on memory.
constexpr int kPrefetchBytes = 2048;

#if TESSERA_CPU_AVX2

// 8 int32 sums of 4 products each: lanes 0..3 cover bytes 0..15, lanes 4..7 bytes 16..31.
template <bool Signed>
inline __m256i dot_bytes(__m256i levels, __m256i xq) {
  __m256i u = levels, s = xq;
  if constexpr (Signed) {  // the unsigned x signed instructions: move the sign onto x
    u = _mm256_sign_epi8(levels, levels);
    s = _mm256_sign_epi8(xq, levels);
  }
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

// The same sums, each half of 16 multiplied by its integer scale.
template <bool Signed>
inline __m256i scaled_dot_bytes(__m256i levels, __m256i xq, __m256i scales16) {
  __m256i u = levels, s = xq;
  if constexpr (Signed) {
    u = _mm256_sign_epi8(levels, levels);
    s = _mm256_sign_epi8(xq, levels);
  }
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), scales16);
}

inline float hsum(__m256 v) { return simd::hsum({v}); }

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
    const __m256i q = F::levels(blk);
    const float dw = F::d(blk);
    for (int i = 0; i < NX; ++i) {
      const Q8Block& xb = x[i][b];
      const __m256i dot = dot_bytes<F::kSigned>(q, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q)));
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

// The 4-byte words at p + r * row_bytes for r < 8, in lanes 0..7 (one gather).
inline __m256i row_words(const uint8_t* p, __m256i row_offsets) {
  return _mm256_i32gather_epi32(reinterpret_cast<const int*>(p), row_offsets, 1);
}

inline __m256i row_offsets(int64_t row_bytes) {
  return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(row_bytes)));
}

// Eight int32x8 sums as one vector: lane r = the total of t[r]. Integer adds, exact.
inline __m256i reduce8(const __m256i* t) {
  const __m256i a = _mm256_hadd_epi32(t[0], t[1]), b = _mm256_hadd_epi32(t[2], t[3]);
  const __m256i c = _mm256_hadd_epi32(t[4], t[5]), d = _mm256_hadd_epi32(t[6], t[7]);
  const __m256i ab = _mm256_hadd_epi32(a, b), cd = _mm256_hadd_epi32(c, d);
  // ab: rows 0-3, elements 0-3 of each in the low half and 4-7 in the high half; cd: rows 4-7.
  return _mm256_add_epi32(_mm256_permute2x128_si256(ab, cd, 0x20), _mm256_permute2x128_si256(ab, cd, 0x31));
}

// The f16 at the start (high = false) or at byte 2 (high = true) of 32-bit words, as f32.
inline __m256 halves_to_f32(__m256i words, bool high) {
  const __m256i v = high ? _mm256_srli_epi32(words, 16) : words;
  const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, pick), 0x08);
  return _mm256_cvtph_ps(_mm256_castsi256_si128(packed));
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
  const __m256i offsets = row_offsets(row_bytes);
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* blk = w + b * F::kBytes;
    // d (and m) of each row: the first 4 bytes of its block.
    const __m256i words = row_words(blk, offsets);
    const __m256 dw = halves_to_f32(words, false);
    __m256i levels[8];
    for (int r = 0; r < 8; ++r) {
      if (prefetch) _mm_prefetch(reinterpret_cast<const char*>(blk + r * row_bytes) + kPrefetchBytes, _MM_HINT_T0);
      levels[r] = F::levels(blk + r * row_bytes);
    }
    for (int i = 0; i < NX; ++i) {
      const Q8Block& xb = x[i][b];
      const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q));
      __m256i t[8];
      for (int r = 0; r < 8; ++r) t[r] = dot_bytes<F::kSigned>(levels[r], xq);
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(reduce8(t)), _mm256_mul_ps(dw, _mm256_set1_ps(xb.d)), acc[i]);
      if constexpr (F::kHasMin) summ[i] = _mm256_fmadd_ps(halves_to_f32(words, true), _mm256_set1_ps(xb.s), summ[i]);
    }
  }
  for (int i = 0; i < NX; ++i) _mm256_storeu_ps(out + i * ldo, _mm256_add_ps(acc[i], summ[i]));
}

// The integer scales of chunk c as the multipliers of its two halves' int16 pair sums.
inline __m256i chunk_scales(const int* sc, int c) {
  return _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(sc[2 * c + 1])),
                          _mm_set1_epi16(static_cast<int16_t>(sc[2 * c])));
}

// The integer sums of one super-block of one weight row against x block xb:
// isum lanes = sum_j scale_j * sum_i level_i q_i, and the return value sum_j min_j sum_i q_i.
template <class F>
inline int k_block_sums(const uint8_t* blk, const Q8KBlock& xb, __m256i* isum) {
  int sc[16], mn[16];
  F::scales(blk, sc, mn);
  __m256i acc = _mm256_setzero_si256();
  for (int c = 0; c < 8; ++c) {
    const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q + 32 * c));
    acc = _mm256_add_epi32(acc, scaled_dot_bytes<F::kSigned>(F::levels(blk, c), xq, chunk_scales(sc, c)));
  }
  *isum = acc;
  int imin = 0;
  if constexpr (F::kHasMin) {
    for (int s = 0; s < 16; ++s) imin += mn[s] * xb.sums[s];
  }
  return imin;
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
      __m256i isum;
      const int imin = k_block_sums<F>(blk, x[i][b], &isum);
      const float dx = x[i][b].d;
      acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(dw * dx), _mm256_cvtepi32_ps(isum), acc[i]);
      if constexpr (F::kHasMin) summ[i] -= F::dmin(blk) * dx * static_cast<float>(imin);
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
  const __m256i offsets = row_offsets(row_bytes);
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* blk = w + b * F::kBytes;
    const __m256i words = row_words(blk + F::kScaleWord, offsets);
    const __m256 dw = halves_to_f32(words, F::kDHigh);
    for (int r = 0; r < 8 && prefetch; ++r) {
      for (int line = 0; line < F::kBytes; line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(blk + r * row_bytes) + kPrefetchBytes + line, _MM_HINT_T0);
      }
    }
    for (int i = 0; i < NX; ++i) {
      __m256i t[8];
      alignas(32) int imin[8];
      for (int r = 0; r < 8; ++r) imin[r] = k_block_sums<F>(blk + r * row_bytes, x[i][b], &t[r]);
      const __m256 dx = _mm256_set1_ps(x[i][b].d);
      acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(reduce8(t)), _mm256_mul_ps(dw, dx), acc[i]);
      if constexpr (F::kHasMin) {
        const __m256 dmin = _mm256_mul_ps(halves_to_f32(words, true), dx);
        summ[i] = _mm256_fnmadd_ps(dmin, _mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(imin))),
                                   summ[i]);
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
  // Tasks of whole groups of eight rows.
  const int64_t groups = (a.m + 7) / 8;
  pool.parallel_for(groups, kGrainRows / 8, [&](int64_t b, int64_t e) {
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

bool is_block_format(tsr_dtype dtype) { return kit::dtype_traits(dtype).quantized; }

void matmul_quant(ThreadPool& pool, const MatmulArgs& a) {
#if TESSERA_CPU_AVX2
  if (quant::with_format(a.w.dtype, [&]<class F>() { matmul_format<F>(pool, a); })) return;
#endif
  pool.parallel_for(a.m, kGrainRows, [&](int64_t b, int64_t e) { rows_portable(a, b, e); });
}

}  // namespace tessera::cpu
