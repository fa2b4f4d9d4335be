// Block-format MATMUL kernels; see matmul_quant.h.
//   32-element formats: out = sum over blocks of (d_w * d_x) * sum_i level_i q_i
//                             (+ m_w * s_x for the formats with a min)
//   K formats:          out = sum over super-blocks of (d_w * d_x) * sum_j scale_j sum_i level_i q_i
//                             - (dmin_w * d_x) * sum_j min_j sum_i q_i
// Integer sums are exact; the float operations per block are those above, accumulated
// in 8 lanes and added up at the end of the row.
#include "backends/cpu/ops/matmul_quant.h"

#include <algorithm>
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

// The same for a K format.
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
    __m256i isum[NX];
    int imin[NX];
    for (int i = 0; i < NX; ++i) {
      isum[i] = _mm256_setzero_si256();
      imin[i] = 0;
    }
    for (int c = 0; c < 8; ++c) {
      const quant::Chunk ch = F::chunk(blk, c);
      const __m256i scales = _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(ch.scale_hi)),
                                              _mm_set1_epi16(static_cast<int16_t>(ch.scale_lo)));
      for (int i = 0; i < NX; ++i) {
        const Q8KBlock& xb = x[i][b];
        const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb.q + 32 * c));
        isum[i] = _mm256_add_epi32(isum[i], scaled_dot_bytes<F::kSigned>(ch.q, xq, scales));
        if constexpr (F::kHasMin) imin[i] += ch.min_lo * xb.sums[2 * c] + ch.min_hi * xb.sums[2 * c + 1];
      }
    }
    const float dw = F::d(blk);
    for (int i = 0; i < NX; ++i) {
      const float dx = x[i][b].d;
      acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(dw * dx), _mm256_cvtepi32_ps(isum[i]), acc[i]);
      if constexpr (F::kHasMin) summ[i] -= F::dmin(blk) * dx * static_cast<float>(imin[i]);
    }
  }
  for (int i = 0; i < NX; ++i) out[i * ldo] = hsum(acc[i]) + summ[i];
}

// Rows of x quantised in the layout the format pairs with.
template <class Block>
struct QuantizedRows {
  std::vector<Block> blocks;  // [N][blocks per row]
  int64_t per_row = 0;
  const Block* row(int64_t n) const { return blocks.data() + n * per_row; }
};

template <class F, class Block>
void run_rows(const MatmulArgs& a, const QuantizedRows<Block>& qx, int64_t m_begin, int64_t m_end) {
  float* out = a.out.as<float>();
  for (int64_t m = m_begin; m < m_end; ++m) {
    const auto* w = a.w.row<const uint8_t>(m);
    for (int64_t n0 = 0; n0 < a.n; n0 += kTileX) {
      const Block* x[kTileX];
      const int nx = static_cast<int>(std::min<int64_t>(kTileX, a.n - n0));
      for (int i = 0; i < nx; ++i) x[i] = qx.row(n0 + i);
      float* o = out + n0 * a.m + m;
      const auto dot = [&]<int NX>() {
        if constexpr (quant::is_k_format<F>()) {
          dot_row_k<F, NX>(w, x, qx.per_row, o, a.m);
        } else {
          dot_row_32<F, NX>(w, x, qx.per_row, o, a.m);
        }
      };
      switch (nx) {
        case 1: dot.template operator()<1>(); break;
        case 2: dot.template operator()<2>(); break;
        case 3: dot.template operator()<3>(); break;
        default: dot.template operator()<4>(); break;
      }
    }
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
  pool.parallel_for(a.m, kGrainRows, [&](int64_t b, int64_t e) { run_rows<F>(a, qx, b, e); });
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
