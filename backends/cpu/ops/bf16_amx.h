// Prefill MATMUL for bf16 weights on AMX-BF16 tiles. The pair panel of matmul_bf16.cpp,
// [pairs][32 rows][2] bf16, is already the layout of the right-hand tile: 16 pair rows of
// 64 bytes at a stride of 128 bytes are 32 k of the panel's first (or second) sixteen
// weight rows. Sixteen rows of x in bf16 pairs are the left-hand tile, read in place.
// One tile product adds 16 x 16 dots of 32 k:
//
//   C[i][r] += sum_k x[i][k] * w[r][k]      (bf16 products, exact in f32, added in f32)
//
// Tiles 0..3: the sums of x rows 0..15 and 16..31 against weight rows 0..15 and 16..31;
// 4, 5: the two sixteens of x; 6, 7: the two halves of the panel. Per step of 32 k, four
// tile loads feed four products. x and the panel are padded with zeros to whole steps
// (and x to whole sixteens of rows), which add nothing to the sums.
//
// Where K is a multiple of 32, the roles swap and the weights need no panel: sixteen
// weight rows read in place are the left-hand tile (64 bytes of each row, row_bytes apart),
// and x, packed once per call into [pairs][16 rows][2] per sixteen rows, the right-hand
// one. The sums come out as C[weight row][row of x] and are transposed on the way out.
// Packing a panel took as long as its products with 64 rows of x.
// Include only from matmul_bf16.cpp.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backends/cpu/ops/amx_tiles.h"
#include "backends/cpu/ops/simd.h"

#if TESSERA_CPU_AVX512
namespace tessera::cpu::TESSERA_CPU_ISA_NS::amx {

constexpr int kBf16RowsX = 32;          // rows of x per call of a product below
constexpr int64_t kBf16StepPairs = 16;  // pairs of k per tile product

inline TileConfig bf16_tiles() {
  TileConfig c;
  for (int t = 0; t < 8; ++t) {
    c.rows[t] = 16;
    c.colsb[t] = 64;
  }
  return c;
}

// Calls product.template operator()<kTwoSixteens>(n0, nx) for each kBf16RowsX rows of x
// from n0 (nx of them; kTwoSixteens: nx > 16).
template <class Product>
void over_rows_of_x(int64_t n, Product&& product) {
  for (int64_t n0 = 0; n0 < n; n0 += kBf16RowsX) {
    const int nx = static_cast<int>(std::min<int64_t>(kBf16RowsX, n - n0));
    if (nx > 16) {
      product.template operator()<true>(n0, nx);
    } else {
      product.template operator()<false>(n0, nx);
    }
  }
}

// out[i * ldo + r] for rows i < nx (<= 32) of x against panel rows r < rows (<= 32).
// x: row i's pairs at x + i * x_pairs; panel: [step_pairs][32] pairs, step_pairs a
// multiple of kBf16StepPairs; both zero past the data. bf16_tiles() must be loaded.
template <bool kTwoSixteens>
void bf16_panel_product(const uint32_t* x, int64_t x_pairs, const uint32_t* panel, int64_t step_pairs, int nx,
                        float* out, int64_t ldo, int rows) {
  const int64_t x_stride = x_pairs * static_cast<int64_t>(sizeof(uint32_t));
  constexpr int64_t kPanelStride = 32 * sizeof(uint32_t);
  _tile_zero(0);
  _tile_zero(1);
  if constexpr (kTwoSixteens) {
    _tile_zero(2);
    _tile_zero(3);
  }
  for (int64_t p = 0; p < step_pairs; p += kBf16StepPairs) {
    _tile_loadd(6, panel + p * 32, kPanelStride);
    _tile_loadd(7, panel + p * 32 + 16, kPanelStride);
    _tile_loadd(4, x + p, x_stride);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    if constexpr (kTwoSixteens) {
      _tile_loadd(5, x + 16 * x_pairs + p, x_stride);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  alignas(64) float c[4][16][16];
  _tile_stored(0, c[0], 64);
  _tile_stored(1, c[1], 64);
  if constexpr (kTwoSixteens) {
    _tile_stored(2, c[2], 64);
    _tile_stored(3, c[3], 64);
  }
  const __mmask16 low = static_cast<__mmask16>((1u << std::min(rows, 16)) - 1);
  const __mmask16 high = static_cast<__mmask16>((1u << std::max(rows - 16, 0)) - 1);
  for (int i = 0; i < nx; ++i) {
    const int t = i < 16 ? 0 : 2;
    _mm512_mask_storeu_ps(out + i * ldo, low, _mm512_load_ps(c[t][i % 16]));
    if (high != 0) _mm512_mask_storeu_ps(out + i * ldo + 16, high, _mm512_load_ps(c[t + 1][i % 16]));
  }
}

// x rows in bf16 pairs (row n's at xb + n * x_pairs; x_rows a multiple of 16, x_pairs of
// 8) into the in-place product's right-hand layout: per sixteen rows t, [x_pairs][16]
// pairs at out + t * x_pairs * 16. Eight rows by eight pairs at a time, transposed in
// registers.
inline void pack_x_tiles(const uint32_t* xb, int64_t x_rows, int64_t x_pairs, uint32_t* out) {
  for (int64_t t = 0; t < x_rows / 16; ++t) {
    for (int64_t p = 0; p < x_pairs; p += 8) {
      for (int h = 0; h < 2; ++h) {
        __m256i v[8];
        for (int r = 0; r < 8; ++r) {
          v[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb + (16 * t + 8 * h + r) * x_pairs + p));
        }
        simd::transpose8(v);
        for (int g = 0; g < 8; ++g) {
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (t * x_pairs + p + g) * 16 + 8 * h), v[g]);
        }
      }
    }
  }
}

