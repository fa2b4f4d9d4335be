// ATTENTION over the paged KV cache, one workgroup per (token t, query head h, split):
//   q [T, n_heads * HEAD_DIM] f32; k_cache, v_cache [n_blocks, block_size,
//   n_kv_heads * HEAD_DIM] in DTYPE (f32, f16, or q8_0 rows of whole 32-value blocks,
//   where a head may start inside a block); pos, seq i32 [T]; block_tables i32
//   [n_seqs, max_blocks]; out [T, n_heads * HEAD_DIM] f32.
// Token t of sequence seq[t] attends to positions first..pos[t] (first = 0, or
// pos - window + 1), found through its block table; query head h reads KV head
// h / (n_heads / n_kv_heads). Score = scale q.k, softcapped, plus the ALiBi bias
// slope(h) * (key - pos) when alibi_max_bias > 0. Keys are taken WG at a time, one per
// invocation, with an online softmax; each invocation then accumulates its share of the
// HEAD_DIM outputs.
// Split-KV (n_splits > 1, flash-decoding): split s of (t, h) takes only its share of
// first..pos, whole chunks of WG keys (the token's keys divided evenly, so the last
// splits of a short context get none), and writes a partial result instead of out:
// partials [n_tokens * n_heads, n_splits, HEAD_DIM + 2] f32 = (max score m, sum of
// exp(score - m), sum of exp(score - m) v[HEAD_DIM]); an empty split writes (-inf, 0, 0).
// attention_merge.comp combines them. With n_splits = 1 the workgroup writes out.
// Bad sequence ids, positions or block-table entries are reported through the error
// word (the row becomes 0; with one split a bad block-table entry only drops its key).
// A split does not report: it writes sum = -code and the bad value (as int bits) in
// place of m, and the merge reports it and writes the row as zeros, so the row is
// zeroed before the error can stop a submission.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64u;
layout(constant_id = 1) const uint DTYPE = 0u;  // of the caches: f32, f16 or q8_0
layout(constant_id = 2) const uint HEAD_DIM = 64u;

const uint DIMS_PER_INVOCATION = (HEAD_DIM + WG - 1u) / WG;

#include "attention_common.glsl"

shared float q_sh[HEAD_DIM];
shared float score_sh[WG];
shared int row_sh[WG];  // cache row of each key of the chunk; -1 when unusable
shared uint bad_found_sh;  // split-KV: a key of this workgroup had a bad block-table entry,
shared int bad_block_sh;   // this one (written only by the invocation that set bad_found_sh)

uint partial_base(uint group, uint split) { return (group * p.n_splits + split) * (HEAD_DIM + 2u); }

// Split `split` of (token, head) `group`: its partial (m, sum, acc).
void write_partial(uint group, uint split, float m, float sum, float acc[DIMS_PER_INVOCATION]) {
  const uint base = partial_base(group, split);
  const uint tid = gl_LocalInvocationID.x;
  if (tid == 0u) {
    p.partials.v[base] = m;
    p.partials.v[base + 1u] = sum;
  }
  for (uint i = 0u; i < DIMS_PER_INVOCATION; ++i) {
    const uint d = tid + i * WG;
    if (d < HEAD_DIM) p.partials.v[base + 2u + d] = acc[i];
  }
}

// Split `split` of `group` found a bad index: error `code` (1..4) with the bad value.
void write_error(uint group, uint split, uint code, int value) {
  const uint base = partial_base(group, split);
  if (gl_LocalInvocationID.x == 0u) {
    IntRef(p.partials).v[base] = value;
    p.partials.v[base + 1u] = -float(code);
  }
}

