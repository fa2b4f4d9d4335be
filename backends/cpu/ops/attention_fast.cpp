// Optimised ATTENTION. A task is (token, KV head, key range): it holds the `group` query
// heads sharing the KV head, so each K and V row is read (and converted from f16 or
// dequantised from q8_0) once for all of them. Keys go in chunks with a running max and
// sum per head (online softmax). When there are fewer (token, KV head) pairs than
// threads (decode), each token's keys are split across tasks and the partial softmaxes
// merged (split-KV). ALiBi adds slope(head) * (key - pos) to each score.
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

constexpr int64_t kKeyChunk = 64;           // keys scored before the softmax state is updated
constexpr int64_t kMinKeysPerSplit = 128;   // a split-KV part is worth a task from this size
constexpr int64_t kMinKeysPerBalancingSplit = 32;  // ... and one that evens out the threads' shares
constexpr int64_t kMaxBalancingSplits = 4;
constexpr int64_t kPrefetchKeys = 8;        // rows fetched ahead of the one being read

float dot(const float* a, const float* b, int64_t n) {
  F32x8 acc0 = simd::zero(), acc1 = simd::zero();
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    acc0 = simd::fma(simd::load(a + i), simd::load(b + i), acc0);
    acc1 = simd::fma(simd::load(a + i + kLanes), simd::load(b + i + kLanes), acc1);
  }
  for (; i + kLanes <= n; i += kLanes) acc0 = simd::fma(simd::load(a + i), simd::load(b + i), acc0);
  float s = simd::hsum(simd::add(acc0, acc1));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// y[0:n] += w * x[0:n]
void add_scaled(float* y, float w, const float* x, int64_t n) {
  const F32x8 vw = simd::broadcast(w);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) simd::store(y + i, simd::fma(vw, simd::load(x + i), simd::load(y + i)));
  for (; i < n; ++i) y[i] += w * x[i];
}

// scores[j] = q . k[j] for n_keys keys, eight at a time: eight dot products side by side,
// reduced together.
void score_keys(const float* q, const float* const* k, int64_t n_keys, int64_t hd, float* scores) {
  int64_t j = 0;
  for (; j + kLanes <= n_keys; j += kLanes) {
    F32x8 acc[kLanes];
    for (auto& v : acc) v = simd::zero();
    int64_t d = 0;
    for (; d + kLanes <= hd; d += kLanes) {
      const F32x8 qv = simd::load(q + d);
      for (int jj = 0; jj < kLanes; ++jj) acc[jj] = simd::fma(qv, simd::load(k[j + jj] + d), acc[jj]);
    }
    simd::store(scores + j, simd::hsum8(acc));
    for (; d < hd; ++d) {
      for (int jj = 0; jj < kLanes; ++jj) scores[j + jj] += q[d] * k[j + jj][d];
    }
  }
  for (; j < n_keys; ++j) scores[j] = dot(q, k[j], hd);
}

// acc[0:hd] += sum_j w[j] v[j][0:hd], the accumulators in registers across the keys.
void accumulate_values(float* acc, const float* w, const float* const* v, int64_t n_keys, int64_t hd) {
  int64_t d = 0;
  for (; d + 4 * kLanes <= hd; d += 4 * kLanes) {
    F32x8 a0 = simd::load(acc + d), a1 = simd::load(acc + d + kLanes);
    F32x8 a2 = simd::load(acc + d + 2 * kLanes), a3 = simd::load(acc + d + 3 * kLanes);
    for (int64_t j = 0; j < n_keys; ++j) {
      const F32x8 wj = simd::broadcast(w[j]);
      const float* vj = v[j] + d;
      a0 = simd::fma(wj, simd::load(vj), a0);
      a1 = simd::fma(wj, simd::load(vj + kLanes), a1);
      a2 = simd::fma(wj, simd::load(vj + 2 * kLanes), a2);
      a3 = simd::fma(wj, simd::load(vj + 3 * kLanes), a3);
    }
    simd::store(acc + d, a0);
    simd::store(acc + d + kLanes, a1);
    simd::store(acc + d + 2 * kLanes, a2);
    simd::store(acc + d + 3 * kLanes, a3);
  }
  for (; d + kLanes <= hd; d += kLanes) {
    F32x8 a = simd::load(acc + d);
    for (int64_t j = 0; j < n_keys; ++j) a = simd::fma(simd::broadcast(w[j]), simd::load(v[j] + d), a);
    simd::store(acc + d, a);
  }
  for (; d < hd; ++d) {
    float t = acc[d];
    for (int64_t j = 0; j < n_keys; ++j) t += w[j] * v[j][d];
    acc[d] = t;
  }
}