// out[j * ldo + i] = c[i][j] for i < 16, j < nx (<= 16): a 16 x 16 tile of sums per weight
// row, stored per row of x.
inline void store_transposed(const float (*c)[16], int nx, float* out, int64_t ldo) {
  for (int i0 = 0; i0 < 16; i0 += 8) {
    for (int j0 = 0; j0 < nx; j0 += 8) {
      __m256i v[8];
      for (int r = 0; r < 8; ++r) v[r] = _mm256_castps_si256(_mm256_load_ps(c[i0 + r] + j0));
      simd::transpose8(v);
      for (int g = 0; g < 8 && j0 + g < nx; ++g) {
        _mm256_storeu_ps(out + (j0 + g) * ldo + i0, _mm256_castsi256_ps(v[g]));
      }
    }
  }
}

// out[i * ldo + r] for rows i < nx (<= 32) of x against the 32 weight rows at w (row_bytes
// apart, read in place: K a multiple of 32, `pairs` = K / 2), x_tiles from pack_x_tiles
// at x's first row. bf16_tiles() must be loaded.
template <bool kTwoSixteens>
void bf16_rows_product(const uint16_t* w, int64_t row_bytes, const uint32_t* x_tiles, int64_t pairs, int nx,
                       float* out, int64_t ldo) {
  const auto* rows = reinterpret_cast<const char*>(w);
  _tile_zero(0);
  _tile_zero(1);
  if constexpr (kTwoSixteens) {
    _tile_zero(2);
    _tile_zero(3);
  }
  for (int64_t p = 0; p < pairs; p += kBf16StepPairs) {
    _tile_loadd(4, rows + 4 * p, row_bytes);
    _tile_loadd(5, rows + 16 * row_bytes + 4 * p, row_bytes);
    _tile_loadd(6, x_tiles + p * 16, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 5, 6);
    if constexpr (kTwoSixteens) {
      _tile_loadd(7, x_tiles + (pairs + p) * 16, 64);
      _tile_dpbf16ps(2, 4, 7);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  alignas(64) float c[4][16][16];  // [x sixteen * 2 + weight sixteen][weight row][row of x]
  _tile_stored(0, c[0], 64);
  _tile_stored(1, c[1], 64);
  if constexpr (kTwoSixteens) {
    _tile_stored(2, c[2], 64);
    _tile_stored(3, c[3], 64);
  }
  for (int t = 0; t < (kTwoSixteens ? 2 : 1); ++t) {
    const int rows_x = std::min(nx - 16 * t, 16);
    for (int h = 0; h < 2; ++h) store_transposed(c[2 * t + h], rows_x, out + 16 * t * ldo + 16 * h, ldo);
  }
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::amx
#endif
