// Optimised MATMUL for f32, f16 and bf16 weights (the block formats are in
// matmul_quant.cpp). Decode (few rows of x) is memory-bound: stream each weight row once,
// in order, dotting it with every row of x while it is in registers. Prefill (many rows)
// converts a panel of weight rows to f32 once and reuses it across every row of x with
// a register-tiled micro-kernel: dot products over k in 8 lanes, or, in the avx512 copy,
// a k-major panel of 32 rows met by broadcasts of x (matmul_prefill_wide); bf16 weights
// take matmul_bf16.cpp's vdpbf16ps instead where the processor has it. Compiled once
// per instruction set (isa_target.h).
#include <algorithm>
#include <cstring>
#include <vector>

#include <tessera/kit/dtype_traits.h>

#include "backends/cpu/device.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/matmul_bf16.h"
#include "backends/cpu/ops/matmul_quant.h"

#include "backends/cpu/isa_target.h"
#include "backends/cpu/ops/bf16_rows512.h"
#include "backends/cpu/ops/read_ahead.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {
namespace {

using simd::F32x8;
using simd::kLanes;

constexpr int64_t kDecodeMaxX = 4;    // up to this many rows of x take the decode path
constexpr int64_t kPanelRows = 16;    // weight rows converted to f32 per prefill panel
constexpr int kTileX = 4;             // micro-kernel: rows of x ...
constexpr int kTileW = 2;             // ... times rows of the f32 weight panel

// Element loaders for the row formats stored element by element.
struct F32Format {
  static constexpr int kBytes = 4;
  static F32x8 load8(const std::byte* row, int64_t k) {
    return simd::load(reinterpret_cast<const float*>(row) + k);
  }
  static float load1(const std::byte* row, int64_t k) {
    return reinterpret_cast<const float*>(row)[k];
  }
};
struct F16Format {
  static constexpr int kBytes = 2;
  static F32x8 load8(const std::byte* row, int64_t k) {
    return simd::load_f16(reinterpret_cast<const uint16_t*>(row) + k);
  }
  static float load1(const std::byte* row, int64_t k) {
    return simd::f16_scalar(reinterpret_cast<const uint16_t*>(row)[k]);
  }
};
struct BF16Format {
  static constexpr int kBytes = 2;
  static F32x8 load8(const std::byte* row, int64_t k) {
    return simd::load_bf16(reinterpret_cast<const uint16_t*>(row) + k);
  }
  static float load1(const std::byte* row, int64_t k) {
    uint16_t h = reinterpret_cast<const uint16_t*>(row)[k];
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
};

// out[i * ldo] = dot(w[0:K], x[i][0:K]) for one weight row in an element-wise format
// and NX rows of x: each weight vector is loaded once for all of them. U independent
// accumulators per x row hide the FMA latency when NX is small.
template <class Format, int NX>
void dot_row(const std::byte* w, const float* const* x, int64_t K, float* out, int64_t ldo) {
  constexpr int U = NX >= 4 ? 1 : 4 / NX;
  F32x8 acc[NX][U];
  for (int i = 0; i < NX; ++i)
    for (int u = 0; u < U; ++u) acc[i][u] = simd::zero();
  int64_t k = 0;
  const char* bytes = reinterpret_cast<const char*>(w);
  for (; k + U * kLanes <= K; k += U * kLanes) {
    for (int b = 0; b < U * kLanes * Format::kBytes; b += 64) __builtin_prefetch(bytes + k * Format::kBytes + b + simd::kPrefetchBytes);
    for (int u = 0; u < U; ++u) {
      const F32x8 wv = Format::load8(w, k + u * kLanes);
      for (int i = 0; i < NX; ++i) acc[i][u] = simd::fma(wv, simd::load(x[i] + k + u * kLanes), acc[i][u]);
    }
  }
  for (; k + kLanes <= K; k += kLanes) {
    const F32x8 wv = Format::load8(w, k);
    for (int i = 0; i < NX; ++i) acc[i][0] = simd::fma(wv, simd::load(x[i] + k), acc[i][0]);
  }
  for (int i = 0; i < NX; ++i) {
    F32x8 total = acc[i][0];
    for (int u = 1; u < U; ++u) total = simd::add(total, acc[i][u]);
    float sum = simd::hsum(total);
    for (int64_t kt = k; kt < K; ++kt) sum += Format::load1(w, kt) * x[i][kt];
    out[i * ldo] = sum;
  }
}

// out[s] = dot(w[s], x) for S weight rows far apart and one row of x, read side by side:
// the thread keeps S streams of DRAM reads in flight instead of one. The streams are
// sequential, so the hardware prefetchers follow them; where decode_read_ahead() asks,
// each line is also asked for by hand, which on an Intel Xeon took TinyLlama-shaped f16
// decode (2 threads) from 13.0 to 14.5 tok/s and bf16 from 12.3 to 13.8, and on Zen 4
// (2 KiB ahead, weights on 2 MiB pages) made it slower: 15.0-19.4 against 16.7-23.6.
template <class Format, int S>
void dot_far_rows(const std::byte* const* w, const float* x, int64_t K, float* const* out) {
  constexpr int U = 2;
  F32x8 acc[S][U];
  for (int r = 0; r < S; ++r)
    for (int u = 0; u < U; ++u) acc[r][u] = simd::zero();
  const int64_t ahead = decode_read_ahead();
  int64_t k = 0;
  for (; k + U * kLanes <= K; k += U * kLanes) {
    // Each line of each row once: a step reads 32 bytes of an f16 or bf16 row, 64 of f32.
    if (ahead != 0 && ((k * Format::kBytes) & 63) == 0) {
      for (int r = 0; r < S; ++r) read_ahead_line(w[r] + k * Format::kBytes + ahead);
    }
    for (int u = 0; u < U; ++u) {
      const F32x8 xv = simd::load(x + k + u * kLanes);
      for (int r = 0; r < S; ++r) acc[r][u] = simd::fma(Format::load8(w[r], k + u * kLanes), xv, acc[r][u]);
    }
  }
  for (int r = 0; r < S; ++r) {
    float sum = simd::hsum(simd::add(acc[r][0], acc[r][1]));
    for (int64_t kt = k; kt < K; ++kt) sum += Format::load1(w[r], kt) * x[kt];
    *out[r] = sum;
  }
}

template <int NX>
void dot_row_any(tsr_dtype dtype, const std::byte* w, const float* const* x, int64_t K, float* out,
                 int64_t ldo) {
  switch (dtype) {
    case TSR_DTYPE_F32: return dot_row<F32Format, NX>(w, x, K, out, ldo);
    case TSR_DTYPE_F16: return dot_row<F16Format, NX>(w, x, K, out, ldo);
    default: return dot_row<BF16Format, NX>(w, x, K, out, ldo);
  }
}

// Decode: each task owns a contiguous range of weight rows and streams it once. With one
// row of x it reads the four quarters of its range side by side (dot_far_rows): four
// sequential streams per thread keep more DRAM reads in flight than one (TinyLlama-shaped
// f16 decode, 2 threads: 7.5 -> 11.5 tok/s), while rows next to each other interleaved
// measured 2-3x slower. Two to four rows of x go row after row.
void matmul_decode(ThreadPool& pool, const MatmulArgs& a) {
  constexpr int64_t kGrainRows = 64;
  constexpr int kDecodeStreams = 4;
  float* out = a.out.as<float>();
  const float* x[kDecodeMaxX];
  for (int64_t n = 0; n < a.n; ++n) x[n] = a.x.row<const float>(n);
#if TESSERA_CPU_AVX512
  // bf16 rows a cache line per load (bf16_rows512.h), against x split into its even and
  // odd elements once per step.
  std::vector<float> x_split;
  if (a.n == 1 && a.w.dtype == TSR_DTYPE_BF16) {
    x_split.resize(static_cast<size_t>(a.k));
    bf16x32::split_pairs(x[0], a.k, x_split.data());
  }
#endif
  const int64_t share = std::max(kGrainRows, (a.m + pool.size() - 1) / pool.size());
  pool.parallel_for(a.m, share, [&](int64_t m_begin, int64_t m_end) {
    if (a.n == 1 && m_end - m_begin >= kDecodeStreams) {
      // Row j of each quarter of the share, side by side.
      const int64_t part = (m_end - m_begin) / kDecodeStreams;
      for (int64_t j = 0; j < part; ++j) {
        const std::byte* w[kDecodeStreams];
        float* o[kDecodeStreams];
        for (int r = 0; r < kDecodeStreams; ++r) {
          w[r] = a.w.row<const std::byte>(m_begin + r * part + j);
          o[r] = out + m_begin + r * part + j;
        }
        switch (a.w.dtype) {
          case TSR_DTYPE_F32: dot_far_rows<F32Format, kDecodeStreams>(w, x[0], a.k, o); break;
          case TSR_DTYPE_F16: dot_far_rows<F16Format, kDecodeStreams>(w, x[0], a.k, o); break;
#if TESSERA_CPU_AVX512
          default: bf16x32::dot_rows<kDecodeStreams>(w, x_split.data(), a.k, o); break;
#else
          default: dot_far_rows<BF16Format, kDecodeStreams>(w, x[0], a.k, o); break;
#endif
        }
      }
      for (int64_t m = m_begin + kDecodeStreams * part; m < m_end; ++m) {
        dot_row_any<1>(a.w.dtype, a.w.row<const std::byte>(m), x, a.k, out + m, a.m);
      }
      return;
    }
    for (int64_t m = m_begin; m < m_end; ++m) {
      const std::byte* w = a.w.row<const std::byte>(m);
      switch (a.n) {
        case 1: dot_row_any<1>(a.w.dtype, w, x, a.k, out + m, a.m); break;
        case 2: dot_row_any<2>(a.w.dtype, w, x, a.k, out + m, a.m); break;
        case 3: dot_row_any<3>(a.w.dtype, w, x, a.k, out + m, a.m); break;
        default: dot_row_any<4>(a.w.dtype, w, x, a.k, out + m, a.m); break;
      }
    }
  });
}

// Converts one weight row to f32 (dst[0:K]).
void row_to_f32(tsr_dtype dtype, const std::byte* row, int64_t K, float* dst) {
  const int64_t k_vec = K / kLanes * kLanes;
  const auto* h = reinterpret_cast<const uint16_t*>(row);
  if (dtype == TSR_DTYPE_F16) {
    for (int64_t k = 0; k < k_vec; k += kLanes) simd::store(dst + k, simd::load_f16(h + k));
    for (int64_t k = k_vec; k < K; ++k) dst[k] = F16Format::load1(row, k);
  } else {  // BF16
    for (int64_t k = 0; k < k_vec; k += kLanes) simd::store(dst + k, simd::load_bf16(h + k));
    for (int64_t k = k_vec; k < K; ++k) dst[k] = BF16Format::load1(row, k);
  }
}

// out[i * ldo + j] = dot(x[i], w[j]) for an NX x NW tile of f32 rows.
template <int NX, int NW>
void tile_f32(const float* const* x, const float* const* w, int64_t K, float* out, int64_t ldo) {
  F32x8 acc[NX][NW];
  for (int i = 0; i < NX; ++i)
    for (int j = 0; j < NW; ++j) acc[i][j] = simd::zero();
  const int64_t k_vec = K / kLanes * kLanes;
  for (int64_t k = 0; k < k_vec; k += kLanes) {
    F32x8 wv[NW];
    for (int j = 0; j < NW; ++j) wv[j] = simd::load(w[j] + k);
    for (int i = 0; i < NX; ++i) {
      const F32x8 xv = simd::load(x[i] + k);
      for (int j = 0; j < NW; ++j) acc[i][j] = simd::fma(xv, wv[j], acc[i][j]);
    }
  }
  for (int i = 0; i < NX; ++i) {
    for (int j = 0; j < NW; ++j) {
      float s = simd::hsum(acc[i][j]);
      for (int64_t k = k_vec; k < K; ++k) s += x[i][k] * w[j][k];
      out[i * ldo + j] = s;
    }
  }
}

// Dispatches a tile of nx <= kTileX rows of x and nw <= kTileW weight rows.
void tile_any(int nx, int nw, const float* const* x, const float* const* w, int64_t K, float* out,
              int64_t ldo) {
  static_assert(kTileX == 4 && kTileW == 2, "tile_any lists the tile shapes");
  switch (nx * 10 + nw) {
    case 42: return tile_f32<4, 2>(x, w, K, out, ldo);
    case 41: return tile_f32<4, 1>(x, w, K, out, ldo);
    case 32: return tile_f32<3, 2>(x, w, K, out, ldo);
    case 31: return tile_f32<3, 1>(x, w, K, out, ldo);
    case 22: return tile_f32<2, 2>(x, w, K, out, ldo);
    case 21: return tile_f32<2, 1>(x, w, K, out, ldo);
    case 12: return tile_f32<1, 2>(x, w, K, out, ldo);
    default: return tile_f32<1, 1>(x, w, K, out, ldo);
  }
}

// Prefill: each task converts a panel of kPanelRows weight rows to f32 (F32 weights are
// used in place) and multiplies every row of x by it, tile by tile.
[[maybe_unused]] void matmul_prefill(ThreadPool& pool, const MatmulArgs& a) {  // portable
  const int64_t panels = (a.m + kPanelRows - 1) / kPanelRows;
  float* out = a.out.as<float>();
  pool.parallel_for(panels, 1, [&](int64_t p_begin, int64_t p_end) {
    std::vector<float> panel;  // [kPanelRows, K] f32, reused across this task's panels
    if (a.w.dtype != TSR_DTYPE_F32) panel.resize(static_cast<size_t>(kPanelRows * a.k));
    for (int64_t p = p_begin; p < p_end; ++p) {
      const int64_t m0 = p * kPanelRows;
      const int64_t rows = std::min(kPanelRows, a.m - m0);
      const float* w[kPanelRows];
      for (int64_t r = 0; r < rows; ++r) {
        if (a.w.dtype == TSR_DTYPE_F32) {
          w[r] = a.w.row<const float>(m0 + r);
        } else {
          float* dst = panel.data() + r * a.k;
          row_to_f32(a.w.dtype, a.w.row<const std::byte>(m0 + r), a.k, dst);
          w[r] = dst;
        }
      }
      for (int64_t n0 = 0; n0 < a.n; n0 += kTileX) {
        const int nx = static_cast<int>(std::min<int64_t>(kTileX, a.n - n0));
        const float* x[kTileX];
        for (int i = 0; i < nx; ++i) x[i] = a.x.row<const float>(n0 + i);
        for (int64_t j0 = 0; j0 < rows; j0 += kTileW) {
          const int nw = static_cast<int>(std::min<int64_t>(kTileW, rows - j0));
          tile_any(nx, nw, x, w + j0, a.k, out + n0 * a.m + m0 + j0, a.m);
        }
      }
    }
  });
}

#if TESSERA_CPU_AVX2
// Prefill on AVX2 and AVX-512: a panel of kWideRows weight rows is packed k-major,
// [K][kWideRows] f32 (element k of panel row r at k * kWideRows + r), so one step of k
// loads the panel rows' elements as two vectors and meets each of kWideX rows of x
// through one broadcast: no horizontal sums, and the sums land in out as they are (a row
// of x by consecutive weight rows), 12 accumulators for 6 rows of x. AVX-512 takes 32
// weight rows (two of its 32 registers per row of x), AVX2 16. On AVX2 this replaced the f32 tiles of dot
// products (matmul_prefill): TinyLlama-shaped pp512 on an AMD EPYC (Zen 3), 2 threads,
// went f16 24.6/29.1 -> 50.5/48.6 and bf16 28.3/25.9 -> 72.0/58.1 tok/s (llama.cpp: 70.7, 50.6).
#if TESSERA_CPU_AVX512
constexpr int kWideRows = 32;
#else
constexpr int kWideRows = 16;
#endif
constexpr int kWideX = 6;

// panel[k * kWideRows + r] = w[m0 + r, k] for r < rows (rows past the matrix repeat row m0: their
// lanes are never stored, see store_panel_rows): eight rows by eight elements at a time,
// converted to f32 and transposed in registers. Converting whole rows first and reading
// them column by column took longer than the products with 64 rows of x (bench_cpu_kernels
// BM_Prefill f16, 1 thread: 39 GFLOP/s, against 87 this way).
template <class Format>
void pack_wide(const MatmulArgs& a, int64_t m0, int rows, float* panel) {
  const std::byte* src[kWideRows];
  for (int r = 0; r < kWideRows; ++r) src[r] = a.w.row<const std::byte>(m0 + (r < rows ? r : 0));
  const int64_t k_vec = a.k / kLanes * kLanes;
  for (int64_t k = 0; k < k_vec; k += kLanes) {
    for (int g = 0; g < kWideRows; g += kLanes) {
      __m256i v[kLanes];
      for (int r = 0; r < kLanes; ++r) v[r] = _mm256_castps_si256(Format::load8(src[g + r], k).v);
      simd::transpose8(v);
      for (int j = 0; j < kLanes; ++j) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(panel + (k + j) * kWideRows + g), v[j]);
      }
    }
  }
  for (int64_t k = k_vec; k < a.k; ++k) {
    for (int r = 0; r < kWideRows; ++r) panel[k * kWideRows + r] = Format::load1(src[r], k);
  }
}

