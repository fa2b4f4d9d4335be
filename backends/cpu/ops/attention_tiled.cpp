// ATTENTION for prefill, in tiles: a task is (a run of up to kTileTokens consecutive
// tokens of one sequence, KV head), and its rows are every (token, query head of the
// group) pair. Keys go in chunks of kKeyChunk: the chunk's K is gathered transposed and
// its V row-major into scratch (converted from f16 or q8_0 once for all rows), then
//   S [rows, chunk] = Q [rows, head_dim] . Kt [head_dim, chunk]
//   O [rows, head_dim] = O * correction + exp(S - max) . V [chunk, head_dim]
// with an online softmax per row, so every score is a broadcast-FMA and no horizontal
// sum is needed. Keys a row may not see (after its position, before its window) are
// masked to -inf. The same scores as attend_range in attention_fast.cpp (softcap, then
// ALiBi); the summation order differs.
// Compiled once per instruction set (isa_target.h).
#include <algorithm>
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

using simd::F32x8;
using simd::kLanes;

constexpr int64_t kKeyChunk = 64;    // keys per chunk: columns of S, rows of V
constexpr int64_t kTileTokens = 16;  // tokens per task at most
constexpr int64_t kTileRows = 64;    // (token, head) rows per task aimed at
constexpr int kRowStep = 4;          // rows of a register tile

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

// Scratch of one task, sized for the largest one.
struct Tile {
  int64_t hd, hd_pad;                      // head_dim, rounded up to the vector width
  std::vector<float> q;                    // [rows, hd], pre-multiplied by scale
  std::vector<float> o;                    // [rows, hd_pad], unnormalised output
  std::vector<float> s;                    // [rows, kKeyChunk] scores, then weights
  std::vector<float> kt;                   // [hd, kKeyChunk] the chunk's keys, transposed
  std::vector<float> v;                    // [kKeyChunk, hd_pad] the chunk's values
  std::vector<float> max, sum;             // [rows] softmax state
  std::vector<int64_t> first, last, pos;   // [rows] the keys a row sees, and its position
  std::vector<float> row_k, row_v;         // [hd] a converted cache row
  Tile(int64_t rows, int64_t head_dim)
      : hd(head_dim), hd_pad(round_up(head_dim, kLanes)), q(rows * hd), o(rows * hd_pad),
        s(rows * kKeyChunk), kt(hd * kKeyChunk), v(kKeyChunk * hd_pad), max(rows), sum(rows),
        first(rows), last(rows), pos(rows), row_k(hd), row_v(hd) {}
};

// S[r, :] = Q[r, :] . Kt for rows r0 .. r0 + R; every column of the chunk.
template <int R>
void score_rows(Tile& t, int64_t r0) {
  constexpr int kVecs = 2;  // 16 keys per pass
  for (int64_t c0 = 0; c0 < kKeyChunk; c0 += kVecs * kLanes) {
    F32x8 acc[R][kVecs];
    for (int i = 0; i < R; ++i) {
      for (int v = 0; v < kVecs; ++v) acc[i][v] = simd::zero();
    }
    for (int64_t d = 0; d < t.hd; ++d) {
      const float* k = t.kt.data() + d * kKeyChunk + c0;
      const F32x8 k0 = simd::load(k), k1 = simd::load(k + kLanes);
      for (int i = 0; i < R; ++i) {
        const F32x8 q = simd::broadcast(t.q[(r0 + i) * t.hd + d]);
        acc[i][0] = simd::fma(q, k0, acc[i][0]);
        acc[i][1] = simd::fma(q, k1, acc[i][1]);
      }
    }
    for (int i = 0; i < R; ++i) {
      float* s = t.s.data() + (r0 + i) * kKeyChunk + c0;
      simd::store(s, acc[i][0]);
      simd::store(s + kLanes, acc[i][1]);
    }
  }
}