void main() {
  const float NEG_INF = uintBitsToFloat(0xff800000u);
  const uint index = flat_group_id();
  if (index >= p.n_tokens * p.n_heads * p.n_splits) return;
  const uint group = index / p.n_splits, split = index % p.n_splits;
  const bool partial = p.n_splits > 1u;
  const uint t = group / p.n_heads, h = group % p.n_heads;
  const uint tid = gl_LocalInvocationID.x;
  const uint kv_width = p.n_kv_heads * HEAD_DIM;
  const uint kv_col = (h / (p.n_heads / p.n_kv_heads)) * HEAD_DIM;
  const uint q_base = (t * p.n_heads + h) * HEAD_DIM;

  // The token's sequence and position; the same for the whole workgroup.
  const int s = p.seq.v[t];
  const int position = p.pos.v[t];
  uint code = 0u;
  int bad = 0;
  if (s < 0 || uint(s) >= p.n_seqs) {
    code = 1u; bad = s;
  } else if (position < 0) {
    code = 2u; bad = position;
  } else if (uint(position) / p.block_size >= p.max_blocks) {
    code = 3u; bad = position;
  }
  float acc[DIMS_PER_INVOCATION];
  for (uint i = 0u; i < DIMS_PER_INVOCATION; ++i) acc[i] = 0.0;
  if (code != 0u) {
    if (partial) {
      write_error(group, split, code, bad);
    } else {
      if (tid == 0u) report_error(p.status, p.call_id, code, int(t), bad);
      for (uint d = tid; d < HEAD_DIM; d += WG) p.out_.v[q_base + d] = 0.0;
    }
    return;
  }

  // This split's keys begin..end: whole chunks, the token's chunks shared out evenly.
  const int first = p.window > 0u ? max(0, position - int(p.window) + 1) : 0;
  const uint chunks = (uint(position - first) + WG) / WG;
  const uint chunks_per_split = (chunks + p.n_splits - 1u) / p.n_splits;
  const int begin = first + int(split * chunks_per_split * WG);
  const int end = min(position, begin + int(chunks_per_split * WG) - 1);
  if (begin > end) {  // a split past the end of a short context: neutral
    write_partial(group, split, NEG_INF, 0.0, acc);
    return;
  }

  for (uint d = tid; d < HEAD_DIM; d += WG) q_sh[d] = p.q.v[q_base + d];
  if (tid == 0u) bad_found_sh = 0u;
  barrier();

  const float slope = alibi_slope(h);
  const uint table = uint(s) * p.max_blocks;
  float running_max = NEG_INF;
  float total = 0.0;

  for (int base = begin; base <= end; base += int(WG)) {
    // Scores of this chunk's keys, one key per invocation.
    const int key = base + int(tid);
    float score = NEG_INF;
    int row = -1;
    if (key <= end) {
      const int block = p.block_tables.v[table + uint(key) / p.block_size];
      if (block < 0 || uint(block) >= p.n_cache_blocks) {
        if (!partial) {
          report_error(p.status, p.call_id, 4u, int(t), block);
        } else if (atomicCompSwap(bad_found_sh, 0u, 1u) == 0u) {
          bad_block_sh = block;
        }
      } else {
        row = block * int(p.block_size) + key % int(p.block_size);
        const uint k_base = uint(row) * kv_width + kv_col;
        float dot_qk = 0.0;
        for (uint d = 0u; d < HEAD_DIM; ++d) dot_qk += q_sh[d] * cache_at(p.k_cache, k_base + d);
        score = dot_qk * p.scale;
        if (p.softcap > 0.0) score = p.softcap * stable_tanh(score / p.softcap);
        score += slope * float(key - position);
      }
    }
    score_sh[tid] = score;
    row_sh[tid] = row;
    barrier();

    // Online softmax: rescale what was accumulated to the new maximum, then add the chunk.
    const uint count = min(WG, uint(end - base + 1));
    float chunk_max = NEG_INF;
    for (uint j = 0u; j < count; ++j) chunk_max = max(chunk_max, score_sh[j]);
    const float new_max = max(running_max, chunk_max);
    if (new_max > NEG_INF) {
      const float correction = exp(running_max - new_max);
      total *= correction;
      for (uint i = 0u; i < DIMS_PER_INVOCATION; ++i) acc[i] *= correction;
      for (uint j = 0u; j < count; ++j) {
        if (row_sh[j] < 0) continue;
        const float weight = exp(score_sh[j] - new_max);
        total += weight;
        const uint v_base = uint(row_sh[j]) * kv_width + kv_col;
        for (uint i = 0u; i < DIMS_PER_INVOCATION; ++i) {
          const uint d = tid + i * WG;
          if (d < HEAD_DIM) acc[i] += weight * cache_at(p.v_cache, v_base + d);
        }
      }
      running_max = new_max;
    }
    barrier();  // the chunk's shared scores are overwritten next
  }

  if (partial) {
    // The shared flag was last written before the loop's final barrier.
    if (bad_found_sh != 0u) {
      write_error(group, split, 4u, bad_block_sh);
    } else {
      write_partial(group, split, running_max, total, acc);
    }
    return;
  }
  for (uint i = 0u; i < DIMS_PER_INVOCATION; ++i) {
    const uint d = tid + i * WG;
    if (d < HEAD_DIM) p.out_.v[q_base + d] = total > 0.0 ? acc[i] / total : 0.0;
  }
}