// out[i * ldo + r] = dot(x[i], panel row r) for i < NX, r < rows.
#if TESSERA_CPU_AVX512
template <int NX>
void wide_tile(const float* const* x, const float* panel, int64_t K, float* out, int64_t ldo, int rows) {
  __m512 acc[NX][2];
  for (int i = 0; i < NX; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; ++k) {
    const __m512 w0 = _mm512_loadu_ps(panel + k * kWideRows);
    const __m512 w1 = _mm512_loadu_ps(panel + k * kWideRows + 16);
    for (int i = 0; i < NX; ++i) {
      const __m512 xb = _mm512_set1_ps(x[i][k]);
      acc[i][0] = _mm512_fmadd_ps(xb, w0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(xb, w1, acc[i][1]);
    }
  }
  for (int i = 0; i < NX; ++i) simd::store_panel_rows(out + i * ldo, acc[i][0], acc[i][1], rows);
}
#else
// Six rows of x always (a shorter tile repeats its first row and stores only NX): its
// twelve accumulators as named variables, which with the two panel vectors and the
// broadcast take 15 of the 16 registers. As an array, GCC 12 kept one on the stack, and
// the store-load chain through it set the pace (25 GFLOP/s on one Zen 3 core).
template <int NX>
void wide_tile(const float* const* x, const float* panel, int64_t K, float* out, int64_t ldo, int rows) {
  static_assert(NX >= 1 && NX <= 6);
  const float* x0 = x[0];
  const float* x1 = x[NX > 1 ? 1 : 0];
  const float* x2 = x[NX > 2 ? 2 : 0];
  const float* x3 = x[NX > 3 ? 3 : 0];
  const float* x4 = x[NX > 4 ? 4 : 0];
  const float* x5 = x[NX > 5 ? 5 : 0];
  __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
  __m256 a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
  for (int64_t k = 0; k < K; ++k) {
    const __m256 w0 = _mm256_loadu_ps(panel + k * kWideRows);
    const __m256 w1 = _mm256_loadu_ps(panel + k * kWideRows + 8);
    __m256 xb = _mm256_broadcast_ss(x0 + k);
    a00 = _mm256_fmadd_ps(xb, w0, a00);
    a01 = _mm256_fmadd_ps(xb, w1, a01);
    xb = _mm256_broadcast_ss(x1 + k);
    a10 = _mm256_fmadd_ps(xb, w0, a10);
    a11 = _mm256_fmadd_ps(xb, w1, a11);
    xb = _mm256_broadcast_ss(x2 + k);
    a20 = _mm256_fmadd_ps(xb, w0, a20);
    a21 = _mm256_fmadd_ps(xb, w1, a21);
    xb = _mm256_broadcast_ss(x3 + k);
    a30 = _mm256_fmadd_ps(xb, w0, a30);
    a31 = _mm256_fmadd_ps(xb, w1, a31);
    xb = _mm256_broadcast_ss(x4 + k);
    a40 = _mm256_fmadd_ps(xb, w0, a40);
    a41 = _mm256_fmadd_ps(xb, w1, a41);
    xb = _mm256_broadcast_ss(x5 + k);
    a50 = _mm256_fmadd_ps(xb, w0, a50);
    a51 = _mm256_fmadd_ps(xb, w1, a51);
  }
  simd::store_panel_rows(out, a00, a01, rows);
  if (NX > 1) simd::store_panel_rows(out + ldo, a10, a11, rows);
  if (NX > 2) simd::store_panel_rows(out + 2 * ldo, a20, a21, rows);
  if (NX > 3) simd::store_panel_rows(out + 3 * ldo, a30, a31, rows);
  if (NX > 4) simd::store_panel_rows(out + 4 * ldo, a40, a41, rows);
  if (NX > 5) simd::store_panel_rows(out + 5 * ldo, a50, a51, rows);
}
#endif

void matmul_prefill_wide(ThreadPool& pool, const MatmulArgs& a) {
  const int64_t panels = (a.m + kWideRows - 1) / kWideRows;
  float* out = a.out.as<float>();
  pool.parallel_for(panels, 1, [&](int64_t p_begin, int64_t p_end) {
    std::vector<float> panel(static_cast<size_t>(a.k * kWideRows));
    for (int64_t p = p_begin; p < p_end; ++p) {
      const int64_t m0 = p * kWideRows;
      const int rows = static_cast<int>(std::min<int64_t>(kWideRows, a.m - m0));
      switch (a.w.dtype) {
        case TSR_DTYPE_F32: pack_wide<F32Format>(a, m0, rows, panel.data()); break;
        case TSR_DTYPE_F16: pack_wide<F16Format>(a, m0, rows, panel.data()); break;
        default: pack_wide<BF16Format>(a, m0, rows, panel.data()); break;
      }
      for (int64_t n0 = 0; n0 < a.n; n0 += kWideX) {
        const float* x[kWideX];
        const int nx = static_cast<int>(std::min<int64_t>(kWideX, a.n - n0));
        for (int i = 0; i < nx; ++i) x[i] = a.x.row<const float>(n0 + i);
        float* o = out + n0 * a.m + m0;
        switch (nx) {
          case 1: wide_tile<1>(x, panel.data(), a.k, o, a.m, rows); break;
          case 2: wide_tile<2>(x, panel.data(), a.k, o, a.m, rows); break;
          case 3: wide_tile<3>(x, panel.data(), a.k, o, a.m, rows); break;
          case 4: wide_tile<4>(x, panel.data(), a.k, o, a.m, rows); break;
          case 5: wide_tile<5>(x, panel.data(), a.k, o, a.m, rows); break;
          default: wide_tile<6>(x, panel.data(), a.k, o, a.m, rows); break;
        }
      }
    }
  });
}
#endif

}  // namespace

void matmul_checked(CpuDevice& device, const MatmulArgs& a) {
  if (a.n == 0 || a.m == 0) return;
  if (kit::dtype_traits(a.w.dtype).quantized) {
    matmul_quant(device.pool(), a);
  } else if (a.n <= kDecodeMaxX) {
    matmul_decode(device.pool(), a);
  } else if (!matmul_bf16_prefill(device.pool(), a)) {
#if TESSERA_CPU_AVX2
    matmul_prefill_wide(device.pool(), a);
#else
    matmul_prefill(device.pool(), a);
#endif
  }
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
