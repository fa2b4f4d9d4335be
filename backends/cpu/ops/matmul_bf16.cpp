// Prefill MATMUL for bf16 weights on AVX512-BF16 (see matmul_bf16.h). vdpbf16ps takes
// pairs of bf16 per 32-bit lane and adds both products to an f32 lane: twice the products
// of an f32 FMA per instruction, with the weights read as they are stored.
//   x [N][K] f32 -> xb [N][K2] bf16 (rounded to nearest even; K2 = K rounded up to even)
//   panel of 32 weight rows: [K2 / 2][32][2] bf16, the pair (k, k + 1) of row r at
//   (k / 2) * 64 + 2 * r, so one step over a pair of k loads the 32 rows as two vectors
//   and meets each row of x through one 32-bit broadcast.
// Where the processor has AMX-BF16 tiles (and Linux grants them), tile products take
// over, 16 x 16 x 32 per instruction (bf16_amx.h): on the same panel and x, or with whole
// panels of weight rows read in place where K is a multiple of 32.
#include "backends/cpu/ops/matmul_bf16.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include <tessera/kit/half.h>

#include "backends/cpu/amx_support.h"
#include "backends/cpu/isa.h"

#include "backends/cpu/isa_target.h"
#include "backends/cpu/ops/bf16_amx.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {
namespace {

#if TESSERA_CPU_AVX512
constexpr int kPanelRows = 32;
constexpr int kTileX = 6;  // 12 accumulators: two vectors of 16 rows per row of x

enum class Bf16Path { kWiden, kDot, kAmx };

// The best path present, or the one TESSERA_CPU_BF16 names: "f32" widens the weights
// (matmul_fast.cpp), "avx512-bf16" keeps vdpbf16ps where AMX is present; tests force each.
Bf16Path bf16_path_chosen() {
  const char* env = std::getenv("TESSERA_CPU_BF16");
  const std::string_view want = env == nullptr ? "" : env;
  if (want == "f32" || !cpu_has_avx512_bf16()) return Bf16Path::kWiden;
  if (want != "avx512-bf16" && amx_bf16_usable()) return Bf16Path::kAmx;
  return Bf16Path::kDot;
}

Bf16Path bf16_path() {
  static const Bf16Path path = bf16_path_chosen();
  return path;
}

// panel as above for weight rows [m0, m0 + rows); rows past `rows` and the pad element
// of an odd K are zero. Eight rows by eight pairs at a time, transposed in registers.
void pack_panel(const MatmulArgs& a, int64_t m0, int rows, int64_t pairs, uint32_t* panel) {
  // A full panel writes every entry below (the pad pair of an odd K included).
  if (rows < kPanelRows) std::memset(panel, 0, static_cast<size_t>(pairs * kPanelRows) * sizeof(uint32_t));
  const int64_t whole = a.k / 2 / 8 * 8;  // pairs taken eight at a time
  const int full_groups = rows / 8 * 8;
  for (int g = 0; g < full_groups; g += 8) {
    for (int64_t p = 0; p < whole; p += 8) {
      __m256i v[8];
      for (int r = 0; r < 8; ++r) {
        v[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.w.row<const uint16_t>(m0 + g + r) + 2 * p));
      }
      simd::transpose8(v);
      for (int j = 0; j < 8; ++j) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(panel + (p + j) * kPanelRows + g), v[j]);
      }
    }
  }
  for (int r = 0; r < rows; ++r) {
    const auto* w = a.w.row<const uint16_t>(m0 + r);
    for (int64_t p = r < full_groups ? whole : 0; p < a.k / 2; ++p) {
      uint32_t pair;
      std::memcpy(&pair, w + 2 * p, sizeof pair);
      panel[p * kPanelRows + r] = pair;
    }
    if (a.k % 2 != 0) panel[(pairs - 1) * kPanelRows + r] = w[a.k - 1];
  }
}

// One row of x in bf16 pairs: dst[p] = (x[2p], x[2p + 1]), the pad of an odd K zero.
void round_row(const float* x, int64_t k, uint32_t* dst) {
  int64_t i = 0;
  for (; i + 32 <= k; i += 32) {
    const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(x + i));
    _mm512_storeu_si512(dst + i / 2, (__m512i)v);  // a bit cast of the vector
  }
  auto* halves = reinterpret_cast<uint16_t*>(dst);
  for (; i < k; ++i) halves[i] = kit::f32_to_bf16(x[i]);
  if (k % 2 != 0) halves[k] = 0;
}

// out[i * ldo + r] = dot(x[i], panel row r) for i < NX, r < rows.
template <int NX>
void panel_tile(const uint32_t* const* x, const uint32_t* panel, int64_t pairs, float* out, int64_t ldo, int rows) {
  __m512 acc[NX][2];
  for (int i = 0; i < NX; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < pairs; ++p) {
    const __m512i w0 = _mm512_loadu_si512(panel + p * kPanelRows);
    const __m512i w1 = _mm512_loadu_si512(panel + p * kPanelRows + 16);
    for (int i = 0; i < NX; ++i) {
      const __m512i xb = _mm512_set1_epi32(static_cast<int>(x[i][p]));
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], (__m512bh)w0, (__m512bh)xb);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], (__m512bh)w1, (__m512bh)xb);
    }
  }
  for (int i = 0; i < NX; ++i) simd::store_panel_rows(out + i * ldo, acc[i][0], acc[i][1], rows);
}