// Softmax state of one query head over a key range: out = acc / sum, with every weight
// taken relative to max.
struct HeadState {
  float* acc;  // [head_dim]
  float max;
  float sum;
};

// Per-task scratch, sized once per parallel chunk.
struct Scratch {
  std::vector<float> q;             // [group, head_dim], pre-multiplied by scale
  std::vector<float> acc;           // [group, head_dim], unnormalised output
  std::vector<float> scores;        // [group, kKeyChunk]
  std::vector<float> max, sum;      // [group]
  std::vector<float> k_chunk, v_chunk;        // [kKeyChunk, head_dim] f16 / q8_0 conversions
  std::vector<const float*> k_rows, v_rows;   // [kKeyChunk] the chunk's keys and values as f32
  std::vector<int64_t> rows;                  // [kKeyChunk] cache rows of the chunk's keys
  Scratch(int group, int64_t hd)
      : q(group * hd), acc(group * hd), scores(group * kKeyChunk), max(group), sum(group),
        k_chunk(kKeyChunk * hd), v_chunk(kKeyChunk * hd), k_rows(kKeyChunk), v_rows(kKeyChunk),
        rows(kKeyChunk) {}
};

struct Problem {
  const AttentionArgs& a;
  CacheView k, v;
  int64_t splits;             // key-range parts per (token, KV head)
  std::vector<float> slopes;  // [n_heads] ALiBi slopes; empty without ALiBi
};


// Attends the group of query heads on `kv_head` of token t to keys [key_begin, key_end);
// leaves acc, max and sum in the scratch (max = -inf and sum = 0 for an empty range).
void attend_range(const Problem& pb, int64_t t, int kv_head, int64_t key_begin, int64_t key_end,
                  Scratch& s) {
  const AttentionArgs& a = pb.a;
  const int64_t hd = a.p.head_dim;
  const int g_count = a.group;
  const float softcap = a.p.softcap;
  const int64_t position = a.pos.as<const int32_t>()[t];
  // ALiBi slopes of the group's query heads kv_head * group + g; null without ALiBi.
  const float* slopes =
      pb.slopes.empty() ? nullptr : pb.slopes.data() + static_cast<int64_t>(kv_head) * g_count;
  for (int g = 0; g < g_count; ++g) {
    const float* q = a.q.row<const float>(t) + (static_cast<int64_t>(kv_head) * g_count + g) * hd;
    for (int64_t d = 0; d < hd; ++d) s.q[g * hd + d] = q[d] * a.p.scale;
    s.max[g] = -INFINITY;
    s.sum[g] = 0.0f;
  }
  std::fill(s.acc.begin(), s.acc.end(), 0.0f);

  for (int64_t p0 = key_begin; p0 < key_end; p0 += kKeyChunk) {
    const int64_t n_keys = std::min(kKeyChunk, key_end - p0);
    for (int64_t j = 0; j < n_keys; ++j) s.rows[j] = a.cache_row(t, p0 + j);
    // The chunk's K and V rows as f32: in place for an f32 cache, converted otherwise.
    for (int64_t j = 0; j < n_keys; ++j) {
      if (j + kPrefetchKeys < n_keys) {
        pb.k.prefetch(s.rows[j + kPrefetchKeys], kv_head);
        pb.v.prefetch(s.rows[j + kPrefetchKeys], kv_head);
      }
      s.k_rows[j] = pb.k.span(s.rows[j], kv_head, hd, s.k_chunk.data() + j * hd);
      s.v_rows[j] = pb.v.span(s.rows[j], kv_head, hd, s.v_chunk.data() + j * hd);
    }
    // scores[g, j] = (scale q_g) . k_{p0 + j}, softcapped, plus ALiBi.
    for (int g = 0; g < g_count; ++g) {
      float* sc = s.scores.data() + g * kKeyChunk;
      score_keys(s.q.data() + g * hd, s.k_rows.data(), n_keys, hd, sc);
      if (softcap > 0.0f) {
        for (int64_t j = 0; j < n_keys; ++j) sc[j] = softcap * std::tanh(sc[j] / softcap);
      }
      if (slopes) {
        for (int64_t j = 0; j < n_keys; ++j) sc[j] += slopes[g] * static_cast<float>(p0 + j - position);
      }
    }
    // New running max per head; rescale what was accumulated under the old one.
    // Whole vectors of scores: the padding up to a multiple of the lanes weighs exp(-inf) = 0.
    const int64_t n_padded = (n_keys + kLanes - 1) / kLanes * kLanes;
    for (int g = 0; g < g_count; ++g) {
      float* sc = s.scores.data() + g * kKeyChunk;
      std::fill(sc + n_keys, sc + n_padded, -INFINITY);
      const float new_max = std::max(s.max[g], *std::max_element(sc, sc + n_keys));
      const float correction = std::exp(s.max[g] - new_max);  // 0 on the first chunk
      s.sum[g] = s.sum[g] * correction + exp_weights(sc, n_padded, new_max);
      s.max[g] = new_max;
      if (correction != 1.0f) {
        float* acc = s.acc.data() + g * hd;
        for (int64_t d = 0; d < hd; ++d) acc[d] *= correction;
      }
    }
    // acc_g += weight[g, j] * v_{p0 + j}
    for (int g = 0; g < g_count; ++g) {
      accumulate_values(s.acc.data() + g * hd, s.scores.data() + g * kKeyChunk, s.v_rows.data(), n_keys, hd);
    }
  }
}

