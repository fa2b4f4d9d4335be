// ATTENTION for prefill, one workgroup per (tile of QT consecutive tokens, query head):
// the same tensors, masks, scores and error codes as attention.comp (n_splits = 1).
//   q [T, n_heads * HEAD_DIM] f32 (the tile's QT rows of head h staged in q_sh
//   [QT, HEAD_DIM]); caches [n_blocks, block_size, n_kv_heads * HEAD_DIM] in DTYPE;
//   pos, seq i32 [T]; block_tables i32 [n_seqs, max_blocks]; out [T, n_heads * HEAD_DIM].
// The tile's valid tokens are taken one sequence at a time (all of them at once in a
// plain prefill; a tile straddling two packed sequences takes two walks). A walk covers
// the union of its tokens' key ranges first_t..pos_t, WG keys per chunk: each invocation
// reads its key's K row once and scores it against every token of the walk (a token
// outside its own range gets -inf), then each V element read serves all of them, so the
// K/V rows of a prefill are read T / QT times instead of T times.
// A bad sequence id or position zeroes that token's row; a bad block-table entry is
// reported for the first token of the walk that needs the key, and zeroes the rows of
// all tokens that need it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64u;
layout(constant_id = 1) const uint DTYPE = 0u;  // of the caches: f32, f16 or q8_0
layout(constant_id = 2) const uint HEAD_DIM = 64u;
layout(constant_id = 3) const uint QT = 8u;  // tokens per tile, at most 32 (bit masks)

const uint DIMS_PER_INVOCATION = (HEAD_DIM + WG - 1u) / WG;

#include "attention_common.glsl"

shared float q_sh[QT * HEAD_DIM];
shared float score_sh[QT * WG];  // [token of the tile, key of the chunk]
shared int row_sh[WG];           // cache row of each key of the chunk; -1 when unusable
shared uint bad_mask_sh;         // tokens of the tile that needed a bad block-table entry

bool has(uint mask, uint i) { return ((mask >> i) & 1u) != 0u; }

void write_zero_row(uint q_base) {
  for (uint d = gl_LocalInvocationID.x; d < HEAD_DIM; d += WG) p.out_.v[q_base + d] = 0.0;
}

