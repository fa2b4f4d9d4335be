// ATTENTION for prefill, in tiles: a task is (a run of up to kTileTokens consecutive
// tokens of one sequence, KV head), and its rows are every (token, query head of the
// group) pair. The task holds its queries, scores and outputs transposed, rows along the
// vector lanes (R = rows rounded up to the lanes):
//   Qt [head_dim, R]  (scaled)      St [chunk, R] = K [chunk, head_dim] . Qt
//   Ot [head_dim, R] = Ot * correction + Vt [head_dim, chunk] . exp(St - max)
// Keys go in chunks of kKeyChunk, K and V converted to f32 rows once for all rows (from
// f16 or q8_0). Both products are one register-tiled kernel (broadcast one matrix,
// vectors of the other), and the online softmax runs on whole vectors of rows: the
// maxima, sums and corrections need no horizontal reduction. Keys a row may not see
// (after its position, before its window) are masked to -inf. The same scores as
// attend_range in attention_fast.cpp (softcap, then ALiBi); the summation order differs.
// Compiled once per instruction set (isa_target.h).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "backends/cpu/device.h"
#include "backends/cpu/isa_kernels.h"
#include "backends/cpu/ops/attention.h"

#include "backends/cpu/isa_target.h"
#include "backends/cpu/ops/attention_cache.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {
namespace {

// The vectors of rows: 16 lanes on AVX-512, simd's 8 otherwise.
#if TESSERA_CPU_AVX512
struct Vec {
  __m512 v;
};
constexpr int64_t kWidth = 16;
constexpr int kTileA = 4;  // broadcast rows of a register tile: 4 x 4 accumulators of 32 registers
inline Vec vzero() { return {_mm512_setzero_ps()}; }
inline Vec vbroadcast(float s) { return {_mm512_set1_ps(s)}; }
inline Vec vload(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void vstore(float* p, Vec a) { _mm512_storeu_ps(p, a.v); }
inline Vec vfma(Vec a, Vec b, Vec c) { return {_mm512_fmadd_ps(a.v, b.v, c.v)}; }
inline Vec vmul(Vec a, Vec b) { return {_mm512_mul_ps(a.v, b.v)}; }
inline Vec vadd(Vec a, Vec b) { return {_mm512_add_ps(a.v, b.v)}; }
inline Vec vsub(Vec a, Vec b) { return {_mm512_sub_ps(a.v, b.v)}; }
// The masked forms: GCC 12's unmasked max, extract and shift pass an undefined vector
// through and draw -Wmaybe-uninitialized.
inline Vec vmax(Vec a, Vec b) { return {_mm512_mask_max_ps(a.v, 0xFFFF, a.v, b.v)}; }
// e^x as simd::exp, on 16 lanes.
inline Vec vexp(Vec a) {
  const __m512 x0 = a.v;
  const __m512 x =
      _mm512_mask_max_ps(x0, 0xFFFF, _mm512_mask_min_ps(x0, 0xFFFF, x0, _mm512_set1_ps(88.0f)), _mm512_set1_ps(-87.0f));
  const __m512 n = _mm512_mask_roundscale_ps(x, 0xFFFF, _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i n_int = _mm512_mask_cvtps_epi32(zero, 0xFFFF, n);
  const __m512i pow2n = _mm512_mask_slli_epi32(zero, 0xFFFF, _mm512_add_epi32(n_int, _mm512_set1_epi32(127)), 23);
  const __m512 y = _mm512_mul_ps(p, _mm512_castsi512_ps(pow2n));
  const __m512 kept = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x0, _mm512_set1_ps(-87.0f), _CMP_GE_OQ), y);
  return {_mm512_mask_mov_ps(kept, _mm512_cmp_ps_mask(x0, x0, _CMP_UNORD_Q), x0)};
}
#else
using Vec = simd::F32x8;
constexpr int64_t kWidth = simd::kLanes;
constexpr int kTileA = 2;  // 2 x 4 accumulators of 16 registers
inline Vec vzero() { return simd::zero(); }
inline Vec vbroadcast(float s) { return simd::broadcast(s); }
inline Vec vload(const float* p) { return simd::load(p); }
inline void vstore(float* p, Vec a) { simd::store(p, a); }
inline Vec vfma(Vec a, Vec b, Vec c) { return simd::fma(a, b, c); }
inline Vec vmul(Vec a, Vec b) { return simd::mul(a, b); }
inline Vec vadd(Vec a, Vec b) { return simd::add(a, b); }
inline Vec vsub(Vec a, Vec b) { return simd::add(a, simd::mul(b, simd::broadcast(-1.0f))); }
inline Vec vmax(Vec a, Vec b) { return simd::max(a, b); }
inline Vec vexp(Vec a) { return simd::exp(a); }
#endif

constexpr int kTileV = 4;            // row vectors of a register tile
constexpr int64_t kKeyChunk = 64;    // keys per chunk: rows of St, columns of Vt
constexpr int64_t kTileTokens = 16;  // tokens per task at most
constexpr int64_t kTileRows = 64;    // (token, head) rows per task aimed at

// A run of tokens [begin, end) of one sequence.
struct TokenRun {
  int64_t begin, end;
};

// Cuts the tokens into runs of consecutive positions of one sequence, at most
// `max_tokens` long. Consecutive, so every key between the run's first and last visible
// one is visible to some token of it: a block-table entry the argument checks did not
// see (a gap under a window) is never read.
std::vector<TokenRun> token_runs(const AttentionArgs& a, int64_t max_tokens) {
  std::vector<TokenRun> runs;
  const int32_t* seq = a.seq.as<const int32_t>();
  const int32_t* pos = a.pos.as<const int32_t>();
  for (int64_t t = 0; t < a.n_tokens; ++t) {
    if (runs.empty() || seq[t] != seq[runs.back().begin] || pos[t] != pos[t - 1] + 1 ||
        t - runs.back().begin == max_tokens) {
      runs.push_back({t, t + 1});
    } else {
      runs.back().end = t + 1;
    }
  }
  return runs;
}

int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// One product of the task, in register tiles of TA x RV:
//   C [i, lanes of vector v] (+)= sum over k < depth of A(i, k) * B [k, lanes of v]
// A(i, k) = a[i * sa + k * sb] (broadcast), B and C rows `width` floats apart.
template <int TA, int RV, bool kAccumulate>
void product_tile(const float* a, int64_t sa, int64_t sb, int64_t depth, const float* b, int64_t width, float* c) {
  Vec acc[TA][RV];
  for (int i = 0; i < TA; ++i) {
    for (int v = 0; v < RV; ++v) acc[i][v] = kAccumulate ? vload(c + i * width + v * kWidth) : vzero();
  }
  for (int64_t k = 0; k < depth; ++k) {
    Vec bv[RV];
    for (int v = 0; v < RV; ++v) bv[v] = vload(b + k * width + v * kWidth);
    for (int i = 0; i < TA; ++i) {
      const Vec ai = vbroadcast(a[i * sa + k * sb]);
      for (int v = 0; v < RV; ++v) acc[i][v] = vfma(ai, bv[v], acc[i][v]);
    }
  }
  for (int i = 0; i < TA; ++i) {
    for (int v = 0; v < RV; ++v) vstore(c + i * width + v * kWidth, acc[i][v]);
  }
}

// Calls fn.template operator()<N>(offset, N) over [0, n) in steps of Max and one tail.
template <int Max, class Fn>
void in_steps(int64_t n, Fn&& fn) {
  int64_t i = 0;
  for (; i + Max <= n; i += Max) fn.template operator()<Max>(i);
  const int64_t left = n - i;
  if (left <= 0) return;
  [&]<int... N>(std::integer_sequence<int, N...>) {
    ((left == N + 1 ? (fn.template operator()<N + 1>(i), 0) : 0), ...);
  }(std::make_integer_sequence<int, Max - 1>{});
}

// C [n_a, width] (+)= A [n_a, depth] . B [depth, width], width a multiple of kWidth.
template <bool kAccumulate>
void product(const float* a, int64_t sa, int64_t sb, int64_t n_a, int64_t depth, const float* b, int64_t width,
             float* c) {
  in_steps<kTileA>(n_a, [&]<int TA>(int64_t i0) {
    in_steps<kTileV>(width / kWidth, [&]<int RV>(int64_t v0) {
      product_tile<TA, RV, kAccumulate>(a + i0 * sa, sa, sb, depth, b + v0 * kWidth, width,
                                         c + i0 * width + v0 * kWidth);
    });
  });
}

// Scratch of one task, sized for the largest one.
struct Tile {
  int64_t hd, width;                       // head_dim; rows rounded up to the vector width
  std::vector<float> qt;                   // [hd, width] the queries, pre-multiplied by scale
  std::vector<float> ot;                   // [hd, width] unnormalised output
  std::vector<float> st;                   // [kKeyChunk, width] scores, then weights
  std::vector<float> k, v;                 // [kKeyChunk, hd] the chunk's keys and values
  std::vector<float> max, sum;             // [width] softmax state
  std::vector<float> slope, pos;           // [width] ALiBi slope and position of each row
  std::vector<int64_t> first, last;        // [width] the keys a row sees
  std::vector<const float*> q;             // [width] each row's query
  Tile(int64_t rows, int64_t head_dim)
      : hd(head_dim), width(round_up(rows, kWidth)), qt(hd * width), ot(hd * width), st(kKeyChunk * width),
        k(kKeyChunk * hd), v(kKeyChunk * hd), max(width), sum(width), slope(width), pos(width), first(width),
        last(width), q(width) {}
};

// Converts the keys p0 .. p0 + n_keys of the run's sequence into t.k and t.v.
void gather_chunk(const AttentionArgs& a, const CacheView& k_cache, const CacheView& v_cache,
                  const int32_t* table, int kv_head, int64_t p0, int64_t n_keys, Tile& t) {
  const int64_t bs = a.p.block_size;
  for (int64_t j = 0; j < n_keys; ++j) {
    const int64_t p = p0 + j;
    const int64_t row = static_cast<int64_t>(table[p / bs]) * bs + p % bs;
    // f16 and q8_0 rows are converted straight into place; f32 ones are copied.
    float* k_dst = t.k.data() + j * t.hd;
    const float* k = k_cache.span(row, kv_head, t.hd, k_dst);
    if (k != k_dst) std::copy(k, k + t.hd, k_dst);
    float* v_dst = t.v.data() + j * t.hd;
    const float* v = v_cache.span(row, kv_head, t.hd, v_dst);
    if (v != v_dst) std::copy(v, v + t.hd, v_dst);
  }
}

// Softcap, ALiBi and the mask on the chunk's scores St [n_keys, width] of keys p0 ..
void shape_scores(const AttentionArgs& a, Tile& t, int64_t p0, int64_t n_keys, bool alibi) {
  float* st = t.st.data();
  if (a.p.softcap > 0.0f) {
    for (int64_t i = 0; i < n_keys * t.width; ++i) st[i] = a.p.softcap * std::tanh(st[i] / a.p.softcap);
  }
  if (alibi) {  // s += slope * (p0 + j - pos)
    for (int64_t r = 0; r < t.width; r += kWidth) {
      const Vec slope = vload(t.slope.data() + r);
      const Vec base = vmul(slope, vsub(vbroadcast(static_cast<float>(p0)), vload(t.pos.data() + r)));
      for (int64_t j = 0; j < n_keys; ++j) {
        float* s = st + j * t.width + r;
        vstore(s, vadd(vload(s), vfma(slope, vbroadcast(static_cast<float>(j)), base)));
      }
    }
  }
  // Keys outside [first, last]: a row's are a head and a tail of the chunk.
  for (int64_t r = 0; r < t.width; ++r) {
    const int64_t lo = std::clamp<int64_t>(t.first[r] - p0, 0, n_keys);
    const int64_t hi = std::clamp<int64_t>(t.last[r] + 1 - p0, lo, n_keys);
    for (int64_t j = 0; j < lo; ++j) st[j * t.width + r] = -INFINITY;
    for (int64_t j = hi; j < n_keys; ++j) st[j * t.width + r] = -INFINITY;
  }
}

// The online-softmax step on every row at once: the chunk's scores become weights
// e^(s - max), the sums and Ot are rescaled to the new maxima.
void softmax_chunk(Tile& t, int64_t n_keys) {
  for (int64_t r = 0; r < t.width; r += kWidth) {
    Vec chunk_max = vbroadcast(-INFINITY);
    for (int64_t j = 0; j < n_keys; ++j) chunk_max = vmax(chunk_max, vload(t.st.data() + j * t.width + r));
    const Vec old_max = vload(t.max.data() + r);
    // A row that has seen nothing yet keeps -inf; its shift is then finite, so every
    // e^(-inf - shift) is 0, never NaN.
    const Vec new_max = vmax(old_max, chunk_max);
    const Vec shift = vmax(new_max, vbroadcast(-FLT_MAX));
    const Vec correction = vexp(vsub(old_max, shift));
    Vec sum = vmul(vload(t.sum.data() + r), correction);
    for (int64_t j = 0; j < n_keys; ++j) {
      float* s = t.st.data() + j * t.width + r;
      const Vec w = vexp(vsub(vload(s), shift));
      vstore(s, w);
      sum = vadd(sum, w);
    }
    vstore(t.sum.data() + r, sum);
    vstore(t.max.data() + r, new_max);
    for (int64_t d = 0; d < t.hd; ++d) {
      float* o = t.ot.data() + d * t.width + r;
      vstore(o, vmul(vload(o), correction));
    }
  }
}

// One task: the query heads of kv_head for the tokens of `run`.
void attend_run(const AttentionArgs& a, const CacheView& k_cache, const CacheView& v_cache,
                const std::vector<float>& slopes, TokenRun run, int kv_head, Tile& t) {
  const int64_t hd = a.p.head_dim;
  const int group = a.group;
  const int64_t rows = (run.end - run.begin) * group;
  const int64_t width = round_up(rows, kWidth);
  t.width = width;
  const int32_t* positions = a.pos.as<const int32_t>();
  int64_t key_lo = INT64_MAX, key_hi = -1;
  for (int64_t r = 0; r < width; ++r) {  // padding rows see nothing
    t.first[r] = 0;
    t.last[r] = -1;
    t.slope[r] = 0.0f;
    t.pos[r] = 0.0f;
  }
  for (int64_t i = 0; i < run.end - run.begin; ++i) {
    const int64_t tok = run.begin + i;
    const float* q_tok = a.q.row<const float>(tok) + static_cast<int64_t>(kv_head) * group * hd;
    const int64_t first = a.first_key(tok), last = positions[tok];
    key_lo = std::min(key_lo, first);
    key_hi = std::max(key_hi, last);
    for (int g = 0; g < group; ++g) {
      const int64_t r = i * group + g;
      t.q[r] = q_tok + g * hd;
      t.first[r] = first;
      t.last[r] = last;
      t.pos[r] = static_cast<float>(last);
      if (!slopes.empty()) t.slope[r] = slopes[static_cast<size_t>(kv_head * group + g)];
    }
  }
  for (int64_t d = 0; d < hd; ++d) {  // Qt, row by row of the transpose: its stores are contiguous
    float* qt = t.qt.data() + d * width;
    for (int64_t r = 0; r < rows; ++r) qt[r] = t.q[r][d] * a.p.scale;
    std::fill(qt + rows, qt + width, 0.0f);
  }
  std::fill(t.max.begin(), t.max.begin() + width, -INFINITY);
  std::fill(t.sum.begin(), t.sum.begin() + width, 0.0f);
  std::fill(t.ot.begin(), t.ot.begin() + hd * width, 0.0f);
  const int32_t* table = a.block_tables.row<const int32_t>(a.seq.as<const int32_t>()[run.begin]);

  for (int64_t p0 = key_lo; p0 <= key_hi; p0 += kKeyChunk) {
    const int64_t n_keys = std::min(kKeyChunk, key_hi + 1 - p0);
    gather_chunk(a, k_cache, v_cache, table, kv_head, p0, n_keys, t);
    // St [n_keys, width] = K [n_keys, hd] . Qt [hd, width]
    product<false>(t.k.data(), hd, 1, n_keys, hd, t.qt.data(), width, t.st.data());
    shape_scores(a, t, p0, n_keys, !slopes.empty());
    softmax_chunk(t, n_keys);
    // Ot [hd, width] += Vt [hd, n_keys] . St [n_keys, width]; Vt (d, j) is V [j, d]
    product<true>(t.v.data(), 1, hd, hd, n_keys, t.st.data(), width, t.ot.data());
  }

  for (int64_t i = 0; i < run.end - run.begin; ++i) {
    float* out = a.out.row<float>(run.begin + i) + static_cast<int64_t>(kv_head) * group * hd;
    for (int g = 0; g < group; ++g) {
      const int64_t r = i * group + g;
      const float inv_sum = 1.0f / t.sum[r];
      for (int64_t d = 0; d < hd; ++d) out[g * hd + d] = t.ot[d * width + r] * inv_sum;
    }
  }
}

}  // namespace

