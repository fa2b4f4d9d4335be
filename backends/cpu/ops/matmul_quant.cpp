// Block-format MATMUL kernels; see matmul_quant.h. x is quantised to int8 blocks of
// 32 as q8_0 is (d = max |x| / 127), with the sums of each block's halves kept for the
// formats with offsets:
//   sum_i w_i x_i = sum over 32-blocks of dx * (a * sum_i level_i q_i + b * sum_i q_i),
// a and b per half block (quant_groups.h). The integer sums are exact; the result differs
// from the f32 reference only by x's rounding to 8 bits.
#include "backends/cpu/ops/matmul_quant.h"

#include <cmath>
#include <vector>

#include <tessera/kit/dequantize.h>
#include <tessera/kit/dtype_traits.h>

#include "backends/cpu/ops/quant_groups.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu {
namespace {

constexpr int64_t kGrainRows = 32;
constexpr int kMaxX = 4;

// One row of x as int8 blocks of 32: q[K], and per block d and d * (sum of each half).
struct QuantizedX {
  std::vector<int8_t> q;
  std::vector<float> d, sum_lo, sum_hi;

  void quantize(const float* x, int64_t K) {
    const int64_t blocks = K / 32;
    q.resize(static_cast<size_t>(K));
    d.resize(static_cast<size_t>(blocks));
    sum_lo.resize(static_cast<size_t>(blocks));
    sum_hi.resize(static_cast<size_t>(blocks));
    for (int64_t b = 0; b < blocks; ++b) {
      const float* xb = x + b * 32;
      float amax = 0.0f;
      for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(xb[i]));
      const float scale = amax / 127.0f;
      const float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
      int s_lo = 0, s_hi = 0;
      for (int i = 0; i < 32; ++i) {
        const int v = static_cast<int>(std::nearbyint(xb[i] * inv));
        q[static_cast<size_t>(b * 32 + i)] = static_cast<int8_t>(v);
        (i < 16 ? s_lo : s_hi) += v;
      }
      d[static_cast<size_t>(b)] = scale;
      sum_lo[static_cast<size_t>(b)] = scale * static_cast<float>(s_lo);
      sum_hi[static_cast<size_t>(b)] = scale * static_cast<float>(s_hi);
    }
  }
};

#if TESSERA_CPU_AVX2

// 8 int32 sums of 4 products each: lanes 0..3 cover bytes 0..15, lanes 4..7 bytes 16..31.
template <bool Signed>
inline __m256i dot_bytes(__m256i levels, __m256i xq) {
  __m256i u = levels, s = xq;
  if constexpr (Signed) {  // maddubs takes unsigned x signed: move the sign onto x
    u = _mm256_sign_epi8(levels, levels);
    s = _mm256_sign_epi8(xq, levels);
  }
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

template <class F, int NX>
void dot_row(const uint8_t* w, const QuantizedX* const* x, int64_t K, float* out, int64_t ldo) {
  constexpr int kChunks = F::kElems / 32;
  __m256 acc[NX];
  float offset[NX];
  for (int i = 0; i < NX; ++i) {
    acc[i] = _mm256_setzero_ps();
    offset[i] = 0.0f;
  }
  const int64_t blocks = K / F::kElems;
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* blk = w + b * F::kBytes;
    for (int c = 0; c < kChunks; ++c) {
      const quant::Group32 g = F::group(blk, c);
      const int64_t xb = b * kChunks + c;
      for (int i = 0; i < NX; ++i) {
        const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[i]->q.data() + xb * 32));
        const __m256 sums = _mm256_cvtepi32_ps(dot_bytes<F::kSigned>(g.q, xq));
        const float dx = x[i]->d[static_cast<size_t>(xb)];
        const __m256 coef = _mm256_set_m128(_mm_set1_ps(g.a_hi * dx), _mm_set1_ps(g.a_lo * dx));
        acc[i] = _mm256_fmadd_ps(sums, coef, acc[i]);
        offset[i] += g.b_lo * x[i]->sum_lo[static_cast<size_t>(xb)] + g.b_hi * x[i]->sum_hi[static_cast<size_t>(xb)];
      }
    }
  }
  for (int i = 0; i < NX; ++i) out[i * ldo] = simd::hsum({acc[i]}) + offset[i];
}

template <class F>
void decode_rows(const MatmulArgs& a, const QuantizedX* const* x, int64_t m_begin, int64_t m_end) {
  float* out = a.out.as<float>();
  for (int64_t m = m_begin; m < m_end; ++m) {
    const auto* w = a.w.row<const uint8_t>(m);
    switch (a.n) {
      case 1: dot_row<F, 1>(w, x, a.k, out + m, a.m); break;
      case 2: dot_row<F, 2>(w, x, a.k, out + m, a.m); break;
      case 3: dot_row<F, 3>(w, x, a.k, out + m, a.m); break;
      default: dot_row<F, 4>(w, x, a.k, out + m, a.m); break;
    }
  }
}

// value = a * level + b for the 32 elements of a group.
template <bool Signed>
void group_to_f32(const quant::Group32& g, float* dst) {
  const __m128i halves[2] = {_mm256_castsi256_si128(g.q), _mm256_extracti128_si256(g.q, 1)};
  for (int h = 0; h < 2; ++h) {
    const __m256 a = _mm256_set1_ps(h == 0 ? g.a_lo : g.a_hi);
    const __m256 b = _mm256_set1_ps(h == 0 ? g.b_lo : g.b_hi);
    for (int part = 0; part < 2; ++part) {
      const __m128i bytes = part == 0 ? halves[h] : _mm_srli_si128(halves[h], 8);
      const __m256i ints = Signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
      _mm256_storeu_ps(dst + 16 * h + 8 * part, _mm256_fmadd_ps(_mm256_cvtepi32_ps(ints), a, b));
    }
  }
}

#endif  // TESSERA_CPU_AVX2

// The portable path: dequantise each weight row, then an f32 dot with every row of x.
void decode_rows_portable(const MatmulArgs& a, int64_t m_begin, int64_t m_end) {
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

void matmul_quant_decode(ThreadPool& pool, const MatmulArgs& a) {
#if TESSERA_CPU_AVX2
  QuantizedX qx[kMaxX];
  const QuantizedX* x[kMaxX];
  for (int64_t n = 0; n < a.n; ++n) {
    qx[n].quantize(a.x.row<const float>(n), a.k);
    x[n] = &qx[n];
  }
  const bool known = quant::with_format(a.w.dtype, [&]<class F>() {
    pool.parallel_for(a.m, kGrainRows, [&](int64_t b, int64_t e) { decode_rows<F>(a, x, b, e); });
  });
  if (known) return;
#endif
  pool.parallel_for(a.m, kGrainRows, [&](int64_t b, int64_t e) { decode_rows_portable(a, b, e); });
}

void block_row_to_f32(tsr_dtype dtype, const std::byte* row, int64_t K, float* dst) {
#if TESSERA_CPU_AVX2
  const auto* w = reinterpret_cast<const uint8_t*>(row);
  const bool known = quant::with_format(dtype, [&]<class F>() {
    constexpr int kChunks = F::kElems / 32;
    for (int64_t b = 0; b < K / F::kElems; ++b) {
      for (int c = 0; c < kChunks; ++c) {
        group_to_f32<F::kSigned>(F::group(w + b * F::kBytes, c), dst + b * F::kElems + 32 * c);
      }
    }
  });
  if (known) return;
#endif
  kit::dequantize_row(dtype, row, dst, K);
}

}  // namespace tessera::cpu
