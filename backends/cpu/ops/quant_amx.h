// Prefill MATMUL for the block formats on AMX int8 tiles. The panel of quant_panel.h,
// packed without the bias, is already the tile layout of the right-hand operand: its
// 64-byte row g holds elements 4g..4g+3 of each of sixteen weight rows. Sixteen rows of
// x, read in place from their quantised blocks, are the left-hand tile. One tile
// product gives the 16 x 16 integer sums of one block (one sub-block of a K format):
//
//   C[i][r] = sum_k q_x[i][k] * level_w[r][k]       (signed x signed, or signed x unsigned)
//
// The integers equal those of the VNNI and decode kernels (theirs are biased sums with
// the bias taken off again), and the float steps per block are theirs in the same order,
// so a row of a prefill still equals that row decoded alone, bit for bit.
// Include only from matmul_quant.cpp, after quant_panel.h.
#pragma once

#include <cstdint>

#include "backends/cpu/ops/amx_tiles.h"
#include "backends/cpu/ops/quant_panel.h"

#if TESSERA_CPU_PANEL && defined(__x86_64__)
#define TESSERA_CPU_AMX 1

namespace tessera::cpu::TESSERA_CPU_ISA_NS::amx {

constexpr int kRowsX = 16;  // rows of x per tile product

// Tiles 0..2 and 3..5: x (16 rows of Sub bytes), weights (Sub / 4 rows of 64 bytes), and
// the 16 x 16 int32 sums; two sets, so that one product runs while the other's sums are
// scaled.
template <int Sub>
TileConfig int8_tiles() {
  TileConfig c;
  for (int t : {0, 3}) {
    c.rows[t] = kRowsX;
    c.colsb[t] = Sub;
    c.rows[t + 1] = Sub / 4;
    c.colsb[t + 1] = 64;
    c.rows[t + 2] = kRowsX;
    c.colsb[t + 2] = 64;
  }
  return c;
}

template <class F>
constexpr bool kSignedLevels = F::kSigned;

// Tile products of one pair of (x, weight) operands into C sets 0 and 1, stored to c.
template <class F>
inline void product_pair(const int8_t* x0, const int8_t* x1, int64_t x_stride, const uint8_t* w0, const uint8_t* w1,
                         int32_t (*c)[kRowsX][16]) {
  _tile_loadd(0, x0, x_stride);
  _tile_loadd(1, w0, 64);
  _tile_zero(2);
  _tile_loadd(3, x1, x_stride);
  _tile_loadd(4, w1, 64);
  _tile_zero(5);
  if constexpr (kSignedLevels<F>) {
    _tile_dpbssd(2, 0, 1);
    _tile_dpbssd(5, 3, 4);
  } else {
    _tile_dpbsud(2, 0, 1);
    _tile_dpbsud(5, 3, 4);
  }
  _tile_stored(2, c[0], 64);
  _tile_stored(5, c[1], 64);
}

template <class F>
inline void product_one(const int8_t* x0, int64_t x_stride, const uint8_t* w0, int32_t (*c)[16]) {
  _tile_loadd(0, x0, x_stride);
  _tile_loadd(1, w0, 64);
  _tile_zero(2);
  if constexpr (kSignedLevels<F>) {
    _tile_dpbssd(2, 0, 1);
  } else {
    _tile_dpbsud(2, 0, 1);
  }
  _tile_stored(2, c, 64);
}

inline __m512i load_row(const int32_t* c) { return _mm512_load_si512(c); }

// out[i * ldo + r] for 16 rows of x (32-element formats; x[i * blocks + b] is row i's
// block b), of which the first nx are stored, against the panel's `rows` rows.
// int8_tiles<32>() must be loaded.
template <class F>
void dot_32(const uint8_t* panel, int64_t blocks, const Q8Block* x, int nx, float* out, int64_t ldo, int rows) {
  using L = panel::Layout<F>;
  const int64_t stride = blocks * static_cast<int64_t>(sizeof(Q8Block));
  alignas(64) int32_t c[2][kRowsX][16];
  __m512 acc[kRowsX];
  for (auto& a : acc) a = _mm512_setzero_ps();
  const auto scale = [&](int64_t b, const int32_t (*cb)[16]) {
    const __m512 dw = panel::load16(panel + b * L::kBytes + L::kD);
    for (int i = 0; i < kRowsX; ++i) {
      const __m512 s = _mm512_mul_ps(dw, _mm512_set1_ps(x[i * blocks + b].d));
      acc[i] = _mm512_fmadd_ps(panel::to_f32(load_row(cb[i])), s, acc[i]);
    }
  };
  int64_t b = 0;
  for (; b + 2 <= blocks; b += 2) {
    product_pair<F>(x[b].q, x[b + 1].q, stride, panel + b * L::kBytes, panel + (b + 1) * L::kBytes, c);
    scale(b, c[0]);
    scale(b + 1, c[1]);
  }
  if (b < blocks) {
    product_one<F>(x[b].q, stride, panel + b * L::kBytes, c[0]);
    scale(b, c[0]);
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1);
  if constexpr (F::kHasMin) {  // m_w * s_x summed apart, then added, as the other kernels do
    for (int i = 0; i < nx; ++i) {
      __m512 summ = _mm512_setzero_ps();
      for (int64_t bb = 0; bb < blocks; ++bb) {
        summ = _mm512_fmadd_ps(panel::load16(panel + bb * L::kBytes + L::kM), _mm512_set1_ps(x[i * blocks + bb].s), summ);
      }
      acc[i] = _mm512_add_ps(acc[i], summ);
    }
  }
  for (int i = 0; i < nx; ++i) _mm512_mask_storeu_ps(out + i * ldo, mask, acc[i]);
}

// The same for a K format (x[i * blocks + b] is row i's super-block b). int8_tiles<Sub>().
template <class F>
void dot_k(const uint8_t* panel, int64_t blocks, const Q8KBlock* x, int nx, float* out, int64_t ldo, int rows) {
  using L = panel::Layout<F>;
  constexpr int kSub = panel::sub_elems<F>();
  const int64_t stride = blocks * static_cast<int64_t>(sizeof(Q8KBlock));
  alignas(64) int32_t c[2][kRowsX][16];
  alignas(64) float acc[kRowsX][16] = {};
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* p = panel + b * L::kBytes;
    const Q8KBlock* xb = x + b;
    __m512i isum[kRowsX];
    for (auto& s : isum) s = _mm512_setzero_si512();
    for (int s = 0; s < L::kSubs; s += 2) {
      product_pair<F>(xb->q + s * kSub, xb->q + (s + 1) * kSub, stride, p + s * kSub * 16, p + (s + 1) * kSub * 16, c);
      const __m512i sc0 = panel::load16i(p + L::kScales + s * 64), sc1 = panel::load16i(p + L::kScales + (s + 1) * 64);
      for (int i = 0; i < kRowsX; ++i) {
        isum[i] = _mm512_add_epi32(isum[i], _mm512_mullo_epi32(load_row(c[0][i]), sc0));
        isum[i] = _mm512_add_epi32(isum[i], _mm512_mullo_epi32(load_row(c[1][i]), sc1));
      }
    }
    const __m512 dw = panel::load16(p + L::kD);
    for (int i = 0; i < kRowsX; ++i) {
      const __m512 s = _mm512_mul_ps(dw, _mm512_set1_ps(xb[i * blocks].d));
      _mm512_store_ps(acc[i], _mm512_fmadd_ps(panel::to_f32(isum[i]), s, _mm512_load_ps(acc[i])));
    }
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1);
  for (int i = 0; i < nx; ++i) {
    __m512 total = _mm512_load_ps(acc[i]);
    if constexpr (F::kHasMin) {  // dmin_w * d_x * sum_s min_s sum_s(x), summed apart as the other kernels do
      __m512 summ = _mm512_setzero_ps();
      for (int64_t b = 0; b < blocks; ++b) {
        const uint8_t* p = panel + b * L::kBytes;
        const Q8KBlock& xb = x[i * blocks + b];
        const __m512i imin = panel::sum_dot<F>(p, xb);
        summ = _mm512_fnmadd_ps(_mm512_mul_ps(panel::load16(p + L::kM), _mm512_set1_ps(xb.d)), panel::to_f32(imin), summ);
      }
      total = _mm512_add_ps(total, summ);
    }
    _mm512_mask_storeu_ps(out + i * ldo, mask, total);
  }
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::amx

#else
#define TESSERA_CPU_AMX 0
#endif