void panel_tile_any(int nx, const uint32_t* const* x, const uint32_t* panel, int64_t pairs, float* out, int64_t ldo,
                    int rows) {
  switch (nx) {
    case 1: panel_tile<1>(x, panel, pairs, out, ldo, rows); break;
    case 2: panel_tile<2>(x, panel, pairs, out, ldo, rows); break;
    case 3: panel_tile<3>(x, panel, pairs, out, ldo, rows); break;
    case 4: panel_tile<4>(x, panel, pairs, out, ldo, rows); break;
    case 5: panel_tile<5>(x, panel, pairs, out, ldo, rows); break;
    default: panel_tile<6>(x, panel, pairs, out, ldo, rows); break;
  }
}
#endif

}  // namespace

const char* bf16_prefill_path() {
#if TESSERA_CPU_AVX512
  switch (bf16_path()) {
    case Bf16Path::kAmx: return "amx-bf16";
    case Bf16Path::kDot: return "avx512-bf16";
    default: break;
  }
#endif
  return "f32";
}

bool matmul_bf16_prefill(ThreadPool& pool, const MatmulArgs& a) {
#if TESSERA_CPU_AVX512
  const Bf16Path path = bf16_path();
  if (a.w.dtype != TSR_DTYPE_BF16 || path == Bf16Path::kWiden) return false;
  const bool amx = path == Bf16Path::kAmx;
  const int64_t pairs = (a.k + 1) / 2;
  // The tiles read whole steps of pairs and whole sixteens of rows of x: zeros past both.
  const int64_t step = amx ? amx::kBf16StepPairs : 1;
  const int64_t x_pairs = (pairs + step - 1) / step * step;
  const int64_t x_rows = amx ? (a.n + 15) / 16 * 16 : a.n;
  std::vector<uint32_t> xb(static_cast<size_t>(x_rows * x_pairs));
  pool.parallel_for(a.n, 8, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) round_row(a.x.row<const float>(n), a.k, xb.data() + n * x_pairs);
  });
  // Whole panels of weight rows are read in place where K allows (bf16_amx.h).
  const bool in_place = amx && a.k % (2 * amx::kBf16StepPairs) == 0;
  std::vector<uint32_t> x_tiles(in_place ? xb.size() : 0);
  if (in_place) {
    pool.parallel_for(x_rows / 16, 4, [&](int64_t b, int64_t e) {
      amx::pack_x_tiles(xb.data() + b * 16 * x_pairs, (e - b) * 16, x_pairs, x_tiles.data() + b * 16 * x_pairs);
    });
  }
  float* out = a.out.as<float>();
  const int64_t panels = (a.m + kPanelRows - 1) / kPanelRows;
  pool.parallel_for(panels, 1, [&](int64_t p_begin, int64_t p_end) {
    std::vector<uint32_t> panel;
    std::optional<amx::TileScope> tiles;
    if (amx) tiles.emplace(amx::bf16_tiles());
    for (int64_t p = p_begin; p < p_end; ++p) {
      const int64_t m0 = p * kPanelRows;
      const int rows = static_cast<int>(std::min<int64_t>(kPanelRows, a.m - m0));
      if (in_place && rows == kPanelRows) {
        amx::over_rows_of_x(a.n, [&]<bool kTwo>(int64_t n0, int nx) {
          amx::bf16_rows_product<kTwo>(a.w.row<const uint16_t>(m0), a.w.row_bytes(), x_tiles.data() + n0 * x_pairs,
                                       x_pairs, nx, out + n0 * a.m + m0, a.m);
        });
        continue;
      }
      panel.resize(static_cast<size_t>(x_pairs * kPanelRows));
      pack_panel(a, m0, rows, pairs, panel.data());
      if (amx) {
        amx::over_rows_of_x(a.n, [&]<bool kTwo>(int64_t n0, int nx) {
          amx::bf16_panel_product<kTwo>(xb.data() + n0 * x_pairs, x_pairs, panel.data(), x_pairs, nx,
                                        out + n0 * a.m + m0, a.m, rows);
        });
        continue;
      }
      for (int64_t n0 = 0; n0 < a.n; n0 += kTileX) {
        const uint32_t* x[kTileX];
        const int nx = static_cast<int>(std::min<int64_t>(kTileX, a.n - n0));
        for (int i = 0; i < nx; ++i) x[i] = xb.data() + (n0 + i) * pairs;
        panel_tile_any(nx, x, panel.data(), pairs, out + n0 * a.m + m0, a.m, rows);
      }
    }
  });
  return true;
#else
  (void)pool;
  (void)a;
  return false;
#endif
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
