// Prefill MATMUL for the block formats on AVX-512 VNNI: weight rows are unpacked, sixteen
// at a time, into a panel whose 64-byte vectors hold four consecutive levels of each of
// the sixteen rows (row r in int32 lane r), made unsigned by the format's bias. A row of
// x then meets the panel through one vpdpbusd per four columns with its four int8 values
// broadcast, and the sixteen rows' sums are already apart in the lanes: no horizontal
// reduction and no sign trick per block, and the unpacking is paid once per panel for
// every row of x.
//
// Per block (32-element formats):        sum_r = dpbusd(levels + bias, x) - bias * sum(x)
// Per super-block (K formats), over its sub-blocks s of 16 or 32:
//                                         isum_r = sum_s scale_{r,s} * dpbusd_s(levels + bias, x)
//                                                  - bias * sum_s scale_{r,s} * sum_s(x)
// and the mins' share sum_s min_{r,s} * sum_s(x); both sums over s of x's sums take one
// vpdpwssd per 32 elements (sum_dot) instead of a multiply per sub-block.
// The integer sums equal those of the eight-row kernels in matmul_quant.cpp and the float
// operations per block are the same, in the same order, so the outputs are equal too.
// Include only from matmul_quant.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/ops/quant_activations.h"
#include "backends/cpu/ops/quant_groups.h"
#include "backends/cpu/ops/simd.h"

#if TESSERA_CPU_AVX512
#define TESSERA_CPU_PANEL 1

namespace tessera::cpu::TESSERA_CPU_ISA_NS::panel {

constexpr int kRows = 16;  // weight rows per panel, one int32 lane each
constexpr int kTileX = 4;  // rows of x against the panel at once

template <class F>
constexpr int bias() {
  if constexpr (F::kSigned) {
    return F::kBias;
  } else {
    return 0;
  }
}

// Elements per integer scale of a K format: 32 where both halves of a chunk share it.
template <class F>
constexpr int sub_elems() {
  return std::is_same_v<F, quant::Q4_K> || std::is_same_v<F, quant::Q5_K> || std::is_same_v<F, quant::IQ4_XS> ? 32
                                                                                                              : 16;
}

// Panel bytes per block (per super-block for the K formats):
//   levels [groups][16 rows][4 bytes], then (K formats) scales [subs][16] int32 and, for a
//   K format with a min or a bias, the coefficient of x's sum over each 16 elements,
//   int16 [8][16 rows][2] (two sixteens per lane): the min, or the scale (which the bias
//   of those 16 levels meets); then d [16] f32 and m or dmin [16] f32.
template <class F>
struct Layout {
  static constexpr bool kK = quant::is_k_format<F>();
  static constexpr bool kSumCoefs = kK && (F::kHasMin || bias<F>() != 0);
  static_assert(!(F::kHasMin && bias<F>() != 0), "a min or a bias, not both");
  static constexpr int kElems = kK ? 256 : 32;
  static constexpr int kGroups = kElems / 4;
  static constexpr int kSubs = kK ? 256 / sub_elems<F>() : 0;
  static constexpr int kLevels = kGroups * 64;
  static constexpr int kScales = kLevels;                   // int32 [kSubs][16]
  static constexpr int kCoefs = kScales + kSubs * 64;       // int16 [8][16][2]
  static constexpr int kD = kCoefs + (kSumCoefs ? 8 * 64 : 0);
  static constexpr int kM = kD + 64;                        // f32 [16]
  static constexpr int kBytes = kM + (F::kHasMin ? 64 : 0);
};

// 32 levels per row of `rows` (<= 16) rows into the panel's vectors for groups
// [8 c, 8 c + 8); levels(r) gives row r's levels, already biased. Missing rows are zero.
template <class Levels>
inline void pack_chunk(uint8_t* levels_out, int c, int rows, Levels&& levels) {
  for (int half = 0; half < 2; ++half) {
    __m256i v[8];
    for (int r = 0; r < 8; ++r) {
      const int row = 8 * half + r;
      v[r] = row < rows ? levels(row) : _mm256_setzero_si256();
    }
    simd::transpose8(v);
    for (int g = 0; g < 8; ++g) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(levels_out + (8 * c + g) * 64 + 32 * half), v[g]);
    }
  }
}