void main() {
  const float NEG_INF = uintBitsToFloat(0xff800000u);
  const uint n_tiles = (p.n_tokens + QT - 1u) / QT;
  const uint index = flat_group_id();
  if (index >= n_tiles * p.n_heads) return;
  const uint t0 = (index / p.n_heads) * QT, h = index % p.n_heads;
  const uint tile_tokens = min(QT, p.n_tokens - t0);
  const uint tid = gl_LocalInvocationID.x;
  const uint kv_width = p.n_kv_heads * HEAD_DIM;
  const uint kv_col = (h / (p.n_heads / p.n_kv_heads)) * HEAD_DIM;

  // Each token's sequence and key range; the same for the whole workgroup.
  int seq_of[QT], first_of[QT], pos_of[QT];
  uint pending = 0u;  // valid tokens not yet attended
  for (uint i = 0u; i < QT; ++i) {
    seq_of[i] = -1; first_of[i] = 0; pos_of[i] = -1;
    if (i >= tile_tokens) continue;
    const uint t = t0 + i;
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
    if (code != 0u) {
      if (tid == 0u) report_error(p.status, p.call_id, code, int(t), bad);
      write_zero_row((t * p.n_heads + h) * HEAD_DIM);
      continue;
    }
    seq_of[i] = s;
    pos_of[i] = position;
    first_of[i] = p.window > 0u ? max(0, position - int(p.window) + 1) : 0;
    pending |= 1u << i;
  }

  for (uint i = tid; i < QT * HEAD_DIM; i += WG) {
    const uint token = i / HEAD_DIM;
    q_sh[i] = token < tile_tokens ? p.q.v[((t0 + token) * p.n_heads + h) * HEAD_DIM + i % HEAD_DIM] : 0.0;
  }
  if (tid == 0u) bad_mask_sh = 0u;
  barrier();

  const float slope = alibi_slope(h);
  while (pending != 0u) {
    // One walk: the pending tokens of the first pending token's sequence.
    const int s = seq_of[findLSB(pending)];
    uint members = 0u;
    int lo = 0x7fffffff, hi = -1;
    for (uint i = 0u; i < QT; ++i) {
      if (!has(pending, i) || seq_of[i] != s) continue;
      members |= 1u << i;
      lo = min(lo, first_of[i]);
      hi = max(hi, pos_of[i]);
    }
    pending &= ~members;

    const uint table = uint(s) * p.max_blocks;
    float acc[QT * DIMS_PER_INVOCATION];  // [token, dim share]
    float running_max[QT], total[QT];
    for (uint i = 0u; i < QT; ++i) {
      running_max[i] = NEG_INF;
      total[i] = 0.0;
      for (uint k = 0u; k < DIMS_PER_INVOCATION; ++k) acc[i * DIMS_PER_INVOCATION + k] = 0.0;
    }

    for (int base = lo; base <= hi; base += int(WG)) {
      // This invocation's key, scored against every token of the walk whose range holds it.
      const int key = base + int(tid);
      uint users = 0u;
      for (uint i = 0u; i < QT; ++i) {
        if (has(members, i) && key >= first_of[i] && key <= pos_of[i]) users |= 1u << i;
      }
      float dots[QT];
      for (uint i = 0u; i < QT; ++i) dots[i] = 0.0;
      int row = -1;
      if (users != 0u) {
        const int block = p.block_tables.v[table + uint(key) / p.block_size];
        if (block < 0 || uint(block) >= p.n_cache_blocks) {
          report_error(p.status, p.call_id, 4u, int(t0 + uint(findLSB(users))), block);
          atomicOr(bad_mask_sh, users);
        } else {
          row = block * int(p.block_size) + key % int(p.block_size);
          const uint k_base = uint(row) * kv_width + kv_col;
          for (uint d = 0u; d < HEAD_DIM; ++d) {
            const float k = cache_at(p.k_cache, k_base + d);
            for (uint i = 0u; i < QT; ++i) dots[i] += q_sh[i * HEAD_DIM + d] * k;
          }
        }
      }
      for (uint i = 0u; i < QT; ++i) {
        float score = NEG_INF;
        if (row >= 0 && has(users, i)) {
          score = dots[i] * p.scale;
          if (p.softcap > 0.0) score = p.softcap * stable_tanh(score / p.softcap);
          score += slope * float(key - pos_of[i]);
        }
        score_sh[i * WG + tid] = score;
      }
      row_sh[tid] = row;
      barrier();

      // Online softmax per token: rescale to the new maximum, then add the chunk, each V
      // element read once for all tokens.
      const uint count = min(WG, uint(hi - base + 1));
      float new_max[QT];
      for (uint i = 0u; i < QT; ++i) {
        float chunk_max = NEG_INF;
        if (has(members, i)) {
          for (uint j = 0u; j < count; ++j) chunk_max = max(chunk_max, score_sh[i * WG + j]);
        }
        new_max[i] = max(running_max[i], chunk_max);
        if (new_max[i] > NEG_INF) {
          const float correction = exp(running_max[i] - new_max[i]);
          total[i] *= correction;
          for (uint k = 0u; k < DIMS_PER_INVOCATION; ++k) acc[i * DIMS_PER_INVOCATION + k] *= correction;
          running_max[i] = new_max[i];
        }
      }
      for (uint j = 0u; j < count; ++j) {
        if (row_sh[j] < 0) continue;
        const uint v_base = uint(row_sh[j]) * kv_width + kv_col;
        float v[DIMS_PER_INVOCATION];
        for (uint k = 0u; k < DIMS_PER_INVOCATION; ++k) {
          const uint d = tid + k * WG;
          v[k] = d < HEAD_DIM ? cache_at(p.v_cache, v_base + d) : 0.0;
        }
        for (uint i = 0u; i < QT; ++i) {
          if (new_max[i] == NEG_INF) continue;  // no usable key yet (or not in this walk)
          const float weight = exp(score_sh[i * WG + j] - new_max[i]);
          total[i] += weight;
          for (uint k = 0u; k < DIMS_PER_INVOCATION; ++k) acc[i * DIMS_PER_INVOCATION + k] += weight * v[k];
        }
      }
      barrier();  // the chunk's shared scores are overwritten next
    }

    // Every flag of this walk's tokens was set before the loop's last barrier; later
    // walks only set other tokens' bits, hence the atomic read.
    const uint bad_mask = atomicOr(bad_mask_sh, 0u);
    for (uint i = 0u; i < QT; ++i) {
      if (!has(members, i)) continue;
      const uint q_base = ((t0 + i) * p.n_heads + h) * HEAD_DIM;
      const bool zero = has(bad_mask, i) || !(total[i] > 0.0);
      for (uint k = 0u; k < DIMS_PER_INVOCATION; ++k) {
        const uint d = tid + k * WG;
        if (d < HEAD_DIM) p.out_.v[q_base + d] = zero ? 0.0 : acc[i * DIMS_PER_INVOCATION + k] / total[i];
      }
    }
  }
}