// Part `split` of `splits` of token t's key range first..pos (contiguous, near equal).
std::pair<int64_t, int64_t> key_part(const AttentionArgs& a, int64_t t, int64_t split, int64_t splits) {
  const int64_t first = a.first_key(t);
  const int64_t count = a.pos.as<const int32_t>()[t] - first + 1;
  return {first + count * split / splits, first + count * (split + 1) / splits};
}

// How many parts to split each token's keys into. Enough tasks for every thread, but no
// part shorter than kMinKeysPerSplit keys; and, from kMinKeysPerBalancingSplit keys, as
// many as even out the threads' shares: 3 KV heads (SmolLM2) on 2 threads are 2 + 1
// tasks, and one thread waited out a third of every decode attention; split in two,
// they are 3 + 3.
int64_t choose_splits(const AttentionArgs& a, int n_threads) {
  const int64_t pairs = a.n_tokens * a.p.n_kv_heads;
  const bool even = pairs % n_threads == 0;
  if (pairs == 0 || n_threads <= 1 || (pairs >= 2 * n_threads && (even || pairs >= 4 * n_threads))) return 1;
  int64_t longest = 0;
  for (int64_t t = 0; t < a.n_tokens; ++t) {
    longest = std::max<int64_t>(longest, a.pos.as<const int32_t>()[t] - a.first_key(t) + 1);
  }
  const int64_t wanted = pairs >= 2 * n_threads ? 1 : (2 * n_threads + pairs - 1) / pairs;
  int64_t splits = std::clamp<int64_t>(longest / kMinKeysPerSplit, 1, wanted);
  if (even) return splits;
  // Else the split count up to kMaxBalancingSplits whose tasks take the fewest rounds
  // per pair's work, ceil(pairs * s / n_threads) / s; the smallest of equals.
  const auto rounds = [&](int64_t s) { return (pairs * s + n_threads - 1) / n_threads; };
  const int64_t most = std::clamp<int64_t>(longest / kMinKeysPerBalancingSplit, 1, kMaxBalancingSplits);
  for (int64_t s = splits + 1; s <= most; ++s) {
    if (rounds(s) * splits < rounds(splits) * s) splits = s;
  }
  return splits;
}