// O[r, :] += S[r, 0:n_keys] . V for rows r0 .. r0 + R.
template <int R>
void accumulate_rows(Tile& t, int64_t r0, int64_t n_keys) {
  for (int64_t d0 = 0; d0 < t.hd_pad; d0 += kLanes) {
    F32x8 acc[R];
    for (int i = 0; i < R; ++i) acc[i] = simd::load(t.o.data() + (r0 + i) * t.hd_pad + d0);
    for (int64_t j = 0; j < n_keys; ++j) {
      const F32x8 v = simd::load(t.v.data() + j * t.hd_pad + d0);
      for (int i = 0; i < R; ++i) acc[i] = simd::fma(simd::broadcast(t.s[(r0 + i) * kKeyChunk + j]), v, acc[i]);
    }
    for (int i = 0; i < R; ++i) simd::store(t.o.data() + (r0 + i) * t.hd_pad + d0, acc[i]);
  }
}

// Calls fn.template operator()<R>(r0) over rows [0, rows) in register tiles of kRowStep
// rows and one tail tile.
template <class Fn>
void for_row_tiles(int64_t rows, Fn&& fn) {
  int64_t r0 = 0;
  for (; r0 + kRowStep <= rows; r0 += kRowStep) fn.template operator()<kRowStep>(r0);
  switch (rows - r0) {
    case 1: fn.template operator()<1>(r0); break;
    case 2: fn.template operator()<2>(r0); break;
    case 3: fn.template operator()<3>(r0); break;
    default: break;
  }
}

// Gathers the keys p0 .. p0 + n_keys of the run's sequence: K transposed into kt, V into
// v; the columns and rows past n_keys are zero.
void gather_chunk(const AttentionArgs& a, const CacheView& k_cache, const CacheView& v_cache,
                  const int32_t* table, int kv_head, int64_t p0, int64_t n_keys, Tile& t) {
  const int64_t bs = a.p.block_size;
  for (int64_t j = 0; j < kKeyChunk; ++j) {
    float* v_dst = t.v.data() + j * t.hd_pad;
    if (j >= n_keys) {
      for (int64_t d = 0; d < t.hd; ++d) t.kt[d * kKeyChunk + j] = 0.0f;
      std::fill(v_dst, v_dst + t.hd_pad, 0.0f);
      continue;
    }
    const int64_t p = p0 + j;
    const int64_t row = static_cast<int64_t>(table[p / bs]) * bs + p % bs;
    const float* k = k_cache.span(row, kv_head, t.hd, t.row_k.data());
    for (int64_t d = 0; d < t.hd; ++d) t.kt[d * kKeyChunk + j] = k[d];
    const float* v = v_cache.span(row, kv_head, t.hd, t.row_v.data());
    std::copy(v, v + t.hd, v_dst);
    std::fill(v_dst + t.hd, v_dst + t.hd_pad, 0.0f);
  }
}