// Rows [0, rows) of the weight at w (row_bytes apart), `blocks` blocks each, into panel.
// Biased: levels made unsigned for vpdpbusd; otherwise kept as the format has them (the
// AMX tiles multiply signed bytes too).
template <class F, bool Biased = true>
void pack(const uint8_t* w, int64_t row_bytes, int rows, int64_t blocks, uint8_t* panel) {
  using L = Layout<F>;
  const __m256i b8 = _mm256_set1_epi8(static_cast<char>(Biased ? bias<F>() : 0));
  for (int64_t b = 0; b < blocks; ++b) {
    uint8_t* p = panel + b * L::kBytes;
    const auto blk = [&](int r) { return w + r * row_bytes + b * F::kBytes; };
    float d[kRows] = {}, m[kRows] = {};
    if constexpr (L::kK) {
      int32_t sc[16][kRows] = {};
      int16_t coef[8][kRows][2] = {};
      for (int r = 0; r < rows; ++r) {
        int s16[16], m16[16];
        F::scales(blk(r), s16, m16);
        for (int s = 0; s < L::kSubs; ++s) sc[s][r] = s16[s * sub_elems<F>() / 16];
        for (int j = 0; j < 16; ++j) coef[j / 2][r][j % 2] = static_cast<int16_t>(F::kHasMin ? m16[j] : s16[j]);
        d[r] = F::d(blk(r));
        m[r] = F::dmin(blk(r));
      }
      for (int c = 0; c < 8; ++c) {
        pack_chunk(p, c, rows, [&](int r) { return _mm256_add_epi8(F::levels(blk(r), c), b8); });
      }
      std::memcpy(p + L::kScales, sc, L::kSubs * 64);
      if constexpr (L::kSumCoefs) std::memcpy(p + L::kCoefs, coef, sizeof coef);
    } else {
      for (int r = 0; r < rows; ++r) {
        d[r] = F::d(blk(r));
        m[r] = F::m(blk(r));
      }
      pack_chunk(p, 0, rows, [&](int r) { return _mm256_add_epi8(F::levels(blk(r)), b8); });
    }
    std::memcpy(p + L::kD, d, sizeof d);
    if constexpr (F::kHasMin) std::memcpy(p + L::kM, m, sizeof m);
  }
}

inline __m512i broadcast4(const int8_t* q) {
  int32_t v;
  std::memcpy(&v, q, sizeof v);
  return _mm512_set1_epi32(v);
}

// The sixteen rows' integer dot over groups [g0, g0 + count) with x's int8 values q.
inline __m512i dot_groups(const uint8_t* levels, int g0, int count, const int8_t* q) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  for (int g = g0; g < g0 + count; g += 2) {
    const auto* v = reinterpret_cast<const __m512i*>(levels + g * 64);
    s0 = _mm512_dpbusd_epi32(s0, _mm512_loadu_si512(v), broadcast4(q + 4 * g));
    s1 = _mm512_dpbusd_epi32(s1, _mm512_loadu_si512(v + 1), broadcast4(q + 4 * (g + 1)));
  }
  return _mm512_add_epi32(s0, s1);
}

// int32 -> f32. (The unmasked intrinsic draws a false "may be used uninitialized" from
// g++ 12's headers; the zero-masked form with every lane set is the same instruction.)
inline __m512 to_f32(__m512i v) { return _mm512_maskz_cvtepi32_ps(static_cast<__mmask16>(0xFFFF), v); }

inline __m512 load16(const uint8_t* p) { return _mm512_loadu_ps(reinterpret_cast<const float*>(p)); }
inline __m512i load16i(const uint8_t* p) { return _mm512_loadu_si512(reinterpret_cast<const __m512i*>(p)); }