// Writes out[t, head] = acc / sum for the heads of one task.
void write_heads(const AttentionArgs& a, int64_t t, int kv_head, const Scratch& s) {
  const int64_t hd = a.p.head_dim;
  for (int g = 0; g < a.group; ++g) {
    float* out = a.out.row<float>(t) + (static_cast<int64_t>(kv_head) * a.group + g) * hd;
    const float inv_sum = 1.0f / s.sum[g];
    for (int64_t d = 0; d < hd; ++d) out[d] = s.acc[g * hd + d] * inv_sum;
  }
}

// Split-KV: partials [task, group, head_dim + 2] hold (acc, max, sum) per query head;
// merged per head with weights exp(max_part - max_all).
void attention_split(ThreadPool& pool, const Problem& pb) {
  const AttentionArgs& a = pb.a;
  const int64_t hd = a.p.head_dim;
  const int64_t stride = hd + 2;  // per query head: acc[hd], max, sum
  const int64_t n_tasks = a.n_tokens * a.p.n_kv_heads * pb.splits;
  std::vector<float> partials(static_cast<size_t>(n_tasks * a.group * stride));
  pool.parallel_for(n_tasks, 1, [&](int64_t begin, int64_t end) {
    Scratch scratch(a.group, hd);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t split = task % pb.splits;
      const int64_t pair = task / pb.splits;
      const int64_t t = pair / a.p.n_kv_heads;
      const int kv_head = static_cast<int>(pair % a.p.n_kv_heads);
      const auto [key_begin, key_end] = key_part(a, t, split, pb.splits);
      attend_range(pb, t, kv_head, key_begin, key_end, scratch);
      for (int g = 0; g < a.group; ++g) {
        float* part = partials.data() + (task * a.group + g) * stride;
        std::copy(scratch.acc.begin() + g * hd, scratch.acc.begin() + (g + 1) * hd, part);
        part[hd] = scratch.max[g];
        part[hd + 1] = scratch.sum[g];
      }
    }
  });
  std::vector<float> merged(static_cast<size_t>(hd));
  for (int64_t pair = 0; pair < a.n_tokens * a.p.n_kv_heads; ++pair) {
    const int64_t t = pair / a.p.n_kv_heads;
    const int kv_head = static_cast<int>(pair % a.p.n_kv_heads);
    for (int g = 0; g < a.group; ++g) {
      auto part = [&](int64_t split) { return partials.data() + ((pair * pb.splits + split) * a.group + g) * stride; };
      float max_all = -INFINITY;
      for (int64_t sp = 0; sp < pb.splits; ++sp) max_all = std::max(max_all, part(sp)[hd]);
      float sum_all = 0.0f;
      std::fill(merged.begin(), merged.end(), 0.0f);
      for (int64_t sp = 0; sp < pb.splits; ++sp) {
        if (part(sp)[hd + 1] == 0.0f) continue;  // empty part
        const float w = std::exp(part(sp)[hd] - max_all);
        sum_all += w * part(sp)[hd + 1];
        add_scaled(merged.data(), w, part(sp), hd);
      }
      float* out = a.out.row<float>(t) + (static_cast<int64_t>(kv_head) * a.group + g) * hd;
      for (int64_t d = 0; d < hd; ++d) out[d] = merged[d] / sum_all;
    }
  }
}

}  // namespace

void attention_checked(CpuDevice& device, const AttentionArgs& a) {
  const Problem pb{a, CacheView(a.k_cache, a.p.head_dim), CacheView(a.v_cache, a.p.head_dim),
                   choose_splits(a, device.n_threads()), alibi_slopes(a.p)};
  if (pb.splits > 1) {
    attention_split(device.pool(), pb);
    return;
  }
  if (attention_tiled(device, a)) return;
  device.pool().parallel_for(a.n_tokens * a.p.n_kv_heads, 1, [&](int64_t begin, int64_t end) {
    Scratch scratch(a.group, a.p.head_dim);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t t = task / a.p.n_kv_heads;
      const int kv_head = static_cast<int>(task % a.p.n_kv_heads);
      attend_range(pb, t, kv_head, a.first_key(t), a.pos.as<const int32_t>()[t] + 1, scratch);
      write_heads(a, t, kv_head, scratch);
    }
  });
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS

#include "backends/cpu/isa_target_end.h"