// Softcap, ALiBi and the mask on row r's scores of the chunk p0 .. p0 + n_keys, then the
// online-softmax update: the scores become weights exp(s - max), O is rescaled.
void softmax_row(const AttentionArgs& a, Tile& t, int64_t r, float slope, int64_t p0, int64_t n_keys) {
  float* s = t.s.data() + r * kKeyChunk;
  if (a.p.softcap > 0.0f) {
    for (int64_t j = 0; j < n_keys; ++j) s[j] = a.p.softcap * std::tanh(s[j] / a.p.softcap);
  }
  if (slope != 0.0f) {
    for (int64_t j = 0; j < n_keys; ++j) s[j] += slope * static_cast<float>(p0 + j - t.pos[r]);
  }
  // Keys outside [first, last] (and the padding past n_keys) weigh nothing.
  const int64_t lo = std::clamp<int64_t>(t.first[r] - p0, 0, n_keys);
  const int64_t hi = std::clamp<int64_t>(t.last[r] + 1 - p0, 0, n_keys);
  if (lo >= hi) {  // nothing visible in this chunk: weights 0, state unchanged
    std::fill(s, s + kKeyChunk, 0.0f);
    return;
  }
  std::fill(s, s + lo, -INFINITY);
  std::fill(s + hi, s + kKeyChunk, -INFINITY);
  F32x8 vmax = simd::broadcast(-INFINITY);
  for (int64_t j = 0; j < kKeyChunk; j += kLanes) vmax = simd::max(vmax, simd::load(s + j));
  float chunk_max = -INFINITY;
  {
    float lanes[kLanes];
    simd::store(lanes, vmax);
    for (float l : lanes) chunk_max = std::max(chunk_max, l);
  }
  const float new_max = std::max(t.max[r], chunk_max);
  const float correction = std::exp(t.max[r] - new_max);  // 0 on the row's first chunk
  t.sum[r] = t.sum[r] * correction + exp_weights(s, kKeyChunk, new_max);
  t.max[r] = new_max;
  if (correction != 1.0f) {
    const F32x8 c = simd::broadcast(correction);
    float* o = t.o.data() + r * t.hd_pad;
    for (int64_t d = 0; d < t.hd_pad; d += kLanes) simd::store(o + d, simd::mul(simd::load(o + d), c));
  }
}

// One task: the query heads of kv_head for the tokens of `run`.
void attend_run(const AttentionArgs& a, const CacheView& k_cache, const CacheView& v_cache,
                const std::vector<float>& slopes, TokenRun run, int kv_head, Tile& t) {
  const int64_t hd = a.p.head_dim;
  const int group = a.group;
  const int64_t rows = (run.end - run.begin) * group;
  const int32_t* positions = a.pos.as<const int32_t>();
  int64_t key_lo = INT64_MAX, key_hi = -1;
  for (int64_t i = 0; i < run.end - run.begin; ++i) {
    const int64_t tok = run.begin + i;
    const float* q_tok = a.q.row<const float>(tok) + static_cast<int64_t>(kv_head) * group * hd;
    const int64_t first = a.first_key(tok), last = positions[tok];
    key_lo = std::min(key_lo, first);
    key_hi = std::max(key_hi, last);
    for (int g = 0; g < group; ++g) {
      const int64_t r = i * group + g;
      for (int64_t d = 0; d < hd; ++d) t.q[r * hd + d] = q_tok[g * hd + d] * a.p.scale;
      t.first[r] = first;
      t.last[r] = last;
      t.pos[r] = last;
      t.max[r] = -INFINITY;
      t.sum[r] = 0.0f;
    }
  }
  std::fill(t.o.begin(), t.o.begin() + rows * t.hd_pad, 0.0f);
  const int32_t* table = a.block_tables.row<const int32_t>(a.seq.as<const int32_t>()[run.begin]);

  for (int64_t p0 = key_lo; p0 <= key_hi; p0 += kKeyChunk) {
    const int64_t n_keys = std::min(kKeyChunk, key_hi + 1 - p0);
    gather_chunk(a, k_cache, v_cache, table, kv_head, p0, n_keys, t);
    for_row_tiles(rows, [&]<int R>(int64_t r0) { score_rows<R>(t, r0); });
    for (int64_t r = 0; r < rows; ++r) {
      const float slope = slopes.empty() ? 0.0f : slopes[static_cast<size_t>(kv_head * group + r % group)];
      softmax_row(a, t, r, slope, p0, n_keys);
    }
    for_row_tiles(rows, [&]<int R>(int64_t r0) { accumulate_rows<R>(t, r0, n_keys); });
  }

  for (int64_t i = 0; i < run.end - run.begin; ++i) {
    float* out = a.out.row<float>(run.begin + i) + static_cast<int64_t>(kv_head) * group * hd;
    for (int g = 0; g < group; ++g) {
      const int64_t r = i * group + g;
      const float inv_sum = 1.0f / t.sum[r];
      for (int64_t d = 0; d < hd; ++d) out[g * hd + d] = t.o[r * t.hd_pad + d] * inv_sum;
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