// sum_j coef_{r,j} * sum_j(x) over the sixteens j of a super-block, for the sixteen rows:
// x's int16 sums over each 16 elements against the panel's coefficients, one vpdpwssd per
// two sixteens. Both halves of a sub-block of 32 carry its coefficient, so the integer
// equals sum_s coef_{r,s} * sum_s(x) over the sub-blocks.
template <class F>
inline __m512i sum_dot(const uint8_t* panel_block, const Q8KBlock& xb) {
  const uint8_t* coefs = panel_block + Layout<F>::kCoefs;
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  for (int j = 0; j < 16; j += 4) {
    int32_t x0, x1;
    std::memcpy(&x0, xb.sums + j, sizeof x0);
    std::memcpy(&x1, xb.sums + j + 2, sizeof x1);
    s0 = _mm512_dpwssd_epi32(s0, load16i(coefs + j * 32), _mm512_set1_epi32(x0));
    s1 = _mm512_dpwssd_epi32(s1, load16i(coefs + (j + 2) * 32), _mm512_set1_epi32(x1));
  }
  return _mm512_add_epi32(s0, s1);
}

// out[i * ldo + r] for NX rows of x (32-element formats) against the panel's `rows` rows.
template <class F, int NX>
void dot_32(const uint8_t* panel, int64_t blocks, const Q8Block* const* x, float* out, int64_t ldo, int rows) {
  using L = Layout<F>;
  __m512 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* p = panel + b * L::kBytes;
    const __m512 dw = load16(p + L::kD);
    for (int i = 0; i < NX; ++i) {
      const Q8Block& xb = x[i][b];
      __m512i isum = dot_groups(p, 0, 8, xb.q);
      if constexpr (bias<F>() != 0) isum = _mm512_sub_epi32(isum, _mm512_set1_epi32(bias<F>() * xb.sum));
      acc[i] = _mm512_fmadd_ps(to_f32(isum), _mm512_mul_ps(dw, _mm512_set1_ps(xb.d)), acc[i]);
      if constexpr (F::kHasMin) summ[i] = _mm512_fmadd_ps(load16(p + L::kM), _mm512_set1_ps(xb.s), summ[i]);
    }
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1);
  for (int i = 0; i < NX; ++i) _mm512_mask_storeu_ps(out + i * ldo, mask, _mm512_add_ps(acc[i], summ[i]));
}

// The same for a K format.
template <class F, int NX>
void dot_k(const uint8_t* panel, int64_t blocks, const Q8KBlock* const* x, float* out, int64_t ldo, int rows) {
  using L = Layout<F>;
  constexpr int kSubGroups = sub_elems<F>() / 4;
  __m512 acc[NX], summ[NX];
  for (int i = 0; i < NX; ++i) acc[i] = summ[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < blocks; ++b) {
    const uint8_t* p = panel + b * L::kBytes;
    __m512i isum[NX], imin[NX];
    for (int i = 0; i < NX; ++i) isum[i] = imin[i] = _mm512_setzero_si512();
    for (int s = 0; s < L::kSubs; ++s) {
      const __m512i sc = load16i(p + L::kScales + s * 64);
      for (int i = 0; i < NX; ++i) {
        const Q8KBlock& xb = x[i][b];
        isum[i] = _mm512_add_epi32(isum[i], _mm512_mullo_epi32(dot_groups(p, s * kSubGroups, kSubGroups, xb.q), sc));
      }
    }
    // The biased levels' excess, sum_s scale_s * bias * sum_s(x), taken off once per block.
    if constexpr (bias<F>() != 0) {
      for (int i = 0; i < NX; ++i) {
        isum[i] = _mm512_sub_epi32(isum[i], _mm512_mullo_epi32(sum_dot<F>(p, x[i][b]), _mm512_set1_epi32(bias<F>())));
      }
    }
    if constexpr (F::kHasMin) {
      for (int i = 0; i < NX; ++i) imin[i] = sum_dot<F>(p, x[i][b]);
    }
    const __m512 dw = load16(p + L::kD);
    for (int i = 0; i < NX; ++i) {
      const __m512 dx = _mm512_set1_ps(x[i][b].d);
      acc[i] = _mm512_fmadd_ps(to_f32(isum[i]), _mm512_mul_ps(dw, dx), acc[i]);
      if constexpr (F::kHasMin) {
        summ[i] = _mm512_fnmadd_ps(_mm512_mul_ps(load16(p + L::kM), dx), to_f32(imin[i]), summ[i]);
      }
    }
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1);
  for (int i = 0; i < NX; ++i) _mm512_mask_storeu_ps(out + i * ldo, mask, _mm512_add_ps(acc[i], summ[i]));
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS::panel

#else
#define TESSERA_CPU_PANEL 0
#endif