bool attention_tiled(CpuDevice& device, const AttentionArgs& a) {
  const int64_t run_tokens = std::clamp<int64_t>(kTileRows / a.group, 1, kTileTokens);
  const std::vector<TokenRun> runs = token_runs(a, run_tokens);
  // Worth it when runs hold several tokens: K and V are gathered once for all of them.
  if (runs.empty() || a.n_tokens < 2 * static_cast<int64_t>(runs.size())) return false;
  int64_t longest = 0;
  for (const TokenRun& r : runs) longest = std::max(longest, r.end - r.begin);

  const CacheView k_cache(a.k_cache, a.p.head_dim), v_cache(a.v_cache, a.p.head_dim);
  const std::vector<float> slopes = alibi_slopes(a.p);
  const int64_t n_runs = static_cast<int64_t>(runs.size());
  const int64_t n_kv = a.p.n_kv_heads;
  // The last runs see the most keys: they go first, so the chunks the threads claim
  // last are the cheap ones.
  device.pool().parallel_for(n_runs * n_kv, 1, [&](int64_t begin, int64_t end) {
    Tile tile(longest * a.group, a.p.head_dim);
    for (int64_t task = begin; task < end; ++task) {
      const TokenRun run = runs[static_cast<size_t>(n_runs - 1 - task / n_kv)];
      attend_run(a, k_cache, v_cache, slopes, run, static_cast<int>(task % n_kv), tile);
    }
  });
  return true;
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
